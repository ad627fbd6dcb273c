// getifaddrs enumeration, the packed address format and the dial choice.
#include "transports/tcp/tcp_netif.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace torus::tcp {
namespace {

constexpr uint32_t kAddrMagic = 0x41535254;  // "TRSA"
constexpr uint16_t kAddrVersion = 1;
constexpr size_t kMaxAddrs = 64;

#pragma pack(push, 1)
struct AddrHeader {
  uint32_t magic;
  uint16_t version;
  uint8_t count;
  uint8_t reserved;
  uint64_t worker_uid;
  uint64_t boot_id;
  uint64_t net_ns;
};
struct AddrEntry {
  uint8_t family;
  uint8_t prefix_len;
  uint16_t port;
  uint8_t bytes[16];
};
#pragma pack(pop)

bool name_allowed(std::string_view filter, std::string_view name) {
  if (filter.empty() || filter == "all") return true;
  while (!filter.empty()) {
    const size_t comma = filter.find(',');
    std::string_view item = filter.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == name) return true;
    if (comma == std::string_view::npos) break;
    filter.remove_prefix(comma + 1);
  }
  return false;
}

int prefix_of(const uint8_t* mask, size_t len) {
  int bits = 0;
  for (size_t i = 0; i < len; ++i)
    for (int b = 7; b >= 0; --b) {
      if ((mask[i] >> b) & 1) ++bits;
      else return bits;
    }
  return bits;
}

uint64_t link_speed(const std::string& name) {
  std::ifstream f("/sys/class/net/" + name + "/speed");
  long mbps = -1;
  if (!(f >> mbps) || mbps <= 0) return 0;
  return static_cast<uint64_t>(mbps) * 1000000 / 8;
}

}  // namespace

bool NetAddr::is_loopback() const noexcept {
  if (family == 4) return bytes[0] == 127;
  static const uint8_t kLo6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return std::memcmp(bytes, kLo6, 16) == 0;
}

namespace {

// The IP of a socket address as NetAddr (port 0); IPv4-mapped IPv6 as IPv4. False if neither.
bool ip_of(const sockaddr_storage& ss, NetAddr* out) noexcept {
  if (ss.ss_family == AF_INET) {
    out->family = 4;
    std::memcpy(out->bytes, &reinterpret_cast<const sockaddr_in&>(ss).sin_addr, 4);
    return true;
  }
  if (ss.ss_family != AF_INET6) return false;
  const auto& a6 = reinterpret_cast<const sockaddr_in6&>(ss).sin6_addr;
  if (IN6_IS_ADDR_V4MAPPED(&a6)) {
    out->family = 4;
    std::memcpy(out->bytes, a6.s6_addr + 12, 4);
  } else {
    out->family = 6;
    std::memcpy(out->bytes, a6.s6_addr, 16);
  }
  return true;
}

}  // namespace

bool connection_is_local(int fd) noexcept {
  sockaddr_storage mine{}, theirs{};
  socklen_t a = sizeof(mine), b = sizeof(theirs);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&mine), &a) != 0 ||
      ::getpeername(fd, reinterpret_cast<sockaddr*>(&theirs), &b) != 0)
    return false;
  NetAddr x, y;
  if (!ip_of(mine, &x) || !ip_of(theirs, &y)) return false;
  if (x.is_loopback() || y.is_loopback()) return true;
  return x.family == y.family && std::memcmp(x.bytes, y.bytes, x.family == 4 ? 4 : 16) == 0;
}

bool NetAddr::same_subnet(const NetAddr& other) const noexcept {
  if (family != other.family) return false;
  const int max = family == 4 ? 32 : 128;
  const int bits = prefix_len > max ? max : prefix_len;
  for (int i = 0; i < bits; ++i) {
    const int byte = i / 8, bit = 7 - i % 8;
    if (((bytes[byte] >> bit) & 1) != ((other.bytes[byte] >> bit) & 1)) return false;
  }
  return true;
}

