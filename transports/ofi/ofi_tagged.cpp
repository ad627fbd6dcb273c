// The tagged get: get_zcopy over tagged messages where fi_read is unsafe (tcp;ofi_rxm closes
// the connection when a key is refused). The initiator posts fi_trecv of its whole buffer
// under a fresh tag, then sends a get request; the target checks the key, range and rights
// against its own table of regions and answers with one fi_tsend (the provider moves it with
// its own rendezvous, no bounce buffer), or with a refusal after which the initiator cancels
// its receive. Regions here are table entries with a random 64-bit secret, not fi_mr keys.
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <cstring>

#include "core/base/log.h"
#include "transports/ofi/ofi_endpoint.h"
#include "transports/ofi/ofi_iface.h"
#include "transports/ofi/ofi_wire.h"

namespace torus::ofi {
namespace {

// Tags stay below 2^60: providers may reserve the top bits of the tag space.
constexpr uint64_t kTagMask = (uint64_t{1} << 60) - 1;
// How long a failing endpoint waits for its canceled receives before it is reported anyway
// (a receive the provider already matched ends only when its transfer ends or fails).
constexpr auto kCancelWait = std::chrono::seconds(5);

// A region a peer may read through the tagged get: an entry in the iface's table, keyed by
// its random secret; destroying it removes the entry, so its key is refused from then on.
class TaggedRegion final : public tl::MemRegion {
 public:
  TaggedRegion(OfiIface& iface, void* addr, size_t len, uint64_t key)
      : iface_(iface), addr_(addr), len_(len), key_(key) {}
  ~TaggedRegion() override { iface_.remove_tagged_region(key_); }
  TaggedRegion(const TaggedRegion&) = delete;
  TaggedRegion& operator=(const TaggedRegion&) = delete;
  void* address() const override { return addr_; }
  size_t length() const override { return len_; }
  void pack_rkey(std::span<std::byte> out) const override {
    PackedRkey k{};
    k.key = key_;
    k.base = reinterpret_cast<uintptr_t>(addr_);
    k.length = len_;
    k.flags = kRkeyVirtAddr;
    k.version = kVersion;
    k.check = rkey_check(k);
    if (out.size() >= sizeof(k)) std::memcpy(out.data(), &k, sizeof(k));
  }

