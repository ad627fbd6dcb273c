// Intercommunicator collectives at the MPI level (blocking_api.h).
#include "mpi_shim/lib/coll/inter/blocking_api.h"

#include <vector>

#include "mpi_shim/lib/coll/inter/blocking.h"
#include "mpi_shim/lib/coll/reduce_view.h"
#include "mpi_shim/lib/datatype/blocks.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/runtime/errors.h"

namespace torus::mpi {
namespace {

int finish(Comm* c, Status s, const char* fn) { return check(c, error_from_status(s), fn); }

size_t remote_n(const Comm* c) { return static_cast<size_t>(c->remote_size()); }

}  // namespace

bool inter_root_ok(const Comm* c, int root) {
  return root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->remote_size());
}

int inter_barrier_call(Comm* c) { return finish(c, coll::inter_barrier(*c), "MPI_Barrier"); }

int inter_bcast_call(Comm* c, void* buffer, int count, MPI_Datatype type, int root) {
  constexpr const char* fn = "MPI_Bcast";
  if (!inter_root_ok(c, root)) return raise_error(c, MPI_ERR_ROOT, fn);
  RecvView v;
  if (root != MPI_PROC_NULL) {
    if (int e = v.init(buffer, count, type)) return raise_error(c, e, fn);
    if (root == MPI_ROOT) v.pack_user(0, size_t(count));
  }
  Status s = coll::inter_bcast(*c, v.data(), v.bytes(), root);
  if (root >= 0 && !is_error(s)) v.finish(v.bytes());
  return finish(c, s, fn);
}

int inter_reduce_call(Comm* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                      MPI_Op op, int root) {
  constexpr const char* fn = "MPI_Reduce";
  int err = reduction_check(count, type, op);
  if (err == MPI_SUCCESS && !inter_root_ok(c, root)) err = MPI_ERR_ROOT;
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, fn);
  const size_t n = size_t(count);
  // The root receives only; the other group sends only; the root's group does nothing else.
  ReduceView v;
  if (root == MPI_ROOT) err = v.init(nullptr, 0, recvbuf, n, type, op);
  else if (root >= 0) err = v.init(sendbuf, n, recvbuf, 0, type, op);
  else err = v.init(nullptr, 0, nullptr, 0, type, op);
  if (err) return raise_error(c, err, fn);
  Status s = coll::inter_reduce(*c, v.sbuf(), v.rbuf(), n * v.scale(), v.type(), op, root);
  if (root == MPI_ROOT && !is_error(s)) v.finish(n);
  return finish(c, s, fn);
}

int inter_allreduce_call(Comm* c, const void* sendbuf, void* recvbuf, int count,
                         MPI_Datatype type, MPI_Op op) {
  constexpr const char* fn = "MPI_Allreduce";
  int err = reduction_check(count, type, op);
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, fn);
  const size_t n = size_t(count);
  ReduceView v;
  if (int e = v.init(sendbuf, n, recvbuf, n, type, op)) return raise_error(c, e, fn);
  Status s = coll::inter_allreduce(*c, v.sbuf(), v.rbuf(), n * v.scale(), v.type(), op);
  if (!is_error(s)) v.finish(n);
  return finish(c, s, fn);
}

int inter_reduce_scatter_call(Comm* c, const void* sendbuf, void* recvbuf, const size_t* counts,
                              MPI_Datatype type, MPI_Op op, const char* fn) {
  if (sendbuf == MPI_IN_PLACE) return raise_error(c, MPI_ERR_BUFFER, fn);
  std::vector<size_t> scaled(counts, counts + c->size);
  size_t total = 0;
  for (size_t k : scaled) total += k;
  const size_t mine = scaled[size_t(c->rank)];
  ReduceView v;
  if (int e = v.init(sendbuf, total, recvbuf, mine, type, op)) return raise_error(c, e, fn);
  for (size_t& k : scaled) k *= v.scale();
  Status s = coll::inter_reduce_scatter(*c, v.sbuf(), v.rbuf(), scaled.data(), v.type(), op);
  if (!is_error(s)) v.finish(mine);
  return finish(c, s, fn);
}

int inter_gather_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  constexpr const char* fn = "MPI_Gather";
  if (!inter_root_ok(c, root)) return raise_error(c, MPI_ERR_ROOT, fn);
  SendView sv;
  RecvView rv;
  size_t block = 0;
  int err = MPI_SUCCESS;
  if (root == MPI_ROOT) {
    err = type_bytes(recvtype, recvcount, &block);
    if (err == MPI_SUCCESS) err = rv.init_elements(recvbuf, remote_n(c) * size_t(recvcount),
                                                   recvtype);
  } else if (root >= 0) {
    err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : sv.init(sendbuf, sendcount, sendtype);
  }
  if (err) return raise_error(c, err, fn);
  EvenBlocks b(root == MPI_ROOT ? remote_n(c) : 0, block);
  Status s = coll::inter_gatherv(*c, sv.data(), sv.bytes(), rv.data(), b.counts.data(),
                                 b.offsets.data(), root);
  if (root == MPI_ROOT && !is_error(s)) rv.finish(rv.bytes());
  return finish(c, s, fn);
}

int inter_gatherv_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, const int* recvcounts, const int* displs,
                       MPI_Datatype recvtype, int root) {
  constexpr const char* fn = "MPI_Gatherv";
  if (!inter_root_ok(c, root)) return raise_error(c, MPI_ERR_ROOT, fn);
  SendView sv;
  TypeBlocks rb;
  int err = MPI_SUCCESS;
  if (root == MPI_ROOT)
    err = rb.init(recvbuf, c->remote_size(), recvcounts, displs, recvtype);
  else if (root >= 0)
    err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : sv.init(sendbuf, sendcount, sendtype);
  if (err) return raise_error(c, err, fn);
  Status s = coll::inter_gatherv(*c, sv.data(), sv.bytes(), rb.data(), rb.counts(),
                                 rb.offsets(), root);
  if (root == MPI_ROOT && !is_error(s)) rb.unpack_all();
  return finish(c, s, fn);
}

