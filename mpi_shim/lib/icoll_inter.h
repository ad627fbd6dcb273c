// Nonblocking collectives on intercommunicators (icoll_inter.cpp), in bytes as icoll.h's are,
// with the blocking ones' algorithms (coll_inter.h): a group reduces or broadcasts inside
// itself along a binomial tree rooted at its leader (local rank 0), the leaders carry the
// result across, and transfers with one process on each side go straight between them.
// `root` as the standard has it: MPI_ROOT, MPI_PROC_NULL, or the root's rank in the remote
// group. Every process of both groups takes the call's sequence numbers (icoll_op.h), also
// those with nothing to move.
#pragma once

#include <cstddef>
#include <memory>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/comm.h"
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/request.h"

namespace torus::mpi::icoll {

std::unique_ptr<PendingOp> inter_ibarrier(Comm& c);
std::unique_ptr<PendingOp> inter_ibcast(Comm& c, void* buf, size_t bytes, int root);
// The root gets the reduction of the other group's `count` elements; `layout` as in icoll.h.
std::unique_ptr<PendingOp> inter_ireduce(Comm& c, const void* sbuf, void* rbuf, size_t count,
                                         MPI_Datatype type, const TypeInfo* layout, MPI_Op op,
                                         int root);
// Each process gets the reduction of the other group's vectors.
std::unique_ptr<PendingOp> inter_iallreduce(Comm& c, const void* sbuf, void* rbuf,
                                            size_t count, MPI_Datatype type,
                                            const TypeInfo* layout, MPI_Op op);
// The root receives `block` bytes from each remote rank, in rank order; the other group's
// processes send their `sbytes`.
std::unique_ptr<PendingOp> inter_igather(Comm& c, const void* sbuf, size_t sbytes, void* rbuf,
                                         size_t block, int root);
std::unique_ptr<PendingOp> inter_iscatter(Comm& c, const void* sbuf, size_t block, void* rbuf,
                                          size_t rbytes, int root);
// Each process sends `sbytes` to every remote process and receives `rblock` from each.
std::unique_ptr<PendingOp> inter_iallgather(Comm& c, const void* sbuf, size_t sbytes,
                                            void* rbuf, size_t rblock);
// Block i of the send side to remote rank i, block i of the receive side from it.
std::unique_ptr<PendingOp> inter_ialltoall(Comm& c, const void* sbuf, size_t sblock,
                                           void* rbuf, size_t rblock);

}  // namespace torus::mpi::icoll
