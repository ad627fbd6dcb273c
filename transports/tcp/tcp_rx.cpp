// The receive path: reads into the socket's buffer, parses frames, runs AM handlers, serves
// get/put requests against the region table, and streams get/put payloads straight into
// their destination.
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/base/log.h"
#include "transports/tcp/tcp_iface.h"

namespace torus::tcp {
namespace {

// Reads per event before yielding to other sockets, so one busy peer cannot starve others.
constexpr int kReadsPerEvent = 16;
// While a large get answer is due, a read into the buffer takes the frame being assembled
// and at most this much more (several small frames, or the answer's header): the answer's
// payload must go straight to its destination, and what lands in the buffer is copied once
// more. An unbounded read put the first 256 KiB of every 1 MiB answer there.
constexpr size_t kReadPastFrame = 4096;

// How many bytes a read into the socket's buffer may take (at most the room left).
size_t buffered_read_size(const Socket* s) {
  const size_t room = s->rbuf.size() - s->rend;
  const Peer* peer = s->peer.get();
  if (s->state != SockState::Ready || peer == nullptr || peer->ops.empty() ||
      !peer->ops.front().is_get || peer->ops.front().len <= kReadPastFrame)
    return room;
  // The frame whose start is buffered is read in full (parse_frames checked its header).
  const size_t have = s->rend - s->rbeg;
  size_t frame = sizeof(FrameHeader);
  if (have >= sizeof(FrameHeader)) {
    FrameHeader h;
    std::memcpy(&h, s->rbuf.data() + s->rbeg, sizeof(h));
    const auto type = static_cast<FrameType>(h.type);
    // A get answer or put request is buffered only up to its body; its payload streams.
    frame += type == FrameType::GetResp || type == FrameType::PutReq ? body_size(type)
                                                                      : h.length;
  }
  const size_t need = frame > have ? frame - have : 0;
  return std::min(room, need + kReadPastFrame);
}

}  // namespace

bool TcpIface::read_socket(Socket* s) {
  for (int round = 0; round < kReadsPerEvent; ++round) {
    if (s->state == SockState::Closed) return false;
    std::byte* dst;
    size_t want;
    if (s->sink == SinkKind::GetData || s->sink == SinkKind::PutData) {
      dst = s->sink_dst;
      want = s->sink_left;
    } else if (s->sink == SinkKind::Discard) {
      s->rbeg = s->rend = 0;  // a sink starts only once the buffer is consumed
      dst = s->rbuf.data();
      want = std::min(s->sink_left, s->rbuf.size());
    } else {
      if (s->rbeg == s->rend) {
        s->rbeg = s->rend = 0;
      } else if (s->rend == s->rbuf.size()) {
        std::memmove(s->rbuf.data(), s->rbuf.data() + s->rbeg, s->rend - s->rbeg);
        s->rend -= s->rbeg;
        s->rbeg = 0;
      }
      dst = s->rbuf.data() + s->rend;
      want = buffered_read_size(s);
    }
    const ssize_t n = ::recv(s->fd, dst, want, 0);
    if (n == 0) {
      // An orderly close: the peer's process exited or its worker closed the connection.
      close_socket(s, Status::ConnectionReset, "");
      return false;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      lose_socket(s, errno, "recv");
      return false;
    }
    const auto got = static_cast<size_t>(n);
    ++reads_;
    if (s->sink != SinkKind::None) {
      if (s->sink == SinkKind::Discard) {
        s->sink_left -= got;
      } else {
        s->sink_dst += got;
        s->sink_left -= got;
      }
      if (s->sink_left == 0) {
        finish_sink(s);
        if (s->state == SockState::Closed) return false;
      }
    } else {
      s->rend += got;
      const bool ok = s->state == SockState::Ready ? parse_frames(s) : handle_handshake(s);
      if (!ok) return false;
      if (s->state == SockState::Ready && s->rbeg < s->rend && s->sink == SinkKind::None &&
          !parse_frames(s))
        return false;
    }
    // A short read means the kernel had no more: epoll (level-triggered) says when it has.
    if (got < want) return true;
  }
  return true;
}

bool TcpIface::feed_sink(Socket* s, const std::byte* data, size_t len) {
  const size_t n = std::min(len, s->sink_left);
  if (s->sink != SinkKind::Discard && n > 0) {
    std::memcpy(s->sink_dst, data, n);
    s->sink_dst += n;
  }
  s->sink_left -= n;
  s->rbeg += n;
  if (s->sink_left == 0) finish_sink(s);
  return s->state != SockState::Closed;
}

void TcpIface::finish_sink(Socket* s) {
  const SinkKind kind = s->sink;
  s->sink = SinkKind::None;
  Peer& peer = *s->peer;
  if (kind == SinkKind::GetData) {
    RmaOp op = peer.ops.front();
    peer.ops.pop_front();
    if (op.comp != nullptr) op.comp->func(op.comp, Status::Ok);
    settle(peer);
    return;
  }
  // A put's payload has landed (or was dropped): answer it.
  const RespBody b{s->sink_op, static_cast<int32_t>(s->sink_status), 0};
  (void)send_frame(peer, frame_head(FrameType::PutAck, sizeof(b), b), {}, false);
}

bool TcpIface::parse_frames(Socket* s) {
  while (s->sink == SinkKind::None && s->state == SockState::Ready) {
    ParsedFrame f;
    std::string why;
    const std::span<const std::byte> avail(s->rbuf.data() + s->rbeg, s->rend - s->rbeg);
    const ParseResult r = parse_frame(avail, tl::kMaxAmId, &f, &why);
    if (r == ParseResult::NeedMore) break;
    if (r == ParseResult::Malformed) {
      close_socket(s, Status::ProtocolError, "malformed frame: " + why);
      return false;
    }
    const size_t fixed = sizeof(FrameHeader) + f.body_len;
    if (f.type == FrameType::Am || f.type == FrameType::GetReq || f.type == FrameType::PutAck) {
      // Whole-frame types: wait until all of it is buffered (an AM fits the buffer).
      if (avail.size() < fixed + f.payload_len) break;
      s->rbeg += fixed + f.payload_len;
      handle_frame(s, f, avail.data() + fixed);
    } else {
      s->rbeg += fixed;
      handle_frame(s, f, nullptr);
      if (s->state == SockState::Closed) return false;
      if (s->sink != SinkKind::None) {
        const size_t have = s->rend - s->rbeg;
        if (!feed_sink(s, s->rbuf.data() + s->rbeg, have)) return false;
      }
    }
    if (s->state == SockState::Closed) return false;
  }
  if (s->rbeg == s->rend) s->rbeg = s->rend = 0;
  return s->state != SockState::Closed;
}

void TcpIface::handle_frame(Socket* s, const ParsedFrame& f, const std::byte* payload) {
  Peer& peer = *s->peer;
  switch (f.type) {
    case FrameType::Am: {
      if (peer.lane != 0) {
        // Bulk connections carry get/put only; an AM there would overtake the main one's.
        close_socket(s, Status::ProtocolError, "active message on a bulk connection");
        return;
      }
      const Handler& h = handlers_[f.id];
      if (h.fn == nullptr) {
        TORUS_DEBUG("tcp: no handler for active message %u; dropped", f.id);
        return;
      }
      h.fn(h.arg, payload, f.payload_len);
      return;
    }
    case FrameType::GetReq: {
      GetReqBody b;
      std::memcpy(&b, f.body, sizeof(b));
      const Status st = b.length > kMaxRmaLength
                            ? Status::AccessDenied
                            : regions_.check(b.rkey, b.remote_addr, b.length, tl::kAccessRead);
      const size_t len = st == Status::Ok ? static_cast<size_t>(b.length) : 0;
      const RespBody r{b.op_id, static_cast<int32_t>(st), 0};
      const auto* src = reinterpret_cast<const std::byte*>(static_cast<uintptr_t>(b.remote_addr));
      (void)send_frame(peer, frame_head(FrameType::GetResp, sizeof(r) + len, r),
                       std::span(len ? src : nullptr, len), true);
      return;
    }
    case FrameType::GetResp: {
      RespBody b;
      std::memcpy(&b, f.body, sizeof(b));
      if (peer.ops.empty() || !peer.ops.front().is_get || peer.ops.front().id != b.op_id) {
        close_socket(s, Status::ProtocolError, "get response for no outstanding get");
        return;
      }
      const RmaOp& op = peer.ops.front();
      const auto st = static_cast<Status>(b.status);
      if (st != Status::Ok) {
        if (f.payload_len != 0 || !is_error(st)) {
          close_socket(s, Status::ProtocolError, "malformed get refusal");
          return;
        }
        RmaOp done = op;
        peer.ops.pop_front();
        if (done.comp != nullptr) done.comp->func(done.comp, st);
        settle(peer);
        return;
      }
      if (f.payload_len != op.len) {
        close_socket(s, Status::ProtocolError, "get response of the wrong length");
        return;
      }
      s->sink = SinkKind::GetData;
      s->sink_dst = op.dst;
      s->sink_left = op.len;
      if (op.len == 0) finish_sink(s);
      return;
    }
    case FrameType::PutReq: {
      PutReqBody b;
      std::memcpy(&b, f.body, sizeof(b));
      const Status st = regions_.check(b.rkey, b.remote_addr, f.payload_len, tl::kAccessWrite);
      s->sink = st == Status::Ok ? SinkKind::PutData : SinkKind::Discard;
      s->sink_dst = reinterpret_cast<std::byte*>(static_cast<uintptr_t>(b.remote_addr));
      s->sink_left = f.payload_len;
      s->sink_op = b.op_id;
      s->sink_status = st;
      if (f.payload_len == 0) finish_sink(s);
      return;
    }
    case FrameType::PutAck: {
      RespBody b;
      std::memcpy(&b, f.body, sizeof(b));
      const auto st = static_cast<Status>(b.status);
      if (peer.ops.empty() || peer.ops.front().is_get || peer.ops.front().id != b.op_id ||
          (st != Status::Ok && !is_error(st))) {
        close_socket(s, Status::ProtocolError, "put acknowledgement for no outstanding put");
        return;
      }
      RmaOp done = peer.ops.front();
      peer.ops.pop_front();
      if (done.comp != nullptr) done.comp->func(done.comp, st);
      settle(peer);
      return;
    }
  }
}

}  // namespace torus::tcp
