// The MPI-level halves of the nonblocking intercommunicator collectives
// (nonblocking_api.cpp): blocking_api.h's argument checks (roots MPI_ROOT / MPI_PROC_NULL /
// a remote rank, receive sides sized by the remote group, no MPI_IN_PLACE), staging for
// non-dense datatypes, then nonblocking.h behind a new request. The PMPI_I* functions call
// these for an intercommunicator; each returns an MPI error code, raised through it.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/coll/nonblocking/staging.h"
#include "mpi_shim/lib/comm/comm.h"

namespace torus::mpi {

int inter_ibarrier_call(Comm* c, MPI_Request* request);
int inter_ibcast_call(Comm* c, void* buffer, int count, MPI_Datatype type, int root,
                      MPI_Request* request);
int inter_ireduce_call(Comm* c, const void* sendbuf, void* recvbuf, int count,
                       MPI_Datatype type, MPI_Op op, int root, MPI_Request* request);
int inter_iallreduce_call(Comm* c, const void* sendbuf, void* recvbuf, int count,
                          MPI_Datatype type, MPI_Op op, MPI_Request* request);
int inter_igather_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Request* request);
int inter_iscatter_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                        MPI_Request* request);
int inter_iallgather_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype,
                          MPI_Request* request);
int inter_ialltoall_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                         void* recvbuf, int recvcount, MPI_Datatype recvtype,
                         MPI_Request* request);
int inter_igatherv_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, const int* recvcounts, const int* displs,
                        MPI_Datatype recvtype, int root, MPI_Request* request);
int inter_iscatterv_call(Comm* c, const void* sendbuf, const int* sendcounts, const int* displs,
                         MPI_Datatype sendtype, void* recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Request* request);
int inter_iallgatherv_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, const int* recvcounts, const int* displs,
                           MPI_Datatype recvtype, MPI_Request* request);
// Ialltoallv and Ialltoallw: the blocks already set up in `st` (err: how that went).
int inter_ialltoall_blocks(Comm* c, std::unique_ptr<VStaging> st, int err,
                           MPI_Request* request, const char* fn);
// counts: elements per local rank.
int inter_ireduce_scatter_call(Comm* c, const void* sendbuf, void* recvbuf,
                               std::vector<size_t> counts, MPI_Datatype type, MPI_Op op,
                               MPI_Request* request, const char* fn);

}  // namespace torus::mpi
