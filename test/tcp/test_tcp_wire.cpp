// The tcp wire format, address format and handshake MAC, without sockets.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "transports/tcp/tcp_auth.h"
#include "transports/tcp/tcp_netif.h"
#include "transports/tcp/tcp_wire.h"

using namespace torus;
using namespace torus::tcp;

namespace {

std::vector<std::byte> frame(uint8_t type, uint8_t id, uint32_t len, size_t extra = 0) {
  FrameHeader h{type, id, 0, len};
  std::vector<std::byte> out(sizeof(h) + extra);
  std::memcpy(out.data(), &h, sizeof(h));
  return out;
}

NetAddr v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t prefix, uint16_t port) {
  NetAddr n;
  n.family = 4;
  n.prefix_len = prefix;
  n.port = port;
  n.bytes[0] = a, n.bytes[1] = b, n.bytes[2] = c, n.bytes[3] = d;
  return n;
}

}  // namespace

TEST_CASE("siphash24 matches the reference vector of its paper") {
  // Key 00..0f, message 00..0e: 0xa129ca6149be45e5 (SipHash paper, appendix A).
  MacKey k{0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
  uint8_t msg[15];
  for (int i = 0; i < 15; ++i) msg[i] = static_cast<uint8_t>(i);
  CHECK(siphash24(k, msg) == 0xa129ca6149be45e5ull);
  CHECK(siphash24(k, std::span<const uint8_t>()) == 0x726fdb47dd0e0e31ull);
}

TEST_CASE("handshake MACs depend on the key, both nonces and both ids") {
  const MacKey a = derive_key("job-a"), b = derive_key("job-b");
  CHECK((a.k0 != b.k0 || a.k1 != b.k1));
  const uint64_t m = hello_mac(a, 1, 2, 3, 4);
  CHECK(m == hello_mac(a, 1, 2, 3, 4));
  CHECK(m != hello_mac(b, 1, 2, 3, 4));
  CHECK(m != hello_mac(a, 9, 2, 3, 4));
  CHECK(m != hello_mac(a, 1, 9, 3, 4));
  CHECK(m != hello_mac(a, 1, 2, 9, 4));
  CHECK(m != hello_mac(a, 1, 2, 3, 9));
  CHECK(m != hello_mac(a, 1, 2, 3, 4, 1));  // a bulk connection's hello names its lane
  CHECK(welcome_mac(a, 1, 2, 3, 1) != welcome_mac(a, 1, 2, 3, 2));
}

TEST_CASE("parse_frame: whole, partial and malformed frames") {
  ParsedFrame f;
  std::string why;
  SUBCASE("an AM frame") {
    auto b = frame(1, 5, 10, 10);
    REQUIRE(parse_frame(b, 32, &f, &why) == ParseResult::Ok);
    CHECK(f.type == FrameType::Am);
    CHECK(f.id == 5);
    CHECK(f.payload_len == 10);
  }
  SUBCASE("fewer bytes than a header or body: need more") {
    auto b = frame(2, 0, sizeof(GetReqBody), sizeof(GetReqBody));
    CHECK(parse_frame(std::span(b).first(5), 32, &f, &why) == ParseResult::NeedMore);
    CHECK(parse_frame(std::span(b).first(20), 32, &f, &why) == ParseResult::NeedMore);
    CHECK(parse_frame(b, 32, &f, &why) == ParseResult::Ok);
  }
  SUBCASE("malformed") {
    CHECK(parse_frame(frame(0, 0, 0), 32, &f, &why) == ParseResult::Malformed);
    CHECK(parse_frame(frame(9, 0, 0), 32, &f, &why) == ParseResult::Malformed);
    CHECK(parse_frame(frame(1, 32, 0), 32, &f, &why) == ParseResult::Malformed);
    CHECK(parse_frame(frame(1, 0, kMaxAmPayload + 1), 32, &f, &why) == ParseResult::Malformed);
    CHECK(parse_frame(frame(2, 0, 3), 32, &f, &why) == ParseResult::Malformed);
    CHECK(parse_frame(frame(2, 0, sizeof(GetReqBody) + 1), 32, &f, &why) ==
          ParseResult::Malformed);
    CHECK(parse_frame(frame(3, 1, sizeof(RespBody)), 32, &f, &why) == ParseResult::Malformed);
    CHECK(parse_frame(frame(4, 0, 0xffffffffu), 32, &f, &why) == ParseResult::Malformed);
    auto r = frame(1, 0, 0);
    r[2] = std::byte{1};
    CHECK(parse_frame(r, 32, &f, &why) == ParseResult::Malformed);
    CHECK(!why.empty());
  }
}

TEST_CASE("handshake messages: magic, version and lane are checked") {
  Hello h{kMagic, kVersion, 0, 1, 2, 3, 4};
  Hello out;
  std::string why;
  auto bytes = [](const auto& v) {
    return std::span<const std::byte, sizeof(v)>(reinterpret_cast<const std::byte*>(&v),
                                                  sizeof(v));
  };
  CHECK(parse_hello(bytes(h), &out, &why));
  h.version = kVersion + 1;
  CHECK_FALSE(parse_hello(bytes(h), &out, &why));
  CHECK(why.find("version") != std::string::npos);
  h.version = kVersion;
  h.lane = kMaxLanes - 1;
  CHECK(parse_hello(bytes(h), &out, &why));
  h.lane = kMaxLanes;
  CHECK_FALSE(parse_hello(bytes(h), &out, &why));
  CHECK(why.find("lane") != std::string::npos);
  h.lane = 0;
  h.magic = 0;
  CHECK_FALSE(parse_hello(bytes(h), &out, &why));
  Welcome w{kMagic, 7, {0, 0, 0}, 0};
  Welcome wo;
  CHECK_FALSE(parse_welcome(bytes(w), &wo, &why));
}

TEST_CASE("addresses: round trip, garbage refused, the dial choice") {
  IfaceAddress a;
  a.worker_uid = 42;
  a.boot_id = 7;
  a.net_ns = 8;
  a.listen = {v4(127, 0, 0, 1, 8, 1000), v4(10, 1, 0, 5, 24, 1001), v4(192, 168, 9, 5, 24, 1002)};
  const auto packed = pack_address(a);
  IfaceAddress b;
  std::string why;
  REQUIRE(parse_address(packed, &b, &why));
  CHECK(b.worker_uid == 42);
  REQUIRE(b.listen.size() == 3);
  CHECK(b.listen[1].port == 1001);
  CHECK_FALSE(parse_address(std::span(packed).first(packed.size() - 1), &b, &why));
  std::vector<std::byte> garbage(packed.size(), std::byte{0x5a});
  CHECK_FALSE(parse_address(garbage, &b, &why));

  IfaceAddress self;
  self.boot_id = 7;
  self.net_ns = 8;
  std::vector<NetIf> local = {{"lo", v4(127, 0, 0, 1, 8, 0), 0},
                              {"eth1", v4(192, 168, 9, 1, 24, 0), 0}};
  CHECK(choose_address(self, local, a, &why) == 0);  // same namespace: loopback
  self.net_ns = 9;
  CHECK(choose_address(self, local, a, &why) == 2);  // elsewhere: the shared subnet
  local.pop_back();
  CHECK(choose_address(self, local, a, &why) == 1);  // no shared subnet: first non-loopback
  IfaceAddress lo_only = a;
  lo_only.listen.resize(1);
  CHECK(choose_address(self, local, lo_only, &why) == -1);
  CHECK(why.find("loopback") != std::string::npos);
}
