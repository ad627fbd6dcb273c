// The adaptive spin of blocking waits: the policy's arithmetic, and a worker's wait feeding it.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "core/api/torus.hpp"
#include "core/spin_policy.h"
#include "test/unit/two_workers.h"

using namespace std::chrono_literals;
using torus::core::SpinPolicy;

TEST_CASE("spin policy: a short wait that slept doubles past it, a long one halves") {
  SpinPolicy p;
  p.configure(50us, 1ms);
  CHECK(p.current() == 50us);
  p.outlasted(80us);  // slept, and the answer came soon after: cover twice that next time
  CHECK(p.current() == 160us);
  p.outlasted(60us);  // shorter than what the spin covers already: keep it
  CHECK(p.current() == 160us);
  p.outlasted(700us);  // twice would pass the bound
  CHECK(p.current() == 1ms);
  p.outlasted(5ms);  // a peer busy elsewhere: back towards the base
  CHECK(p.current() == 500us);
  for (int i = 0; i < 10; ++i) p.outlasted(2s);
  CHECK(p.current() == 50us);
}

TEST_CASE("spin policy: a bound at the base keeps the spin fixed") {
  SpinPolicy p;
  p.configure(20us, 20us);
  p.outlasted(15us);
  CHECK(p.current() == 20us);
  p.outlasted(1s);
  CHECK(p.current() == 20us);
  p.configure(20us, 5us);  // a bound below the base is the base
  CHECK(p.max() == 20us);
  p.outlasted(10us);
  CHECK(p.current() == 20us);
}

namespace {

struct Pair : torus::test::TwoWorkers {
  explicit Pair(const char* max)
      : TwoWorkers({{"TORUS_SPIN_TIME", "10us"}, {"TORUS_SPIN_MAX", max}}) {}
  // b waits for a message that a sends `delay` later, from another thread.
  void wait_for_late_message(std::chrono::milliseconds delay) {
    std::vector<char> s(64, 'x'), r(64);
    torus::Request* rreq = nullptr;
    REQUIRE(b->tag_recv(r.data(), r.size(), 7, torus::kTagMaskFull, &rreq) ==
            torus::Status::InProgress);
    std::thread sender([&] {
      std::this_thread::sleep_for(delay);
      torus::Request* sreq = nullptr;
      const torus::Status st = ep->tag_send(s.data(), s.size(), 7, &sreq);
      if (st == torus::Status::InProgress) {
        (void)a->wait_request(sreq, std::chrono::seconds(10));
        sreq->release();
      }
    });
    CHECK(b->wait_request(rreq, std::chrono::seconds(10)) == torus::Status::Ok);
    rreq->release();
    sender.join();
    CHECK(r == s);
  }
};

}  // namespace

// The wait starts when this thread gets the CPU again, which a loaded machine may delay
// past the sender's delay (the wait then finds the message and never sleeps), or long enough
// to make a long wait look short: each step gets a few tries.
TEST_CASE("spin policy: a wait that slept lengthens the next spin, a long one shortens it") {
  Pair p("50ms");
  CHECK(p.b->spin_time() == 10us);
  for (int i = 0; i < 5 && p.b->spin_time() == 10us; ++i) p.wait_for_late_message(2ms);
  const auto grown = p.b->spin_time();
  CHECK(grown > 10us);
  CHECK(grown <= 50ms);
  // Longer than the bound: the peer was busy elsewhere, so spin less.
  for (int i = 0; i < 5 && p.b->spin_time() >= grown; ++i) p.wait_for_late_message(80ms);
  CHECK(p.b->spin_time() < grown);
}

TEST_CASE("spin policy: TORUS_SPIN_MAX equal to TORUS_SPIN_TIME keeps the spin fixed") {
  Pair p("10us");
  p.wait_for_late_message(3ms);
  CHECK(p.b->spin_time() == 10us);
}
