// Every collective algorithm by name, below the choice that select.h makes: the entry
// points of coll/coll.h pick one of these per call (and deal with one-rank communicators
// themselves). Arguments as in coll/coll.h; all of them handle any process count from 2 and any
// count, including fewer elements than ranks.
#pragma once

#include <cstddef>

#include "core/base/status.h"
#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/comm/comm.h"

namespace torus::mpi::coll {

Status bcast_binomial(Comm& c, void* buf, size_t bytes, int root);
// Linear scatter of n blocks from the root, then a ring allgather of them.
Status bcast_scatter_allgather(Comm& c, void* buf, size_t bytes, int root);

// Binomial tree; non-commutative ops reduce on a tree rooted at rank 0 (rank order), which
// then hands the result to the root.
Status reduce_binomial(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
                       MPI_Op op, int root);
// Reduce-scatter by recursive halving, then every block straight to the root.
Status reduce_rabenseifner(Comm& c, const void* sbuf, void* rbuf, size_t count,
                           MPI_Datatype type, MPI_Op op, int root);

Status allreduce_recursive_doubling(Comm& c, const void* sbuf, void* rbuf, size_t count,
                                    MPI_Datatype type, MPI_Op op);
// Ring reduce-scatter then ring allgather, pipelined by segment; commutative ops only.
Status allreduce_ring(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
                      MPI_Op op);
// Recursive-halving reduce-scatter then recursive-doubling allgather.
Status allreduce_rabenseifner(Comm& c, const void* sbuf, void* rbuf, size_t count,
                              MPI_Datatype type, MPI_Op op);

// counts: elements per rank. Ring: commutative ops only.
Status reduce_scatter_ring(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
                           MPI_Datatype type, MPI_Op op);
Status reduce_scatter_halving(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
                              MPI_Datatype type, MPI_Op op);

Status allgather_ring(Comm& c, const void* sbuf, void* rbuf, size_t block);
Status allgather_bruck(Comm& c, const void* sbuf, void* rbuf, size_t block);

}  // namespace torus::mpi::coll
