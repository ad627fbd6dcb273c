// MPI_Barrier, Bcast, Reduce, Allreduce, Gather, Scatter, Allgather, Alltoall: argument
// checks, then the algorithms of coll.h.
#include "mpi_shim/lib/coll.h"
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/op.h"
#include "mpi_shim/lib/pmpi.h"

using namespace torus::mpi;

namespace {

// Bytes of `count` elements of `type`, or an MPI error code in *err.
size_t bytes_of(int count, MPI_Datatype type, int* err) {
  size_t size = type_size(type);
  if (size == 0) *err = MPI_ERR_TYPE;
  else if (count < 0) *err = MPI_ERR_COUNT;
  return size * static_cast<size_t>(count < 0 ? 0 : count);
}

int finish(Comm* c, torus::Status s, const char* fn) {
  return check(c, error_from_status(s), fn);
}

// The checks every reduction shares; returns an MPI error code.
int check_reduction(int count, MPI_Datatype type, MPI_Op op) {
  int err = MPI_SUCCESS;
  (void)bytes_of(count, type, &err);
  if (err == MPI_SUCCESS) err = op_check(op, type);
  return err;
}

}  // namespace

extern "C" {

int PMPI_Barrier(MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Barrier");
  return finish(c, coll::barrier(*c), "MPI_Barrier");
}

int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Bcast");
  int err = MPI_SUCCESS;
  size_t bytes = bytes_of(count, datatype, &err);
  if (err == MPI_SUCCESS && (root < 0 || root >= c->size)) err = MPI_ERR_ROOT;
  if (err) return raise_error(c, err, "MPI_Bcast");
  if (bytes == 0 || c->size == 1) return MPI_SUCCESS;
  return finish(c, coll::bcast(*c, buffer, bytes, root), "MPI_Bcast");
}

int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Reduce");
  int err = check_reduction(count, datatype, op);
  if (err == MPI_SUCCESS && (root < 0 || root >= c->size)) err = MPI_ERR_ROOT;
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, "MPI_Reduce");
  if (count == 0) return MPI_SUCCESS;
  return finish(c, coll::reduce(*c, sendbuf, recvbuf, size_t(count), datatype, op, root),
                "MPI_Reduce");
}

int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Allreduce");
  if (int err = check_reduction(count, datatype, op)) return raise_error(c, err, "MPI_Allreduce");
  if (count == 0) return MPI_SUCCESS;
  return finish(c, coll::allreduce(*c, sendbuf, recvbuf, size_t(count), datatype, op),
                "MPI_Allreduce");
}

int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Gather");
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Gather");
  int err = MPI_SUCCESS;
  // The root's block is what it receives per rank; the others' is what they send.
  size_t block = c->rank == root ? bytes_of(recvcount, recvtype, &err)
                                 : bytes_of(sendcount, sendtype, &err);
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, "MPI_Gather");
  return finish(c, coll::gather(*c, sendbuf, recvbuf, block, root), "MPI_Gather");
}

int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Scatter");
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Scatter");
  int err = MPI_SUCCESS;
  size_t block = c->rank == root ? bytes_of(sendcount, sendtype, &err)
                                 : bytes_of(recvcount, recvtype, &err);
  if (err == MPI_SUCCESS && recvbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, "MPI_Scatter");
  return finish(c, coll::scatter(*c, sendbuf, recvbuf, block, root), "MPI_Scatter");
}

int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Allgather");
  (void)sendcount;
  (void)sendtype;  // must describe the same bytes as the receive side (the standard's rule)
  int err = MPI_SUCCESS;
  size_t block = bytes_of(recvcount, recvtype, &err);
  if (err) return raise_error(c, err, "MPI_Allgather");
  return finish(c, coll::allgather(*c, sendbuf, recvbuf, block), "MPI_Allgather");
}

int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Alltoall");
  (void)sendcount;
  (void)sendtype;
  int err = MPI_SUCCESS;
  size_t block = bytes_of(recvcount, recvtype, &err);
  if (err) return raise_error(c, err, "MPI_Alltoall");
  return finish(c, coll::alltoall(*c, sendbuf, recvbuf, block), "MPI_Alltoall");
}

TORUS_MPI_ALIAS(MPI_Barrier)
TORUS_MPI_ALIAS(MPI_Bcast)
TORUS_MPI_ALIAS(MPI_Reduce)
TORUS_MPI_ALIAS(MPI_Allreduce)
TORUS_MPI_ALIAS(MPI_Gather)
TORUS_MPI_ALIAS(MPI_Scatter)
TORUS_MPI_ALIAS(MPI_Allgather)
TORUS_MPI_ALIAS(MPI_Alltoall)

}  // extern "C"
