// Names of libfabric shm endpoints, and the sweep of the regions that killed processes left.
// libfabric's shm provider backs each endpoint with a /dev/shm region named after it and
// removes it on close; a process killed first leaves it there (16 MiB of tmpfs each). Our
// names carry the pid namespace and the pid, so a later process can tell a region whose
// owner is gone, and a process in another pid namespace (a container sharing /dev/shm) is
// never mistaken for a dead one.
#pragma once

#include <cstdint>
#include <string>

namespace torus::ofi {

// "torus-ofi-<pid namespace inode>-<pid>-<worker uid, 16 hex digits>".
std::string shm_endpoint_name(uint64_t worker_uid);

// Removes the regions in `dir` (/dev/shm) named by shm_endpoint_name in our pid namespace
// whose pid no longer exists. Returns how many it removed. Never throws; errors skip a name.
unsigned sweep_dead_shm_regions(const char* dir = "/dev/shm");

}  // namespace torus::ofi
