// The measured eager/rendezvous choice (protocols/proto_tuner.h): the sizes it decides, its
// half-octave buckets, each starting from the cost model's choice, and an endpoint that
// sends a stream through it, across the probe that switches protocols, byte for byte.
#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "protocols/proto_tuner.h"
#include "test/unit/two_workers.h"

using namespace torus;
using namespace torus::proto;

namespace {

tl::IfaceAttr shm_like(size_t max_eager) {
  tl::IfaceAttr a;
  a.caps.am_short = a.caps.am_bcopy = a.caps.get_zcopy = a.caps.put_zcopy = true;
  a.limits.max_short = 296;
  a.limits.max_bcopy = 8192;
  a.limits.max_eager = max_eager;
  a.limits.max_get = a.limits.max_put = SIZE_MAX;
  a.am_cost = {100, 20, 10e9, false};
  a.rma_cost = {1500, 50, 20e9, false};
  a.rkey_size = 48;
  return a;
}

}  // namespace

TEST_CASE("proto tuner: half-octave buckets") {
  CHECK(ProtoTuner::bucket(4096) == 24);
  CHECK(ProtoTuner::bucket(6143) == 24);
  CHECK(ProtoTuner::bucket(6144) == 25);
  CHECK(ProtoTuner::bucket(8191) == 25);
  CHECK(ProtoTuner::bucket(8192) == 26);
  for (unsigned b = 20; b < 40; ++b) {
    CHECK(ProtoTuner::bucket(ProtoTuner::bucket_start(b)) == b);
    CHECK(ProtoTuner::bucket(ProtoTuner::bucket_start(b) - 1) == b - 1);
  }
}

TEST_CASE("proto tuner: the band of sizes it decides") {
  tl::IfaceAttr a = shm_like(256 << 10);
  LaneInfo lane{"shm", &a};
  SUBCASE("an eager cap: from 4 KiB to 32 KiB, against a get") {
    const TuneBand b = tune_band(lane, &lane, SelectorConfig{}, 20000);
    CHECK(b.lo == 4096);
    CHECK(b.hi == (32 << 10) + 1);
    CHECK(b.rndv == ProtoId::RndvGet);
  }
  SUBCASE("a cap below the band's top ends it") {
    tl::IfaceAttr c = shm_like(16 << 10);
    LaneInfo small{"shm", &c};
    CHECK(tune_band(small, &small, SelectorConfig{}, 20000).hi == (16 << 10) + 1);
  }
  SUBCASE("the user's protocol or threshold: nothing") {
    SelectorConfig forced;
    forced.forced = true;
    forced.forced_proto = ProtoId::EagerBcopy;
    CHECK(tune_band(lane, &lane, forced, 20000).lo >= tune_band(lane, &lane, forced, 20000).hi);
    SelectorConfig thresh;
    thresh.rndv_thresh = 8192;
    CHECK(tune_band(lane, &lane, thresh, 8192).lo >= tune_band(lane, &lane, thresh, 8192).hi);
  }
  SUBCASE("no rendezvous lane, or no get and no put: nothing") {
    CHECK(tune_band(lane, nullptr, SelectorConfig{}, SIZE_MAX).hi == 0);
    tl::IfaceAttr n = shm_like(256 << 10);
    n.caps.get_zcopy = n.caps.put_zcopy = false;
    LaneInfo none{"shm", &n};
    CHECK(tune_band(none, &none, SelectorConfig{}, SIZE_MAX).hi == 0);
  }
  SUBCASE("no cap (tcp): within 4x of the model's crossover, where that is in range") {
    tl::IfaceAttr t = shm_like(0);
    LaneInfo tcp{"tcp", &t};
    const TuneBand near = tune_band(tcp, &tcp, SelectorConfig{}, 16384);
    CHECK(near.lo == 4096);
    CHECK(near.hi == (32 << 10) + 1);
    const TuneBand far = tune_band(tcp, &tcp, SelectorConfig{}, 142500);
    CHECK(far.lo >= far.hi);
    const TuneBand never = tune_band(tcp, &tcp, SelectorConfig{}, SIZE_MAX);
    CHECK(never.lo >= never.hi);
  }
}

