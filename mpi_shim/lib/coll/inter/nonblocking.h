// Nonblocking collectives on intercommunicators (nonblocking.cpp), in bytes as
// coll/nonblocking/icoll.h's are, with the blocking ones' algorithms (blocking.h): a group reduces
// or broadcasts inside itself along a binomial tree rooted at its leader (local rank 0), the
// leaders carry the result across, and transfers with one process on each side go straight between
// them. `root` as the standard has it: MPI_ROOT, MPI_PROC_NULL, or the root's rank in the remote
// group. Every process of both groups takes the call's sequence numbers
// (coll/nonblocking/engine.h), also those with nothing to move.
#pragma once

#include <cstddef>
#include <memory>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/request/request.h"

namespace torus::mpi::icoll {

std::unique_ptr<PendingOp> inter_ibarrier(Comm& c);
std::unique_ptr<PendingOp> inter_ibcast(Comm& c, void* buf, size_t bytes, int root);
// The root gets the reduction of the other group's `count` elements; `layout` as in
// coll/nonblocking/icoll.h.
std::unique_ptr<PendingOp> inter_ireduce(Comm& c, const void* sbuf, void* rbuf, size_t count,
                                         MPI_Datatype type, const TypeInfo* layout, MPI_Op op,
                                         int root);
// Each process gets the reduction of the other group's vectors.
std::unique_ptr<PendingOp> inter_iallreduce(Comm& c, const void* sbuf, void* rbuf,
                                            size_t count, MPI_Datatype type,
                                            const TypeInfo* layout, MPI_Op op);
// The root receives rcounts[i] bytes from remote rank i at offset roffsets[i]; the other
// group's processes send their `sbytes`. Counts and offsets are copied by the call.
std::unique_ptr<PendingOp> inter_igatherv(Comm& c, const void* sbuf, size_t sbytes, void* rbuf,
                                          const size_t* rcounts, const size_t* roffsets,
                                          int root);
std::unique_ptr<PendingOp> inter_iscatterv(Comm& c, const void* sbuf, const size_t* scounts,
                                           const size_t* soffsets, void* rbuf, size_t rbytes,
                                           int root);
// Block i of the send side to remote rank i, block i of the receive side from it (allgather:
// every send offset the same).
std::unique_ptr<PendingOp> inter_ialltoallv(Comm& c, const void* sbuf, const size_t* scounts,
                                            const size_t* soffsets, void* rbuf,
                                            const size_t* rcounts, const size_t* roffsets);
// The other group's vectors of sum(counts) elements reduced, counts[i] elements of the result
// to local rank i (counts: one per local rank, in elements of `type`; both groups' sums are
// equal, as the standard requires).
std::unique_ptr<PendingOp> inter_ireduce_scatter(Comm& c, const void* sbuf, void* rbuf,
                                                 const size_t* counts, MPI_Datatype type,
                                                 const TypeInfo* layout, MPI_Op op);

}  // namespace torus::mpi::icoll
