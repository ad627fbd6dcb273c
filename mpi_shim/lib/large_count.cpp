// MPI 4.0's large-count calls (the _c names): a count that fits an int goes to the int call as
// it is; a larger one becomes one element of a derived type covering the whole range
// (contiguous chunks of 2^30 elements, and the rest), which the int calls move like any
// other type, reductions included (a predefined op computes on the type's basic elements).

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/large_count.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/request/status.h"

using namespace torus::mpi;

// One count: the int call with the converted (count, type) in place of (COUNT, TYPE).
#define TORUS_LARGE(fn, comm, count, type, call) \
  BigCount big;                                   \
  if (int e = big.init(count, type)) return comm_error(comm, e, fn); \
  return call;

extern "C" {

int PMPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm) {
  TORUS_LARGE("MPI_Send_c", comm, count, datatype,
              PMPI_Send(buf, big.count(), big.type(), dest, tag, comm))
}
int PMPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm) {
  TORUS_LARGE("MPI_Ssend_c", comm, count, datatype,
              PMPI_Ssend(buf, big.count(), big.type(), dest, tag, comm))
}
int PMPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm) {
  TORUS_LARGE("MPI_Rsend_c", comm, count, datatype,
              PMPI_Rsend(buf, big.count(), big.type(), dest, tag, comm))
}
int PMPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm) {
  TORUS_LARGE("MPI_Bsend_c", comm, count, datatype,
              PMPI_Bsend(buf, big.count(), big.type(), dest, tag, comm))
}
int PMPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status* status) {
  TORUS_LARGE("MPI_Recv_c", comm, count, datatype,
              PMPI_Recv(buf, big.count(), big.type(), source, tag, comm, status))
}
int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  TORUS_LARGE("MPI_Isend_c", comm, count, datatype,
              PMPI_Isend(buf, big.count(), big.type(), dest, tag, comm, request))
}
int PMPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  TORUS_LARGE("MPI_Issend_c", comm, count, datatype,
              PMPI_Issend(buf, big.count(), big.type(), dest, tag, comm, request))
}
int PMPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  TORUS_LARGE("MPI_Irsend_c", comm, count, datatype,
              PMPI_Irsend(buf, big.count(), big.type(), dest, tag, comm, request))
}
int PMPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  TORUS_LARGE("MPI_Ibsend_c", comm, count, datatype,
              PMPI_Ibsend(buf, big.count(), big.type(), dest, tag, comm, request))
}
int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  TORUS_LARGE("MPI_Irecv_c", comm, count, datatype,
              PMPI_Irecv(buf, big.count(), big.type(), source, tag, comm, request))
}
int PMPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  TORUS_LARGE("MPI_Send_init_c", comm, count, datatype,
              PMPI_Send_init(buf, big.count(), big.type(), dest, tag, comm, request))
}
int PMPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  TORUS_LARGE("MPI_Recv_init_c", comm, count, datatype,
              PMPI_Recv_init(buf, big.count(), big.type(), source, tag, comm, request))
}
int PMPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                 MPI_Status* status) {
  TORUS_LARGE("MPI_Mrecv_c", MPI_COMM_WORLD, count, datatype,
              PMPI_Mrecv(buf, big.count(), big.type(), message, status))
}
int PMPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                  MPI_Request* request) {
  TORUS_LARGE("MPI_Imrecv_c", MPI_COMM_WORLD, count, datatype,
              PMPI_Imrecv(buf, big.count(), big.type(), message, request))
}
int PMPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status* status) {
  TORUS_LARGE("MPI_Sendrecv_replace_c", comm, count, datatype,
              PMPI_Sendrecv_replace(buf, big.count(), big.type(), dest, sendtag, source,
                                    recvtag, comm, status))
}
int PMPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                 MPI_Comm comm) {
  TORUS_LARGE("MPI_Bcast_c", comm, count, datatype,
              PMPI_Bcast(buffer, big.count(), big.type(), root, comm))
}
int PMPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm) {
  TORUS_LARGE("MPI_Reduce_c", comm, count, datatype,
              PMPI_Reduce(sendbuf, recvbuf, big.count(), big.type(), op, root, comm))
}
int PMPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm) {
  TORUS_LARGE("MPI_Allreduce_c", comm, count, datatype,
              PMPI_Allreduce(sendbuf, recvbuf, big.count(), big.type(), op, comm))
}

// The remaining point-to-point calls, each count converted on its own.
int PMPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Bsend_init_c");
  return PMPI_Bsend_init(buf, a.count(), a.type(), dest, tag, comm, request);
}
int PMPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Ssend_init_c");
  return PMPI_Ssend_init(buf, a.count(), a.type(), dest, tag, comm, request);
}
int PMPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Rsend_init_c");
  return PMPI_Rsend_init(buf, a.count(), a.type(), dest, tag, comm, request);
}
int PMPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(sendcount, sendtype)) return comm_error(comm, e, "MPI_Isendrecv_c");
  if (int e = b.init(recvcount, recvtype)) return comm_error(comm, e, "MPI_Isendrecv_c");
  return PMPI_Isendrecv(sendbuf, a.count(), a.type(), dest, sendtag, recvbuf, b.count(), b.type(),
                        source, recvtag, comm, request);
}
int PMPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request* request) {
  BigCount a;
  if (int e = a.init(count, datatype)) return comm_error(comm, e, "MPI_Isendrecv_replace_c");
  return PMPI_Isendrecv_replace(buf, a.count(), a.type(), dest, sendtag, source, recvtag, comm,
                                request);
}

