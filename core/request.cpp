// Request pool: chunks never move, so a request's address and wire id stay valid.
#include "core/request.h"

#include <cstring>

namespace torus::core {

RequestImpl* RequestPool::get(WorkerImpl* worker) {
  if (free_ == nullptr) {
    auto chunk = std::make_unique<RequestImpl[]>(kChunk);
    uint32_t base = static_cast<uint32_t>(chunks_.size() * kChunk);
    for (size_t i = kChunk; i-- > 0;) {
      chunk[i].index = base + static_cast<uint32_t>(i);
      chunk[i].next = free_;
      free_ = &chunk[i];
    }
    chunks_.push_back(std::move(chunk));
  }
  RequestImpl* r = free_;
  free_ = r->next;
  // put() emptied the owning members; the rest starts afresh. Copied from a constant so the
  // compiler emits vector stores: for the bare `= RequestState{}` gcc chose `rep stos`,
  // whose start-up cost was a tenth of a small receive's time in a VM.
  static const RequestState kFresh{};
  std::memcpy(static_cast<RequestState*>(r), &kFresh, sizeof(RequestState));
  ++r->generation;
  r->worker = worker;
  ++in_use_;
  return r;
}

void RequestPool::put(RequestImpl* r) {
  r->kind = ReqKind::Free;
  r->mr.reset();
  r->am_header.clear();
  r->peer_rkey.clear();
  r->next = free_;
  free_ = r;
  --in_use_;
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
