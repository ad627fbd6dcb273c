// Unguessable 64-bit secrets (rkeys) from the kernel's CSPRNG, fetched in batches: a
// rendezvous registers its buffer for every message, and one getrandom() per registration
// cost more than the rest of it. Not thread-safe: one pool per registration table.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/base/status.h"

namespace torus {

class SecretPool final {
 public:
  // IoError only when the kernel refuses (seccomp, or its pool not yet initialised).
  Result<uint64_t> next();

 private:
  std::array<uint64_t, 64> batch_{};
  size_t left_ = 0;
};

}  // namespace torus
