// MPI_Ibarrier, Ibcast, Ireduce, Iallreduce, Igather, Iscatter, Iallgather, Ialltoall:
// the blocking versions' argument checks (same error classes), then an operation of icoll.h
// behind a new request. Calls with nothing to move get a request that is complete already.
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/icoll.h"
#include "mpi_shim/lib/op.h"
#include "mpi_shim/lib/pmpi.h"
#include "mpi_shim/lib/status.h"

using namespace torus::mpi;

namespace {

// Bytes of `count` elements of `type`, or an MPI error code in *err.
size_t bytes_of(int count, MPI_Datatype type, int* err) {
  size_t size = type_size(type);
  if (size == 0) *err = MPI_ERR_TYPE;
  else if (count < 0) *err = MPI_ERR_COUNT;
  return size * static_cast<size_t>(count < 0 ? 0 : count);
}

int check_reduction(int count, MPI_Datatype type, MPI_Op op) {
  int err = MPI_SUCCESS;
  (void)bytes_of(count, type, &err);
  if (err == MPI_SUCCESS && !op_valid(op, type)) err = MPI_ERR_OP;
  return err;
}

// A request that Wait/Test complete at once, successfully.
MPI_Request done_request(const Comm& c) {
  MPI_Status st;
  status_empty(&st);
  return request_create(nullptr, false, c.errhandler, st);
}

int start(const Comm& c, std::unique_ptr<PendingOp> op, MPI_Request* request) {
  *request = request_create_op(std::move(op), c.errhandler);
  return MPI_SUCCESS;
}

// The communicator, or nullptr after raising MPI_ERR_COMM (MPI_ERR_ARG for a null request
// pointer) through the right handler; *err holds the code to return then.
Comm* comm_and_request(MPI_Comm comm, MPI_Request* request, const char* fn, int* err) {
  Comm* c = comm_get(comm);
  if (!c) {
    *err = raise_error(nullptr, MPI_ERR_COMM, fn);
    return nullptr;
  }
  if (!request) {
    *err = raise_error(c, MPI_ERR_ARG, fn);
    return nullptr;
  }
  return c;
}

}  // namespace

extern "C" {

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  int err;
  Comm* c = comm_and_request(comm, request, "MPI_Ibarrier", &err);
  if (!c) return err;
  if (c->size == 1) {
    *request = done_request(*c);
    return MPI_SUCCESS;
  }
  return start(*c, icoll::ibarrier(*c), request);
}

int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = comm_and_request(comm, request, "MPI_Ibcast", &err);
  if (!c) return err;
  size_t bytes = bytes_of(count, datatype, &err);
  if (err == MPI_SUCCESS && (root < 0 || root >= c->size)) err = MPI_ERR_ROOT;
  if (err) return raise_error(c, err, "MPI_Ibcast");
  if (bytes == 0 || c->size == 1) {
    *request = done_request(*c);
    return MPI_SUCCESS;
  }
  return start(*c, icoll::ibcast(*c, buffer, bytes, root), request);
}

int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = comm_and_request(comm, request, "MPI_Ireduce", &err);
  if (!c) return err;
  err = check_reduction(count, datatype, op);
  if (err == MPI_SUCCESS && (root < 0 || root >= c->size)) err = MPI_ERR_ROOT;
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, "MPI_Ireduce");
  if (count == 0) {
    *request = done_request(*c);
    return MPI_SUCCESS;
  }
  return start(*c, icoll::ireduce(*c, sendbuf, recvbuf, size_t(count), datatype, op, root),
               request);
}

int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = comm_and_request(comm, request, "MPI_Iallreduce", &err);
  if (!c) return err;
  if ((err = check_reduction(count, datatype, op))) return raise_error(c, err, "MPI_Iallreduce");
  if (count == 0) {
    *request = done_request(*c);
    return MPI_SUCCESS;
  }
  return start(*c, icoll::iallreduce(*c, sendbuf, recvbuf, size_t(count), datatype, op),
               request);
}

int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = comm_and_request(comm, request, "MPI_Igather", &err);
  if (!c) return err;
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Igather");
  // The root's block is what it receives per rank; the others' is what they send.
  size_t block = c->rank == root ? bytes_of(recvcount, recvtype, &err)
                                 : bytes_of(sendcount, sendtype, &err);
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, "MPI_Igather");
  return start(*c, icoll::igather(*c, sendbuf, recvbuf, block, root), request);
}

int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = comm_and_request(comm, request, "MPI_Iscatter", &err);
  if (!c) return err;
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Iscatter");
  size_t block = c->rank == root ? bytes_of(sendcount, sendtype, &err)
                                 : bytes_of(recvcount, recvtype, &err);
  if (err == MPI_SUCCESS && recvbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, "MPI_Iscatter");
  return start(*c, icoll::iscatter(*c, sendbuf, recvbuf, block, root), request);
}

int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = comm_and_request(comm, request, "MPI_Iallgather", &err);
  if (!c) return err;
  (void)sendcount;
  (void)sendtype;  // must describe the same bytes as the receive side (the standard's rule)
  size_t block = bytes_of(recvcount, recvtype, &err);
  if (err) return raise_error(c, err, "MPI_Iallgather");
  return start(*c, icoll::iallgather(*c, sendbuf, recvbuf, block), request);
}

int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = comm_and_request(comm, request, "MPI_Ialltoall", &err);
  if (!c) return err;
  (void)sendcount;
  (void)sendtype;
  size_t block = bytes_of(recvcount, recvtype, &err);
  if (err) return raise_error(c, err, "MPI_Ialltoall");
  return start(*c, icoll::ialltoall(*c, sendbuf, recvbuf, block), request);
}

TORUS_MPI_ALIAS(MPI_Ibarrier)
TORUS_MPI_ALIAS(MPI_Ibcast)
TORUS_MPI_ALIAS(MPI_Ireduce)
TORUS_MPI_ALIAS(MPI_Iallreduce)
TORUS_MPI_ALIAS(MPI_Igather)
TORUS_MPI_ALIAS(MPI_Iscatter)
TORUS_MPI_ALIAS(MPI_Iallgather)
TORUS_MPI_ALIAS(MPI_Ialltoall)

}  // extern "C"
