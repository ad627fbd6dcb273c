// The receive side and the CQ loop: pre-posted buffers (multi-recv slabs or one buffer per
// message, reposted after use), active-message dispatch with validation, send and RMA
// completions, error entries. progress() always reads the CQ: tcp and shm progress a peer's
// fi_read of our memory only while we poll (manual progress).
#include <rdma/fi_errno.h>

#include <cstring>
#include <vector>

#include "core/base/log.h"
#include "transports/ofi/ofi_endpoint.h"
#include "transports/ofi/ofi_iface.h"
#include "transports/ofi/ofi_pidfd.h"

namespace torus::ofi {
namespace {

// Keepalive intervals in a row whose probe the provider refused before the peer counts as
// gone (see send_keepalives).
constexpr unsigned kMaxProbeRefusals = 6;

// Multi-recv slabs: two, so one can be reposted while the other fills.
constexpr size_t kSlabs = 2;
constexpr size_t kSlabSegments = 64;

Status status_of_error(int err) {
  switch (err) {
    case FI_EACCES:
    case FI_EKEYREJECTED:
    case FI_EPERM:
    case FI_EINVAL:  // some providers answer an unknown key this way
    case FI_EFAULT:
      return Status::AccessDenied;
    case FI_ECONNREFUSED:
    case FI_ECONNRESET:
    case FI_ECONNABORTED:
    case FI_EHOSTUNREACH:
    case FI_ENOTCONN:
    case FI_ESHUTDOWN:
      return Status::ConnectionReset;
    case FI_ECANCELED:
      return Status::Canceled;
    case FI_ETIMEDOUT:
      return Status::Timeout;
    case FI_ETRUNC:
      return Status::BufferTooSmall;
    default:
      return Status::IoError;
  }
}

}  // namespace

std::optional<Error> OfiIface::setup_rx() {
  const size_t n = multi_ ? kSlabs : settings_.rx_bufs;
  rx_buf_size_ = multi_ ? settings_.seg_size * kSlabSegments : settings_.seg_size;
  rx_pool_.resize(n * rx_buf_size_);
  auto mr = register_mr(mr_ctx_, rx_pool_.data(), rx_pool_.size(), kLocalAccess);
  if (!mr) return mr.error();
  rx_mr_ = mr.value();
  rx_desc_ = fi_mr_desc(rx_mr_);
  for (size_t i = 0; i < n; ++i) {
    Op* op = new_op(Op::Kind::Recv, nullptr, nullptr);
    op->buf = static_cast<int>(i);
    rx_ops_.push_back(op);
    if (Status s = post_rx(static_cast<int>(i)); s != Status::Ok)
      return make_error(s, "ofi: could not post receive buffers");
  }
  return std::nullopt;
}

Status OfiIface::post_rx(int i) {
  Op* op = rx_ops_[static_cast<size_t>(i)];
  iovec iov{rx_pool_.data() + size_t(i) * rx_buf_size_, rx_buf_size_};
  void* desc = rx_desc_;
  fi_msg msg{};
  msg.msg_iov = &iov;
  msg.desc = &desc;
  msg.iov_count = 1;
  msg.addr = FI_ADDR_UNSPEC;
  msg.context = &op->ctx;
  for (int tries = 0; tries < 1000; ++tries) {
    const ssize_t rc = fi_recvmsg(ep_, &msg, multi_ ? FI_MULTI_RECV : 0);
    if (rc == 0) return Status::Ok;
    if (rc != -FI_EAGAIN) {
      TORUS_WARN("ofi: fi_recvmsg: %s", ofi_strerror(static_cast<int>(-rc)));
      return Status::IoError;
    }
    // The provider's own queues are full: let it progress (receive slots come back).
    fi_cq_data_entry none;
    (void)fi_cq_read(cq_, &none, 0);
  }
  return Status::NoResource;
}

void OfiIface::repost_rx(int i) {
  if (post_rx(i) != Status::Ok) rx_unposted_.push_back(i);
}

unsigned OfiIface::progress() {
  if (in_progress_) return 0;  // a handler must not progress; refuse re-entry quietly
  in_progress_ = true;
  const unsigned n = poll_cq();
  // The clock is read on idle polls (a sleeping worker polls rarely) and every 256th busy
  // one; a read costs less than the provider's empty CQ poll.
  if (settings_.keepalive_s < 1e9 && (n == 0 || ++polls_since_clock_ >= 256)) {
    polls_since_clock_ = 0;
    if (std::chrono::steady_clock::now() >= next_keepalive_) send_keepalives();
  }
  in_progress_ = false;
  return n;
}

void OfiIface::send_keepalives() {
  const bool first = next_keepalive_ == std::chrono::steady_clock::time_point{};
  next_keepalive_ = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(settings_.keepalive_s));
  if (first) return;  // the interval starts with the first progress
  std::vector<OfiEndpoint*> gone;
  for (OfiEndpoint* ep : endpoints_) {
    if (ep->failing) continue;
    if (ep->pidfd >= 0 && process_exited(ep->pidfd)) {
      TORUS_WARN("ofi: peer process exited: failing its endpoint");
      gone.push_back(ep);
      continue;
    }
    mem::PoolBuffer* b = take_tx_buf();
    if (b == nullptr) break;  // busy: the traffic itself will show a dead peer
    Op* op = new_op(Op::Kind::Send, ep, nullptr);
    op->tx = b;
    op->probe = true;
    const AmHeader h{kAmMagic, 0, kAmFlagKeepalive, 0};
    std::memcpy(b->data, &h, sizeof(h));
    // fi_send, not fi_inject: only a send with a completion can report a dead peer.
    const ssize_t rc = fi_send(ep_, b->data, sizeof(h), tx_desc(b), ep->peer(), &op->ctx);
    if (rc == 0) {
      ep->probe_refusals = 0;
      continue;
    }
    return_tx(op);
    if (rc == -FI_EAGAIN) {
      // ofi_rxm answers EAGAIN for good once a peer's connection is lost and cannot be
      // remade. A live peer refuses this long only if it has not progressed for
      // kMaxProbeRefusals intervals while our data to it filled every queue.
      if (++ep->probe_refusals < kMaxProbeRefusals) continue;
      TORUS_WARN("ofi: peer unreachable (keepalive refused for %u intervals): failing its "
                 "endpoint", ep->probe_refusals);
    } else {
      // Refused at once (sockets: no connection can be made to it): the peer is gone.
      TORUS_WARN("ofi: peer unreachable (keepalive: %s): failing its endpoint",
                 ofi_strerror(static_cast<int>(-rc)));
    }
    gone.push_back(ep);
  }
  // After the loop: the handler may destroy endpoints.
  for (OfiEndpoint* ep : gone) fail_endpoint(ep);
  if (!failing_.empty()) check_failing();
}

