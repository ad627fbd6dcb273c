// The bounce protocol (see shm_bounce.h): chunked get/put through the FIFOs when CMA is
// unavailable. Initiator side: start, send_chunks, on_answer. Target side: on_request,
// send_replies.
#include "transports/shm/shm_bounce.h"

#include <algorithm>
#include <cstring>

#include "core/base/copy.h"
#include "core/base/log.h"
#include "transports/shm/shm_endpoint.h"
#include "transports/shm/shm_iface.h"

namespace torus::shm {
namespace {

bool known_type(uint8_t t) {
  return t >= static_cast<uint8_t>(InternalType::GetReq) &&
         t <= static_cast<uint8_t>(InternalType::PutAck);
}

// Statuses a target may report for a chunk.
bool valid_answer_status(int32_t s) {
  return s == static_cast<int32_t>(Status::Ok) || s == static_cast<int32_t>(Status::AccessDenied);
}

}  // namespace

Bounce::Bounce(ShmIface& iface, size_t window, uint32_t seg_size) noexcept
    : iface_(iface), window_(window), chunk_(seg_size - kBounceDataOffset) {}

Status Bounce::start(ShmEndpoint& ep, bool is_get, std::byte* local, size_t length,
                     uint64_t remote_addr, const PackedRkey& key, tl::Completion* comp) {
  const uint64_t id = next_op_++;
  Op op;
  op.ep = &ep;
  op.comp = comp;
  op.local = local;
  op.total = length;
  op.remote_addr = remote_addr;
  op.key = key;
  op.is_get = is_get;
  ops_.emplace(id, op);
  ep.inflight_.insert(id);
  ep.to_send_.push_back(id);
  // Start the pipeline now; what does not fit waits for progress().
  if (send_chunks(ep) == Blocked::Fifo) activate(ep);
  return Status::InProgress;
}

void Bounce::activate(ShmEndpoint& ep) {
  if (ep.active_) return;
  ep.active_ = true;
  active_eps_.push_back(&ep);
}

Bounce::Blocked Bounce::send_chunks(ShmEndpoint& ep) {
  while (!ep.to_send_.empty()) {
    const uint64_t id = ep.to_send_.front();
    auto it = ops_.find(id);
    if (it == ops_.end() || it->second.sent == it->second.total ||
        it->second.status != Status::Ok) {
      ep.to_send_.pop_front();
      continue;
    }
    Op& op = it->second;
    const size_t len = std::min(chunk_, op.total - op.sent);
    // Always allow one chunk in flight, whatever the window.
    if (ep.window_used_ > 0 && ep.window_used_ + len > window_) return Blocked::Window;
    FifoWriter::Slot slot;
    if (!ep.fifo_.claim(slot)) return Blocked::Fifo;
    InternalHeader h{};
    h.op_id = id;
    h.offset = op.sent;
    h.remote_addr = op.remote_addr + op.sent;
    h.length = static_cast<uint32_t>(len);
    h.rkey = op.key;
    h.reply_pid = iface_.pid();
    h.reply_name_len = static_cast<uint8_t>(iface_.name().size());
    std::memcpy(h.reply_name, iface_.name().data(), h.reply_name_len);
    std::memcpy(slot.seg, &h, sizeof(h));
    size_t data = 0;
    if (!op.is_get) {
      copy_bytes(slot.seg + kBounceDataOffset, op.local + op.sent, len);
      data = len;
    }
    const auto type = op.is_get ? InternalType::GetReq : InternalType::PutData;
    if (ep.fifo_.publish(slot, static_cast<uint8_t>(type), kCellBcopy | kCellInternal,
                         static_cast<uint32_t>(kBounceDataOffset + data)))
      iface_.wake(ep.peer());
    op.sent += len;
    ep.window_used_ += len;
    if (op.sent == op.total) ep.to_send_.pop_front();
  }
  return Blocked::No;
}

unsigned Bounce::pump() {
  unsigned n = 0;
  // Replies first: they open the initiators' windows.
  for (size_t i = reply_peers_.size(); i > 0; --i) {
    Peer* peer = reply_peers_.front();
    reply_peers_.pop_front();
    const size_t before = peer->replies.size();
    if (send_replies(*peer))
      peer->reply_queued = false;
    else
      reply_peers_.push_back(peer);
    n += static_cast<unsigned>(before - peer->replies.size());
  }
  for (size_t i = active_eps_.size(); i > 0; --i) {
    ShmEndpoint* ep = active_eps_.front();
    active_eps_.pop_front();
    ep->active_ = false;
    if (send_chunks(*ep) == Blocked::Fifo) activate(*ep);
    ++n;
  }
  return n;
}

bool Bounce::on_message(uint8_t type, const std::byte* seg, uint32_t length, int32_t sender) {
  // Cooperative gets share the internal channel; they are not part of this protocol.
  if (type == static_cast<uint8_t>(InternalType::CoopGet))
    return iface_.coop().on_request(seg, length, sender);
  if (!known_type(type) || length < kBounceDataOffset) return false;
  InternalHeader h;
  std::memcpy(&h, seg, sizeof(h));  // a private copy: the sender cannot change it under us
  const std::byte* data = seg + kBounceDataOffset;
  const size_t data_len = length - kBounceDataOffset;
  const auto t = static_cast<InternalType>(type);
  if (t == InternalType::GetReq || t == InternalType::PutData)
    return on_request(t, h, data, data_len);
  return on_answer(t, h, data, data_len, sender);
}

bool Bounce::on_request(InternalType type, const InternalHeader& h, const std::byte* data,
                        size_t data_len) {
  const bool is_get = type == InternalType::GetReq;
  if (h.length == 0 || h.length > chunk_ || data_len != (is_get ? 0 : h.length)) return false;
  if (h.reply_name_len > kMaxNameLen) return false;
  const std::string reply_name(h.reply_name, h.reply_name_len);
  if (!is_valid_segment_name(reply_name) || h.reply_pid <= 0) return false;
  auto peer = iface_.attach_peer(reply_name, h.reply_pid);
  if (!peer) {
    TORUS_WARN("shm %s: cannot answer a %s from pid %d: %s", iface_.name().c_str(),
               is_get ? "get" : "put", static_cast<int>(h.reply_pid),
               peer.error().message.c_str());
    return true;
  }
  if ((*peer)->dead) return true;
  Reply r;
  r.op_id = h.op_id;
  r.offset = h.offset;
  r.length = h.length;
  r.remote_addr = h.remote_addr;
  r.rkey = h.rkey;
  r.status = iface_.regions().check(h.rkey, h.remote_addr, h.length,
                                    is_get ? tl::kAccessRead : tl::kAccessWrite);
  if (is_get) {
    r.type = r.status == Status::Ok ? InternalType::GetData : InternalType::GetNack;
  } else {
    r.type = InternalType::PutAck;
    if (r.status == Status::Ok)
      copy_bytes(reinterpret_cast<void*>(static_cast<uintptr_t>(h.remote_addr)), data, h.length);
  }
  queue_reply(**peer, r);
  return true;
}

void Bounce::queue_reply(Peer& peer, Reply reply) {
  peer.replies.push_back(reply);
  if (peer.reply_queued) return;
  if (send_replies(peer)) return;
  peer.reply_queued = true;
  reply_peers_.push_back(&peer);
}

bool Bounce::send_replies(Peer& peer) {
  while (!peer.replies.empty()) {
    if (peer.dead) {
      peer.replies.clear();
      break;
    }
    Reply& r = peer.replies.front();
    FifoWriter::Slot slot;
    if (!peer.fifo.claim(slot)) return false;
    size_t data = 0;
    if (r.type == InternalType::GetData) {
      // The region may have been deregistered since the request: check again, then copy.
      r.status = iface_.regions().check(r.rkey, r.remote_addr, r.length, tl::kAccessRead);
      if (r.status == Status::Ok) {
        copy_bytes(slot.seg + kBounceDataOffset,
                   reinterpret_cast<const void*>(static_cast<uintptr_t>(r.remote_addr)),
                   r.length);
        data = r.length;
      } else {
        r.type = InternalType::GetNack;
      }
    }
    InternalHeader h{};
    h.op_id = r.op_id;
    h.offset = r.offset;
    h.remote_addr = r.remote_addr;
    h.length = r.length;
    h.status = static_cast<int32_t>(r.status);
    std::memcpy(slot.seg, &h, offsetof(InternalHeader, rkey));  // answers need no more
    if (peer.fifo.publish(slot, static_cast<uint8_t>(r.type), kCellBcopy | kCellInternal,
                          static_cast<uint32_t>(kBounceDataOffset + data)))
      iface_.wake(peer);
    peer.replies.pop_front();
  }
  return true;
}

bool Bounce::on_answer(InternalType type, const InternalHeader& h, const std::byte* data,
                       size_t data_len, int32_t sender) {
  auto it = ops_.find(h.op_id);
  if (it == ops_.end()) {
    // Its endpoint was destroyed or failed meanwhile: a late answer, not an error.
    TORUS_DEBUG("shm %s: answer for unknown operation %llu ignored", iface_.name().c_str(),
                static_cast<unsigned long long>(h.op_id));
    return true;
  }
  Op& op = it->second;
  const bool get_answer = type == InternalType::GetData || type == InternalType::GetNack;
  if (get_answer != op.is_get || sender != op.ep->peer().pid) return false;
  // The chunk must be one we asked for and not yet answered.
  if (h.length == 0 || h.length > chunk_ || h.offset > op.sent || h.length > op.sent - h.offset ||
      h.length > op.sent - op.resolved || !valid_answer_status(h.status))
    return false;
  Status status = static_cast<Status>(h.status);
  if (type == InternalType::GetData) {
    if (data_len != h.length || status != Status::Ok) return false;
    if (op.status == Status::Ok) copy_bytes(op.local + h.offset, data, h.length);
  } else if (type == InternalType::GetNack) {
    if (data_len != 0 || status == Status::Ok) return false;
  } else if (data_len != 0) {
    return false;
  }
  resolve(h.op_id, op, h.length, status);
  return true;
}

void Bounce::resolve(uint64_t id, Op& op, size_t length, Status status) {
  ShmEndpoint& ep = *op.ep;
  op.resolved += length;
  ep.window_used_ -= length;
  if (status != Status::Ok && op.status == Status::Ok) op.status = status;
  if (!ep.to_send_.empty()) activate(ep);  // the window opened
  if (op.resolved != op.sent || (op.sent != op.total && op.status == Status::Ok)) return;
  tl::Completion* comp = op.comp;
  const Status final_status = op.status;
  ops_.erase(id);
  iface_.defer_completion(comp, final_status);
  ep.op_done(id);
}

void Bounce::fail_ops(ShmEndpoint& ep, Status status) {
  for (auto it = ops_.begin(); it != ops_.end();) {
    if (it->second.ep != &ep) {
      ++it;
      continue;
    }
    iface_.defer_completion(it->second.comp, status);
    it = ops_.erase(it);
  }
  ep.inflight_.clear();
  ep.to_send_.clear();
  ep.window_used_ = 0;
  if (ep.active_) {
    active_eps_.erase(std::remove(active_eps_.begin(), active_eps_.end(), &ep),
                      active_eps_.end());
    ep.active_ = false;
  }
}

void Bounce::forget_endpoint(ShmEndpoint& ep) {
  std::vector<tl::Completion*> canceled;
  for (auto it = ops_.begin(); it != ops_.end();) {
    if (it->second.ep == &ep) {
      canceled.push_back(it->second.comp);
      it = ops_.erase(it);
    } else {
      ++it;
    }
  }
  ep.inflight_.clear();
  ep.to_send_.clear();
  active_eps_.erase(std::remove(active_eps_.begin(), active_eps_.end(), &ep), active_eps_.end());
  ep.active_ = false;
  for (tl::Completion* c : canceled) c->func(c, Status::Canceled);
}

void Bounce::forget_peer(Peer& peer) noexcept {
  peer.replies.clear();
  if (peer.reply_queued) {
    reply_peers_.erase(std::remove(reply_peers_.begin(), reply_peers_.end(), &peer),
                       reply_peers_.end());
    peer.reply_queued = false;
  }
}

}  // namespace torus::shm