std::string NetAddr::to_string() const {
  char text[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(family == 4 ? AF_INET : AF_INET6, bytes, text, sizeof(text));
  return family == 4 ? std::string(text) + ":" + std::to_string(port)
                     : "[" + std::string(text) + "]:" + std::to_string(port);
}

Result<std::vector<NetIf>> list_interfaces(std::string_view filter) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0)
    return make_error(Status::IoError, std::string("getifaddrs: ") + std::strerror(errno));
  std::vector<NetIf> out;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_netmask == nullptr || (a->ifa_flags & IFF_UP) == 0)
      continue;
    if (!name_allowed(filter, a->ifa_name)) continue;
    NetIf n;
    n.name = a->ifa_name;
    if (a->ifa_addr->sa_family == AF_INET) {
      const auto* sin = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
      const auto* mask = reinterpret_cast<const sockaddr_in*>(a->ifa_netmask);
      n.addr.family = 4;
      std::memcpy(n.addr.bytes, &sin->sin_addr, 4);
      n.addr.prefix_len = static_cast<uint8_t>(
          prefix_of(reinterpret_cast<const uint8_t*>(&mask->sin_addr), 4));
    } else if (a->ifa_addr->sa_family == AF_INET6) {
      const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(a->ifa_addr);
      if (IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr)) continue;
      const auto* mask = reinterpret_cast<const sockaddr_in6*>(a->ifa_netmask);
      n.addr.family = 6;
      std::memcpy(n.addr.bytes, &sin6->sin6_addr, 16);
      n.addr.prefix_len = static_cast<uint8_t>(
          prefix_of(reinterpret_cast<const uint8_t*>(&mask->sin6_addr), 16));
    } else {
      continue;
    }
    n.speed_Bps = (a->ifa_flags & IFF_LOOPBACK) ? 0 : link_speed(n.name);
    out.push_back(std::move(n));
    if (out.size() == kMaxAddrs) break;
  }
  ::freeifaddrs(list);
  return out;
}

std::vector<std::byte> pack_address(const IfaceAddress& a) {
  const size_t count = std::min(a.listen.size(), kMaxAddrs);
  std::vector<std::byte> out(sizeof(AddrHeader) + count * sizeof(AddrEntry));
  AddrHeader h{kAddrMagic, kAddrVersion, static_cast<uint8_t>(count), 0, a.worker_uid,
               a.boot_id, a.net_ns};
  std::memcpy(out.data(), &h, sizeof(h));
  for (size_t i = 0; i < count; ++i) {
    AddrEntry e{};
    e.family = a.listen[i].family;
    e.prefix_len = a.listen[i].prefix_len;
    e.port = a.listen[i].port;
    std::memcpy(e.bytes, a.listen[i].bytes, 16);
    std::memcpy(out.data() + sizeof(h) + i * sizeof(e), &e, sizeof(e));
  }
  return out;
}

bool parse_address(std::span<const std::byte> bytes, IfaceAddress* out, std::string* why) {
  auto fail = [why](const char* text) {
    if (why != nullptr) *why = text;
    return false;
  };
  AddrHeader h;
  if (bytes.size() < sizeof(h)) return fail("tcp: peer address too short");
  std::memcpy(&h, bytes.data(), sizeof(h));
  if (h.magic != kAddrMagic) return fail("tcp: not a tcp address");
  if (h.version != kAddrVersion) return fail("tcp: peer uses another tcp address version");
  if (bytes.size() != sizeof(h) + size_t{h.count} * sizeof(AddrEntry))
    return fail("tcp: bad address size");
  if (h.count == 0) return fail("tcp: peer listens on no address");
  out->worker_uid = h.worker_uid;
  out->boot_id = h.boot_id;
  out->net_ns = h.net_ns;
  out->listen.clear();
  for (size_t i = 0; i < h.count; ++i) {
    AddrEntry e;
    std::memcpy(&e, bytes.data() + sizeof(h) + i * sizeof(e), sizeof(e));
    if ((e.family != 4 && e.family != 6) || e.prefix_len > (e.family == 4 ? 32 : 128) ||
        e.port == 0)
      return fail("tcp: malformed listening address in peer address");
    NetAddr n;
    n.family = e.family;
    n.prefix_len = e.prefix_len;
    n.port = e.port;
    std::memcpy(n.bytes, e.bytes, 16);
    out->listen.push_back(n);
  }
  return true;
}

int choose_address(const IfaceAddress& self, std::span<const NetIf> local,
                   const IfaceAddress& peer, std::string* why) {
  const bool same_ns = self.boot_id == peer.boot_id && self.net_ns == peer.net_ns;
  int any = -1;
  for (size_t i = 0; i < peer.listen.size(); ++i) {
    const NetAddr& p = peer.listen[i];
    if (p.is_loopback()) {
      if (same_ns) return static_cast<int>(i);
      continue;
    }
    if (any < 0) any = static_cast<int>(i);
  }
  for (size_t i = 0; i < peer.listen.size(); ++i) {
    const NetAddr& p = peer.listen[i];
    if (p.is_loopback()) continue;
    for (const NetIf& l : local)
      if (!l.addr.is_loopback() && l.addr.same_subnet(p)) return static_cast<int>(i);
  }
  if (any < 0 && why != nullptr)
    *why = "tcp: the peer listens only on loopback in another host or network namespace";
  return any;
}

}  // namespace torus::tcp
