// Nonblocking collective algorithms, below argument checking: each returns the operation
// with its first round posted, for request_create_op. They use the blocking versions'
// algorithms (coll/coll.h) as rounds of the engine in engine.h, and take the communicator's next
// collective sequence number, so every rank starts its collectives on `c` (blocking or not)
// in the same order. Sizes are in bytes except where a reduction needs elements and the
// datatype; buffers must stay valid until the request completes.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/comm/topo/neighbors.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/request/request.h"

namespace torus::mpi {
// For the MPI_I* calls (api.cpp): the communicator, or nullptr after raising
// MPI_ERR_COMM (MPI_ERR_ARG for a null request pointer) through the right handler; *err
// holds the code to return then. An intercommunicator is MPI_ERR_COMM unless `inter_ok`
// (the calls of coll/inter/nonblocking_api.h).
Comm* icoll_comm_and_request(MPI_Comm comm, MPI_Request* request, const char* fn, int* err,
                             bool inter_ok = false);
}  // namespace torus::mpi

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
// The vector forms (vector.cpp), counts and offsets in bytes, copied by the operation;
// the same algorithms and MPI_IN_PLACE rules as the blocking ones (coll/algo/vector.cpp).
std::unique_ptr<PendingOp> igatherv(Comm& c, const void* sbuf, size_t sbytes, void* rbuf,
                                    const size_t* rcounts, const size_t* roffsets, int root);
std::unique_ptr<PendingOp> iscatterv(Comm& c, const void* sbuf, const size_t* scounts,
                                     const size_t* soffsets, void* rbuf, size_t rbytes,
                                     int root);
std::unique_ptr<PendingOp> iallgatherv(Comm& c, const void* sbuf, void* rbuf,
                                       const size_t* counts, const size_t* offsets);
std::unique_ptr<PendingOp> ialltoallv(Comm& c, const void* sbuf, const size_t* scounts,
                                      const size_t* soffsets, void* rbuf,
                                      const size_t* rcounts, const size_t* roffsets);

// Reductions on parts of the vector (reduce_scatter.cpp, scan.cpp); counts in
// elements of `type`, `layout` as for ireduce.
// Every rank sends each other rank its block at once (one round), then combines what it got
// in rank order, so any op, commutative or not, at any size.
std::unique_ptr<PendingOp> ireduce_scatter(Comm& c, const void* sbuf, void* rbuf,
                                           const size_t* counts, MPI_Datatype type,
                                           const TypeInfo* layout, MPI_Op op);
// Recursive doubling, coll/algo/scan.cpp's algorithm; `exclusive` for MPI_Iexscan (rank 0's
// receive buffer is left as it is).
std::unique_ptr<PendingOp> iscan(Comm& c, const void* sbuf, void* rbuf, size_t count,
                                 MPI_Datatype type, const TypeInfo* layout, MPI_Op op,
                                 bool exclusive);

// Neighborhood collectives (coll/neighbor/round.cpp): one round, every receive from
// plan.sources and every send to plan.destinations posted at once; block i's bytes and
// offset (from rbuf, or sbuf) in rcounts/roffsets (scounts/soffsets), copied by the
// operation. Zero-byte blocks and MPI_PROC_NULL neighbors move nothing.
std::unique_ptr<PendingOp> ineighbor(Comm& c, const NeighborPlan& plan, const void* sbuf,
                                     const size_t* scounts, const size_t* soffsets,
                                     void* rbuf, const size_t* rcounts,
                                     const size_t* roffsets);

// The children of `vr` (rank relative to the root) in the binomial tree of `n` ranks,
// farthest subtree first; *parent: its parent relative rank, or -1 for the root.
std::vector<int> binomial_children(int vr, int n, int* parent);

// Packed bytes of `count` elements of `type` (of `layout` where given).
inline size_t reduction_bytes(size_t count, MPI_Datatype type, const TypeInfo* layout) {
  return count * (layout ? layout->size : type_packed_size(type));
}

}  // namespace torus::mpi::icoll
