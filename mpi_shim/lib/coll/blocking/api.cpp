// MPI_Barrier, Bcast, Reduce, Allreduce, Gather, Scatter, Allgather, Alltoall: argument
// checks, datatypes turned into bytes (datatype/view.h: dense types in place, others packed into
// a staging area before and unpacked after), then the algorithms of coll/coll.h, which move bytes.
#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/coll/inter/blocking_api.h"
#include "mpi_shim/lib/coll/reduce_view.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

int finish(Comm* c, torus::Status s, const char* fn) {
  return check(c, error_from_status(s), fn);
}

size_t n_of(const Comm* c) { return static_cast<size_t>(c->size); }

// A send side that must carry exactly `block` bytes, as the matching receive side says (a
// signature mismatch found locally is the receive's truncation).
int send_block(SendView* v, const void* buf, int count, MPI_Datatype type, size_t block) {
  if (int e = v->init(buf, count, type)) return e;
  return v->bytes() == block ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
}

}  // namespace

extern "C" {

int PMPI_Barrier(MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Barrier");
  if (c->inter()) return inter_barrier_call(c);
  return finish(c, coll::barrier(*c), "MPI_Barrier");
}

int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Bcast");
  if (c->inter()) return inter_bcast_call(c, buffer, count, datatype, root);
  size_t bytes = 0;
  int err = type_bytes(datatype, count, &bytes);
  if (err == MPI_SUCCESS && (root < 0 || root >= c->size)) err = MPI_ERR_ROOT;
  if (err) return raise_error(c, err, "MPI_Bcast");
  if (bytes == 0 || c->size == 1) return MPI_SUCCESS;
  RecvView v;
  if (int e = v.init(buffer, count, datatype)) return raise_error(c, e, "MPI_Bcast");
  if (c->rank == root) v.pack_user(0, size_t(count));
  torus::Status s = coll::bcast(*c, v.data(), bytes, root);
  if (c->rank != root && !torus::is_error(s)) v.finish(bytes);
  return finish(c, s, "MPI_Bcast");
}

int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Reduce");
  if (c->inter()) return inter_reduce_call(c, sendbuf, recvbuf, count, datatype, op, root);
  int err = reduction_check(count, datatype, op);
  if (err == MPI_SUCCESS && (root < 0 || root >= c->size)) err = MPI_ERR_ROOT;
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, "MPI_Reduce");
  if (count == 0 || type_packed_size(datatype) == 0) return MPI_SUCCESS;
  const size_t n = size_t(count);
  ReduceView v;  // the receive buffer is significant at the root only
  if (int e = v.init(sendbuf, n, recvbuf, c->rank == root ? n : 0, datatype, op))
    return raise_error(c, e, "MPI_Reduce");
  torus::Status s = coll::reduce(*c, v.sbuf(), v.rbuf(), n * v.scale(), v.type(), op, root);
  if (c->rank == root && !torus::is_error(s)) v.finish(n);
  return finish(c, s, "MPI_Reduce");
}

int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Allreduce");
  if (c->inter()) return inter_allreduce_call(c, sendbuf, recvbuf, count, datatype, op);
  if (int err = reduction_check(count, datatype, op)) return raise_error(c, err, "MPI_Allreduce");
  if (count == 0 || type_packed_size(datatype) == 0) return MPI_SUCCESS;
  const size_t n = size_t(count);
  ReduceView v;
  if (int e = v.init(sendbuf, n, recvbuf, n, datatype, op))
    return raise_error(c, e, "MPI_Allreduce");
  torus::Status s = coll::allreduce(*c, v.sbuf(), v.rbuf(), n * v.scale(), v.type(), op);
  if (!torus::is_error(s)) v.finish(n);
  return finish(c, s, "MPI_Allreduce");
}

