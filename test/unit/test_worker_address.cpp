// Worker address packing: round trip, and every truncation or corruption refused.
#include <doctest/doctest.h>

#include "core/worker_address.h"

using namespace torus;
using namespace torus::core;

TEST_CASE("round trip") {
  WorkerAddress a;
  a.uid = 0x1122334455667788ull;
  a.ifaces.push_back({"shm", "memory", std::vector<std::byte>(40, std::byte{7})});
  a.ifaces.push_back({"self", "loopback", {}});
  auto bytes = pack_worker_address(a);
  auto b = unpack_worker_address(bytes);
  REQUIRE(b.ok());
  CHECK(b->uid == a.uid);
  REQUIRE(b->ifaces.size() == 2);
  CHECK(b->ifaces[0].tl_name == "shm");
  CHECK(b->ifaces[0].device == "memory");
  CHECK(b->ifaces[0].address == a.ifaces[0].address);
  CHECK(b->ifaces[1].address.empty());
}

TEST_CASE("every truncation and trailing garbage is refused") {
  WorkerAddress a;
  a.uid = 5;
  a.ifaces.push_back({"shm", "memory", std::vector<std::byte>(10, std::byte{1})});
  auto bytes = pack_worker_address(a);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = unpack_worker_address(std::span(bytes.data(), n));
    CHECK_FALSE(r.ok());
  }
  bytes.push_back(std::byte{0});
  CHECK_FALSE(unpack_worker_address(bytes).ok());
  bytes.pop_back();
  bytes[0] = std::byte{0};
  auto bad = unpack_worker_address(bytes);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("magic") != std::string::npos);
}
