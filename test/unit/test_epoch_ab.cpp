// Unit tests of the measured two-way choice (core/base/epoch_ab.h) in the mode that reads the
// clock at epoch boundaries only, on a simulated clock: which operations need the time, the
// probe's order with untimed warm-up epochs, a first mode given by the caller, cycles that
// grow faster when the winner is clearly faster, and overlong epochs run again. The mode
// with a time per operation is covered through the coop policy (test_shm_coop_policy.cpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "core/base/epoch_ab.h"

using torus::EpochAb;
using torus::EpochAbParams;

namespace {

constexpr EpochAbParams kBoundary{.epoch_ops = 4,
                                  .probe_epochs = 2,
                                  .warm_epochs = 1,
                                  .cycle_epochs = 8,
                                  .max_cycle_epochs = 64,
                                  .clear_margin = 1.25,
                                  .gap_ns = 0,
                                  .max_epoch_ns = 1'000'000};

struct Sim {
  explicit Sim(EpochAbParams p = kBoundary, bool first = false) : ab(p, first), ops(p.epoch_ops) {}
  EpochAb ab;
  uint32_t ops;
  uint64_t now = 1'000'000;
  uint32_t clock_reads = 0;
  // One epoch: operations of 1000 bytes, each followed by a_ns or b_ns as the mode says (a
  // mode's first epoch after a switch takes `switch_extra` more); returns its mode.
  bool epoch(uint64_t a_ns, uint64_t b_ns, uint64_t switch_extra = 0) {
    bool first_mode = false;
    for (uint32_t i = 0; i < ops; ++i) {
      const bool timed = ab.needs_time();
      clock_reads += timed ? 1 : 0;
      const bool m = ab.choose(1000, timed ? now : 0);
      if (i == 0) {
        first_mode = m;
        if (m != last_) now += switch_extra;
        last_ = m;
      }
      REQUIRE(m == first_mode);
      now += m ? b_ns : a_ns;
    }
    return first_mode;
  }
  bool last_ = false;
};

}  // namespace

TEST_CASE("epoch_ab: with boundary timing, only an epoch's first operation reads the clock") {
  Sim sim;
  for (int e = 0; e < 40; ++e) sim.epoch(100, 200);
  CHECK(sim.clock_reads == 40);
  CHECK(sim.ab.epochs() == 39);  // the 40th ends at the next operation
}

TEST_CASE("epoch_ab: a cycle times the winner, warms the other up untimed, then times it") {
  // The cycle: A A (timed), B (untimed warm-up), B B (timed), then the winner.
  Sim sim;
  std::vector<bool> modes;
  for (int e = 0; e < 8; ++e) modes.push_back(sim.epoch(100, 60, 4000));
  // B's first epoch after the switch is slow (a cold ring): were it timed, A would win.
  CHECK(modes == std::vector<bool>{false, false, true, true, true, true, true, true});
  CHECK(sim.ab.winner());
  CHECK(sim.ab.rate(false) == doctest::Approx(1000.0 / 100));
  CHECK(sim.ab.rate(true) == doctest::Approx(1000.0 / 60));
}

TEST_CASE("epoch_ab: the first mode is the caller's, and it is the one kept on a tie") {
  Sim sim(kBoundary, true);
  std::vector<bool> modes;
  for (int e = 0; e < 8; ++e) modes.push_back(sim.epoch(100, 100));
  CHECK(modes == std::vector<bool>{true, true, false, false, false, true, true, true});
  CHECK(sim.ab.winner());
}

TEST_CASE("epoch_ab: a clear winner is probed ever less often, a close one less fast") {
  for (const uint64_t b_ns : {uint64_t{50}, uint64_t{90}}) {  // B 2x, or 1.11x, faster
    CAPTURE(b_ns);
    Sim sim;
    std::vector<uint32_t> probes;  // epochs that ran A after B had won
    for (uint32_t e = 0; e < 400; ++e)
      if (!sim.epoch(100, b_ns) && e > 5) probes.push_back(e);
    // A cycle's length is set at the end of its probe: the first stays at 8 (B is a new
    // winner); each one after grows x4 (clear) or x2 up to 64. A runs in the warm-up and
    // timed epochs of each cycle: its third to fifth.
    const std::vector<uint32_t> starts =
        b_ns == 50 ? std::vector<uint32_t>{8, 40, 104, 168, 232, 296, 360}
                   : std::vector<uint32_t>{8, 24, 56, 120, 184, 248, 312, 376};
    std::vector<uint32_t> expect;
    for (uint32_t s : starts)
      for (uint32_t k = 2; k < 5; ++k)
        if (s + k < 400) expect.push_back(s + k);
    CHECK(probes == expect);
  }
}

TEST_CASE("epoch_ab: an epoch longer than max_epoch_ns is run again, untimed") {
  Sim sim;
  // The first epoch of A is cut by a long pause: it does not count, so the cycle still
  // opens with two timed epochs of A.
  sim.epoch(100, 60);
  sim.now += 10'000'000;
  std::vector<bool> modes;
  for (int e = 0; e < 7; ++e) modes.push_back(sim.epoch(100, 60));
  CHECK(modes == std::vector<bool>{false, false, true, true, true, true, true});
  CHECK(sim.ab.epochs() == 6);
  CHECK(sim.ab.rate(false) == doctest::Approx(1000.0 / 100));
}
