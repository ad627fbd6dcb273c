// MPI_Ibarrier, Ibcast, Ireduce, Iallreduce, Igather, Iscatter, Iallgather, Ialltoall:
// the blocking versions' argument checks (same error classes), then an operation of icoll.h
// behind a new request. Calls with nothing to move get a request that is complete already.
// On an intercommunicator each goes to coll/inter/nonblocking_api.h instead.
// Non-dense datatypes go through staging areas the request owns (datatype/view.h,
// coll/reduce_view.h).
#include <memory>
#include <utility>

#include "mpi_shim/lib/coll/inter/nonblocking_api.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/coll/nonblocking/staging.h"
#include "mpi_shim/lib/coll/reduce_view.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

size_t n_of(const Comm* c) { return static_cast<size_t>(c->size); }

}  // namespace

namespace torus::mpi {

Comm* icoll_comm_and_request(MPI_Comm comm, MPI_Request* request, const char* fn, int* err,
                             bool inter_ok) {
  Comm* c = inter_ok ? comm_get(comm) : comm_get_intra(comm);
  if (!c) {
    *err = raise_error(comm_get(comm), MPI_ERR_COMM, fn);
    return nullptr;
  }
  if (!request) {
    *err = raise_error(c, MPI_ERR_ARG, fn);
    return nullptr;
  }
  return c;
}

}  // namespace torus::mpi

extern "C" {

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  int err;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Ibarrier", &err, true);
  if (!c) return err;
  if (c->inter()) return inter_ibarrier_call(c, request);
  if (c->size == 1) {
    *request = icoll_done_request(*c);
    return MPI_SUCCESS;
  }
  return icoll_start(*c, icoll::ibarrier(*c), nullptr, request);
}

int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Ibcast", &err, true);
  if (!c) return err;
  if (c->inter()) return inter_ibcast_call(c, buffer, count, datatype, root, request);
  size_t bytes = 0;
  err = type_bytes(datatype, count, &bytes);
  if (err == MPI_SUCCESS && (root < 0 || root >= c->size)) err = MPI_ERR_ROOT;
  if (err) return raise_error(c, err, "MPI_Ibcast");
  if (bytes == 0 || c->size == 1) {
    *request = icoll_done_request(*c);
    return MPI_SUCCESS;
  }
  auto st = std::make_unique<Staging>();
  if (int e = st->recv.init(buffer, count, datatype)) return raise_error(c, e, "MPI_Ibcast");
  if (c->rank == root) st->recv.pack_user(0, size_t(count));
  st->unpack_recv = c->rank != root;
  auto pending = icoll::ibcast(*c, st->recv.data(), bytes, root);
  return icoll_start(*c, std::move(pending), std::move(st), request);
}

int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Ireduce", &err, true);
  if (!c) return err;
  if (c->inter())
    return inter_ireduce_call(c, sendbuf, recvbuf, count, datatype, op, root, request);
  err = reduction_check(count, datatype, op);
  if (err == MPI_SUCCESS && (root < 0 || root >= c->size)) err = MPI_ERR_ROOT;
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, "MPI_Ireduce");
  if (count == 0 || type_packed_size(datatype) == 0) {
    *request = icoll_done_request(*c);
    return MPI_SUCCESS;
  }
  const size_t n = size_t(count);
  auto st = std::make_unique<Staging>();
  ReduceView& v = st->red;
  if (int e = v.init(sendbuf, n, recvbuf, c->rank == root ? n : 0, datatype, op))
    return raise_error(c, e, "MPI_Ireduce");
  if (c->rank == root) st->red_elements = n;
  auto pending =
      icoll::ireduce(*c, v.sbuf(), v.rbuf(), n * v.scale(), v.type(), v.layout(), op, root);
  return icoll_start(*c, std::move(pending), std::move(st), request);
}

int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Iallreduce", &err, true);
  if (!c) return err;
  if (c->inter()) return inter_iallreduce_call(c, sendbuf, recvbuf, count, datatype, op, request);
  if ((err = reduction_check(count, datatype, op))) return raise_error(c, err, "MPI_Iallreduce");
  if (count == 0 || type_packed_size(datatype) == 0) {
    *request = icoll_done_request(*c);
    return MPI_SUCCESS;
  }
  const size_t n = size_t(count);
  auto st = std::make_unique<Staging>();
  ReduceView& v = st->red;
  if (int e = v.init(sendbuf, n, recvbuf, n, datatype, op))
    return raise_error(c, e, "MPI_Iallreduce");
  st->red_elements = n;
  auto pending =
      icoll::iallreduce(*c, v.sbuf(), v.rbuf(), n * v.scale(), v.type(), v.layout(), op);
  return icoll_start(*c, std::move(pending), std::move(st), request);
}

