// Gatherv, Scatterv, Allgatherv and Reduce_scatter with counts or displacements beyond an
// int (large_count_vec.h). They have no w-form, and only the root knows a Gatherv's or
// Scatterv's counts, every rank its own Allgatherv displacements: so these run the int
// calls' algorithms themselves (coll_api_v.cpp, icoll_api_v.cpp, coll_inter_api.cpp,
// icoll_inter_api.cpp, the reduce-scatter files), on blocks made by TypeBlocks::init_w from
// the per-peer types, with the same argument checks, and so meet the processes that took
// the int call. The blocking forms stage through the same VStaging the nonblocking ones
// hand to their request.
#include <memory>
#include <utility>
#include <vector>

#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/coll/inter/blocking.h"
#include "mpi_shim/lib/coll/inter/blocking_api.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/coll/inter/nonblocking.h"
#include "mpi_shim/lib/coll/inter/nonblocking_api.h"
#include "mpi_shim/lib/coll/nonblocking/staging.h"
#include "mpi_shim/lib/large_count_vec.h"
#include "mpi_shim/lib/coll/reduce_view.h"
#include "mpi_shim/lib/datatype/view.h"

namespace torus::mpi {
namespace {

int rblocks(VStaging& st, void* recvbuf, const PeerBlocks& b) {
  return st.rblocks.init_w(recvbuf, b.size(), b.counts(), b.aint_displs(), b.types());
}

int finish(Comm* c, Status s, const char* fn) { return check(c, error_from_status(s), fn); }

// A blocking call's end: what was received unpacked once the algorithm succeeded.
int finish(Comm* c, Status s, VStaging& st, const char* fn) {
  if (!is_error(s)) st.complete();
  return finish(c, s, fn);
}

}  // namespace

int gatherv_root(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, const PeerBlocks& b, int root, MPI_Request* request,
                 const char* fn) {
  auto st = std::make_unique<VStaging>();
  const bool inter = c->inter();  // root is MPI_ROOT there, and sends nothing
  const bool in_place = !inter && sendbuf == MPI_IN_PLACE;
  int err = rblocks(*st, recvbuf, b);
  if (!err && !inter && !in_place) {
    err = st->send.init(sendbuf, sendcount, sendtype);
    if (!err && st->send.bytes() != st->rblocks.counts()[root]) err = MPI_ERR_TRUNCATE;
  }
  if (err) return raise_error(c, err, fn);
  if (in_place) st->rblocks.pack(root);
  st->unpack_rblocks = true;
  const void* own = in_place ? MPI_IN_PLACE : st->send.data();
  void* data = st->rblocks.data();
  const size_t *counts = st->rblocks.counts(), *offsets = st->rblocks.offsets();
  if (request) {
    auto op = inter ? icoll::inter_igatherv(*c, own, 0, data, counts, offsets, root)
                    : icoll::igatherv(*c, own, st->send.bytes(), data, counts, offsets, root);
    return icoll_start_v(*c, std::move(op), std::move(st), request);
  }
  Status s = inter ? coll::inter_gatherv(*c, own, 0, data, counts, offsets, root)
                   : coll::gatherv(*c, own, st->send.bytes(), data, counts, offsets, root);
  return finish(c, s, *st, fn);
}

int scatterv_root(Comm* c, const PeerBlocks& b, const void* sendbuf, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Request* request,
                  const char* fn) {
  auto st = std::make_unique<VStaging>();
  const bool inter = c->inter();  // root is MPI_ROOT there, and receives nothing
  const bool in_place = !inter && recvbuf == MPI_IN_PLACE;
  int err = st->sblocks.init_w(sendbuf, b.size(), b.counts(), b.aint_displs(), b.types());
  if (!err && !inter && !in_place) {
    err = st->recv.init(recvbuf, recvcount, recvtype);
    if (!err && st->recv.bytes() != st->sblocks.counts()[root]) err = MPI_ERR_TRUNCATE;
  }
  if (err) return raise_error(c, err, fn);
  st->sblocks.pack_all();
  st->unpack_recv = !inter && !in_place;
  void* own = in_place ? MPI_IN_PLACE : st->recv.data();
  const void* data = st->sblocks.data();
  const size_t *counts = st->sblocks.counts(), *offsets = st->sblocks.offsets();
  const size_t bytes = st->recv.bytes();
  if (request) {
    auto op = inter ? icoll::inter_iscatterv(*c, data, counts, offsets, own, bytes, root)
                    : icoll::iscatterv(*c, data, counts, offsets, own, bytes, root);
    return icoll_start_v(*c, std::move(op), std::move(st), request);
  }
  Status s = inter ? coll::inter_scatterv(*c, data, counts, offsets, own, bytes, root)
                   : coll::scatterv(*c, data, counts, offsets, own, bytes, root);
  return finish(c, s, *st, fn);
}

int allgatherv_blocks(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                      void* recvbuf, const PeerBlocks& b, MPI_Request* request, const char* fn) {
  auto st = std::make_unique<VStaging>();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  int err = rblocks(*st, recvbuf, b);
  if (!err && in_place && c->inter()) err = MPI_ERR_BUFFER;
  if (!err && !in_place) {
    err = st->send.init(sendbuf, sendcount, sendtype);
    if (!err && !c->inter() && st->send.bytes() != st->rblocks.counts()[c->rank])
      err = MPI_ERR_TRUNCATE;
  }
  if (err) return raise_error(c, err, fn);
  st->unpack_rblocks = true;
  void* data = st->rblocks.data();
  const size_t *counts = st->rblocks.counts(), *offsets = st->rblocks.offsets();
  if (c->inter()) {
    // Our one block to every remote process: an alltoallv, as the int call runs it.
    EvenBlocks out(size_t(c->remote_size()), 0);
    out.counts.assign(out.counts.size(), st->send.bytes());
    const void* own = st->send.data();
    if (request) {
      auto op = icoll::inter_ialltoallv(*c, own, out.counts.data(), out.offsets.data(), data,
                                        counts, offsets);
      return icoll_start_v(*c, std::move(op), std::move(st), request);
    }
    Status s = coll::inter_alltoallv(*c, own, out.counts.data(), out.offsets.data(), data, counts,
                                     offsets);
    return finish(c, s, *st, fn);
  }
  if (in_place) st->rblocks.pack(c->rank);
  const void* own = in_place ? MPI_IN_PLACE : st->send.data();
  if (request) {
    auto op = icoll::iallgatherv(*c, own, data, counts, offsets);
    return icoll_start_v(*c, std::move(op), std::move(st), request);
  }
  return finish(c, coll::allgatherv(*c, own, data, counts, offsets), *st, fn);
}

int reduce_scatter_sizes(Comm* c, const void* sendbuf, void* recvbuf, const MPI_Count* counts,
                         MPI_Datatype type, MPI_Op op, MPI_Request* request, const char* fn) {
  std::vector<size_t> n(counts, counts + c->size);
  if (int err = reduction_check(0, type, op)) return raise_error(c, err, fn);
  if (c->inter()) {
    if (request)
      return inter_ireduce_scatter_call(c, sendbuf, recvbuf, std::move(n), type, op, request, fn);
    return inter_reduce_scatter_call(c, sendbuf, recvbuf, n.data(), type, op, fn);
  }
  if (type_packed_size(type) == 0) {  // nothing moves, as in the int call
    if (request) *request = icoll_done_request(*c);
    return MPI_SUCCESS;
  }
  size_t total = 0;
  for (size_t k : n) total += k;
  const size_t mine = n[size_t(c->rank)];
  // In place, the input is the whole of recvbuf; the result is its first `mine` elements.
  auto st = std::make_unique<Staging>();
  ReduceView& v = st->red;
  if (int e = v.init(sendbuf, total, recvbuf, sendbuf == MPI_IN_PLACE ? total : mine, type, op))
    return raise_error(c, e, fn);
  for (size_t& k : n) k *= v.scale();
  if (request) {
    st->red_elements = mine;
    auto pending =
        icoll::ireduce_scatter(*c, v.sbuf(), v.rbuf(), n.data(), v.type(), v.layout(), op);
    return icoll_start(*c, std::move(pending), std::move(st), request);
  }
  Status s = coll::reduce_scatter(*c, v.sbuf(), v.rbuf(), n.data(), v.type(), op);
  if (!is_error(s)) v.finish(mine);
  return finish(c, s, fn);
}

}  // namespace torus::mpi
