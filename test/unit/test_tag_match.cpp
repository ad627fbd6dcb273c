// Tag matching: masks, oldest-first order, unexpected queue, cancel.
#include <doctest/doctest.h>

#include "core/request.h"
#include "core/tag_match.h"

using namespace torus;
using namespace torus::core;

namespace {
RequestImpl make_recv(Tag tag, Tag mask) {
  RequestImpl r;
  r.kind = ReqKind::Recv;
  r.tag = tag;
  r.mask = mask;
  return r;
}
}  // namespace

TEST_CASE("masks") {
  CHECK(tag_matches(0x1234, 0x1234, kTagMaskFull));
  CHECK_FALSE(tag_matches(0x1235, 0x1234, kTagMaskFull));
  CHECK(tag_matches(0x12ff, 0x1200, ~Tag{0xff}));
  CHECK(tag_matches(0xdead, 0, 0));  // full wildcard
}

TEST_CASE("posted receives match oldest first") {
  TagMatcher m;
  RequestImpl a = make_recv(0x100, ~Tag{0xff});  // wildcard on the low byte
  RequestImpl b = make_recv(0x105, kTagMaskFull);
  m.post(&a);
  m.post(&b);
  CHECK(m.match_posted(0x105) == &a);  // both match; the older wins
  CHECK(m.match_posted(0x105) == &b);
  CHECK(m.match_posted(0x105) == nullptr);
  CHECK(m.posted_count() == 0);
}

TEST_CASE("unexpected messages keep arrival order and probe does not consume") {
  UnexpectedPool pool;
  TagMatcher m;
  Unexpected* u1 = pool.get();
  u1->tag = 7;
  Unexpected* u2 = pool.get();
  u2->tag = 7;
  Unexpected* u3 = pool.get();
  u3->tag = 8;
  m.add_unexpected(u1);
  m.add_unexpected(u2);
  m.add_unexpected(u3);
  CHECK(m.match_unexpected(8, kTagMaskFull, false) == u3);
  CHECK(m.unexpected_count() == 3);
  Unexpected* got = m.match_unexpected(0, 0, true);
  CHECK(got == u1);
  pool.put(got);
  got = m.match_unexpected(7, kTagMaskFull, true);
  CHECK(got == u2);
  pool.put(got);
  CHECK(m.unexpected_count() == 1);
}

TEST_CASE("the unexpected pool recycles objects and payload buffers") {
  UnexpectedPool pool;
  Unexpected* a = pool.get();
  a->tag = 99;
  a->data.reserve_discard(1000);
  const std::byte* buf = a->data.data();
  pool.put(a);
  Unexpected* b = pool.get();
  CHECK(b == a);
  CHECK(b->tag == 0);  // fields reset
  CHECK(b->data.capacity() == 1000);
  b->data.reserve_discard(1000);
  CHECK(b->data.data() == buf);  // same allocation reused
  b->data.reserve_discard(256 * 1024);  // grows
  CHECK(b->data.capacity() == 256 * 1024);
  pool.put(b);  // a large buffer is kept within the budget
  CHECK(pool.large_bytes_kept() == 256 * 1024);
  Unexpected* c = pool.get();
  CHECK(c->data.capacity() == 256 * 1024);
  CHECK(pool.large_bytes_kept() == 0);  // held by a live message, not the free list
  pool.put(c);
}

TEST_CASE("the unexpected pool keeps large buffers only up to its budget") {
  UnexpectedPool pool;
  constexpr size_t kBig = 1024 * 1024;
  constexpr size_t n = UnexpectedPool::kKeepLargeBytes / kBig + 2;
  std::vector<Unexpected*> live;
  for (size_t i = 0; i < n; ++i) {
    live.push_back(pool.get());
    live.back()->data.reserve_discard(kBig);
  }
  for (Unexpected* u : live) pool.put(u);
  CHECK(pool.large_bytes_kept() == UnexpectedPool::kKeepLargeBytes);
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) kept += pool.get()->data.capacity() == kBig ? 1 : 0;
  CHECK(kept == UnexpectedPool::kKeepLargeBytes / kBig);
  // Small buffers do not count against the budget.
  Unexpected* s = pool.get();
  s->data.reserve_discard(UnexpectedPool::kKeepBytes);
  pool.put(s);
  CHECK(pool.large_bytes_kept() == 0);
}

TEST_CASE("unpost removes only posted receives") {
  TagMatcher m;
  RequestImpl a = make_recv(1, kTagMaskFull);
  RequestImpl b = make_recv(2, kTagMaskFull);
  m.post(&a);
  CHECK(m.unpost(&a));
  CHECK_FALSE(m.unpost(&a));
  CHECK_FALSE(m.unpost(&b));
  CHECK(m.posted_count() == 0);
}
