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

TEST_CASE("the unexpected pool recycles objects and small payload buffers") {
  UnexpectedPool pool;
  Unexpected* a = pool.get();
  a->tag = 99;
  a->data.assign(1000, std::byte{1});
  const std::byte* buf = a->data.data();
  pool.put(a);
  Unexpected* b = pool.get();
  CHECK(b == a);
  CHECK(b->tag == 0);  // fields reset
  CHECK(b->data.empty());
  b->data.assign(1000, std::byte{2});
  CHECK(b->data.data() == buf);  // same allocation reused
  b->data.assign(1 << 20, std::byte{3});
  pool.put(b);  // large buffers are not kept
  CHECK(pool.get()->data.capacity() == 0);
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
