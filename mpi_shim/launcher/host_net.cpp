// Host-name and interface queries through getaddrinfo and getifaddrs (IPv4).
#include "mpi_shim/launcher/host_net.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace torus::launcher {
namespace {

std::vector<in_addr> resolve_v4(const std::string& name) {
  std::vector<in_addr> out;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(name.c_str(), nullptr, &hints, &res) != 0) return out;
  for (addrinfo* p = res; p != nullptr; p = p->ai_next)
    out.push_back(reinterpret_cast<sockaddr_in*>(p->ai_addr)->sin_addr);
  ::freeaddrinfo(res);
  return out;
}

struct Iface {
  in_addr addr;
  in_addr mask;
};

std::vector<Iface> interfaces_v4() {
  std::vector<Iface> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* p = list; p != nullptr; p = p->ifa_next) {
    if (p->ifa_addr == nullptr || p->ifa_addr->sa_family != AF_INET) continue;
    if (!(p->ifa_flags & IFF_UP)) continue;
    Iface i{};
    i.addr = reinterpret_cast<sockaddr_in*>(p->ifa_addr)->sin_addr;
    if (p->ifa_netmask != nullptr) i.mask = reinterpret_cast<sockaddr_in*>(p->ifa_netmask)->sin_addr;
    out.push_back(i);
  }
  ::freeifaddrs(list);
  return out;
}

std::string to_text(in_addr a) {
  char buf[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &a, buf, sizeof(buf));
  return buf;
}

bool is_loopback(in_addr a) { return (ntohl(a.s_addr) >> 24) == 127; }

// The source address the kernel would use to reach `to` (a UDP connect sends nothing).
bool route_source(in_addr to, in_addr* from) {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(9);
  sa.sin_addr = to;
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0;
  socklen_t len = sizeof(sa);
  ok = ok && ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0;
  ::close(fd);
  if (ok) *from = sa.sin_addr;
  return ok;
}

}  // namespace

std::string this_host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

bool is_local_host(const std::string& name) {
  if (name == "localhost" || name == this_host_name()) return true;
  std::string self = this_host_name();
  if (name == self.substr(0, self.find('.'))) return true;
  const std::vector<Iface> ifs = interfaces_v4();
  for (in_addr a : resolve_v4(name)) {
    if (is_loopback(a)) return true;
    for (const Iface& i : ifs)
      if (i.addr.s_addr == a.s_addr) return true;
  }
  return false;
}

Result<std::string> address_facing(const std::string& remote) {
  const std::vector<in_addr> addrs = resolve_v4(remote);
  if (addrs.empty())
    return make_error(Status::Unreachable, "cannot resolve host '" + remote + "' (IPv4)");
  const std::vector<Iface> ifs = interfaces_v4();
  for (in_addr a : addrs)
    for (const Iface& i : ifs)
      if (!is_loopback(i.addr) && i.mask.s_addr != 0 &&
          (i.addr.s_addr & i.mask.s_addr) == (a.s_addr & i.mask.s_addr))
        return to_text(i.addr);
  for (in_addr a : addrs) {
    in_addr from{};
    if (route_source(a, &from)) return to_text(from);
  }
  return make_error(Status::Unreachable, "no interface of this host reaches '" + remote +
                                             "' (" + to_text(addrs[0]) + ")");
}

}  // namespace torus::launcher
