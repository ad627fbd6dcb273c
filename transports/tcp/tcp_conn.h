// One connection to a peer worker, in two parts: Peer is the logical link (the send queue,
// the get/put requests awaiting answers, the endpoints using it) and Socket is one TCP
// socket with its handshake state and receive buffer. A Peer outlives sockets: when both
// workers dial at once, the tie-break keeps one socket and the queued sends move to it.
// A pair of workers may have bulk connections besides the main one: each is a Peer of its
// own (a lane) owned by the main Peer, carrying only get/put requests and their answers.
#pragma once

#include <sys/uio.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "transports/tcp/tcp_netif.h"
#include "transports/tcp/tcp_wire.h"
#include "transports/transport.h"

namespace torus::tcp {

class TcpEndpoint;
struct Peer;

enum class SockState : uint8_t {
  Dialing,        // connect() in progress
  AwaitChallenge, // connector: waiting for the acceptor's challenge
  AwaitHello,     // acceptor: challenge sent, waiting for the hello
  AwaitWelcome,   // connector: hello sent, waiting for the verdict
  Ready,          // frames flow
  Closed,
};

// What the receive path does with the payload of the frame being read.
enum class SinkKind : uint8_t { None, GetData, PutData, Discard };

struct Socket {
  int fd = -1;
  SockState state = SockState::Closed;
  bool outbound = false;            // we dialed it
  bool local = false;               // both ends on this host (set once connected)
  std::shared_ptr<Peer> peer;       // set once the peer is known (dialing: from the start)
  uint64_t nonce = 0;               // ours, for this handshake
  uint64_t peer_nonce = 0;
  bool want_write = false;          // EPOLLOUT registered
  // Handshake bytes still to send (they go before any frame).
  std::vector<std::byte> hs_out;
  size_t hs_out_done = 0;
  // Receive buffer: [rbeg, rend) holds unparsed bytes.
  std::vector<std::byte> rbuf;
  size_t rbeg = 0, rend = 0;
  // A payload being received straight into its destination (get data, put data), or
  // dropped (a refused put).
  SinkKind sink = SinkKind::None;
  std::byte* sink_dst = nullptr;
  size_t sink_left = 0;
  uint64_t sink_op = 0;             // put: the requester's op id, for the ack
  Status sink_status = Status::Ok;  // put: Ok or why the data is dropped
  std::string describe;             // "10.0.0.2:4242" for log lines
  std::chrono::steady_clock::time_point born;  // handshakes must finish in time
};

// A frame waiting to be written: its header and body inline, its payload either owned (a
// copied active message) or borrowed (get/put data, valid until the operation completes).
struct TxEntry {
  std::array<std::byte, sizeof(FrameHeader) + kMaxZcopyHeader> head{};
  uint32_t head_len = 0;
  std::vector<std::byte> owned;
  const std::byte* borrowed = nullptr;
  size_t borrowed_len = 0;
  size_t done = 0;  // bytes of head + payload already written
  tl::Completion* comp = nullptr;  // am_zcopy: fires once the borrowed payload is written
  size_t payload_len() const noexcept { return borrowed ? borrowed_len : owned.size(); }
  size_t total() const noexcept { return head_len + payload_len(); }
};

// A get or put this side issued, answered in order on the connection.
struct RmaOp {
  uint64_t id = 0;
  bool is_get = false;
  std::byte* dst = nullptr;  // get: where the data goes
  size_t len = 0;
  tl::Completion* comp = nullptr;
};

struct Peer {
  uint64_t uid = 0;
  unsigned lane = 0;                // 0: the main connection; 1..: a bulk one
  // A bulk lane's main Peer, which owns it (and whose failure closes the lane's sockets
  // before the main Peer can go away); null on the main Peer.
  Peer* root = nullptr;
  std::vector<std::shared_ptr<Peer>> lanes;  // main Peer: its bulk lanes, lanes[i].lane == i+1
  bool wants_lanes = false;         // main Peer: a large get/put asked for bulk lanes
  NetAddr dial_addr{};              // where to dial, when we have to
  bool have_dial_addr = false;
  Socket* active = nullptr;         // Ready socket frames go on
  Socket* dialing = nullptr;        // our outbound socket while it handshakes
  bool failed = false;
  Status failure = Status::Ok;
  // Lost a simultaneous dial: the peer's own connection must arrive by this time.
  bool awaiting_incoming = false;
  std::chrono::steady_clock::time_point awaiting_since;
  std::deque<TxEntry> txq;
  size_t owned_bytes = 0;           // bytes of owned payload queued (back-pressure)
  std::deque<RmaOp> ops;
  uint64_t next_op = 1;
  std::vector<tl::Completion*> flushes;
  std::vector<TcpEndpoint*> endpoints;
  // Nothing queued or awaited here, nor (main Peer) on any bulk lane.
  bool quiet() const noexcept {
    if (!txq.empty() || !ops.empty()) return false;
    for (const auto& l : lanes)
      if (!l->txq.empty() || !l->ops.empty()) return false;
    return true;
  }
};

}  // namespace torus::tcp
