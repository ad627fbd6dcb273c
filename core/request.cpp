// Request pool: chunks never move, so a request's address and wire id stay valid.
#include "core/request.h"

#include <cstring>

namespace torus::core {

const RequestState RequestPool::kFresh{};
const proto::OpState RequestPool::kFreshOp{};

void RequestPool::grow() {
  auto chunk = std::make_unique<RequestImpl[]>(kChunk);
  uint32_t base = static_cast<uint32_t>(chunks_.size() * kChunk);
  for (size_t i = kChunk; i-- > 0;) {
    chunk[i].index = base + static_cast<uint32_t>(i);
    chunk[i].next = free_;
    free_ = &chunk[i];
  }
  chunks_.push_back(std::move(chunk));
}

void RequestPool::drop_registrations() noexcept {
  for (auto& chunk : chunks_)
    for (size_t i = 0; i < kChunk; ++i) chunk[i].mr.reset();
}

RequestImpl* RequestPool::find(uint64_t id) const noexcept {
  uint32_t index = static_cast<uint32_t>(id);
  uint32_t gen = static_cast<uint32_t>(id >> 32);
  size_t chunk = index / kChunk;
  if (chunk >= chunks_.size()) return nullptr;
  RequestImpl* r = &chunks_[chunk][index % kChunk];
  if (r->generation != gen || r->kind == ReqKind::Free) return nullptr;
  return r;
}

}  // namespace torus::core
