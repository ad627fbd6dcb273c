// Collective algorithms on a communicator, below argument checking: every rank of `c` calls
// them in the same order. They run on the communicator's collective context id with a fresh
// sequence number each (p2p/tag_layout.h), so they never match user messages or each other.
// Sizes are in bytes except where a reduction needs elements and the datatype.
#pragma once

#include <cstddef>

#include "core/base/status.h"
#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/comm/comm.h"

namespace torus::mpi::coll {

// The entry points marked "chosen" pick their algorithm per call (coll/algo/select.h: by size,
// process count and whether the op commutes, or as TORUS_COLL_<NAME> forces); the
// algorithms themselves are in coll/algo/algos.h.
Status barrier(Comm& c);                                                // dissemination
Status bcast(Comm& c, void* buf, size_t bytes, int root);               // chosen
Status reduce(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type, MPI_Op op,
              int root);                                                // chosen
Status allreduce(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
                 MPI_Op op);                                            // chosen
// counts: elements each rank gets; sbuf == MPI_IN_PLACE takes the input from rbuf.
Status reduce_scatter(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
                      MPI_Datatype type, MPI_Op op);                    // chosen
// Block sizes in bytes (one block per rank); sbuf == MPI_IN_PLACE where the standard allows.
Status gather(Comm& c, const void* sbuf, void* rbuf, size_t block, int root);      // linear
Status scatter(Comm& c, const void* sbuf, void* rbuf, size_t block, int root);     // linear
Status allgather(Comm& c, const void* sbuf, void* rbuf, size_t block);             // chosen
Status alltoall(Comm& c, const void* sbuf, void* rbuf, size_t block);   // pairwise exchange

// The vector variants: per-rank counts and displacements in bytes.
Status gatherv(Comm& c, const void* sbuf, size_t sbytes, void* rbuf, const size_t* rcounts,
               const size_t* rdispls, int root);                                   // linear
Status scatterv(Comm& c, const void* sbuf, const size_t* scounts, const size_t* sdispls,
                void* rbuf, size_t rbytes, int root);                              // linear
Status allgatherv(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
                  const size_t* displs);                                           // ring
Status alltoallv(Comm& c, const void* sbuf, const size_t* scounts, const size_t* sdispls,
                 void* rbuf, const size_t* rcounts, const size_t* rdispls);  // pairwise
// Prefix reductions (recursive doubling); with `exclusive`, rank 0's rbuf is left untouched.
Status scan(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type, MPI_Op op,
            bool exclusive);

}  // namespace torus::mpi::coll
