// Unit tests of the tcp iface's region table (tcp_region.h): the target's check of every get
// and put request, and the count of regions peers may read, which keeps an exchange's gets
// off the striped path (tcp_rma.cpp).
#include <doctest/doctest.h>

#include <cstring>

#include "transports/tcp/tcp_region.h"

using namespace torus;
using torus::tcp::RegionTable;

namespace {

struct Rkey {
  uint8_t bytes[tcp::kRkeySize];
};

Rkey rkey_of(const RegionTable::Key& k) {
  Rkey r;
  std::memcpy(r.bytes, &k.id, 8);
  std::memcpy(r.bytes + 8, &k.secret, 8);
  return r;
}

}  // namespace

TEST_CASE("tcp regions: a key works for its range and right only, and dies with its region") {
  RegionTable t;
  const auto k = t.add(0x10000, 4096, tl::kAccessRead);
  const Rkey r = rkey_of(k);
  CHECK(t.check(r.bytes, 0x10000, 4096, tl::kAccessRead) == Status::Ok);
  CHECK(t.check(r.bytes, 0x10000 + 4095, 1, tl::kAccessRead) == Status::Ok);
  CHECK(t.check(r.bytes, 0x10000 + 4096, 1, tl::kAccessRead) == Status::AccessDenied);
  CHECK(t.check(r.bytes, 0x10000 - 1, 2, tl::kAccessRead) == Status::AccessDenied);
  CHECK(t.check(r.bytes, 0x10000, 4096, tl::kAccessWrite) == Status::AccessDenied);
  Rkey forged = r;
  forged.bytes[8] ^= 1;
  CHECK(t.check(forged.bytes, 0x10000, 1, tl::kAccessRead) == Status::AccessDenied);
  t.remove(k.id);
  CHECK(t.check(r.bytes, 0x10000, 1, tl::kAccessRead) == Status::AccessDenied);
  // A new region never takes the old id, so the stale key stays dead.
  const auto k2 = t.add(0x10000, 4096, tl::kAccessRead);
  CHECK(k2.id != k.id);
  CHECK(t.check(r.bytes, 0x10000, 1, tl::kAccessRead) == Status::AccessDenied);
}

TEST_CASE("tcp regions: the count of live regions peers may read") {
  RegionTable t;
  CHECK(t.readable() == 0);
  const auto w = t.add(0x1000, 64, tl::kAccessWrite);
  CHECK(t.readable() == 0);
  const auto r1 = t.add(0x2000, 64, tl::kAccessRead);
  const auto r2 = t.add(0x3000, 64, tl::kAccessRead | tl::kAccessWrite);
  CHECK(t.readable() == 2);
  t.remove(r1.id);
  t.remove(r1.id);  // twice: counted once
  CHECK(t.readable() == 1);
  t.remove(w.id);
  CHECK(t.readable() == 1);
  t.remove(r2.id);
  CHECK(t.readable() == 0);
}