unsigned OfiIface::poll_cq() {
  unsigned count = 0;
  if (!rx_unposted_.empty()) {
    std::vector<int> retry;
    retry.swap(rx_unposted_);
    for (int i : retry) repost_rx(i);
  }
  if (!serves_unsent_.empty()) retry_serves();
  fi_cq_data_entry entries[16];
  for (int round = 0; round < 4; ++round) {
    const ssize_t n = fi_cq_read(cq_, entries, 16);
    if (n == -FI_EAVAIL) {
      on_error();
      ++count;
      continue;
    }
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      const fi_cq_data_entry& e = entries[i];
      on_completion(reinterpret_cast<Op*>(e.op_context), e.flags, e.len, e.buf);
    }
    count += static_cast<unsigned>(n);
    if (n < 16) break;
  }
  return count;
}

void OfiIface::on_completion(Op* op, uint64_t flags, size_t len, void* buf) {
  if (op == nullptr) return;  // an injected or context-less event
  if (op->kind == Op::Kind::Recv) {
    const std::byte* data =
        multi_ && buf != nullptr
            ? static_cast<const std::byte*>(buf)
            : rx_pool_.data() + size_t(op->buf) * rx_buf_size_;
    if ((flags & FI_RECV) != 0 && len > 0) deliver(data, len);
    // Multi-recv: reposted when the provider releases the slab; plain: after each message.
    if (!multi_ || (flags & FI_MULTI_RECV) != 0) repost_rx(op->buf);
    return;
  }
  // A tagged get's data: exactly what was asked, or the target misbehaved.
  finish(op, op->kind == Op::Kind::TRecv && len != op->length ? Status::IoError : Status::Ok);
}

