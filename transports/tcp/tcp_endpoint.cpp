// The endpoint side of the data path: frames built here, written (or queued) by the iface.
#include "transports/tcp/tcp_endpoint.h"

#include <cstring>

#include "transports/tcp/tcp_iface.h"

namespace torus::tcp {
namespace {

FrameHeader frame_header(FrameType type, uint8_t id, size_t length) {
  return FrameHeader{static_cast<uint8_t>(type), id, 0, static_cast<uint32_t>(length)};
}

template <typename Body>
std::array<std::byte, sizeof(FrameHeader) + sizeof(Body)> head_of(const FrameHeader& h,
                                                                  const Body& b) {
  std::array<std::byte, sizeof(FrameHeader) + sizeof(Body)> out;
  std::memcpy(out.data(), &h, sizeof(h));
  std::memcpy(out.data() + sizeof(h), &b, sizeof(b));
  return out;
}

}  // namespace

TcpEndpoint::TcpEndpoint(TcpIface& iface, std::shared_ptr<Peer> peer)
    : iface_(iface), peer_(std::move(peer)) {
  peer_->endpoints.push_back(this);
}

TcpEndpoint::~TcpEndpoint() { iface_.forget_endpoint(this); }

Status TcpEndpoint::am_short(tl::AmId id, std::span<const std::byte> header,
                             std::span<const std::byte> payload) {
  const size_t len = header.size() + payload.size();
  if (len > iface_.attributes().limits.max_short || id >= tl::kMaxAmId)
    return Status::InvalidParam;
  if (Status s = iface_.ready_to_send(*peer_); s != Status::Ok) return s;
  std::span<std::byte> buf = iface_.scratch();
  if (!header.empty()) std::memcpy(buf.data(), header.data(), header.size());
  if (!payload.empty()) std::memcpy(buf.data() + header.size(), payload.data(), payload.size());
  const FrameHeader h = frame_header(FrameType::Am, id, len);
  return iface_.send_frame(*peer_, std::as_bytes(std::span(&h, 1)), buf.first(len), false);
}

Status TcpEndpoint::am_bcopy(tl::AmId id, tl::PackFn pack, void* arg) {
  if (id >= tl::kMaxAmId) return Status::InvalidParam;
  if (Status s = iface_.ready_to_send(*peer_); s != Status::Ok) return s;
  std::span<std::byte> buf = iface_.scratch();
  const size_t len = pack(buf.data(), arg);
  if (len > kMaxAmPayload) return Status::InvalidParam;
  const FrameHeader h = frame_header(FrameType::Am, id, len);
  return iface_.send_frame(*peer_, std::as_bytes(std::span(&h, 1)), buf.first(len), false);
}

Status TcpEndpoint::am_zcopy(tl::AmId id, std::span<const std::byte> header,
                             std::span<const iovec> iov, tl::Completion* comp) {
  if (id >= tl::kMaxAmId || iov.size() > 1 || header.size() > kMaxZcopyHeader)
    return Status::InvalidParam;
  const size_t data = iov.empty() ? 0 : iov[0].iov_len;
  if (header.size() + data > kMaxAmPayload) return Status::InvalidParam;
  if (Status s = iface_.ready_to_send(*peer_); s != Status::Ok) return s;
  std::array<std::byte, sizeof(FrameHeader) + kMaxZcopyHeader> head;
  const FrameHeader h = frame_header(FrameType::Am, id, header.size() + data);
  std::memcpy(head.data(), &h, sizeof(h));
  if (!header.empty()) std::memcpy(head.data() + sizeof(h), header.data(), header.size());
  const auto* p = data ? static_cast<const std::byte*>(iov[0].iov_base) : nullptr;
  return iface_.send_frame(*peer_, std::span(head).first(sizeof(h) + header.size()),
                           std::span(p, data), true, comp);
}

Status TcpEndpoint::get_zcopy(std::span<std::byte> local, uint64_t remote_addr,
                              std::span<const std::byte> rkey, tl::Completion* comp) {
  if (rkey.size() != kRkeySize || local.size() > kMaxRmaLength) return Status::InvalidParam;
  if (Status s = iface_.reserve(*peer_, 0); s != Status::Ok) return s;
  GetReqBody b{};
  b.op_id = peer_->next_op++;
  b.remote_addr = remote_addr;
  b.length = local.size();
  std::memcpy(b.rkey, rkey.data(), kRkeySize);
  const auto head = head_of(frame_header(FrameType::GetReq, 0, sizeof(b)), b);
  // Recorded after the write: a failed write fails the peer, which completes the recorded
  // operations, and this one must not complete twice. Answers only arrive in progress().
  if (Status s = iface_.send_frame(*peer_, head, {}, false); s != Status::Ok) return s;
  peer_->ops.push_back(RmaOp{b.op_id, true, local.data(), local.size(), comp});
  return Status::InProgress;
}

Status TcpEndpoint::put_zcopy(std::span<const std::byte> local, uint64_t remote_addr,
                              std::span<const std::byte> rkey, tl::Completion* comp) {
  if (rkey.size() != kRkeySize || local.size() > kMaxRmaLength) return Status::InvalidParam;
  if (Status s = iface_.reserve(*peer_, 0); s != Status::Ok) return s;
  PutReqBody b{};
  b.op_id = peer_->next_op++;
  b.remote_addr = remote_addr;
  std::memcpy(b.rkey, rkey.data(), kRkeySize);
  const auto head = head_of(frame_header(FrameType::PutReq, 0, sizeof(b) + local.size()), b);
  if (Status s = iface_.send_frame(*peer_, head, local, true); s != Status::Ok) return s;
  peer_->ops.push_back(RmaOp{b.op_id, false, nullptr, local.size(), comp});
  return Status::InProgress;
}

Status TcpEndpoint::flush(tl::Completion* comp) {
  if (peer_->failed) return peer_->failure;
  if (peer_->quiet()) return Status::Ok;
  peer_->flushes.push_back(comp);
  return Status::InProgress;
}

}  // namespace torus::tcp
