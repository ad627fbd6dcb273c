// The MPI-level halves of the intercommunicator collectives (blocking_api.cpp): argument
// checks as the standard has them for an intercommunicator (roots MPI_ROOT / MPI_PROC_NULL
// / a remote rank, receive sides sized by the remote group, no MPI_IN_PLACE), datatypes
// turned into bytes, then blocking.h. The PMPI functions call these for an
// intercommunicator; each returns an MPI error code, raised through the communicator.
#pragma once

#include <cstddef>
#include <vector>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/comm/comm.h"

namespace torus::mpi {

// `n` blocks of `block` bytes back to back: the regular collectives as their v-forms.
struct EvenBlocks {
  std::vector<size_t> counts, offsets;
  EvenBlocks(size_t n, size_t block) : counts(n, block), offsets(n) {
    for (size_t i = 0; i < n; ++i) offsets[i] = i * block;
  }
};

// A root argument as the standard allows it on an intercommunicator.
bool inter_root_ok(const Comm* c, int root);

int inter_barrier_call(Comm* c);
int inter_bcast_call(Comm* c, void* buffer, int count, MPI_Datatype type, int root);
int inter_reduce_call(Comm* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                      MPI_Op op, int root);
int inter_allreduce_call(Comm* c, const void* sendbuf, void* recvbuf, int count,
                         MPI_Datatype type, MPI_Op op);
// counts: elements per local rank.
int inter_reduce_scatter_call(Comm* c, const void* sendbuf, void* recvbuf, const size_t* counts,
                              MPI_Datatype type, MPI_Op op, const char* fn);
int inter_gather_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype, int root);
int inter_gatherv_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, const int* recvcounts, const int* displs,
                       MPI_Datatype recvtype, int root);
int inter_scatter_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int root);
int inter_scatterv_call(Comm* c, const void* sendbuf, const int* sendcounts, const int* displs,
                        MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root);
int inter_allgather_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                         void* recvbuf, int recvcount, MPI_Datatype recvtype);
int inter_allgatherv_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, const int* recvcounts, const int* displs,
                          MPI_Datatype recvtype);
int inter_alltoall_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, int recvcount, MPI_Datatype recvtype);
// Alltoallv and Alltoallw: the blocks already set up (err: how that went).
class TypeBlocks;
int inter_alltoall_blocks(Comm* c, TypeBlocks& sb, TypeBlocks& rb, int err, const char* fn);

}  // namespace torus::mpi
