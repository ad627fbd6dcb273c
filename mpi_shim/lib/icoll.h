// Nonblocking collective algorithms, below argument checking: each returns the operation
// with its first round posted, for request_create_op. They use the blocking versions'
// algorithms (coll.h) as rounds of the engine in icoll_op.h, and take the communicator's next
// collective sequence number, so every rank starts its collectives on `c` (blocking or not)
// in the same order. Sizes are in bytes except where a reduction needs elements and the
// datatype; buffers must stay valid until the request completes.
#pragma once

#include <cstddef>
#include <memory>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/comm.h"
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/request.h"

namespace torus::mpi::icoll {

std::unique_ptr<PendingOp> ibarrier(Comm& c);                               // dissemination
std::unique_ptr<PendingOp> ibcast(Comm& c, void* buf, size_t bytes, int root);  // binomial
// `layout`: the type's layout, held by the caller until the operation completes (the user
// may free the handle meanwhile), or nullptr for a predefined type.
// Binomial tree (rooted at rank 0, then sent to `root`, for a non-commutative op).
std::unique_ptr<PendingOp> ireduce(Comm& c, const void* sbuf, void* rbuf, size_t count,
                                   MPI_Datatype type, const TypeInfo* layout, MPI_Op op,
                                   int root);
// Recursive doubling with the non-power-of-two fold.
std::unique_ptr<PendingOp> iallreduce(Comm& c, const void* sbuf, void* rbuf, size_t count,
                                      MPI_Datatype type, const TypeInfo* layout, MPI_Op op);
// Block sizes in bytes; sbuf (rbuf for scatter) == MPI_IN_PLACE where the standard allows.
std::unique_ptr<PendingOp> igather(Comm& c, const void* sbuf, void* rbuf, size_t block,
                                   int root);  // linear
std::unique_ptr<PendingOp> iscatter(Comm& c, const void* sbuf, void* rbuf, size_t block,
                                    int root);  // linear
std::unique_ptr<PendingOp> iallgather(Comm& c, const void* sbuf, void* rbuf,
                                      size_t block);  // ring
// Every pairwise exchange posted at once (one round), in the pairwise order.
std::unique_ptr<PendingOp> ialltoall(Comm& c, const void* sbuf, void* rbuf, size_t block);

}  // namespace torus::mpi::icoll
