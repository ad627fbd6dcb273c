// MPI envelopes to torus tags (tag_layout.h), and the blocking helpers built on them.
#include "mpi_shim/lib/p2p/transfer.h"

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/runtime/state.h"
#include "mpi_shim/lib/tool/counters.h"

namespace torus::mpi {

Status post_send(const Comm& c, uint32_t ctx, const void* buf, size_t len, int dest, int tag,
                 bool sync, Request** req) {
  *req = nullptr;
  Endpoint* ep = endpoint_to(c.peer_world(dest));
  if (!ep) return Status::Unreachable;
  count_sent(len);
  SendParams params;
  params.sync = sync;
  return ep->tag_send(buf, len, make_tag(ctx, c.rank, tag), req, params);
}

// The communicator is not consulted: the source field holds a rank of it already, and the
// context id tells communicators apart.
Status post_recv(const Comm& /*c*/, uint32_t ctx, void* buf, size_t len, int source, int tag,
                 Request** req) {
  *req = nullptr;
  const bool any_source = source == MPI_ANY_SOURCE;
  const bool any_tag = tag == MPI_ANY_TAG;
  count_recv_posted();
  return runtime()->worker->tag_recv(buf, len,
                                     make_tag(ctx, any_source ? 0 : source, any_tag ? 0 : tag),
                                     recv_mask(any_source, any_tag), req);
}

namespace {

// Waits for and releases a request; a request-less Ok is already complete.
Status finish(Status posted, Request* req, RecvInfo* info) {
  if (is_error(posted) || !req) return posted;
  Status s = wait_for(req);
  if (info) *info = req->info();
  req->release();
  return s;
}

}  // namespace

Status send_blocking(const Comm& c, uint32_t ctx, const void* buf, size_t len, int dest, int tag,
                     bool sync) {
  Request* req = nullptr;
  Status s = post_send(c, ctx, buf, len, dest, tag, sync, &req);
  return finish(s, req, nullptr);
}

Status recv_blocking(const Comm& c, uint32_t ctx, void* buf, size_t len, int source, int tag,
                     RecvInfo* info) {
  Request* req = nullptr;
  Status s = post_recv(c, ctx, buf, len, source, tag, &req);
  return finish(s, req, info);
}

Status sendrecv_blocking(const Comm& c, uint32_t ctx, const void* sbuf, size_t slen, int dest,
                         int stag, void* rbuf, size_t rlen, int source, int rtag,
                         RecvInfo* info) {
  Request* rreq = nullptr;
  Status rs = post_recv(c, ctx, rbuf, rlen, source, rtag, &rreq);
  if (is_error(rs)) return rs;
  Request* sreq = nullptr;
  Status ss = post_send(c, ctx, sbuf, slen, dest, stag, false, &sreq);
  if (is_error(ss)) {
    // The receive stays posted until it is canceled; nothing else can own it.
    if (runtime()->worker->cancel(rreq) == Status::Ok) (void)wait_for(rreq);
    rreq->release();
    return ss;
  }
  ss = finish(ss, sreq, nullptr);
  rs = finish(rs, rreq, info);
  return is_error(rs) ? rs : ss;
}

}  // namespace torus::mpi
