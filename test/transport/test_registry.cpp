// The module table and the TORUS_TLS filter (transports/registry.h).
#include <algorithm>
#include <string>

#include "test/transport/harness.h"

namespace torus::tltest {
namespace {

// Index of `name` in the table, or -1.
int index_of(std::string_view name) {
  const auto t = tl::transport_table();
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string known() {
  std::string s;
  for (const tl::TransportEntry& e : tl::transport_table())
    s += (s.empty() ? "" : ", ") + std::string(e.name);
  return s;
}

TEST_CASE("registry: table entries are complete and unique") {
  const auto t = tl::transport_table();
  REQUIRE(!t.empty());
  CHECK(index_of("self") == 0);
  for (size_t i = 0; i < t.size(); ++i) {
    CHECK(!t[i].name.empty());
    CHECK(!t[i].description.empty());
    REQUIRE((t[i].factory != nullptr));
    CHECK(index_of(t[i].name) == static_cast<int>(i));
    const auto transport = t[i].factory();
    REQUIRE(transport != nullptr);
    CHECK(transport->name() == t[i].name);
  }
}

TEST_CASE("registry: TORUS_TLS all, lists, exclusions") {
  const size_t n = tl::transport_table().size();
  const int self = index_of("self");
  const int shm = index_of("shm");
  for (std::string_view spec : {"", "all", "  all "}) {
    auto r = tl::select_transports(spec);
    REQUIRE(r.ok());
    CHECK(std::count(r->begin(), r->end(), true) == static_cast<long>(n));
  }
  if (shm >= 0) {
    auto only = tl::select_transports("shm");
    REQUIRE(only.ok());
    CHECK(only.value()[static_cast<size_t>(shm)]);
    CHECK(only.value()[static_cast<size_t>(self)]);  // a list keeps self
    CHECK(std::count(only->begin(), only->end(), true) == 2);

    auto but = tl::select_transports("^shm");
    REQUIRE(but.ok());
    CHECK_FALSE(but.value()[static_cast<size_t>(shm)]);
    CHECK(but.value()[static_cast<size_t>(self)]);
    CHECK(std::count(but->begin(), but->end(), true) == static_cast<long>(n) - 1);

    auto none = tl::select_transports("^self,shm");
    REQUIRE(none.ok());
    CHECK_FALSE(none.value()[static_cast<size_t>(self)]);
    CHECK_FALSE(none.value()[static_cast<size_t>(shm)]);

    auto spaced = tl::select_transports(" shm , self ,");
    REQUIRE(spaced.ok());
    CHECK(spaced.value()[static_cast<size_t>(shm)]);
  }
  auto self_only = tl::select_transports("self");
  REQUIRE(self_only.ok());
  CHECK(std::count(self_only->begin(), self_only->end(), true) == 1);
}

TEST_CASE("registry: unknown names fail with the variable, the value and the known names") {
  auto r = tl::select_transports("x");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().status == Status::InvalidParam);
  CHECK(r.error().message ==
        "TORUS_TLS=\"x\": unknown transport 'x'; known transports: " + known());

  auto r2 = tl::select_transports("^self,bogus");
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().message ==
        "TORUS_TLS=\"^self,bogus\": unknown transport 'bogus'; known transports: " + known());
  // Case-sensitive.
  CHECK_FALSE(tl::select_transports("SELF").ok());
}

TEST_CASE("registry: transports known but not built are ignored, not fatal") {
  for (std::string_view name : {"tcp", "ofi", "verbs", "cuda_ipc"}) {
    if (index_of(name) >= 0) continue;  // built now: an ordinary entry
    const std::string list = "self," + std::string(name);
    auto r = tl::select_transports(list);
    CHECK_MESSAGE(r.ok(), name);
    auto ex = tl::select_transports("^" + std::string(name));
    REQUIRE(ex.ok());
    CHECK(std::count(ex->begin(), ex->end(), true) ==
          static_cast<long>(tl::transport_table().size()));
  }
}

}  // namespace
}  // namespace torus::tltest
