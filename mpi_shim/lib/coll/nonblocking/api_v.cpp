// MPI_Igatherv, Iscatterv, Iallgatherv, Ialltoallv, Ialltoallw: the blocking versions'
// argument checks (coll/blocking/api_v.cpp, same error classes), counts and displacements turned
// into bytes by datatype/blocks.h, then an operation of icoll.h (coll/inter/nonblocking_api.h on an
// intercommunicator) behind a new request. The blocks and views
// live with the request until it completes; what was received is unpacked when it is.
#include <memory>
#include <utility>

#include "mpi_shim/lib/coll/inter/nonblocking_api.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/coll/nonblocking/staging.h"
#include "mpi_shim/lib/datatype/blocks.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

// The rest of Ialltoallv/Ialltoallw once the blocks are set up (err: how that went).
int ialltoall_blocks(Comm* c, std::unique_ptr<VStaging> st, int err, MPI_Request* request,
                     const char* fn) {
  if (err == MPI_SUCCESS && st->sblocks.counts()[c->rank] != st->rblocks.counts()[c->rank])
    err = MPI_ERR_TRUNCATE;
  if (err) return raise_error(c, err, fn);
  st->sblocks.pack_all();
  st->unpack_rblocks = true;
  auto op = icoll::ialltoallv(*c, st->sblocks.data(), st->sblocks.counts(),
                              st->sblocks.offsets(), st->rblocks.data(), st->rblocks.counts(),
                              st->rblocks.offsets());
  return icoll_start_v(*c, std::move(op), std::move(st), request);
}

}  // namespace

extern "C" {

int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Igatherv", &err, true);
  if (!c) return err;
  if (c->inter())
    return inter_igatherv_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, root, request);
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Igatherv");
  auto st = std::make_unique<VStaging>();
  const bool is_root = c->rank == root;
  if (is_root) err = st->rblocks.init(recvbuf, c->size, recvcounts, displs, recvtype);
  if (err == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
    err = st->send.init(sendbuf, sendcount, sendtype);
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && !is_root) err = MPI_ERR_BUFFER;
  if (err == MPI_SUCCESS && is_root && sendbuf != MPI_IN_PLACE &&
      st->send.bytes() != st->rblocks.counts()[root])
    err = MPI_ERR_TRUNCATE;
  if (err) return raise_error(c, err, "MPI_Igatherv");
  if (is_root && sendbuf == MPI_IN_PLACE) st->rblocks.pack(root);
  st->unpack_rblocks = is_root;
  const void* own = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : st->send.data();
  auto op = icoll::igatherv(*c, own, st->send.bytes(), st->rblocks.data(),
                            is_root ? st->rblocks.counts() : nullptr,
                            is_root ? st->rblocks.offsets() : nullptr, root);
  return icoll_start_v(*c, std::move(op), std::move(st), request);
}

int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Iscatterv", &err, true);
  if (!c) return err;
  if (c->inter())
    return inter_iscatterv_call(c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                recvtype, root, request);
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Iscatterv");
  auto st = std::make_unique<VStaging>();
  const bool is_root = c->rank == root;
  if (is_root) err = st->sblocks.init(sendbuf, c->size, sendcounts, displs, sendtype);
  if (err == MPI_SUCCESS && recvbuf != MPI_IN_PLACE)
    err = st->recv.init(recvbuf, recvcount, recvtype);
  if (err == MPI_SUCCESS && recvbuf == MPI_IN_PLACE && !is_root) err = MPI_ERR_BUFFER;
  if (err == MPI_SUCCESS && is_root && recvbuf != MPI_IN_PLACE &&
      st->recv.bytes() != st->sblocks.counts()[root])
    err = MPI_ERR_TRUNCATE;
  if (err) return raise_error(c, err, "MPI_Iscatterv");
  st->sblocks.pack_all();
  st->unpack_recv = recvbuf != MPI_IN_PLACE;
  void* own = recvbuf == MPI_IN_PLACE ? MPI_IN_PLACE : st->recv.data();
  auto op = icoll::iscatterv(*c, st->sblocks.data(), is_root ? st->sblocks.counts() : nullptr,
                             is_root ? st->sblocks.offsets() : nullptr, own, st->recv.bytes(),
                             root);
  return icoll_start_v(*c, std::move(op), std::move(st), request);
}

int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Iallgatherv", &err, true);
  if (!c) return err;
  if (c->inter())
    return inter_iallgatherv_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, request);
  auto st = std::make_unique<VStaging>();
  err = st->rblocks.init(recvbuf, c->size, recvcounts, displs, recvtype);
  if (err == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
    err = st->send.init(sendbuf, sendcount, sendtype);
    if (err == MPI_SUCCESS && st->send.bytes() != st->rblocks.counts()[c->rank])
      err = MPI_ERR_TRUNCATE;
  }
  if (err) return raise_error(c, err, "MPI_Iallgatherv");
  if (sendbuf == MPI_IN_PLACE) st->rblocks.pack(c->rank);
  st->unpack_rblocks = true;
  const void* own = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : st->send.data();
  auto op = icoll::iallgatherv(*c, own, st->rblocks.data(), st->rblocks.counts(),
                               st->rblocks.offsets());
  return icoll_start_v(*c, std::move(op), std::move(st), request);
}

int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Ialltoallv", &err, true);
  if (!c) return err;
  auto st = std::make_unique<VStaging>();
  const int n = c->remote_size();
  err = st->rblocks.init(recvbuf, n, recvcounts, rdispls, recvtype);
  if (c->inter()) {
    if (err == MPI_SUCCESS)
      err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER
                                    : st->sblocks.init(sendbuf, n, sendcounts, sdispls, sendtype);
    return inter_ialltoall_blocks(c, std::move(st), err, request, "MPI_Ialltoallv");
  }
  if (err == MPI_SUCCESS)
    err = sendbuf == MPI_IN_PLACE ? st->sblocks.snapshot(st->rblocks)
                                  : st->sblocks.init(sendbuf, n, sendcounts, sdispls, sendtype);
  return ialltoall_blocks(c, std::move(st), err, request, "MPI_Ialltoallv");
}

int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Ialltoallw", &err, true);
  if (!c) return err;
  auto st = std::make_unique<VStaging>();
  const int n = c->remote_size();
  err = st->rblocks.init_w(recvbuf, n, recvcounts, rdispls, recvtypes);
  if (c->inter()) {
    if (err == MPI_SUCCESS)
      err = sendbuf == MPI_IN_PLACE
                ? MPI_ERR_BUFFER
                : st->sblocks.init_w(sendbuf, n, sendcounts, sdispls, sendtypes);
    return inter_ialltoall_blocks(c, std::move(st), err, request, "MPI_Ialltoallw");
  }
  if (err == MPI_SUCCESS)
    err = sendbuf == MPI_IN_PLACE ? st->sblocks.snapshot(st->rblocks)
                                  : st->sblocks.init_w(sendbuf, n, sendcounts, sdispls, sendtypes);
  return ialltoall_blocks(c, std::move(st), err, request, "MPI_Ialltoallw");
}

TORUS_MPI_ALIAS(MPI_Igatherv)
TORUS_MPI_ALIAS(MPI_Iscatterv)
TORUS_MPI_ALIAS(MPI_Iallgatherv)
TORUS_MPI_ALIAS(MPI_Ialltoallv)
TORUS_MPI_ALIAS(MPI_Ialltoallw)

}  // extern "C"