int inter_scatter_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  constexpr const char* fn = "MPI_Scatter";
  if (!inter_root_ok(c, root)) return raise_error(c, MPI_ERR_ROOT, fn);
  SendView sv;
  RecvView rv;
  size_t block = 0;
  int err = MPI_SUCCESS;
  if (root == MPI_ROOT) {
    err = type_bytes(sendtype, sendcount, &block);
    if (err == MPI_SUCCESS)
      err = sv.init_elements(sendbuf, remote_n(c) * size_t(sendcount), sendtype);
  } else if (root >= 0) {
    err = recvbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : rv.init(recvbuf, recvcount, recvtype);
  }
  if (err) return raise_error(c, err, fn);
  EvenBlocks b(root == MPI_ROOT ? remote_n(c) : 0, block);
  Status s = coll::inter_scatterv(*c, sv.data(), b.counts.data(), b.offsets.data(), rv.data(),
                                  rv.bytes(), root);
  if (root >= 0 && !is_error(s)) rv.finish(rv.bytes());
  return finish(c, s, fn);
}

int inter_scatterv_call(Comm* c, const void* sendbuf, const int* sendcounts, const int* displs,
                        MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root) {
  constexpr const char* fn = "MPI_Scatterv";
  if (!inter_root_ok(c, root)) return raise_error(c, MPI_ERR_ROOT, fn);
  TypeBlocks sb;
  RecvView rv;
  int err = MPI_SUCCESS;
  if (root == MPI_ROOT)
    err = sb.init(sendbuf, c->remote_size(), sendcounts, displs, sendtype);
  else if (root >= 0)
    err = recvbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : rv.init(recvbuf, recvcount, recvtype);
  if (err) return raise_error(c, err, fn);
  sb.pack_all();
  Status s = coll::inter_scatterv(*c, sb.data(), sb.counts(), sb.offsets(), rv.data(),
                                  rv.bytes(), root);
  if (root >= 0 && !is_error(s)) rv.finish(rv.bytes());
  return finish(c, s, fn);
}

int inter_allgather_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                         void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  constexpr const char* fn = "MPI_Allgather";
  SendView sv;
  RecvView rv;
  size_t block = 0;
  int err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : sv.init(sendbuf, sendcount, sendtype);
  if (err == MPI_SUCCESS) err = type_bytes(recvtype, recvcount, &block);
  if (err == MPI_SUCCESS)
    err = rv.init_elements(recvbuf, remote_n(c) * size_t(recvcount), recvtype);
  if (err) return raise_error(c, err, fn);
  // Our one block to every remote process.
  EvenBlocks out(remote_n(c), 0), in(remote_n(c), block);
  out.counts.assign(remote_n(c), sv.bytes());
  Status s = coll::inter_alltoallv(*c, sv.data(), out.counts.data(), out.offsets.data(),
                                   rv.data(), in.counts.data(), in.offsets.data());
  if (!is_error(s)) rv.finish(rv.bytes());
  return finish(c, s, fn);
}

int inter_allgatherv_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, const int* recvcounts, const int* displs,
                          MPI_Datatype recvtype) {
  constexpr const char* fn = "MPI_Allgatherv";
  SendView sv;
  TypeBlocks rb;
  int err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : sv.init(sendbuf, sendcount, sendtype);
  if (err == MPI_SUCCESS) err = rb.init(recvbuf, c->remote_size(), recvcounts, displs, recvtype);
  if (err) return raise_error(c, err, fn);
  EvenBlocks out(remote_n(c), 0);
  out.counts.assign(remote_n(c), sv.bytes());
  Status s = coll::inter_alltoallv(*c, sv.data(), out.counts.data(), out.offsets.data(),
                                   rb.data(), rb.counts(), rb.offsets());
  if (!is_error(s)) rb.unpack_all();
  return finish(c, s, fn);
}

int inter_alltoall_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  constexpr const char* fn = "MPI_Alltoall";
  SendView sv;
  RecvView rv;
  size_t sblock = 0, rblock = 0;
  int err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : type_bytes(sendtype, sendcount, &sblock);
  if (err == MPI_SUCCESS) err = type_bytes(recvtype, recvcount, &rblock);
  if (err == MPI_SUCCESS)
    err = sv.init_elements(sendbuf, remote_n(c) * size_t(sendcount), sendtype);
  if (err == MPI_SUCCESS)
    err = rv.init_elements(recvbuf, remote_n(c) * size_t(recvcount), recvtype);
  if (err) return raise_error(c, err, fn);
  EvenBlocks out(remote_n(c), sblock), in(remote_n(c), rblock);
  Status s = coll::inter_alltoallv(*c, sv.data(), out.counts.data(), out.offsets.data(),
                                   rv.data(), in.counts.data(), in.offsets.data());
  if (!is_error(s)) rv.finish(rv.bytes());
  return finish(c, s, fn);
}

int inter_alltoall_blocks(Comm* c, TypeBlocks& sb, TypeBlocks& rb, int err, const char* fn) {
  if (err) return raise_error(c, err, fn);
  sb.pack_all();
  Status s = coll::inter_alltoallv(*c, sb.data(), sb.counts(), sb.offsets(), rb.data(),
                                   rb.counts(), rb.offsets());
  if (!is_error(s)) rb.unpack_all();
  return finish(c, s, fn);
}

}  // namespace torus::mpi
