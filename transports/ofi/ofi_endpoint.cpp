// The data path: active messages by fi_inject (small) or fi_send from a registered bounce
// buffer, get/put by fi_read/fi_write with local descriptors from the registration cache.
// -FI_EAGAIN is back-pressure: the CQ is driven and NoResource returned; nothing is dropped.
#include "transports/ofi/ofi_endpoint.h"

#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/base/log.h"
#include "transports/ofi/ofi_iface.h"
#include "transports/ofi/ofi_mr.h"
#include "transports/ofi/ofi_wire.h"

namespace torus::ofi {

OfiEndpoint::~OfiEndpoint() {
  iface_.forget_endpoint(this);
  if (pidfd >= 0) ::close(pidfd);
}

Status OfiEndpoint::am_short(tl::AmId id, std::span<const std::byte> header,
                             std::span<const std::byte> payload) {
  const size_t len = header.size() + payload.size();
  if (len > iface_.attributes().limits.max_short || id >= tl::kMaxAmId)
    return Status::InvalidParam;
  std::byte msg[sizeof(AmHeader) + 256];
  if (sizeof(AmHeader) + len > std::min(sizeof(msg), iface_.inject_size())) {
    // Too large to inject, or injection not used on this provider: a bounce buffer.
    mem::PoolBuffer* buf = iface_.take_tx_buf();
    if (buf == nullptr) {
      iface_.on_eagain();
      return Status::NoResource;
    }
    std::byte* p = OfiIface::tx_data(buf);
    const AmHeader h{kAmMagic, id, 0, static_cast<uint32_t>(len)};
    std::memcpy(p, &h, sizeof(h));
    if (!header.empty()) std::memcpy(p + sizeof(h), header.data(), header.size());
    if (!payload.empty()) std::memcpy(p + sizeof(h) + header.size(), payload.data(), payload.size());
    return send_buffered(buf, sizeof(h) + len);
  }
  const AmHeader h{kAmMagic, id, 0, static_cast<uint32_t>(len)};
  std::memcpy(msg, &h, sizeof(h));
  if (!header.empty()) std::memcpy(msg + sizeof(h), header.data(), header.size());
  if (!payload.empty()) std::memcpy(msg + sizeof(h) + header.size(), payload.data(), payload.size());
  // Injected: the provider copied the bytes; no completion will come.
  const ssize_t rc = fi_inject(iface_.ep(), msg, sizeof(h) + len, peer_);
  if (rc == 0) return Status::Ok;
  if (rc == -FI_EAGAIN) {
    iface_.on_eagain();
    return Status::NoResource;
  }
  TORUS_DEBUG("ofi: fi_inject: %s", ofi_strerror(static_cast<int>(-rc)));
  return Status::IoError;
}

Status OfiEndpoint::am_bcopy(tl::AmId id, tl::PackFn pack, void* arg) {
  if (id >= tl::kMaxAmId) return Status::InvalidParam;
  mem::PoolBuffer* buf = iface_.take_tx_buf();
  if (buf == nullptr) {
    iface_.on_eagain();
    return Status::NoResource;
  }
  std::byte* p = OfiIface::tx_data(buf);
  const size_t len = pack(p + sizeof(AmHeader), arg);
  if (len > iface_.attributes().limits.max_bcopy) {
    // The packer overran its limit: a caller bug, but the buffer must go back.
    Op* op = iface_.new_op(Op::Kind::Send, nullptr, nullptr);
    op->tx = buf;
    iface_.return_tx(op);
    return Status::InvalidParam;
  }
  const AmHeader h{kAmMagic, id, 0, static_cast<uint32_t>(len)};
  std::memcpy(p, &h, sizeof(h));
  return send_buffered(buf, sizeof(h) + len);
}

Status OfiEndpoint::send_buffered(mem::PoolBuffer* buf, size_t len) {
  Op* op = iface_.new_op(Op::Kind::Send, this, nullptr);
  op->tx = buf;
  std::byte* p = OfiIface::tx_data(buf);
  const ssize_t rc =
      len <= iface_.inject_size()
          ? fi_inject(iface_.ep(), p, len, peer_)
          : fi_send(iface_.ep(), p, len, OfiIface::tx_desc(buf), peer_, &op->ctx);
  if (rc == 0 && len <= iface_.inject_size()) {
    iface_.return_tx(op);
    return Status::Ok;
  }
  if (rc == 0) {
    ++outstanding_;
    return Status::Ok;  // the bytes are ours (copied); the buffer returns on completion
  }
  iface_.return_tx(op);
  if (rc == -FI_EAGAIN) {
    iface_.on_eagain();
    return Status::NoResource;
  }
  TORUS_DEBUG("ofi: fi_send: %s", ofi_strerror(static_cast<int>(-rc)));
  return Status::IoError;
}

Status OfiEndpoint::get_zcopy(std::span<std::byte> local, uint64_t remote_addr,
                              std::span<const std::byte> rkey, tl::Completion* comp) {
  return rma(true, local.data(), local.size(), remote_addr, rkey, comp);
}

Status OfiEndpoint::put_zcopy(std::span<const std::byte> local, uint64_t remote_addr,
                              std::span<const std::byte> rkey, tl::Completion* comp) {
  return rma(false, const_cast<std::byte*>(local.data()), local.size(), remote_addr, rkey, comp);
}

Status OfiEndpoint::rma(bool read, std::byte* local, size_t len, uint64_t remote_addr,
                        std::span<const std::byte> rkey, tl::Completion* comp) {
  const tl::IfaceAttr& attr = iface_.attributes();
  if (!(read ? attr.caps.get_zcopy : attr.caps.put_zcopy)) return Status::Unsupported;
  if (len > (read ? attr.limits.max_get : attr.limits.max_put)) return Status::InvalidParam;
  uint64_t key = 0, target = 0;
  if (Status s = resolve_rkey(rkey, remote_addr, len, &key, &target); s != Status::Ok) return s;
  if (iface_.tagged_get()) return iface_.post_tagged_get(this, local, len, key, target, comp);
  if (len == 0 && !iface_.zero_length_rma()) return Status::Ok;  // nothing to move
  Op* op = iface_.new_op(read ? Op::Kind::Read : Op::Kind::Write, this, comp);
  void* desc = nullptr;
  // A zero-length transfer still goes to the provider, so a stale key is still refused.
  static std::byte empty_local;
  if (len > 0) {
    auto ref = iface_.register_local(local, len);
    if (!ref) {
      iface_.free_op(op);
      return ref.error().status == Status::NoMemory ? Status::NoResource : ref.error().status;
    }
    op->ref = std::move(ref.value());
    desc = fi_mr_desc(static_cast<fid_mr*>(op->ref.handle()));
  } else {
    local = &empty_local;
  }
  iovec iov{local, len};
  fi_rma_iov riov{target, len, key};
  fi_msg_rma msg{};
  msg.msg_iov = &iov;
  msg.desc = &desc;
  msg.iov_count = 1;
  msg.addr = peer_;
  msg.rma_iov = &riov;
  msg.rma_iov_count = 1;
  msg.context = &op->ctx;
  // Puts complete when the data is in the target's memory, so a flush that follows them
  // means what it says even on providers that acknowledge on transmit.
  const ssize_t rc = read ? fi_readmsg(iface_.ep(), &msg, FI_COMPLETION)
                          : fi_writemsg(iface_.ep(), &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
  if (rc == 0) {
    ++outstanding_;
    return Status::InProgress;
  }
  iface_.free_op(op);
  if (rc == -FI_EAGAIN) {
    iface_.on_eagain();
    return Status::NoResource;
  }
  TORUS_DEBUG("ofi: fi_%s: %s", read ? "read" : "write", ofi_strerror(static_cast<int>(-rc)));
  return rc == -FI_EACCES || rc == -FI_EKEYREJECTED ? Status::AccessDenied : Status::IoError;
}

Status OfiEndpoint::flush(tl::Completion* comp) {
  if (outstanding_ == 0) return Status::Ok;
  flushes_.push_back(comp);
  return Status::InProgress;
}

void OfiEndpoint::op_done(Status st) {
  if (st == Status::Ok) probe_refusals = 0;
  if (outstanding_ > 0) --outstanding_;
  if (outstanding_ != 0 || flushes_.empty()) return;
  std::vector<tl::Completion*> done;
  done.swap(flushes_);
  for (tl::Completion* c : done) c->func(c, Status::Ok);
}

}  // namespace torus::ofi
