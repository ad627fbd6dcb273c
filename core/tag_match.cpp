// Linear queues: matching cost grows with outstanding receives, which MPI programs keep
// short; a bucketed matcher can replace this behind the same interface.
#include "core/tag_match.h"

#include "core/request.h"

namespace torus::core {

Unexpected* UnexpectedPool::get() {
  if (free_.empty()) {
    all_.push_back(std::make_unique<Unexpected>());
    return all_.back().get();
  }
  Unexpected* u = free_.back();
  free_.pop_back();
  PayloadBuffer keep = std::move(u->data);
  if (keep.capacity() > kKeepBytes) large_kept_ -= keep.capacity();
  *u = Unexpected();
  u->data = std::move(keep);
  return u;
}

void UnexpectedPool::put(Unexpected* u) noexcept {
  const size_t cap = u->data.capacity();
  if (cap > kKeepBytes) {
    if (large_kept_ + cap <= kKeepLargeBytes) large_kept_ += cap;
    else u->data.release();
  }
  free_.push_back(u);
}

RequestImpl* TagMatcher::match_posted(Tag msg_tag) noexcept {
  for (RequestImpl* r = posted_.front(); r != nullptr; r = r->next) {
    if (tag_matches(msg_tag, r->tag, r->mask)) {
      posted_.remove(r);
      return r;
    }
  }
  return nullptr;
}

void TagMatcher::post(RequestImpl* req) noexcept { posted_.push_back(req); }

bool TagMatcher::unpost(RequestImpl* req) noexcept {
  for (RequestImpl* r = posted_.front(); r != nullptr; r = r->next) {
    if (r == req) {
      posted_.remove(r);
      return true;
    }
  }
  return false;
}

Unexpected* TagMatcher::match_unexpected(Tag tag, Tag mask, bool remove) noexcept {
  for (Unexpected* u = unexpected_.front(); u != nullptr; u = u->next) {
    if (tag_matches(u->tag, tag, mask)) {
      if (remove) unexpected_.remove(u);
      return u;
    }
  }
  return nullptr;
}

}  // namespace torus::core
