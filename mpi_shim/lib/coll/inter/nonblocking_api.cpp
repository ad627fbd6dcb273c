// Nonblocking intercommunicator collectives at the MPI level (nonblocking_api.h). A call with
// nothing to move still starts an operation: it takes the sequence numbers every other
// process of both groups takes.
#include "mpi_shim/lib/coll/inter/nonblocking_api.h"

#include <memory>
#include <utility>

#include "mpi_shim/lib/coll/inter/blocking_api.h"
#include "mpi_shim/lib/coll/inter/nonblocking.h"
#include "mpi_shim/lib/coll/nonblocking/staging.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/runtime/errors.h"

namespace torus::mpi {
namespace {

size_t remote_n(const Comm* c) { return static_cast<size_t>(c->remote_size()); }

}  // namespace

int inter_ibarrier_call(Comm* c, MPI_Request* request) {
  return icoll_start(*c, icoll::inter_ibarrier(*c), nullptr, request);
}

int inter_ibcast_call(Comm* c, void* buffer, int count, MPI_Datatype type, int root,
                      MPI_Request* request) {
  constexpr const char* fn = "MPI_Ibcast";
  if (!inter_root_ok(c, root)) return raise_error(c, MPI_ERR_ROOT, fn);
  auto st = std::make_unique<Staging>();
  if (root != MPI_PROC_NULL) {
    if (int e = st->recv.init(buffer, count, type)) return raise_error(c, e, fn);
    if (root == MPI_ROOT) st->recv.pack_user(0, size_t(count));
    st->unpack_recv = root >= 0;
  }
  auto op = icoll::inter_ibcast(*c, st->recv.data(), st->recv.bytes(), root);
  return icoll_start(*c, std::move(op), std::move(st), request);
}

int inter_ireduce_call(Comm* c, const void* sendbuf, void* recvbuf, int count,
                       MPI_Datatype type, MPI_Op op, int root, MPI_Request* request) {
  constexpr const char* fn = "MPI_Ireduce";
  int err = reduction_check(count, type, op);
  if (err == MPI_SUCCESS && !inter_root_ok(c, root)) err = MPI_ERR_ROOT;
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, fn);
  const size_t n = size_t(count);
  auto st = std::make_unique<Staging>();
  ReduceView& v = st->red;
  // The root receives only; the other group sends only; the root's group does nothing else.
  if (root == MPI_ROOT) err = v.init(nullptr, 0, recvbuf, n, type, op);
  else if (root >= 0) err = v.init(sendbuf, n, recvbuf, 0, type, op);
  else err = v.init(nullptr, 0, nullptr, 0, type, op);
  if (err) return raise_error(c, err, fn);
  if (root == MPI_ROOT) st->red_elements = n;
  auto pending = icoll::inter_ireduce(*c, v.sbuf(), v.rbuf(), n * v.scale(), v.type(),
                                      v.layout(), op, root);
  return icoll_start(*c, std::move(pending), std::move(st), request);
}

int inter_iallreduce_call(Comm* c, const void* sendbuf, void* recvbuf, int count,
                          MPI_Datatype type, MPI_Op op, MPI_Request* request) {
  constexpr const char* fn = "MPI_Iallreduce";
  int err = reduction_check(count, type, op);
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, fn);
  const size_t n = size_t(count);
  auto st = std::make_unique<Staging>();
  ReduceView& v = st->red;
  if (int e = v.init(sendbuf, n, recvbuf, n, type, op)) return raise_error(c, e, fn);
  st->red_elements = n;
  auto pending =
      icoll::inter_iallreduce(*c, v.sbuf(), v.rbuf(), n * v.scale(), v.type(), v.layout(), op);
  return icoll_start(*c, std::move(pending), std::move(st), request);
}