int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Igather", &err, true);
  if (!c) return err;
  if (c->inter())
    return inter_igather_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              request);
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Igather");
  if (sendbuf == MPI_IN_PLACE && c->rank != root)
    return raise_error(c, MPI_ERR_BUFFER, "MPI_Igather");
  auto st = std::make_unique<Staging>();
  if (c->rank != root) {
    if (int e = st->send.init(sendbuf, sendcount, sendtype))
      return raise_error(c, e, "MPI_Igather");
    auto pending = icoll::igather(*c, st->send.data(), nullptr, st->send.bytes(), root);
    return icoll_start(*c, std::move(pending), std::move(st), request);
  }
  // The root's block is what it receives per rank; its own goes into place first.
  size_t block = 0;
  err = type_bytes(recvtype, recvcount, &block);
  if (err == MPI_SUCCESS)
    err = st->recv.init_elements(recvbuf, n_of(c) * size_t(recvcount), recvtype);
  if (err == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
    err = st->send.init(sendbuf, sendcount, sendtype);
    if (err == MPI_SUCCESS && st->send.bytes() != block) err = MPI_ERR_TRUNCATE;
  }
  if (err) return raise_error(c, err, "MPI_Igather");
  if (sendbuf == MPI_IN_PLACE)
    st->recv.pack_user(size_t(root) * size_t(recvcount), size_t(recvcount));
  st->unpack_recv = true;
  const void* own = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : st->send.data();
  auto pending = icoll::igather(*c, own, st->recv.data(), block, root);
  return icoll_start(*c, std::move(pending), std::move(st), request);
}

int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Iscatter", &err, true);
  if (!c) return err;
  if (c->inter())
    return inter_iscatter_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               request);
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Iscatter");
  if (recvbuf == MPI_IN_PLACE && c->rank != root)
    return raise_error(c, MPI_ERR_BUFFER, "MPI_Iscatter");
  auto st = std::make_unique<Staging>();
  st->unpack_recv = true;
  if (c->rank != root) {
    if (int e = st->recv.init(recvbuf, recvcount, recvtype))
      return raise_error(c, e, "MPI_Iscatter");
    auto pending = icoll::iscatter(*c, nullptr, st->recv.data(), st->recv.bytes(), root);
    return icoll_start(*c, std::move(pending), std::move(st), request);
  }
  size_t block = 0;
  err = type_bytes(sendtype, sendcount, &block);
  if (err == MPI_SUCCESS)
    err = st->send.init_elements(sendbuf, n_of(c) * size_t(sendcount), sendtype);
  if (err == MPI_SUCCESS && recvbuf != MPI_IN_PLACE) {
    err = st->recv.init(recvbuf, recvcount, recvtype);
    if (err == MPI_SUCCESS && st->recv.bytes() != block) err = MPI_ERR_TRUNCATE;
  }
  if (err) return raise_error(c, err, "MPI_Iscatter");
  void* own = recvbuf == MPI_IN_PLACE ? MPI_IN_PLACE : st->recv.data();
  auto pending = icoll::iscatter(*c, st->send.data(), own, block, root);
  return icoll_start(*c, std::move(pending), std::move(st), request);
}

int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Iallgather", &err, true);
  if (!c) return err;
  if (c->inter())
    return inter_iallgather_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 request);
  auto st = std::make_unique<Staging>();
  size_t block = 0;
  err = type_bytes(recvtype, recvcount, &block);
  if (err == MPI_SUCCESS)
    err = st->recv.init_elements(recvbuf, n_of(c) * size_t(recvcount), recvtype);
  if (err == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
    err = st->send.init(sendbuf, sendcount, sendtype);
    if (err == MPI_SUCCESS && st->send.bytes() != block) err = MPI_ERR_TRUNCATE;
  }
  if (err) return raise_error(c, err, "MPI_Iallgather");
  if (sendbuf == MPI_IN_PLACE)
    st->recv.pack_user(size_t(c->rank) * size_t(recvcount), size_t(recvcount));
  st->unpack_recv = true;
  const void* own = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : st->send.data();
  auto pending = icoll::iallgather(*c, own, st->recv.data(), block);
  return icoll_start(*c, std::move(pending), std::move(st), request);
}

int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Ialltoall", &err, true);
  if (!c) return err;
  if (c->inter())
    return inter_ialltoall_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                request);
  auto st = std::make_unique<Staging>();
  const size_t n = n_of(c);
  size_t block = 0;
  err = type_bytes(recvtype, recvcount, &block);
  if (err == MPI_SUCCESS) err = st->recv.init_elements(recvbuf, n * size_t(recvcount), recvtype);
  if (err == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
    size_t sblock = 0;
    err = type_bytes(sendtype, sendcount, &sblock);
    if (err == MPI_SUCCESS && sblock != block) err = MPI_ERR_TRUNCATE;
    if (err == MPI_SUCCESS)
      err = st->send.init_elements(sendbuf, n * size_t(sendcount), sendtype);
  }
  if (err) return raise_error(c, err, "MPI_Ialltoall");
  if (sendbuf == MPI_IN_PLACE) st->recv.pack_user(0, n * size_t(recvcount));
  st->unpack_recv = true;
  const void* own = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : st->send.data();
  auto pending = icoll::ialltoall(*c, own, st->recv.data(), block);
  return icoll_start(*c, std::move(pending), std::move(st), request);
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
