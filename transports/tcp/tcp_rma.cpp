// Software get/put requests: one frame on one connection, answered in order on it; from
// stripe_min up, the range is split into one piece per ready connection of the pair (the
// main one and the bulk lanes), so the target streams the pieces on several sockets at once
// and both ends' kernels copy on two cores. Bulk lanes are dialed on the first large
// transfer; until they are ready, and for good if they cannot be opened, transfers go whole
// on the main connection.
#include <algorithm>
#include <cstring>

#include "transports/tcp/tcp_iface.h"

namespace torus::tcp {
namespace {

// Pieces start on page boundaries of the range, so the copies stay page-aligned.
constexpr size_t kPieceAlign = 4096;

void release(StripeGroup& g) {
  g.user = nullptr;
  g.free_list->push_back(&g);
}

void on_piece(tl::Completion* c, Status status) {
  StripeGroup& g = *static_cast<StripePiece*>(c)->group;
  if (is_error(status) && g.status == Status::Ok) g.status = status;
  if (--g.left != 0 || g.issuing) return;
  tl::Completion* user = g.user;
  const Status st = g.status;
  release(g);  // first: the user's completion may start the next transfer
  if (user != nullptr) user->func(user, st);
}

}  // namespace

Status TcpIface::rma_one(Peer& lane, bool is_get, std::byte* local, size_t len,
                         uint64_t remote_addr, std::span<const std::byte> rkey,
                         tl::Completion* comp) {
  const uint64_t id = lane.next_op++;
  Status s;
  if (is_get) {
    GetReqBody b{};
    b.op_id = id;
    b.remote_addr = remote_addr;
    b.length = len;
    std::memcpy(b.rkey, rkey.data(), kRkeySize);
    s = send_frame(lane, frame_head(FrameType::GetReq, sizeof(b), b), {}, false);
  } else {
    PutReqBody b{};
    b.op_id = id;
    b.remote_addr = remote_addr;
    std::memcpy(b.rkey, rkey.data(), kRkeySize);
    s = send_frame(lane, frame_head(FrameType::PutReq, sizeof(b) + len, b), {local, len}, true);
  }
  // Recorded after the write: a failed write fails the peer, which completes the recorded
  // operations, and this one must not complete twice. Answers only arrive in progress().
  if (s != Status::Ok) return s;
  lane.ops.push_back(RmaOp{id, is_get, is_get ? local : nullptr, len, comp});
  return Status::InProgress;
}

Status TcpIface::rma(Peer& peer, bool is_get, std::byte* local, size_t len,
                     uint64_t remote_addr, std::span<const std::byte> rkey,
                     tl::Completion* comp) {
  if (Status s = reserve(peer, 0); s != Status::Ok) return s;
  const unsigned want = std::min(settings_.bulk_conns, kMaxLanes - 1);
  // While peers may read from us too (an exchange: both directions stream at once), both
  // cores already copy, and more sockets only add overhead (MPI allreduce over tcp, 2 ranks,
  // 512 KiB-4 MiB: 1.25-1.4x the time striped).
  // Within the host one sending core does the kernel work of both ends, so more sockets add
  // no copy path (with reno, MPI bandwidth at 512 KiB-16 MiB 5.4-7.0 GB/s striped against
  // 7.0-7.8 whole; latency at 512 KiB 76.7 against 68.7 us).
  if (want == 0 || len < settings_.stripe_min || len < 2 * kPieceAlign ||
      (is_get && regions_.readable() != 0) ||
      (!settings_.stripe_local && peer.active != nullptr && peer.active->local))
    return rma_one(peer, is_get, local, len, remote_addr, rkey, comp);
  // Bulk lanes are dialed once the main connection is up (make_active() does it then).
  peer.wants_lanes = true;
  if (peer.active == nullptr) return rma_one(peer, is_get, local, len, remote_addr, rkey, comp);
  open_lanes(peer);
  Peer* use[kMaxLanes] = {&peer};
  unsigned n = 1;
  for (unsigned i = 0; i < want && i < peer.lanes.size(); ++i) {
    Peer& l = *peer.lanes[i];
    if (l.active != nullptr && !l.failed) use[n++] = &l;
  }
  if (n == 1) return rma_one(peer, is_get, local, len, remote_addr, rkey, comp);

  if (free_stripes_.empty()) {
    stripes_.push_back(std::make_unique<StripeGroup>());
    StripeGroup& g = *stripes_.back();
    g.free_list = &free_stripes_;
    for (StripePiece& p : g.pieces) {
      p.func = on_piece;
      p.group = &g;
    }
    free_stripes_.push_back(&g);
  }
  StripeGroup& g = *free_stripes_.back();
  free_stripes_.pop_back();
  g.user = comp;
  g.status = Status::Ok;
  g.issuing = true;
  g.left = n;
  size_t piece = (len + n - 1) / n;
  piece = (piece + kPieceAlign - 1) / kPieceAlign * kPieceAlign;
  unsigned issued = 0;
  Status first_error = Status::Ok;
  for (size_t off = 0; issued < n && off < len; ++issued, off += piece) {
    const size_t part = std::min(piece, len - off);
    const Status s = rma_one(*use[issued], is_get, local + off, part, remote_addr + off, rkey,
                             &g.pieces[issued]);
    if (s != Status::InProgress) {
      // A failed write failed the whole pair: the pieces issued so far have completed.
      first_error = s == Status::Ok || s == Status::NoResource ? Status::IoError : s;
      break;
    }
  }
  g.left -= n - issued;  // the pieces never issued (rounding can leave the last one empty)
  g.issuing = false;
  if (g.left != 0) return Status::InProgress;
  // Nothing is pending: only a failure ends every piece inside this call.
  const Status st = first_error != Status::Ok ? first_error : g.status;
  release(g);
  return st == Status::Ok ? Status::IoError : st;
}

void TcpIface::open_lanes(Peer& root) {
  const unsigned want = std::min(settings_.bulk_conns, kMaxLanes - 1);
  if (root.lanes.size() >= want) {
    bool all = true;
    for (unsigned i = 0; i < want; ++i) {
      const Peer& l = *root.lanes[i];
      all = all && (l.active != nullptr || l.dialing != nullptr || l.awaiting_incoming ||
                    l.failed);
    }
    if (all) return;
  }
  const std::shared_ptr<Peer> keep = shared_of(root);
  if (!keep) return;
  for (unsigned lane = 1; lane <= want && !root.failed; ++lane) {
    const std::shared_ptr<Peer> l = lane_of(keep, lane);
    // A lane given up stays so for this pair: dialing again would fail the same way.
    if (l->active != nullptr || l->dialing != nullptr || l->awaiting_incoming || l->failed)
      continue;
    (void)dial(*l);  // a failure gives up this lane only (fail_peer)
  }
}

std::shared_ptr<Peer> TcpIface::lane_of(const std::shared_ptr<Peer>& root, unsigned lane) {
  if (root->lanes.size() < lane) root->lanes.resize(lane);
  std::shared_ptr<Peer>& l = root->lanes[lane - 1];
  if (!l) {
    l = std::make_shared<Peer>();
    l->uid = root->uid;
    l->lane = lane;
    l->root = root.get();
  }
  if (!l->have_dial_addr && root->have_dial_addr) {
    l->dial_addr = root->dial_addr;
    l->have_dial_addr = true;
  }
  return l;
}

std::shared_ptr<Peer> TcpIface::shared_of(Peer& peer) {
  if (peer.root != nullptr) {
    for (const auto& l : peer.root->lanes)
      if (l.get() == &peer) return l;
    return nullptr;
  }
  const auto it = peers_.find(peer.uid);
  return it != peers_.end() && it->second.get() == &peer ? it->second : nullptr;
}

size_t TcpIface::ready_connections() const noexcept {
  size_t n = 0;
  for (const auto& [raw, s] : sockets_) n += s->state == SockState::Ready;
  return n;
}

}  // namespace torus::tcp