int inter_igather_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Request* request) {
  constexpr const char* fn = "MPI_Igather";
  if (!inter_root_ok(c, root)) return raise_error(c, MPI_ERR_ROOT, fn);
  auto st = std::make_unique<Staging>();
  size_t block = 0;
  int err = MPI_SUCCESS;
  if (root == MPI_ROOT) {
    err = type_bytes(recvtype, recvcount, &block);
    if (err == MPI_SUCCESS)
      err = st->recv.init_elements(recvbuf, remote_n(c) * size_t(recvcount), recvtype);
    st->unpack_recv = true;
  } else if (root >= 0) {
    err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : st->send.init(sendbuf, sendcount, sendtype);
  }
  if (err) return raise_error(c, err, fn);
  EvenBlocks b(root == MPI_ROOT ? remote_n(c) : 0, block);
  auto op = icoll::inter_igatherv(*c, st->send.data(), st->send.bytes(), st->recv.data(),
                                  b.counts.data(), b.offsets.data(), root);
  return icoll_start(*c, std::move(op), std::move(st), request);
}

int inter_iscatter_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                        MPI_Request* request) {
  constexpr const char* fn = "MPI_Iscatter";
  if (!inter_root_ok(c, root)) return raise_error(c, MPI_ERR_ROOT, fn);
  auto st = std::make_unique<Staging>();
  size_t block = 0;
  int err = MPI_SUCCESS;
  if (root == MPI_ROOT) {
    err = type_bytes(sendtype, sendcount, &block);
    if (err == MPI_SUCCESS)
      err = st->send.init_elements(sendbuf, remote_n(c) * size_t(sendcount), sendtype);
  } else if (root >= 0) {
    err = recvbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : st->recv.init(recvbuf, recvcount, recvtype);
    st->unpack_recv = true;
  }
  if (err) return raise_error(c, err, fn);
  EvenBlocks b(root == MPI_ROOT ? remote_n(c) : 0, block);
  auto op = icoll::inter_iscatterv(*c, st->send.data(), b.counts.data(), b.offsets.data(),
                                   st->recv.data(), st->recv.bytes(), root);
  return icoll_start(*c, std::move(op), std::move(st), request);
}

int inter_iallgather_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype,
                          MPI_Request* request) {
  constexpr const char* fn = "MPI_Iallgather";
  auto st = std::make_unique<Staging>();
  size_t block = 0;
  int err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : st->send.init(sendbuf, sendcount, sendtype);
  if (err == MPI_SUCCESS) err = type_bytes(recvtype, recvcount, &block);
  if (err == MPI_SUCCESS)
    err = st->recv.init_elements(recvbuf, remote_n(c) * size_t(recvcount), recvtype);
  if (err) return raise_error(c, err, fn);
  st->unpack_recv = true;
  // Our one block to every remote process.
  EvenBlocks out(remote_n(c), 0), in(remote_n(c), block);
  out.counts.assign(remote_n(c), st->send.bytes());
  auto op = icoll::inter_ialltoallv(*c, st->send.data(), out.counts.data(), out.offsets.data(),
                                    st->recv.data(), in.counts.data(), in.offsets.data());
  return icoll_start(*c, std::move(op), std::move(st), request);
}

int inter_ialltoall_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                         void* recvbuf, int recvcount, MPI_Datatype recvtype,
                         MPI_Request* request) {
  constexpr const char* fn = "MPI_Ialltoall";
  auto st = std::make_unique<Staging>();
  size_t sblock = 0, rblock = 0;
  int err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : type_bytes(sendtype, sendcount, &sblock);
  if (err == MPI_SUCCESS) err = type_bytes(recvtype, recvcount, &rblock);
  if (err == MPI_SUCCESS)
    err = st->send.init_elements(sendbuf, remote_n(c) * size_t(sendcount), sendtype);
  if (err == MPI_SUCCESS)
    err = st->recv.init_elements(recvbuf, remote_n(c) * size_t(recvcount), recvtype);
  if (err) return raise_error(c, err, fn);
  st->unpack_recv = true;
  EvenBlocks out(remote_n(c), sblock), in(remote_n(c), rblock);
  auto op = icoll::inter_ialltoallv(*c, st->send.data(), out.counts.data(), out.offsets.data(),
                                    st->recv.data(), in.counts.data(), in.offsets.data());
  return icoll_start(*c, std::move(op), std::move(st), request);
}

