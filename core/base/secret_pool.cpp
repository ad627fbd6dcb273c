#include "core/base/secret_pool.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace torus {

Result<uint64_t> SecretPool::next() {
  while (left_ == 0) {
    // A PRNG would not do: a secret guards memory against any process that can reach us.
    const ssize_t n = ::getrandom(batch_.data(), sizeof(batch_), 0);
    if (n < 0 && errno != EINTR)
      return make_error(Status::IoError, std::string("getrandom: ") + std::strerror(errno));
    if (n > 0) left_ = static_cast<size_t>(n) / sizeof(uint64_t);
  }
  return batch_[--left_];
}

}  // namespace torus
