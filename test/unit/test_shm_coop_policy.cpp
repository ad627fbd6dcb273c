// Unit tests of the measured choice between plain and shared mid-size gets
// (shm_coop_policy.h), on a simulated clock: the faster mode wins the epochs between probes,
// the slower one is still probed, ever less often while it keeps losing, a change of winner
// is followed, idle gaps count against neither, and the rates are what the clock said.
#include <doctest/doctest.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "transports/shm/shm_coop_policy.h"

using torus::shm::CoopPolicy;

namespace {

constexpr size_t kLen = 256 << 10;
constexpr uint32_t kCycleGets = CoopPolicy::kEpochGets * CoopPolicy::kCycleEpochs;

struct Sim {
  CoopPolicy policy{128 << 10, 1 << 20};
  uint64_t now = 1'000'000;
  // Gets whose next get starts plain_ns or shared_ns later, as the policy chose.
  uint32_t run(uint32_t gets, uint64_t plain_ns, uint64_t shared_ns) {
    uint32_t shared = 0;
    for (uint32_t i = 0; i < gets; ++i) {
      const bool s = policy.choose(kLen, now);
      shared += s ? 1 : 0;
      now += s ? shared_ns : plain_ns;
    }
    return shared;
  }
};

}  // namespace

TEST_CASE("shm coop policy: the range it decides") {
  const CoopPolicy p(128 << 10, 1 << 20);
  CHECK_FALSE(p.in_range((128 << 10) - 1));
  CHECK(p.in_range(128 << 10));
  CHECK(p.in_range((1 << 20) - 1));
  CHECK_FALSE(p.in_range(1 << 20));
  const CoopPolicy none(1 << 20, 1 << 20);
  CHECK_FALSE(none.in_range(1 << 20));
  CHECK_FALSE(none.in_range(512 << 10));
}

TEST_CASE("shm coop policy: the faster mode runs between probes of both, probed ever less often") {
  for (const bool shared_faster : {true, false}) {
    CAPTURE(shared_faster);
    Sim sim;
    const uint64_t fast = 40'000, slow = 70'000;
    const uint64_t plain_ns = shared_faster ? slow : fast, shared_ns = shared_faster ? fast : slow;
    // Epochs in which the slower mode ran: the probes. Each cycle opens with an epoch of the
    // running winner (plain at first), then one of the other; a cycle that confirms the
    // winner doubles the next (16, 32, ... 256 epochs).
    std::vector<uint32_t> slower;
    for (uint32_t epoch = 0; epoch < 800; ++epoch) {
      const uint32_t shared = sim.run(CoopPolicy::kEpochGets, plain_ns, shared_ns);
      REQUIRE((shared == 0 || shared == CoopPolicy::kEpochGets));
      if ((shared != 0) != shared_faster) slower.push_back(epoch);
    }
    // Shared first wins a cycle that had plain as its last winner, so its first cycle stays
    // at 16 epochs, and from then on plain is probed second; plain confirms the initial
    // choice at once.
    const std::vector<uint32_t> expect = shared_faster
                                             ? std::vector<uint32_t>{0, 17, 49, 113, 241, 497, 753}
                                             : std::vector<uint32_t>{1, 33, 97, 225, 481, 737};
    CHECK(slower == expect);
    // Rates in bytes per ns, as the clock gave them.
    CHECK(sim.policy.rate(shared_faster) == doctest::Approx(double(kLen) / double(fast)));
    CHECK(sim.policy.rate(!shared_faster) == doctest::Approx(double(kLen) / double(slow)));
  }
}

TEST_CASE("shm coop policy: it follows a change of which mode is faster") {
  Sim sim;
  sim.run(2000 * CoopPolicy::kEpochGets, 40'000, 70'000);  // plain faster: longest cycles
  CHECK(sim.run(100 * CoopPolicy::kEpochGets, 40'000, 70'000) <= CoopPolicy::kEpochGets);
  // Now shared is faster: the next probe of shared (at most one longest cycle away) finds it.
  sim.run((CoopPolicy::kMaxCycleEpochs + 2) * CoopPolicy::kEpochGets, 70'000, 40'000);
  CHECK(sim.run(100 * CoopPolicy::kEpochGets, 70'000, 40'000) >=
        90 * CoopPolicy::kEpochGets);
}

TEST_CASE("shm coop policy: idle gaps between gets count against neither mode") {
  Sim sim;
  // Plain is faster, but the program pauses 20 ms after every 20th get, in plain epochs and
  // in shared ones; were the pauses counted, the rates would be far below the clock's.
  uint32_t shared_late = 0;
  for (uint32_t i = 0; i < 6 * kCycleGets; ++i) {
    const bool s = sim.policy.choose(kLen, sim.now);
    if (i >= 3 * kCycleGets && s) ++shared_late;
    sim.now += s ? 70'000 : 40'000;
    if (i % 20 == 19) sim.now += 10 * CoopPolicy::kGapNs;
  }
  // Restarted epochs make the cycles longer, but between probes plain still runs: shared
  // gets are the probes only (8 of every 128 or more), well under a fifth of the gets.
  CHECK(shared_late < 3 * kCycleGets / 5);
  CHECK(sim.policy.rate(false) == doctest::Approx(double(kLen) / 40'000));
  CHECK(sim.policy.rate(true) == doctest::Approx(double(kLen) / 70'000));
}
