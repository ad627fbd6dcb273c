// MPI 4.0's large-count collectives with one count per side (the _c names beside
// large_count.cpp's): scans, reduce-scatter-block, Reduce_local, the nonblocking and
// persistent forms and the neighborhood ones. Each count is converted as in large_count.h;
// the nonblocking and persistent calls keep what they need of the converted type (pending
// operations hold its layout, persistent ones a duplicate), so it is freed on return.
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/large_count.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

extern "C" {

int PMPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Scan_c");
  return PMPI_Scan(sendbuf, recvbuf, a.count(), a.type(), op, comm);
}
int PMPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Exscan_c");
  return PMPI_Exscan(sendbuf, recvbuf, a.count(), a.type(), op, comm);
}
int PMPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  BigCount a;
  if (int e = a.init(recvcount, datatype)) return comm_error(comm, e, "MPI_Reduce_scatter_block_c");
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, a.count(), a.type(), op, comm);
}
int PMPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op) {
  BigCount a;
  if (int e = a.init(count, datatype)) return raise_error(nullptr, e, "MPI_Reduce_local_c");
  return PMPI_Reduce_local(inbuf, inoutbuf, a.count(), a.type(), op);
}
int PMPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Iallreduce_c");
  return PMPI_Iallreduce(sendbuf, recvbuf, a.count(), a.type(), op, comm, request);
}
int PMPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Ibcast_c");
  return PMPI_Ibcast(buffer, a.count(), a.type(), root, comm, request);
}
int PMPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Ireduce_c");
  return PMPI_Ireduce(sendbuf, recvbuf, a.count(), a.type(), op, root, comm, request);
}
int PMPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Iscan_c");
  return PMPI_Iscan(sendbuf, recvbuf, a.count(), a.type(), op, comm, request);
}
int PMPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Iexscan_c");
  return PMPI_Iexscan(sendbuf, recvbuf, a.count(), a.type(), op, comm, request);
}
int PMPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request* request) {
  BigCount a;
  if (int e = a.init(recvcount, datatype))
    return comm_error(comm, e, "MPI_Ireduce_scatter_block_c");
  return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, a.count(), a.type(), op, comm, request);
}
int PMPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Igather_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Igather_c");
  return PMPI_Igather(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), root, comm,
                      request);
}
int PMPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Iscatter_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Iscatter_c");
  return PMPI_Iscatter(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), root, comm,
                       request);
}
int PMPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Iallgather_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Iallgather_c");
  return PMPI_Iallgather(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), comm, request);
}
int PMPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Ialltoall_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Ialltoall_c");
  return PMPI_Ialltoall(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), comm, request);
}
int PMPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Neighbor_allgather_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Neighbor_allgather_c");
  return PMPI_Neighbor_allgather(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), comm);
}
int PMPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Neighbor_alltoall_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Neighbor_alltoall_c");
  return PMPI_Neighbor_alltoall(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), comm);
}
int PMPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Ineighbor_allgather_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Ineighbor_allgather_c");
  return PMPI_Ineighbor_allgather(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), comm,
                                  request);
}
int PMPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Ineighbor_alltoall_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Ineighbor_alltoall_c");
  return PMPI_Ineighbor_alltoall(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), comm,
                                 request);
}
int PMPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Bcast_init_c");
  return PMPI_Bcast_init(buffer, a.count(), a.type(), root, comm, info, request);
}
int PMPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Reduce_init_c");
  return PMPI_Reduce_init(sendbuf, recvbuf, a.count(), a.type(), op, root, comm, info, request);
}
int PMPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Allreduce_init_c");
  return PMPI_Allreduce_init(sendbuf, recvbuf, a.count(), a.type(), op, comm, info, request);
}
int PMPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Scan_init_c");
  return PMPI_Scan_init(sendbuf, recvbuf, a.count(), a.type(), op, comm, info, request);
}
int PMPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Exscan_init_c");
  return PMPI_Exscan_init(sendbuf, recvbuf, a.count(), a.type(), op, comm, info, request);
}
int PMPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request) {
  BigCount a;
  if (int e = a.init(recvcount, datatype))
    return comm_error(comm, e, "MPI_Reduce_scatter_block_init_c");
  return PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, a.count(), a.type(), op, comm, info,
                                        request);
}
int PMPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Gather_init_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Gather_init_c");
  return PMPI_Gather_init(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), root, comm,
                          info, request);
}
int PMPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Scatter_init_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Scatter_init_c");
  return PMPI_Scatter_init(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), root, comm,
                           info, request);
}
int PMPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Allgather_init_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Allgather_init_c");
  return PMPI_Allgather_init(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), comm, info,
                             request);
}
int PMPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Alltoall_init_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Alltoall_init_c");
  return PMPI_Alltoall_init(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(), comm, info,
                            request);
}
int PMPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype))
    return comm_error(comm, e, "MPI_Neighbor_allgather_init_c");
  if (int e = b.init(recvcount, recvtype))
    return comm_error(comm, e, "MPI_Neighbor_allgather_init_c");
  return PMPI_Neighbor_allgather_init(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(),
                                      comm, info, request);
}
int PMPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype))
    return comm_error(comm, e, "MPI_Neighbor_alltoall_init_c");
  if (int e = b.init(recvcount, recvtype))
    return comm_error(comm, e, "MPI_Neighbor_alltoall_init_c");
  return PMPI_Neighbor_alltoall_init(sendbuf, a.count(), a.type(), recvbuf, b.count(), b.type(),
                                     comm, info, request);
}

TORUS_MPI_ALIAS(MPI_Scan_c)
TORUS_MPI_ALIAS(MPI_Exscan_c)
TORUS_MPI_ALIAS(MPI_Reduce_scatter_block_c)
TORUS_MPI_ALIAS(MPI_Reduce_local_c)
TORUS_MPI_ALIAS(MPI_Iallreduce_c)
TORUS_MPI_ALIAS(MPI_Ibcast_c)
TORUS_MPI_ALIAS(MPI_Ireduce_c)
TORUS_MPI_ALIAS(MPI_Iscan_c)
TORUS_MPI_ALIAS(MPI_Iexscan_c)
TORUS_MPI_ALIAS(MPI_Ireduce_scatter_block_c)
TORUS_MPI_ALIAS(MPI_Igather_c)
TORUS_MPI_ALIAS(MPI_Iscatter_c)
TORUS_MPI_ALIAS(MPI_Iallgather_c)
TORUS_MPI_ALIAS(MPI_Ialltoall_c)
TORUS_MPI_ALIAS(MPI_Neighbor_allgather_c)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoall_c)
TORUS_MPI_ALIAS(MPI_Ineighbor_allgather_c)
TORUS_MPI_ALIAS(MPI_Ineighbor_alltoall_c)
TORUS_MPI_ALIAS(MPI_Bcast_init_c)
TORUS_MPI_ALIAS(MPI_Reduce_init_c)
TORUS_MPI_ALIAS(MPI_Allreduce_init_c)
TORUS_MPI_ALIAS(MPI_Scan_init_c)
TORUS_MPI_ALIAS(MPI_Exscan_init_c)
TORUS_MPI_ALIAS(MPI_Reduce_scatter_block_init_c)
TORUS_MPI_ALIAS(MPI_Gather_init_c)
TORUS_MPI_ALIAS(MPI_Scatter_init_c)
TORUS_MPI_ALIAS(MPI_Allgather_init_c)
TORUS_MPI_ALIAS(MPI_Alltoall_init_c)
TORUS_MPI_ALIAS(MPI_Neighbor_allgather_init_c)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoall_init_c)

}  // extern "C"
