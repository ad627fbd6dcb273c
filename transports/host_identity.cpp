// Reads the boot id and namespace inodes once per call; callers cache the result.
#include "transports/host_identity.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace torus::tl {
namespace {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

Result<uint64_t> ns_inode(const char* path) {
  struct stat st {};
  if (::stat(path, &st) != 0)
    return make_error(Status::Unsupported,
                      std::string("stat(") + path + "): " + std::strerror(errno));
  return static_cast<uint64_t>(st.st_ino);
}

}  // namespace

Result<HostIdentity> host_identity() {
  HostIdentity id;
  FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "re");
  if (f == nullptr)
    return make_error(Status::Unsupported, std::string("fopen(/proc/sys/kernel/random/boot_id): ") +
                                               std::strerror(errno));
  char buf[64] = {};
  const size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  if (n == 0)
    return make_error(Status::Unsupported, "/proc/sys/kernel/random/boot_id is empty");
  id.boot_id = fnv1a(std::string_view(buf, n));
  auto ipc = ns_inode("/proc/self/ns/ipc");
  if (!ipc) return ipc.error();
  auto net = ns_inode("/proc/self/ns/net");
  if (!net) return net.error();
  auto pid = ns_inode("/proc/self/ns/pid");
  if (!pid) return pid.error();
  id.ipc_ns = *ipc;
  id.net_ns = *net;
  id.pid_ns = *pid;
  return id;
}

}  // namespace torus::tl
