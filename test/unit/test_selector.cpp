// Selector: tables cover every size, follow the cost model, and obey the overrides.
#include <doctest/doctest.h>

#include "protocols/selector.h"

using namespace torus;
using namespace torus::proto;

namespace {

tl::IfaceAttr shm_like() {
  tl::IfaceAttr a;
  a.caps.am_short = a.caps.am_bcopy = a.caps.get_zcopy = a.caps.put_zcopy = true;
  a.limits.max_short = 112;
  a.limits.max_bcopy = 8192;
  a.limits.max_get = a.limits.max_put = SIZE_MAX;
  a.am_cost = {100, 20, 10e9, false};
  a.rma_cost = {1500, 50, 20e9, false};
  a.rkey_size = 48;
  return a;
}

void check_covers(const ProtoTable& t) {
  auto r = t.ranges();
  REQUIRE(!r.empty());
  CHECK(r.front().min == 0);
  CHECK(r.back().max == SIZE_MAX);
  for (size_t i = 1; i < r.size(); ++i) CHECK(r[i].min == r[i - 1].max + 1);
}

}  // namespace

TEST_CASE("default table: short, bcopy, then rendezvous") {
  tl::IfaceAttr a = shm_like();
  LaneInfo lanes[] = {{"shm", &a}};
  ProtoTable t = build_tag_table(lanes, 0, 0, SelectorConfig{}, SendKind::Any);
  check_covers(t);
  CHECK(t.lookup(0).proto == ProtoId::EagerShort);
  CHECK(t.lookup(104).proto == ProtoId::EagerShort);
  CHECK(t.lookup(105).proto == ProtoId::EagerBcopy);
  CHECK(t.lookup(64 << 20).proto == ProtoId::RndvGet);
  // The switch to rendezvous is where the model's two lines cross.
  size_t cross = 0;
  for (auto& r : t.ranges())
    if (r.proto == ProtoId::RndvGet) cross = r.min;
  SelectorConfig cfg;
  LaneInfo& am = lanes[0];
  CHECK(estimate_ns(ProtoId::RndvGet, cross, am, &am, cfg, SendKind::Any) <=
        estimate_ns(ProtoId::EagerBcopy, cross, am, &am, cfg, SendKind::Any));
  CHECK(estimate_ns(ProtoId::RndvGet, cross - 1, am, &am, cfg, SendKind::Any) >=
        estimate_ns(ProtoId::EagerBcopy, cross - 1, am, &am, cfg, SendKind::Any));
}

TEST_CASE("sync table keeps room for the larger header") {
  tl::IfaceAttr a = shm_like();
  LaneInfo lanes[] = {{"shm", &a}};
  ProtoTable t = build_tag_table(lanes, 0, 0, SelectorConfig{}, SendKind::Sync);
  check_covers(t);
  CHECK(t.lookup(88).proto == ProtoId::EagerShort);
  CHECK(t.lookup(89).proto == ProtoId::EagerBcopy);
}

TEST_CASE("TORUS_RNDV_THRESH moves the switch exactly") {
  tl::IfaceAttr a = shm_like();
  LaneInfo lanes[] = {{"shm", &a}};
  SelectorConfig cfg;
  cfg.rndv_thresh = 1000;
  ProtoTable t = build_tag_table(lanes, 0, 0, cfg, SendKind::Any);
  check_covers(t);
  CHECK(t.lookup(999).proto == ProtoId::EagerBcopy);
  CHECK(t.lookup(1000).proto == ProtoId::RndvGet);
  cfg.rndv_thresh = 0;
  t = build_tag_table(lanes, 0, 0, cfg, SendKind::Any);
  CHECK(t.lookup(0).proto == ProtoId::RndvGet);
  CHECK(t.ranges().size() == 1);
}

TEST_CASE("TORUS_PROTO forces a protocol wherever it is usable") {
  tl::IfaceAttr a = shm_like();
  LaneInfo lanes[] = {{"shm", &a}};
  SelectorConfig cfg;
  cfg.forced = true;
  cfg.forced_proto = ProtoId::RndvPut;
  ProtoTable t = build_tag_table(lanes, 0, 0, cfg, SendKind::Any);
  REQUIRE(t.ranges().size() == 1);
  CHECK(t.lookup(5).proto == ProtoId::RndvPut);
  cfg.forced_proto = ProtoId::EagerShort;  // usable only up to max_short
  t = build_tag_table(lanes, 0, 0, cfg, SendKind::Any);
  check_covers(t);
  CHECK(t.lookup(104).proto == ProtoId::EagerShort);
  CHECK(t.lookup(105).proto != ProtoId::EagerShort);
}

