// The send path: a frame goes straight to the socket with one sendmsg when nothing is queued
// ahead of it; what the kernel does not take is queued (copied, unless the caller lends the
// payload until completion) and written from progress() when the socket drains.
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "transports/tcp/tcp_iface.h"

namespace torus::tcp {
namespace {

// Copied bytes a peer may have queued before sends get NoResource (back-pressure).
constexpr size_t kMaxQueuedBytes = 8u << 20;
constexpr int kMaxIov = 64;

// sendmsg, not writev: MSG_NOSIGNAL turns a dead peer into EPIPE instead of SIGPIPE.
ssize_t send_iov(int fd, iovec* iov, int count) {
  msghdr m{};
  m.msg_iov = iov;
  m.msg_iovlen = static_cast<size_t>(count);
  for (;;) {
    const ssize_t n = ::sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0 || errno != EINTR) return n;
  }
}

}  // namespace

Status TcpIface::ready_to_send(Peer& peer) {
  if (peer.failed) return peer.failure;
  if (peer.active != nullptr && peer.txq.empty()) return Status::Ok;
  if (peer.active == nullptr && peer.dialing == nullptr) {
    if (Status s = dial(peer); s != Status::Ok) return s;
  }
  return Status::NoResource;
}

Status TcpIface::reserve(Peer& peer, size_t bytes) {
  if (peer.failed) return peer.failure;
  if (peer.owned_bytes + bytes > kMaxQueuedBytes && !peer.txq.empty()) return Status::NoResource;
  if (peer.active == nullptr && peer.dialing == nullptr) {
    if (Status s = dial(peer); s != Status::Ok) return s;
  }
  return Status::Ok;
}

Status TcpIface::send_frame(Peer& peer, std::span<const std::byte> head,
                            std::span<const std::byte> payload, bool borrowed,
                            tl::Completion* comp) {
  if (peer.failed) return peer.failure;
  size_t done = 0;
  Socket* s = peer.active;
  if (s != nullptr && peer.txq.empty()) {
    iovec iov[2] = {{const_cast<std::byte*>(head.data()), head.size()},
                    {const_cast<std::byte*>(payload.data()), payload.size()}};
    const ssize_t n = send_iov(s->fd, iov, payload.empty() ? 1 : 2);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      lose_socket(s, errno, "send");
      return peer.failed ? peer.failure : Status::ConnectionReset;
    }
    done = n < 0 ? 0 : static_cast<size_t>(n);
    if (done == head.size() + payload.size()) return Status::Ok;
  } else if (s == nullptr && peer.dialing == nullptr) {
    if (Status st = dial(peer); st != Status::Ok) return st;
  }
  TxEntry& e = peer.txq.emplace_back();
  std::memcpy(e.head.data(), head.data(), head.size());
  e.head_len = static_cast<uint32_t>(head.size());
  if (borrowed) {
    e.borrowed = payload.data();
    e.borrowed_len = payload.size();
  } else {
    e.owned.assign(payload.begin(), payload.end());
    peer.owned_bytes += payload.size();
  }
  e.done = done;
  e.comp = comp;
  if (s != nullptr) set_want_write(s, true);
  return comp != nullptr ? Status::InProgress : Status::Ok;
}

bool TcpIface::flush_socket(Socket* s) {
  while (s->hs_out_done < s->hs_out.size()) {
    const ssize_t n = ::send(s->fd, s->hs_out.data() + s->hs_out_done,
                             s->hs_out.size() - s->hs_out_done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        set_want_write(s, true);
        return true;
      }
      lose_socket(s, errno, "send");
      return false;
    }
    s->hs_out_done += static_cast<size_t>(n);
  }
  s->hs_out.clear();
  s->hs_out_done = 0;
  if (s->state != SockState::Ready || !s->peer || s->peer->active != s) {
    if (s->state != SockState::Dialing) set_want_write(s, false);
    return true;
  }
  const std::shared_ptr<Peer> keep = s->peer;  // completions below may fail and drop it
  Peer& peer = *keep;
  // Completions run after the queue is consistent: they may send again.
  std::vector<tl::Completion*> written;
  while (!peer.txq.empty()) {
    iovec iov[kMaxIov];
    int count = 0;
    for (auto it = peer.txq.begin(); it != peer.txq.end() && count + 2 <= kMaxIov; ++it) {
      size_t skip = it->done;
      if (skip < it->head_len) {
        iov[count++] = {it->head.data() + skip, it->head_len - skip};
        skip = 0;
      } else {
        skip -= it->head_len;
      }
      const size_t plen = it->payload_len();
      if (plen > skip) {
        const std::byte* p = it->borrowed ? it->borrowed : it->owned.data();
        iov[count++] = {const_cast<std::byte*>(p + skip), plen - skip};
      }
    }
    const ssize_t n = send_iov(s->fd, iov, count);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        set_want_write(s, true);
        break;
      }
      lose_socket(s, errno, "send");
      for (tl::Completion* c : written) c->func(c, Status::Ok);
      return false;
    }
    size_t left = static_cast<size_t>(n);
    while (left > 0 && !peer.txq.empty()) {
      TxEntry& e = peer.txq.front();
      const size_t rest = e.total() - e.done;
      if (left < rest) {
        e.done += left;
        left = 0;
        break;
      }
      left -= rest;
      peer.owned_bytes -= e.owned.size();
      if (e.comp != nullptr) written.push_back(e.comp);
      peer.txq.pop_front();
    }
    if (!peer.txq.empty() && static_cast<size_t>(n) == 0) break;
  }
  const bool drained = peer.txq.empty();
  if (drained) set_want_write(s, false);
  for (tl::Completion* c : written) c->func(c, Status::Ok);
  if (drained) settle(peer);
  return s->state != SockState::Closed;
}

}  // namespace torus::tcp
