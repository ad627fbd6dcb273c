// Public RMA: registration across transports, key packing, and starting the endpoint's
// get/put/flush (which protocols/rma_ops.cpp runs).
#include "core/rma.h"

#include <algorithm>
#include <cstring>

#include "core/base/log.h"
#include "core/endpoint.h"
#include "core/worker.h"
#include "protocols/wire.h"

namespace torus::core {
std::vector<std::byte> pack_remote_key(const MemHandleImpl& h) {
  std::vector<std::byte> out(1, static_cast<std::byte>(h.entries.size()));
  for (const auto& e : h.entries) {
    size_t at = out.size();
    uint16_t len = static_cast<uint16_t>(e.rkey_size);
    out.resize(at + 6 + len);
    std::memcpy(out.data() + at, &e.tl_hash, 4);
    std::memcpy(out.data() + at + 4, &len, 2);
    e.region->pack_rkey({out.data() + at + 6, len});
  }
  return out;
}

std::span<const std::byte> find_remote_key(std::span<const std::byte> packed, uint32_t tl_hash) {
  if (packed.empty()) return {};
  size_t count = static_cast<size_t>(packed[0]), pos = 1;
  for (size_t i = 0; i < count; ++i) {
    uint32_t hash;
    uint16_t len;
    if (packed.size() - pos < 6) return {};
    std::memcpy(&hash, packed.data() + pos, 4);
    std::memcpy(&len, packed.data() + pos + 4, 2);
    pos += 6;
    if (packed.size() - pos < len) return {};
    if (hash == tl_hash) return packed.subspan(pos, len);
    pos += len;
  }
  return {};
}

Result<MemHandleImpl*> register_memory(WorkerImpl& w, void* addr, size_t len, uint32_t access) {
  if ((addr == nullptr && len != 0) || (access & ~uint32_t{kMemRead | kMemWrite}) != 0)
    return make_error(Status::InvalidParam, "mem_register: bad address or access bits");
  auto h = std::make_unique<MemHandleImpl>();
  h->addr = addr;
  h->len = len;
  for (const IfaceEntry& e : w.ifaces()) {
    const tl::IfaceAttr& a = e.iface->attributes();
    if (!a.caps.get_zcopy && !a.caps.put_zcopy) continue;
    auto r = e.iface->mem_register(addr, len, access);
    if (!r) return r.error();
    h->entries.push_back({proto::tl_hash(e.tl_name.data(), e.tl_name.size()), a.rkey_size,
                          std::move(r.value())});
  }
  return w.adopt_handle(std::move(h));
}

Status EndpointImpl::send_rma(RequestImpl::Rma op, void* buf, size_t length,
                              uint64_t remote_addr, std::span<const std::byte> rkey,
                              Request** out, const SendParams& p) {
  if (is_error(failed_)) return failed_;
  if (op != RequestImpl::Rma::Flush && (rma_lane_ < 0 || (buf == nullptr && length != 0)))
    return rma_lane_ < 0 ? Status::Unsupported : Status::InvalidParam;
  RequestImpl* req = worker_->alloc_request();
  req->kind = ReqKind::Send;
  req->ep = this;
  req->rma = op;
  req->buffer = static_cast<std::byte*>(buf);
  req->length = length;
  req->put_remote_addr = remote_addr;
  if (op != RequestImpl::Rma::Flush) {
    // The lane may do only one direction (a provider that reads by tagged messages but
    // cannot write): refuse now, so the caller can take another way, not at completion.
    const tl::Caps& caps = lanes_[static_cast<size_t>(rma_lane_)].attr->caps;
    if (!(op == RequestImpl::Rma::Put ? caps.put_zcopy : caps.get_zcopy)) {
      worker_->release_now(req);
      return Status::Unsupported;
    }
    req->lane = static_cast<uint8_t>(rma_lane_);
    auto key = find_remote_key(rkey, lanes_[req->lane].tl_hash);
    if (key.empty()) {
      worker_->release_now(req);
      return Status::AccessDenied;  // no key for the transport that reaches this peer
    }
    req->peer_rkey.assign(key.begin(), key.end());
  }
  return launch(req, out, p);
}

}  // namespace torus::core
