// SecretPool: secrets across several batches are all distinct (a repeat within 1000 draws of
// 64 random bits would mean the batch is reused, not refilled).
#include <doctest/doctest.h>

#include <set>

#include "core/base/secret_pool.h"

TEST_CASE("secret pool: every secret over several batches is new") {
  torus::SecretPool pool;
  std::set<uint64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    auto s = pool.next();
    REQUIRE(s.ok());
    CHECK(seen.insert(*s).second);
  }
}
