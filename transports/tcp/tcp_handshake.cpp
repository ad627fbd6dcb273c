// The handshake: challenge (acceptor), hello with the job-key proof (connector), welcome
// with the acceptor's proof and the tie-break verdict. Nothing but these fixed-size
// messages is accepted before it completes.
#include <cstring>

#include "core/base/log.h"
#include "transports/tcp/tcp_iface.h"

namespace torus::tcp {
namespace {

template <typename T>
void append(std::vector<std::byte>& out, const T& v) {
  const auto* p = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), p, p + sizeof(v));
}

}  // namespace

// Consumes handshake messages from the receive buffer; false when the socket was closed.
bool TcpIface::handle_handshake(Socket* s) {
  while (s->state != SockState::Ready) {
    const size_t avail = s->rend - s->rbeg;
    const std::byte* p = s->rbuf.data() + s->rbeg;
    std::string why;
    switch (s->state) {
      case SockState::AwaitChallenge: {
        if (avail < sizeof(Challenge)) return true;
        Challenge c;
        if (!parse_challenge(std::span<const std::byte, sizeof(Challenge)>(p, sizeof(c)), &c,
                             &why)) {
          close_socket(s, Status::ProtocolError, why);
          return false;
        }
        s->rbeg += sizeof(c);
        if (!s->peer || c.acceptor_uid != s->peer->uid) {
          // The port now belongs to another worker (ours died and it was reused).
          close_socket(s, Status::Unreachable, "a different worker listens at that address");
          return false;
        }
        s->peer_nonce = c.nonce;
        const auto lane = static_cast<uint16_t>(s->peer->lane);
        Hello h{kMagic, kVersion, lane, self_.worker_uid, s->peer->uid, s->nonce, 0};
        h.mac = hello_mac(key_, c.nonce, self_.worker_uid, s->peer->uid, s->nonce,
                          static_cast<uint8_t>(lane));
        append(s->hs_out, h);
        s->state = SockState::AwaitWelcome;
        if (!flush_socket(s)) return false;
        break;
      }
      case SockState::AwaitHello: {
        if (avail < sizeof(Hello)) return true;
        Hello h;
        if (!parse_hello(std::span<const std::byte, sizeof(Hello)>(p, sizeof(h)), &h, &why)) {
          close_socket(s, Status::ProtocolError, why);
          return false;
        }
        s->rbeg += sizeof(h);
        if (h.target_uid != self_.worker_uid) {
          close_socket(s, Status::ProtocolError, "hello for another worker");
          return false;
        }
        if (h.mac != hello_mac(key_, s->nonce, h.connector_uid, h.target_uid, h.nonce,
                               static_cast<uint8_t>(h.lane))) {
          close_socket(s, Status::AccessDenied, "wrong job key (TORUS_JOB_KEY) in hello");
          return false;
        }
        if (h.connector_uid == self_.worker_uid) {
          close_socket(s, Status::ProtocolError, "hello claims to come from this worker");
          return false;
        }
        std::shared_ptr<Peer>& root = peers_[h.connector_uid];
        if (!root) {
          root = std::make_shared<Peer>();
          root->uid = h.connector_uid;
        }
        // A bulk connection joins the pair's lane of that number (parse_hello bounded it).
        const std::shared_ptr<Peer> peer = h.lane == 0 ? root : lane_of(root, h.lane);
        // Both workers may dial at once: the connection dialed by the smaller id survives.
        const bool duplicate =
            peer->active != nullptr ||
            (peer->dialing != nullptr && self_.worker_uid < h.connector_uid);
        const auto verdict = duplicate ? Verdict::Duplicate : Verdict::Accept;
        Welcome w{kMagic, static_cast<uint8_t>(verdict), {0, 0, 0}, 0};
        w.mac = welcome_mac(key_, h.nonce, s->nonce, self_.worker_uid, w.verdict);
        append(s->hs_out, w);
        if (duplicate) {
          flush_socket(s);
          close_socket(s, Status::Ok, "");
          return false;
        }
        if (peer->failed && peer->root != nullptr) {
          // We gave this lane up (its connection was lost while idle); the peer dialed it
          // afresh and will send pieces on it, which must be answered.
          peer->failed = false;
          peer->failure = Status::Ok;
        }
        s->peer = peer;
        make_active(*peer, s);
        if (s->state == SockState::Closed) return false;
        if (!flush_socket(s)) return false;
        break;
      }
      case SockState::AwaitWelcome: {
        if (avail < sizeof(Welcome)) return true;
        Welcome w;
        if (!parse_welcome(std::span<const std::byte, sizeof(Welcome)>(p, sizeof(w)), &w,
                           &why)) {
          close_socket(s, Status::ProtocolError, why);
          return false;
        }
        s->rbeg += sizeof(w);
        if (w.mac != welcome_mac(key_, s->nonce, s->peer_nonce, s->peer->uid, w.verdict)) {
          close_socket(s, Status::AccessDenied,
                       "the peer could not prove the job key (TORUS_JOB_KEY)");
          return false;
        }
        if (w.verdict == static_cast<uint8_t>(Verdict::Duplicate)) {
          // The peer's own connection to us won; queued frames wait for it.
          Peer& peer = *s->peer;
          close_socket(s, Status::Ok, "");
          if (peer.active == nullptr) {
            peer.awaiting_incoming = true;
            peer.awaiting_since = std::chrono::steady_clock::now();
          }
          return false;
        }
        make_active(*s->peer, s);
        if (s->state == SockState::Closed) return false;
        break;
      }
      default:
        return true;
    }
  }
  return true;
}

}  // namespace torus::tcp
