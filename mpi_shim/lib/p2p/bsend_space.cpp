// First-fit ranges of the attached buffer (bsend_space.h). The list stays short: it holds one
// range per buffered message still in flight, plus the free gaps between them.
#include "mpi_shim/lib/p2p/bsend_space.h"

#include "core/base/log.h"

namespace torus::mpi {

void BsendSpace::reset(size_t capacity) {
  ranges_.clear();
  if (capacity > 0) ranges_.push_back({0, capacity, false});
}

std::optional<size_t> BsendSpace::take(size_t len) {
  for (size_t i = 0; i < ranges_.size(); ++i) {
    Range& r = ranges_[i];
    if (r.used || r.len < len) continue;
    const size_t offset = r.offset;
    if (r.len > len) {
      Range rest{offset + len, r.len - len, false};
      r.len = len;
      r.used = true;
      ranges_.insert(ranges_.begin() + static_cast<std::ptrdiff_t>(i) + 1, rest);
    } else {
      r.used = true;
    }
    return offset;
  }
  return std::nullopt;
}

void BsendSpace::give_back(size_t offset) {
  size_t i = 0;
  while (i < ranges_.size() && ranges_[i].offset != offset) ++i;
  TORUS_ASSERT(i < ranges_.size() && ranges_[i].used);
  ranges_[i].used = false;
  if (i + 1 < ranges_.size() && !ranges_[i + 1].used) {
    ranges_[i].len += ranges_[i + 1].len;
    ranges_.erase(ranges_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  }
  if (i > 0 && !ranges_[i - 1].used) {
    ranges_[i - 1].len += ranges_[i].len;
    ranges_.erase(ranges_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace torus::mpi
