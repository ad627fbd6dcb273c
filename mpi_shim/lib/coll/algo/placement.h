// What the transports make of a collective's large messages, agreed by every rank: an
// algorithm chosen from one rank's view alone would desynchronise the call when the ranks'
// views differ (each endpoint revises its costs from its own measurements).
#pragma once

#include <cstddef>

#include "mpi_shim/lib/comm/comm.h"

namespace torus::mpi::coll {

// Whether a message of `bytes` from some rank of `c` (a power of two of ranks) to one of its
// recursive-doubling partners would go by rendezvous now. Collective: every rank calls it at
// the same point of its sequence of collectives on `c`, and gets the same answer. The ranks
// agree with a one-int allreduce, once every few calls, so a change of placement is followed
// within a few calls at a cost below 1 % of the long vectors this is asked for.
bool partners_rendezvous(Comm& c, size_t bytes);

}  // namespace torus::mpi::coll