TEST_CASE("proto tuner: each size starts from the cost model's choice") {
  tl::IfaceAttr a = shm_like(256 << 10);
  LaneInfo lanes[] = {{"shm", &a}};
  SelectorConfig cfg;
  cfg.rndv_thresh = 10000;  // a model that sends 10000 B and up by rendezvous
  const ProtoTable model = build_tag_table(lanes, 0, 0, cfg, SendKind::Any);
  const ProtoTuner t({4096, (32 << 10) + 1, ProtoId::RndvGet}, model);
  CHECK(t.in_band(4096));
  CHECK_FALSE(t.in_band(4095));
  CHECK(t.in_band(32 << 10));
  CHECK_FALSE(t.in_band((32 << 10) + 1));
  CHECK_FALSE(t.at(4096).winner());
  CHECK_FALSE(t.at(8191).winner());
  CHECK(t.at(12288).winner());  // its bucket starts at 12288, above the threshold
  CHECK(t.at(32768).winner());
  CHECK(t.describe(ProtoId::RndvGet).empty());  // nothing measured yet
}

TEST_CASE("proto tuner: a stream of 16 KiB sends crosses eager and rendezvous intact") {
  torus::test::TwoWorkers w;
  // The first probe runs two epochs of each protocol (and two untimed ones), so this many
  // sends go by both whatever the clock says.
  constexpr int kN = 8 * static_cast<int>(ProtoTuner::kEpochSends);
  constexpr size_t kLen = 16 << 10;
  std::vector<std::byte> out(kLen), in(kLen);
  for (int i = 0; i < kN; ++i) {
    for (size_t j = 0; j < kLen; ++j) out[j] = static_cast<std::byte>((j * 7 + i) & 0xff);
    std::fill(in.begin(), in.end(), std::byte{0});
    Request* rr = nullptr;
    Request* sr = nullptr;
    const bool unexpected = i % 3 == 0;  // some arrive before their receive is posted
    if (!unexpected)
      REQUIRE(w.b->tag_recv(in.data(), kLen, static_cast<Tag>(i), kTagMaskFull, &rr) ==
              Status::InProgress);
    const Status s = w.ep->tag_send(out.data(), kLen, static_cast<Tag>(i), &sr);
    REQUIRE(!is_error(s));
    if (unexpected) {
      w.a->progress();
      REQUIRE(!is_error(w.b->tag_recv(in.data(), kLen, static_cast<Tag>(i), kTagMaskFull, &rr)));
    }
    for (int spins = 0; (rr != nullptr && !rr->completed()) || (sr != nullptr && !sr->completed());
         ++spins) {
      w.a->progress();
      w.b->progress();
      REQUIRE(spins < 10'000'000);
    }
    if (rr != nullptr) {
      CHECK(rr->status() == Status::Ok);
      rr->release();
    }
    if (sr != nullptr) {
      CHECK(sr->status() == Status::Ok);
      sr->release();
    }
    REQUIRE(in == out);
  }
  // Both protocols ran timed epochs: the endpoint reports a rate for each.
  const std::string d = w.ep->describe();
  CAPTURE(d);
  CHECK(d.find("8192 .. 32768, not synchronous: eager_bcopy or rndv_get, as measured") ==
        std::string::npos);  // the band starts at 4 KiB
  CHECK(d.find("4096 .. 32768, not synchronous") != std::string::npos);
  const size_t line = d.find("from 16384 B: eager_bcopy ");
  REQUIRE(line != std::string::npos);
  CHECK(d.find(" 0.00 GB/s", line) == std::string::npos);
}

TEST_CASE("proto tuner: TORUS_PROTO_TUNE=n leaves the choice to the cost model") {
  torus::test::TwoWorkers w({{"TORUS_PROTO_TUNE", "n"}});
  CHECK(w.ep->describe().find("as measured") == std::string::npos);
}