int inter_igatherv_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, const int* recvcounts, const int* displs,
                        MPI_Datatype recvtype, int root, MPI_Request* request) {
  constexpr const char* fn = "MPI_Igatherv";
  if (!inter_root_ok(c, root)) return raise_error(c, MPI_ERR_ROOT, fn);
  auto st = std::make_unique<VStaging>();
  int err = MPI_SUCCESS;
  if (root == MPI_ROOT)
    err = st->rblocks.init(recvbuf, c->remote_size(), recvcounts, displs, recvtype);
  else if (root >= 0)
    err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : st->send.init(sendbuf, sendcount, sendtype);
  if (err) return raise_error(c, err, fn);
  st->unpack_rblocks = root == MPI_ROOT;
  auto op = icoll::inter_igatherv(*c, st->send.data(), st->send.bytes(), st->rblocks.data(),
                                  st->rblocks.counts(), st->rblocks.offsets(), root);
  return icoll_start_v(*c, std::move(op), std::move(st), request);
}

int inter_iscatterv_call(Comm* c, const void* sendbuf, const int* sendcounts, const int* displs,
                         MPI_Datatype sendtype, void* recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Request* request) {
  constexpr const char* fn = "MPI_Iscatterv";
  if (!inter_root_ok(c, root)) return raise_error(c, MPI_ERR_ROOT, fn);
  auto st = std::make_unique<VStaging>();
  int err = MPI_SUCCESS;
  if (root == MPI_ROOT)
    err = st->sblocks.init(sendbuf, c->remote_size(), sendcounts, displs, sendtype);
  else if (root >= 0)
    err = recvbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : st->recv.init(recvbuf, recvcount, recvtype);
  if (err) return raise_error(c, err, fn);
  st->sblocks.pack_all();
  st->unpack_recv = root >= 0;
  auto op = icoll::inter_iscatterv(*c, st->sblocks.data(), st->sblocks.counts(),
                                   st->sblocks.offsets(), st->recv.data(), st->recv.bytes(),
                                   root);
  return icoll_start_v(*c, std::move(op), std::move(st), request);
}

int inter_iallgatherv_call(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, const int* recvcounts, const int* displs,
                           MPI_Datatype recvtype, MPI_Request* request) {
  constexpr const char* fn = "MPI_Iallgatherv";
  auto st = std::make_unique<VStaging>();
  int err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : st->send.init(sendbuf, sendcount, sendtype);
  if (err == MPI_SUCCESS)
    err = st->rblocks.init(recvbuf, c->remote_size(), recvcounts, displs, recvtype);
  if (err) return raise_error(c, err, fn);
  st->unpack_rblocks = true;
  EvenBlocks out(remote_n(c), 0);
  out.counts.assign(remote_n(c), st->send.bytes());
  auto op = icoll::inter_ialltoallv(*c, st->send.data(), out.counts.data(), out.offsets.data(),
                                    st->rblocks.data(), st->rblocks.counts(),
                                    st->rblocks.offsets());
  return icoll_start_v(*c, std::move(op), std::move(st), request);
}

int inter_ialltoall_blocks(Comm* c, std::unique_ptr<VStaging> st, int err,
                           MPI_Request* request, const char* fn) {
  if (err) return raise_error(c, err, fn);
  st->sblocks.pack_all();
  st->unpack_rblocks = true;
  auto op = icoll::inter_ialltoallv(*c, st->sblocks.data(), st->sblocks.counts(),
                                    st->sblocks.offsets(), st->rblocks.data(),
                                    st->rblocks.counts(), st->rblocks.offsets());
  return icoll_start_v(*c, std::move(op), std::move(st), request);
}

int inter_ireduce_scatter_call(Comm* c, const void* sendbuf, void* recvbuf,
                               std::vector<size_t> counts, MPI_Datatype type, MPI_Op op,
                               MPI_Request* request, const char* fn) {
  if (sendbuf == MPI_IN_PLACE) return raise_error(c, MPI_ERR_BUFFER, fn);
  size_t total = 0;
  for (size_t k : counts) total += k;
  const size_t mine = counts[size_t(c->rank)];
  auto st = std::make_unique<Staging>();
  ReduceView& v = st->red;
  if (int e = v.init(sendbuf, total, recvbuf, mine, type, op)) return raise_error(c, e, fn);
  st->red_elements = mine;
  for (size_t& k : counts) k *= v.scale();
  auto pending = icoll::inter_ireduce_scatter(*c, v.sbuf(), v.rbuf(), counts.data(), v.type(),
                                              v.layout(), op);
  return icoll_start(*c, std::move(pending), std::move(st), request);
}

}  // namespace torus::mpi
