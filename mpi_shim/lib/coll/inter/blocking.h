// Collectives on intercommunicators (blocking.cpp), in bytes as coll/coll.h's are. Each group's
// data goes to the other group: a group reduces, gathers or broadcasts inside itself on its
// own intracommunicator (Comm::local), and the two leaders (local rank 0) carry the result
// across; transfers with one process on each side go straight between them.
//
// `root` is as the standard has it: MPI_ROOT at the root, MPI_PROC_NULL at the rest of the
// root's group, the root's rank in the remote group at the other group's processes.
#pragma once

#include <cstddef>

#include "core/api/torus.hpp"
#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/comm/comm.h"

namespace torus::mpi::coll {

Status inter_barrier(Comm& c);
Status inter_bcast(Comm& c, void* buf, size_t bytes, int root);
// The root gets the reduction of the other group's `count` elements.
Status inter_reduce(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
                    MPI_Op op, int root);
// Each process gets the reduction of the other group's vectors.
Status inter_allreduce(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
                       MPI_Op op);
// The other group's vectors of sum(counts) elements (counts: one per local rank) reduced,
// and counts[i] elements of the result to local rank i.
Status inter_reduce_scatter(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
                            MPI_Datatype type, MPI_Op op);
// The root receives rcounts[i] bytes from remote rank i at rdispls[i]; the other group's
// processes send their sbytes.
Status inter_gatherv(Comm& c, const void* sbuf, size_t sbytes, void* rbuf,
                     const size_t* rcounts, const size_t* rdispls, int root);
Status inter_scatterv(Comm& c, const void* sbuf, const size_t* scounts, const size_t* sdispls,
                      void* rbuf, size_t rbytes, int root);
// Block i of the send side to remote rank i, block i of the receive side from it (allgather
// sends one block to all: every send offset the same).
Status inter_alltoallv(Comm& c, const void* sbuf, const size_t* scounts, const size_t* sdispls,
                       void* rbuf, const size_t* rcounts, const size_t* rdispls);

}  // namespace torus::mpi::coll
