// Registered regions: the owner's table (private copy for its own checks, shared copy in the
// segment for peers) and the rkey checks both sides run before any byte moves.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/base/secret_pool.h"
#include "core/base/status.h"
#include "transports/shm/shm_wire.h"

namespace torus::shm {

// Unpacks a remote key: InvalidParam for the wrong size (local misuse), AccessDenied when it
// is not one of ours (bad magic: forged or corrupted).
Status unpack_rkey(std::span<const std::byte> packed, PackedRkey* out) noexcept;

// True when [addr, addr + len) lies inside [base, base + base_len), without overflow.
constexpr bool range_inside(uint64_t addr, uint64_t len, uint64_t base, uint64_t base_len) {
  return addr >= base && len <= base_len && addr - base <= base_len - len;
}

// Initiator side: checks a key against a peer's shared table (a seqlock read). AccessDenied
// for a stale, forged, out-of-range or under-privileged key.
Status check_remote_rkey(const RegionSlot* table, uint32_t slots, const PackedRkey& key,
                         uint64_t addr, uint64_t len, uint32_t right) noexcept;

class RegionTable final {
 public:
  RegionTable() = default;
  RegionTable(RegionSlot* shared, uint32_t slots);

  // Takes a free slot; NoResource when all kRegionSlots are in use.
  Result<PackedRkey> add(uintptr_t addr, size_t len, uint32_t access);
  void remove(uint32_t slot) noexcept;
  // Owner side: the same check as check_remote_rkey, against the private copy, which peers
  // cannot scribble on.
  Status check(const PackedRkey& key, uint64_t addr, uint64_t len, uint32_t right) const noexcept;
  // Live regions peers may read: a rendezvous send registers its buffer until the receiver
  // has it, so nonzero means a peer is (or is about to be) getting from us.
  uint32_t readable() const noexcept { return readable_; }

 private:
  struct Entry {
    uint64_t addr = 0;
    uint64_t len = 0;
    uint64_t secret = 0;
    uint32_t access = 0;
    uint32_t generation = 0;  // even; the live key's value while registered
    bool live = false;
  };

  RegionSlot* shared_ = nullptr;
  std::vector<Entry> local_;
  std::vector<uint32_t> free_;  // slots, popped from the back
  uint32_t readable_ = 0;
  SecretPool secrets_;
};

}  // namespace torus::shm