#undef TORUS_LARGE

// Two counts: the send side's and the receive side's, each converted on its own.
#define TORUS_LARGE2(fn, comm, scount, stype, rcount, rtype, call)        \
  BigCount s, r;                                                         \
  if (int e = s.init(scount, stype)) return comm_error(comm, e, fn);     \
  if (int e = r.init(rcount, rtype)) return comm_error(comm, e, fn);     \
  return call;

int PMPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  TORUS_LARGE2("MPI_Sendrecv_c", comm, sendcount, sendtype, recvcount, recvtype,
               PMPI_Sendrecv(sendbuf, s.count(), s.type(), dest, sendtag, recvbuf, r.count(),
                             r.type(), source, recvtag, comm, status))
}
int PMPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm) {
  TORUS_LARGE2("MPI_Gather_c", comm, sendcount, sendtype, recvcount, recvtype,
               PMPI_Gather(sendbuf, s.count(), s.type(), recvbuf, r.count(), r.type(), root,
                           comm))
}
int PMPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm) {
  TORUS_LARGE2("MPI_Scatter_c", comm, sendcount, sendtype, recvcount, recvtype,
               PMPI_Scatter(sendbuf, s.count(), s.type(), recvbuf, r.count(), r.type(), root,
                            comm))
}
int PMPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  TORUS_LARGE2("MPI_Allgather_c", comm, sendcount, sendtype, recvcount, recvtype,
               PMPI_Allgather(sendbuf, s.count(), s.type(), recvbuf, r.count(), r.type(), comm))
}
int PMPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  TORUS_LARGE2("MPI_Alltoall_c", comm, sendcount, sendtype, recvcount, recvtype,
               PMPI_Alltoall(sendbuf, s.count(), s.type(), recvbuf, r.count(), r.type(), comm))
}

#undef TORUS_LARGE2

int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  if (!status || !count) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Get_count_c");
  MPI_Count size = 0;
  if (int e = PMPI_Type_size_x(datatype, &size)) return e;
  const MPI_Count bytes = MPI_Count(status_bytes(*status));
  if (size == 0) *count = 0;
  else *count = bytes % size ? MPI_UNDEFINED : bytes / size;
  return MPI_SUCCESS;
}

int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return PMPI_Get_elements_x(status, datatype, count);
}

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  return PMPI_Type_size_x(datatype, size);
}

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return PMPI_Type_get_extent_x(datatype, lb, extent);
}

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb,
                                MPI_Count* true_extent) {
  return PMPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}

TORUS_MPI_ALIAS(MPI_Send_c)
TORUS_MPI_ALIAS(MPI_Ssend_c)
TORUS_MPI_ALIAS(MPI_Rsend_c)
TORUS_MPI_ALIAS(MPI_Bsend_c)
TORUS_MPI_ALIAS(MPI_Recv_c)
TORUS_MPI_ALIAS(MPI_Isend_c)
TORUS_MPI_ALIAS(MPI_Issend_c)
TORUS_MPI_ALIAS(MPI_Irsend_c)
TORUS_MPI_ALIAS(MPI_Ibsend_c)
TORUS_MPI_ALIAS(MPI_Irecv_c)
TORUS_MPI_ALIAS(MPI_Send_init_c)
TORUS_MPI_ALIAS(MPI_Recv_init_c)
TORUS_MPI_ALIAS(MPI_Mrecv_c)
TORUS_MPI_ALIAS(MPI_Imrecv_c)
TORUS_MPI_ALIAS(MPI_Sendrecv_c)
TORUS_MPI_ALIAS(MPI_Sendrecv_replace_c)
TORUS_MPI_ALIAS(MPI_Get_count_c)
TORUS_MPI_ALIAS(MPI_Get_elements_c)
TORUS_MPI_ALIAS(MPI_Type_size_c)
TORUS_MPI_ALIAS(MPI_Type_get_extent_c)
TORUS_MPI_ALIAS(MPI_Type_get_true_extent_c)
TORUS_MPI_ALIAS(MPI_Bcast_c)
TORUS_MPI_ALIAS(MPI_Reduce_c)
TORUS_MPI_ALIAS(MPI_Allreduce_c)
TORUS_MPI_ALIAS(MPI_Gather_c)
TORUS_MPI_ALIAS(MPI_Scatter_c)
TORUS_MPI_ALIAS(MPI_Allgather_c)
TORUS_MPI_ALIAS(MPI_Alltoall_c)
TORUS_MPI_ALIAS(MPI_Bsend_init_c)
TORUS_MPI_ALIAS(MPI_Ssend_init_c)
TORUS_MPI_ALIAS(MPI_Rsend_init_c)
TORUS_MPI_ALIAS(MPI_Isendrecv_c)
TORUS_MPI_ALIAS(MPI_Isendrecv_replace_c)

}  // extern "C"
