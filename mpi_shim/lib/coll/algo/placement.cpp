// Agreement on the partners' protocol (placement.h).
#include "mpi_shim/lib/coll/algo/placement.h"

#include "mpi_shim/lib/coll/algo/algos.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi::coll {
namespace {

// Calls between agreements. Each costs a one-int allreduce (about 0.5 us at 2 ranks)
// against at least 45 us for the vectors that ask.
constexpr uint32_t kAgreeEvery = 8;

bool local_view(const Comm& c, size_t bytes) {
  for (int mask = 1; mask < c.size; mask <<= 1) {
    Endpoint* ep = endpoint_to(c.peer_world(c.rank ^ mask));
    if (ep != nullptr && ep->rndv_threshold() <= bytes) return true;
  }
  return false;
}

}  // namespace

bool partners_rendezvous(Comm& c, size_t bytes) {
  Comm::RndvAgreement& a = c.rndv_agreed;
  if (a.calls_left != 0 && a.bytes == bytes) {
    --a.calls_left;
    return a.value;
  }
  const int mine = local_view(c, bytes) ? 1 : 0;
  int any = 0;
  // A failed agreement (a dead peer) picks the default; the collective itself then reports
  // the failure.
  if (allreduce_recursive_doubling(c, &mine, &any, 1, MPI_INT, MPI_MAX) != Status::Ok) any = 0;
  a = {kAgreeEvery - 1, bytes, any != 0};
  return a.value;
}

}  // namespace torus::mpi::coll
