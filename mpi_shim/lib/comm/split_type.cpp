// MPI_Comm_split_type: MPI_COMM_TYPE_SHARED groups the ranks that can share memory, i.e. run
// on the same host in the same IPC namespace. The bootstrap knows how many ranks share this
// host but not which, so every rank publishes a host identity (hostname, boot id, IPC
// namespace: a container on the same host is not "shared") in an allgather over the parent.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace torus::mpi {

// FNV-1a over the identity: 64 bits make a collision between two hosts of one job
// negligible, and keep the allgather at a few words per rank.
uint64_t host_identity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::string id = host;
  std::string boot_id;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot_id;
  id += '/' + boot_id + '/';
  char ns[128] = {};
  ssize_t n = readlink("/proc/self/ns/ipc", ns, sizeof(ns) - 1);
  if (n > 0) id.append(ns, static_cast<size_t>(n));
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : id) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

}  // namespace torus::mpi

extern "C" {

// Info hints are not read: no split type here takes any.
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info /*info*/,
                         MPI_Comm* newcomm) {
  Comm* c = comm_get_intra(comm);
  if (!c) return raise_error(comm_get(comm), MPI_ERR_COMM, "MPI_Comm_split_type");
  if ((split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) || !newcomm)
    return raise_error(c, MPI_ERR_ARG, "MPI_Comm_split_type");
  const bool defined = split_type != MPI_UNDEFINED;
  const uint64_t host = defined ? host_identity() : 0;
  struct Entry {
    uint64_t host;
    int key;
    int defined;
  };
  const Entry mine{host, key, defined ? 1 : 0};
  std::vector<Entry> all(static_cast<size_t>(c->size));
  torus::Status s = coll::allgather(*c, &mine, all.data(), sizeof(Entry));
  if (torus::is_error(s)) return raise_error(c, error_from_status(s), "MPI_Comm_split_type");
  // A host's color is its lowest parent rank, so the colors are small and distinct.
  std::vector<int> colors(all.size(), MPI_UNDEFINED), keys(all.size());
  std::unordered_map<uint64_t, int> first_on_host;
  for (size_t r = 0; r < all.size(); ++r) {
    keys[r] = all[r].key;
    if (all[r].defined)
      colors[r] = first_on_host.try_emplace(all[r].host, static_cast<int>(r)).first->second;
  }
  std::vector<int> members;
  const int color = colors[static_cast<size_t>(c->rank)];
  if (defined) members = comm_split_members(*c, colors, keys, color);
  return check(c, comm_create_from(*c, defined ? &members : nullptr, newcomm),
               "MPI_Comm_split_type");
}

TORUS_MPI_ALIAS(MPI_Comm_split_type)

}  // extern "C"