 private:
  OfiIface& iface_;
  void* addr_;
  size_t len_;
  uint64_t key_;
};

}  // namespace

Result<std::unique_ptr<tl::MemRegion>> OfiIface::register_tagged_region(void* addr,
                                                                        size_t length,
                                                                        uint32_t access) {
  // One per rendezvous send on the tagged path: secrets come batched from the pool.
  uint64_t key = 0;
  while (key == 0 || tagged_regions_.count(key) != 0) {
    Result<uint64_t> k = secrets_.next();
    if (!k) return k.error();
    key = *k;
  }
  tagged_regions_[key] = {reinterpret_cast<uintptr_t>(addr), length, access};
  return std::unique_ptr<tl::MemRegion>(std::make_unique<TaggedRegion>(*this, addr, length, key));
}

void OfiIface::remove_tagged_region(uint64_t key) noexcept { tagged_regions_.erase(key); }

Status OfiIface::post_tagged_get(OfiEndpoint* ep, std::byte* local, size_t len, uint64_t key,
                                 uint64_t addr, tl::Completion* comp) {
  if (ep->failing) return Status::ConnectionReset;
  // The request's buffer first: it is the likelier to run out, and nothing is posted yet.
  mem::PoolBuffer* buf = take_tx_buf();
  if (buf == nullptr) {
    on_eagain();
    return Status::NoResource;
  }
  Op* op = new_op(Op::Kind::TRecv, ep, comp);
  void* desc = nullptr;
  static std::byte empty_local;
  if (len > 0) {
    auto ref = register_local(local, len);
    if (!ref) {
      free_op(op);
      tx_pool_->put(buf);
      return ref.error().status == Status::NoMemory ? Status::NoResource : ref.error().status;
    }
    op->ref = std::move(ref.value());
    desc = fi_mr_desc(static_cast<fid_mr*>(op->ref.handle()));
  } else {
    local = &empty_local;
  }
  op->tag = next_tag_;
  next_tag_ = (next_tag_ + 1) & kTagMask;
  op->length = len;
  ssize_t rc = fi_trecv(ep_, local, len, desc, FI_ADDR_UNSPEC, op->tag, 0, &op->ctx);
  if (rc != 0) {
    free_op(op);
    tx_pool_->put(buf);
    if (rc == -FI_EAGAIN) {
      on_eagain();
      return Status::NoResource;
    }
    TORUS_DEBUG("ofi: fi_trecv: %s", ofi_strerror(static_cast<int>(-rc)));
    return Status::IoError;
  }
  std::byte* p = tx_data(buf);
  GetRequest r{op->tag, key, addr, len, params_.worker_uid,
               static_cast<uint16_t>(name_.size()), kVersion, {}};
  const AmHeader h{kAmMagic, 0, kAmFlagGetRequest,
                   static_cast<uint32_t>(sizeof(r) + name_.size())};
  std::memcpy(p, &h, sizeof(h));
  std::memcpy(p + sizeof(h), &r, sizeof(r));
  std::memcpy(p + sizeof(h) + sizeof(r), name_.data(), name_.size());
  const Status s = ep->send_buffered(buf, sizeof(h) + sizeof(r) + name_.size());
  if (s != Status::Ok) {
    // Nobody will answer: take the receive back. It was never matched, so the provider
    // drops it now; its cancel completion finds an op that reports to no one.
    op->comp = nullptr;
    op->ep = nullptr;
    posted_gets_[op->tag] = op;
    (void)fi_cancel(&ep_->fid, &op->ctx);
    return s;
  }
  posted_gets_[op->tag] = op;
  ++ep->tagged_gets;
  ep->count_issued();
  return Status::InProgress;
}

void OfiIface::on_get_request(const std::byte* body, size_t len) {
  GetRequest r;
  if (len < sizeof(r)) return;
  std::memcpy(&r, body, sizeof(r));
  if (r.version != kVersion || r.name_len != len - sizeof(r) || r.name_len == 0) {
    if (malformed_logged_++ < 8) TORUS_WARN("ofi: dropped a malformed get request");
    return;
  }
  auto it = peers_.find(r.initiator_uid);
  if (it == peers_.end()) {
    fi_addr_t addr = FI_ADDR_UNSPEC;
    if (fi_av_insert(av_, body + sizeof(r), 1, &addr, 0, nullptr) != 1) {
      if (malformed_logged_++ < 8) TORUS_WARN("ofi: a get request from an unusable address");
      return;
    }
    it = peers_.emplace(r.initiator_uid, addr).first;
  }
  PendingServe s{r.tag, r.key, r.addr, r.length, it->second};
  if (!serves_unsent_.empty() || !serve(s)) serves_unsent_.push_back(s);
}

bool OfiIface::serve(const PendingServe& s) {
  // Checked here, on every attempt: the region may have gone while the answer waited.
  auto it = tagged_regions_.find(s.key);
  const bool ok = it != tagged_regions_.end() && (it->second.access & tl::kAccessRead) != 0 &&
                  s.addr >= it->second.base && s.length <= it->second.length &&
                  s.addr - it->second.base <= it->second.length - s.length;
  if (!ok) {
    GetNack n{s.tag, static_cast<int32_t>(Status::AccessDenied), 0};
    const Status st = send_internal(s.peer, kAmFlagGetNack, &n, sizeof(n));
    return st != Status::NoResource;  // an error: the peer is gone, nobody to tell
  }
  Op* op = new_op(Op::Kind::TSend, nullptr, nullptr);
  void* desc = nullptr;
  auto* data = reinterpret_cast<std::byte*>(s.addr);
  static std::byte empty;
  if (s.length > 0) {
    auto ref = register_local(data, s.length);
    if (!ref) {
      free_op(op);
      TORUS_WARN("ofi: registering %llu bytes for a get failed: %s",
                 static_cast<unsigned long long>(s.length), ref.error().message.c_str());
      GetNack n{s.tag, static_cast<int32_t>(ref.error().status), 0};
      return send_internal(s.peer, kAmFlagGetNack, &n, sizeof(n)) != Status::NoResource;
    }
    op->ref = std::move(ref.value());
    desc = fi_mr_desc(static_cast<fid_mr*>(op->ref.handle()));
  } else {
    data = &empty;
  }
  const ssize_t rc = fi_tsend(ep_, data, s.length, desc, s.peer, s.tag, &op->ctx);
  if (rc == 0) return true;
  free_op(op);
  if (rc == -FI_EAGAIN) return false;
  TORUS_DEBUG("ofi: fi_tsend: %s", ofi_strerror(static_cast<int>(-rc)));
  return true;  // the peer is gone: its keepalive will say so
}

Status OfiIface::send_internal(fi_addr_t peer, uint16_t flags, const void* body, size_t len) {
  mem::PoolBuffer* b = take_tx_buf();
  if (b == nullptr) return Status::NoResource;
  Op* op = new_op(Op::Kind::Send, nullptr, nullptr);
  op->tx = b;
  const AmHeader h{kAmMagic, 0, flags, static_cast<uint32_t>(len)};
  std::memcpy(b->data, &h, sizeof(h));
  std::memcpy(static_cast<std::byte*>(b->data) + sizeof(h), body, len);
  const ssize_t rc = fi_send(ep_, b->data, sizeof(h) + len, tx_desc(b), peer, &op->ctx);
  if (rc == 0) return Status::Ok;
  return_tx(op);
  return rc == -FI_EAGAIN ? Status::NoResource : Status::IoError;
}

void OfiIface::retry_serves() {
  while (!serves_unsent_.empty() && serve(serves_unsent_.front())) serves_unsent_.pop_front();
}

void OfiIface::on_get_nack(const std::byte* body, size_t len) {
  GetNack n;
  if (len != sizeof(n)) return;
  std::memcpy(&n, body, sizeof(n));
  auto it = posted_gets_.find(n.tag);
  if (it == posted_gets_.end()) return;
  Op* op = it->second;
  const Status st = static_cast<Status>(n.status);
  op->refused = is_error(st) ? st : Status::IoError;
  // The target sends nothing for this tag: the receive is unmatched and the cancel takes it
  // back at once; its completion reports the refusal.
  (void)fi_cancel(&ep_->fid, &op->ctx);
}

void OfiIface::cancel_tagged_recvs(OfiEndpoint* ep, bool orphan) {
  for (auto& [tag, op] : posted_gets_) {
    if (op->ep != ep) continue;
    // Unmatched: gone when fi_cancel returns. Matched: ends with its transfer (data or error).
    (void)fi_cancel(&ep_->fid, &op->ctx);
    if (orphan) {
      op->ep = nullptr;
      op->comp = nullptr;
    }
  }
  if (orphan) ep->tagged_gets = 0;
}

void OfiIface::fail_endpoint(OfiEndpoint* ep) {
  if (ep->failing || endpoints_.count(ep) == 0) return;
  ep->failing = true;
  ep->failing_since = std::chrono::steady_clock::now();
  cancel_tagged_recvs(ep, false);
  if (ep->tagged_gets == 0) {
    report_failure(ep);
  } else {
    failing_.push_back(ep);
  }
}

void OfiIface::report_failure(OfiEndpoint* ep) {
  std::erase(failing_, ep);
  if (endpoints_.count(ep) != 0 && error_handler_ != nullptr)
    error_handler_(error_arg_, ep, Status::ConnectionReset);
}

void OfiIface::check_failing() {
  const auto now = std::chrono::steady_clock::now();
  std::vector<OfiEndpoint*> late;
  for (OfiEndpoint* ep : failing_)
    if (now - ep->failing_since > kCancelWait) late.push_back(ep);
  for (OfiEndpoint* ep : late) {
    TORUS_WARN("ofi: %zu receives of a dead peer did not end within %lld s of their cancel; "
               "reporting the endpoint failed anyway",
               ep->tagged_gets,
               static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(
                                          kCancelWait).count()));
    cancel_tagged_recvs(ep, true);
    report_failure(ep);
  }
}

}  // namespace torus::ofi