TEST_CASE("a message sent alone switches to rendezvous sooner by the rma lane's stream extra") {
  tl::IfaceAttr a = shm_like();
  a.rma_cost = {300, 300, 20e9, false};
  a.rma_stream_extra_ns = 700;
  LaneInfo lanes[] = {{"shm", &a}};
  const ProtoTable any = build_tag_table(lanes, 0, 0, SelectorConfig{}, SendKind::Any);
  const ProtoTable alone = build_tag_table(lanes, 0, 0, SelectorConfig{}, SendKind::Alone);
  check_covers(alone);
  // The lines cross where the model says: eager 100 + 20/fragment + b/10, rendezvous
  // 120 + 300 + 300 + b/20 ns (+ 700 among others).
  const size_t lone_cross = alone.first_rndv(), any_cross = any.first_rndv();
  CHECK(lone_cross > 11000);
  CHECK(lone_cross < 12500);
  CHECK(any_cross > 24000);
  CHECK(any_cross < 26000);
  CHECK(alone.lookup(lone_cross - 1).proto == ProtoId::EagerBcopy);
  CHECK(alone.lookup(lone_cross).proto == ProtoId::RndvGet);
  CHECK(any.lookup(lone_cross).proto == ProtoId::EagerBcopy);

  // Without a stream extra (tcp, ofi) the two tables are the same.
  a.rma_stream_extra_ns = 0;
  CHECK(build_tag_table(lanes, 0, 0, SelectorConfig{}, SendKind::Any).first_rndv() ==
        build_tag_table(lanes, 0, 0, SelectorConfig{}, SendKind::Alone).first_rndv());
  // Nor with TORUS_RNDV_THRESH set: the user's threshold holds for every send.
  a.rma_stream_extra_ns = 700;
  SelectorConfig cfg;
  cfg.rndv_thresh = 20000;
  CHECK(build_tag_table(lanes, 0, 0, cfg, SendKind::Alone).first_rndv() == 20000);
  CHECK(build_tag_table(lanes, 0, 0, cfg, SendKind::Any).first_rndv() == 20000);
}

TEST_CASE("no RMA lane: eager for every size") {
  tl::IfaceAttr a = shm_like();
  a.caps.get_zcopy = a.caps.put_zcopy = false;
  LaneInfo lanes[] = {{"tcp", &a}};
  ProtoTable t = build_tag_table(lanes, 0, -1, SelectorConfig{}, SendKind::Any);
  check_covers(t);
  CHECK(t.lookup(SIZE_MAX - 1).proto == ProtoId::EagerBcopy);
}

TEST_CASE("protocol names round-trip") {
  for (ProtoId p : {ProtoId::EagerShort, ProtoId::EagerBcopy, ProtoId::RndvGet, ProtoId::RndvPut}) {
    ProtoId q;
    REQUIRE(proto_from_name(proto_name(p), &q));
    CHECK(q == p);
  }
  ProtoId q;
  CHECK_FALSE(proto_from_name("eager", &q));
}

TEST_CASE("eager stops at the transport's max_eager where a rendezvous can go") {
  tl::IfaceAttr a = shm_like();
  a.am_cost = {100, 20, 25e9, false};  // eager cheaper than the rendezvous at every size
  a.rma_cost = {2000, 300, 20e9, false};
  LaneInfo lanes[] = {{"shm", &a}};
  CHECK(build_tag_table(lanes, 0, 0, SelectorConfig{}, SendKind::Alone).first_rndv() == SIZE_MAX);
  a.limits.max_eager = 256 << 10;
  for (SendKind k : {SendKind::Any, SendKind::Alone, SendKind::Sync}) {
    const ProtoTable t = build_tag_table(lanes, 0, 0, SelectorConfig{}, k);
    check_covers(t);
    CHECK(t.first_rndv() == (256u << 10) + 1);
    CHECK(t.lookup(256 << 10).proto == ProtoId::EagerBcopy);
  }
  // Without a rendezvous lane eager is all there is.
  const ProtoTable no_rma = build_tag_table(lanes, 0, -1, SelectorConfig{}, SendKind::Any);
  CHECK(no_rma.first_rndv() == SIZE_MAX);
  CHECK(no_rma.lookup(16u << 20).proto == ProtoId::EagerBcopy);
  // The user's threshold and forced protocol go past it.
  SelectorConfig cfg;
  cfg.rndv_thresh = 1 << 20;
  CHECK(build_tag_table(lanes, 0, 0, cfg, SendKind::Any).first_rndv() == (1u << 20));
  SelectorConfig forced;
  forced.forced = true;
  forced.forced_proto = ProtoId::EagerBcopy;
  CHECK(build_tag_table(lanes, 0, 0, forced, SendKind::Any).lookup(4u << 20).proto ==
        ProtoId::EagerBcopy);
}