int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Gather");
  if (c->inter())
    return inter_gather_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             root);
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Gather");
  if (sendbuf == MPI_IN_PLACE && c->rank != root)
    return raise_error(c, MPI_ERR_BUFFER, "MPI_Gather");
  SendView sv;
  if (c->rank != root) {
    if (int e = sv.init(sendbuf, sendcount, sendtype)) return raise_error(c, e, "MPI_Gather");
    return finish(c, coll::gather(*c, sv.data(), nullptr, sv.bytes(), root), "MPI_Gather");
  }
  // The root's block is what it receives per rank; its own goes into place first.
  size_t block = 0;
  RecvView rv;
  int err = type_bytes(recvtype, recvcount, &block);
  if (err == MPI_SUCCESS) err = rv.init_elements(recvbuf, n_of(c) * size_t(recvcount), recvtype);
  if (err == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
    err = send_block(&sv, sendbuf, sendcount, sendtype, block);
  if (err) return raise_error(c, err, "MPI_Gather");
  if (sendbuf == MPI_IN_PLACE) rv.pack_user(size_t(root) * size_t(recvcount), size_t(recvcount));
  const void* own = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : sv.data();
  torus::Status s = coll::gather(*c, own, rv.data(), block, root);
  if (!torus::is_error(s)) rv.finish(rv.bytes());
  return finish(c, s, "MPI_Gather");
}

int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Scatter");
  if (c->inter())
    return inter_scatter_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                              root);
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Scatter");
  if (recvbuf == MPI_IN_PLACE && c->rank != root)
    return raise_error(c, MPI_ERR_BUFFER, "MPI_Scatter");
  RecvView rv;
  if (c->rank != root) {
    if (int e = rv.init(recvbuf, recvcount, recvtype)) return raise_error(c, e, "MPI_Scatter");
    torus::Status s = coll::scatter(*c, nullptr, rv.data(), rv.bytes(), root);
    if (!torus::is_error(s)) rv.finish(rv.bytes());
    return finish(c, s, "MPI_Scatter");
  }
  size_t block = 0;
  SendView sv;
  int err = type_bytes(sendtype, sendcount, &block);
  if (err == MPI_SUCCESS) err = sv.init_elements(sendbuf, n_of(c) * size_t(sendcount), sendtype);
  if (err == MPI_SUCCESS && recvbuf != MPI_IN_PLACE) {
    err = rv.init(recvbuf, recvcount, recvtype);
    if (err == MPI_SUCCESS && rv.bytes() != block) err = MPI_ERR_TRUNCATE;
  }
  if (err) return raise_error(c, err, "MPI_Scatter");
  void* own = recvbuf == MPI_IN_PLACE ? MPI_IN_PLACE : rv.data();
  torus::Status s = coll::scatter(*c, sv.data(), own, block, root);
  if (!torus::is_error(s)) rv.finish(rv.bytes());
  return finish(c, s, "MPI_Scatter");
}

int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Allgather");
  if (c->inter())
    return inter_allgather_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  size_t block = 0;
  SendView sv;
  RecvView rv;
  int err = type_bytes(recvtype, recvcount, &block);
  if (err == MPI_SUCCESS) err = rv.init_elements(recvbuf, n_of(c) * size_t(recvcount), recvtype);
  if (err == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
    err = send_block(&sv, sendbuf, sendcount, sendtype, block);
  if (err) return raise_error(c, err, "MPI_Allgather");
  if (sendbuf == MPI_IN_PLACE)
    rv.pack_user(size_t(c->rank) * size_t(recvcount), size_t(recvcount));
  const void* own = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : sv.data();
  torus::Status s = coll::allgather(*c, own, rv.data(), block);
  if (!torus::is_error(s)) rv.finish(rv.bytes());
  return finish(c, s, "MPI_Allgather");
}

int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Alltoall");
  if (c->inter())
    return inter_alltoall_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  size_t block = 0;
  SendView sv;
  RecvView rv;
  const size_t n = n_of(c);
  int err = type_bytes(recvtype, recvcount, &block);
  if (err == MPI_SUCCESS) err = rv.init_elements(recvbuf, n * size_t(recvcount), recvtype);
  if (err == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
    size_t sblock = 0;
    err = type_bytes(sendtype, sendcount, &sblock);
    if (err == MPI_SUCCESS && sblock != block) err = MPI_ERR_TRUNCATE;
    if (err == MPI_SUCCESS) err = sv.init_elements(sendbuf, n * size_t(sendcount), sendtype);
  }
  if (err) return raise_error(c, err, "MPI_Alltoall");
  if (sendbuf == MPI_IN_PLACE) rv.pack_user(0, n * size_t(recvcount));
  const void* own = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : sv.data();
  torus::Status s = coll::alltoall(*c, own, rv.data(), block);
  if (!torus::is_error(s)) rv.finish(rv.bytes());
  return finish(c, s, "MPI_Alltoall");
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
