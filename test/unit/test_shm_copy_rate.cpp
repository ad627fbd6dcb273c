// CopyRate: the class of the cores' placement from sampled eager copies (shm_copy_rate.h).
#include <doctest/doctest.h>

#include "transports/shm/shm_copy_rate.h"

using torus::shm::CopyRate;

namespace {

// `n` copies of 8 KiB at `ns_per_kib`; returns how many of them changed the class.
int feed(CopyRate& r, int n, double ns_per_kib) {
  int flips = 0;
  for (int i = 0; i < n; ++i) flips += r.record(8192, ns_per_kib * 8) ? 1 : 0;
  return flips;
}

}  // namespace

TEST_CASE("copy rate: fast until a whole window of copies says otherwise") {
  CopyRate r;
  CHECK(r.fast());
  CHECK(r.bandwidth_Bps() == CopyRate::kFastBps);
  // Fewer samples than the window decide nothing, however slow.
  CHECK(feed(r, CopyRate::kWindow - 2, 5000) == 0);
  CHECK(r.ns_per_kib() == 0);
  // A full window whose two fastest copies are fast says fast: its second smallest decides.
  CHECK(feed(r, 2, 30) == 0);
  CHECK(r.fast());
  CHECK(r.ns_per_kib() == 30);
  // Slow once the window holds a single fast copy (the oldest go first).
  CHECK(feed(r, CopyRate::kWindow - 2, 5000) == 0);
  CHECK(feed(r, 1, 5000) == 1);
  CHECK_FALSE(r.fast());
  CHECK(r.bandwidth_Bps() == CopyRate::kSlowBps);
  CHECK(r.ns_per_kib() > CopyRate::kSlowAboveNsPerKiB);
}

TEST_CASE("copy rate: outliers do not flip the class, a lasting change does") {
  CopyRate r;
  CHECK(feed(r, 20, 35) == 0);
  // Preempted copies (milliseconds), up to all but two of a window, change nothing.
  CHECK(feed(r, CopyRate::kWindow - 2, 1e6) == 0);
  CHECK(r.fast());
  CHECK(feed(r, 2, 35) == 0);
  // Between the boundaries nothing changes either way (hysteresis).
  CHECK(feed(r, 30, 100) == 0);
  CHECK(r.fast());
  CHECK(feed(r, 30, 250) == 1);
  CHECK_FALSE(r.fast());
  CHECK(feed(r, 30, 100) == 0);
  CHECK_FALSE(r.fast());
  CHECK(feed(r, 30, 35) == 1);
  CHECK(r.fast());
}

TEST_CASE("copy rate: small copies are not evidence; one copy in kSampleEvery is timed") {
  CopyRate r;
  for (int i = 0; i < 100; ++i) CHECK_FALSE(r.record(CopyRate::kMinBytes - 1, 1e9));
  CHECK(r.ns_per_kib() == 0);
  CHECK_FALSE(r.record(8192, -1));
  int timed = 0;
  for (unsigned i = 0; i < 10 * CopyRate::kSampleEvery; ++i) timed += r.sample_next() ? 1 : 0;
  CHECK(timed == 10);
}
