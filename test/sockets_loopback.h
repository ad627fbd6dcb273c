// Whether this network namespace's loopback is one where libfabric's sockets provider cannot
// deadlock TCP under a long stream. The provider peeks for whole message headers and never
// consumes a part; a partly read skb stays charged at its full size, so a header's first
// bytes can hold nearly the whole receive buffer, the window closes and the rest never comes
// (transports/ofi/README.md). test/sockets_loopback.sh makes a safe one: MTU at most 1500
// and TCP receive buffers of at least 4 MiB to start with. Tests that stream long over
// sockets skip, by name, where the loopback is not safe.
#pragma once

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace torus::test_net {

// True when safe; otherwise *why says what is off.
inline bool sockets_stream_safe_loopback(std::string* why) {
  // The MTU by ioctl on a socket of this namespace: /sys/class/net shows the namespace that
  // mounted sysfs, which unshare -n leaves as it was.
  uint64_t mtu = 0, rmem_min = 0, rmem_default = 0;
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", sizeof(ifr.ifr_name) - 1);
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::ioctl(fd, SIOCGIFMTU, &ifr) == 0) mtu = static_cast<uint64_t>(ifr.ifr_mtu);
  if (fd >= 0) ::close(fd);
  std::ifstream("/proc/sys/net/ipv4/tcp_rmem") >> rmem_min >> rmem_default;
  if (mtu == 0 || mtu > 1500) {
    *why = "loopback MTU " + std::to_string(mtu) + " (over 1500)";
    return false;
  }
  if (rmem_default < (uint64_t{4} << 20)) {
    *why = "net.ipv4.tcp_rmem default " + std::to_string(rmem_default) + " (under 4 MiB)";
    return false;
  }
  return true;
}

// For tests configured by the environment (TORUS_OFI_PROVIDER): true when they run over the
// sockets provider on a loopback that is not safe, with the reason in *why.
inline bool sockets_stream_unsafe_here(std::string* why) {
  const char* provider = std::getenv("TORUS_OFI_PROVIDER");
  if (provider == nullptr || std::strcmp(provider, "sockets") != 0) return false;
  return !sockets_stream_safe_loopback(why);
}

}  // namespace torus::test_net
