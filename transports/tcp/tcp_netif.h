// Network interfaces the tcp transport listens on, and the packed iface address that
// carries every listening address to peers, with the choice of which one to dial.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace torus::tcp {

struct NetAddr {
  uint8_t family = 4;      // 4 or 6
  uint8_t prefix_len = 0;  // the interface's subnet
  uint16_t port = 0;
  uint8_t bytes[16] = {};  // network order; IPv4 in the first 4
  bool is_loopback() const noexcept;
  bool same_subnet(const NetAddr& other) const noexcept;  // using this one's prefix
  std::string to_string() const;  // "10.0.0.1:4242" / "[fd00::1]:4242"
};

struct NetIf {
  std::string name;       // "eth0"
  NetAddr addr;           // port 0
  uint64_t speed_Bps = 0; // link speed, 0 when the kernel does not say (virtual links)
};

// Up interfaces with an IPv4 or global IPv6 address whose name `filter` allows ("all" or
// empty: every one; else a comma-separated list of names). IPv6 link-local is skipped (a
// peer would need our scope id).
Result<std::vector<NetIf>> list_interfaces(std::string_view filter);

// The iface address: who we are, where we listen, and which host/network namespace we are
// in (loopback addresses are only dialled inside the same one).
struct IfaceAddress {
  uint64_t worker_uid = 0;
  uint64_t boot_id = 0;
  uint64_t net_ns = 0;
  std::vector<NetAddr> listen;
};
std::vector<std::byte> pack_address(const IfaceAddress& a);
bool parse_address(std::span<const std::byte> bytes, IfaceAddress* out, std::string* why);

// True when a connected socket's two ends are on this host: its local and peer addresses
// are the same, or loopback (the kernel sources a connection to one of our own addresses
// from that address). False when unknown.
bool connection_is_local(int fd) noexcept;

// Which of the peer's addresses to dial: loopback when in the same host and namespace,
// else one on a subnet we share, else the first non-loopback one. -1 with `why` if none.
int choose_address(const IfaceAddress& self, std::span<const NetIf> local,
                   const IfaceAddress& peer, std::string* why);

}  // namespace torus::tcp
