// The endpoint side of the data path: AM frames built here and written (or queued) by the
// iface; gets and puts go through the iface's rma() (tcp_rma.cpp), which may stripe them.
#include "transports/tcp/tcp_endpoint.h"

#include <cstring>

#include "transports/tcp/tcp_iface.h"

namespace torus::tcp {
namespace {

FrameHeader frame_header(FrameType type, uint8_t id, size_t length) {
  return FrameHeader{static_cast<uint8_t>(type), id, 0, static_cast<uint32_t>(length)};
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
  return iface_.rma(*peer_, true, local.data(), local.size(), remote_addr, rkey, comp);
}

Status TcpEndpoint::put_zcopy(std::span<const std::byte> local, uint64_t remote_addr,
                              std::span<const std::byte> rkey, tl::Completion* comp) {
  if (rkey.size() != kRkeySize || local.size() > kMaxRmaLength) return Status::InvalidParam;
  // The put only reads local: rma() takes one pointer for both directions.
  return iface_.rma(*peer_, false, const_cast<std::byte*>(local.data()), local.size(),
                    remote_addr, rkey, comp);
}

Status TcpEndpoint::flush(tl::Completion* comp) {
  if (peer_->failed) return peer_->failure;
  if (peer_->quiet()) return Status::Ok;
  peer_->flushes.push_back(comp);
  return Status::InProgress;
}

}  // namespace torus::tcp