void OfiIface::finish(Op* op, Status st) {
  if (op->tx != nullptr) {
    tx_pool_->put(op->tx);
    op->tx = nullptr;
  }
  OfiEndpoint* ep = op->ep;
  bool report = false;
  if (op->kind == Op::Kind::TRecv) {
    posted_gets_.erase(op->tag);
    // Canceled because the target refused, or because the peer is gone.
    if (st == Status::Canceled && is_error(op->refused)) st = op->refused;
    else if (ep != nullptr && ep->failing && is_error(st)) st = Status::ConnectionReset;
    if (ep != nullptr && ep->tagged_gets > 0 && --ep->tagged_gets == 0 && ep->failing)
      report = true;
  }
  tl::Completion* comp = op->comp;
  const bool probe = op->probe;  // not counted in the endpoint's outstanding operations
  free_op(op);
  if (comp != nullptr) comp->func(comp, st);
  // The callback may have destroyed the endpoint.
  if (!probe && ep != nullptr && endpoints_.count(ep) != 0) ep->op_done(st);
  if (report && endpoints_.count(ep) != 0) report_failure(ep);
}

void OfiIface::on_error() {
  fi_cq_err_entry err{};
  if (fi_cq_readerr(cq_, &err, 0) != 1) return;
  auto* op = reinterpret_cast<Op*>(err.op_context);
  Status st = status_of_error(err.err);
  if (op == nullptr) return;
  // A tagged receive canceled by no one of ours: rxm flushes it when the connection to the
  // peer is gone.
  if (op->kind == Op::Kind::TRecv && st == Status::Canceled && op->comp != nullptr &&
      !is_error(op->refused) && op->ep != nullptr && !op->ep->failing)
    st = Status::ConnectionReset;
  if (op->kind == Op::Kind::Recv) {
    // A failed receive (truncated, canceled): its buffer goes back to the provider.
    if (err.err != FI_ECANCELED) {
      TORUS_WARN("ofi: receive error %d (%s): %s; flags %llx len %zu", err.err,
                 ofi_strerror(err.err),
                 fi_cq_strerror(cq_, err.prov_errno, err.err_data, nullptr, 0),
                 static_cast<unsigned long long>(err.flags), err.len);
      repost_rx(op->buf);
    }
    return;
  }
  OfiEndpoint* ep = op->ep;
  // Whatever the provider calls it (EIO on sockets, unreachable on EFA), a probe that
  // cannot be delivered means the peer is gone.
  const bool peer_gone = st == Status::ConnectionReset || op->probe;
  const bool quiet = op->kind == Op::Kind::TRecv && err.err == FI_ECANCELED;
  if (!quiet)
    TORUS_DEBUG("ofi: %s failed: %s (%s)", op->probe ? "keepalive" : "operation",
                ofi_strerror(err.err),
                fi_cq_strerror(cq_, err.prov_errno, err.err_data, nullptr, 0));
  finish(op, st);
  if (ep != nullptr && endpoints_.count(ep) != 0 && peer_gone && !ep->failing) {
    TORUS_WARN("ofi: peer unreachable (%s): failing its endpoint", ofi_strerror(err.err));
    fail_endpoint(ep);
  }
}

void OfiIface::deliver(const std::byte* data, size_t len) {
  AmHeader h;
  bool ok = len >= sizeof(h);
  if (ok) {
    std::memcpy(&h, data, sizeof(h));
    if (ok && h.magic == kAmMagic && h.flags == kAmFlagKeepalive && h.length == 0 &&
        len == sizeof(h))
      return;  // a peer's liveness probe: arriving was its whole job
    if (h.magic == kAmMagic && h.length == len - sizeof(h)) {
      if (h.flags == kAmFlagGetRequest) return on_get_request(data + sizeof(h), h.length);
      if (h.flags == kAmFlagGetNack) return on_get_nack(data + sizeof(h), h.length);
    }
    ok = h.magic == kAmMagic && h.flags == 0 && h.id < tl::kMaxAmId &&
         h.length == len - sizeof(h) && handlers_[h.id].fn != nullptr;
  }
  if (!ok) {
    // RDM has no connection to drop: the message is dropped and logged (a few times).
    if (malformed_logged_++ < 8)
      TORUS_WARN("ofi: dropped a malformed or unroutable message of %zu bytes", len);
    return;
  }
  handlers_[h.id].fn(handlers_[h.id].arg, data + sizeof(h), h.length);
}

}  // namespace torus::ofi
