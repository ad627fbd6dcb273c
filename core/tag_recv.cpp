// Receive side of the tag protocols: AM dispatch, matching of eager fragments and RTS
// against posted receives, and the unexpected queue. A matched RTS goes to its rendezvous
// protocol (protocols/rndv_get.cpp, rndv_put.cpp).
#include <algorithm>
#include <cstring>

#include "core/base/copy.h"
#include "core/base/log.h"
#include "core/endpoint.h"
#include "core/worker.h"
#include "protocols/protocol.h"

namespace torus::core {
namespace {

template <typename H>
bool read_hdr(const std::byte* data, size_t len, H* out) {
  if (len < sizeof(H)) return false;
  std::memcpy(out, data, sizeof(H));
  return true;
}

}  // namespace

void WorkerImpl::handle_am(uint8_t id, const std::byte* data, size_t len) {
  switch (id) {
    case proto::kAmEagerOnly: {
      proto::EagerHdr h;
      if (!read_hdr(data, len, &h)) return protocol_error(0, "short eager header");
      return on_eager(data + sizeof(h), len - sizeof(h), h.tag, 0, 0);
    }
    case proto::kAmEagerSync: {
      proto::EagerSyncHdr h;
      if (!read_hdr(data, len, &h)) return protocol_error(0, "short sync eager header");
      return on_eager(data + sizeof(h), len - sizeof(h), h.tag, h.sender_uid, h.sreq_id);
    }
    case proto::kAmEagerFirst: {
      proto::EagerFirstHdr h;
      if (!read_hdr(data, len, &h)) return protocol_error(0, "short first-fragment header");
      return on_eager_first(h, data + sizeof(h), len - sizeof(h));
    }
    case proto::kAmEagerMiddle: {
      proto::EagerMiddleHdr h;
      if (!read_hdr(data, len, &h)) return protocol_error(0, "short fragment header");
      return on_eager_middle(h, data + sizeof(h), len - sizeof(h));
    }
    case proto::kAmRts: {
      proto::RtsHdr h;
      if (!read_hdr(data, len, &h) || h.rkey_length != len - sizeof(h))
        return protocol_error(0, "bad RTS length");
      return on_rts(h, {data + sizeof(h), h.rkey_length});
    }
    case proto::kAmSyncAck:
    case proto::kAmAts: {
      proto::AckHdr h;
      if (!read_hdr(data, len, &h)) return protocol_error(0, "short ack");
      RequestImpl* req = find_request(h.req_id);
      if (req == nullptr || req->kind != ReqKind::Send || req->ep == nullptr)
        return protocol_error(0, "ack for an unknown send request");
      return req->ep->on_ack(*req, static_cast<Status>(h.status));
    }
    case proto::kAmRtr: {
      proto::RtrHdr h;
      if (!read_hdr(data, len, &h) || h.rkey_length != len - sizeof(h))
        return protocol_error(0, "bad RTR length");
      RequestImpl* req = find_request(h.sreq_id);
      if (req == nullptr || req->kind != ReqKind::Send || req->ep == nullptr ||
          req->stage != SendStage::WaitAck)
        return protocol_error(0, "RTR for an unknown send request");
      // Only a protocol that expects an RTR (rndv_put) accepts it.
      return proto::protocol(req->proto).on_rtr(*req->ep, *req, h,
                                                {data + sizeof(h), h.rkey_length});
    }
    case proto::kAmFin: {
      proto::AckHdr h;
      if (!read_hdr(data, len, &h)) return protocol_error(0, "short FIN");
      RequestImpl* req = find_request(h.req_id);
      if (req == nullptr || req->kind != ReqKind::Recv || req->done)
        return protocol_error(0, "FIN for an unknown receive");
      Status s = static_cast<Status>(h.status);
      return complete_recv(req, s == Status::Ok ? req->recv_status : s);
    }
    case proto::kAmWireup: {
      proto::WireupHdr h;
      if (!read_hdr(data, len, &h) || h.address_length != len - sizeof(h) ||
          h.version != proto::kWireVersion)
        return protocol_error(0, "bad wireup message");
      if (find_endpoint(h.sender_uid) != nullptr) return;
      auto ep = connect({data + sizeof(h), h.address_length});
      if (!ep)
        TORUS_WARN("cannot reach back to worker %016llx: %s",
                   static_cast<unsigned long long>(h.sender_uid), ep.error().message.c_str());
      return;
    }
    case proto::kAmUser:
      return on_user_am(data, len);
    default:
      return protocol_error(0, "unknown active message id");
  }
}

void WorkerImpl::send_ack(uint64_t sender, uint8_t am_id, uint64_t req_id, Status status) {
  EndpointImpl* ep = find_endpoint(sender);
  if (ep == nullptr) {
    TORUS_WARN("no endpoint back to worker %016llx for an acknowledgement",
               static_cast<unsigned long long>(sender));
    return;
  }
  proto::AckHdr h{req_id, static_cast<int32_t>(status), 0};
  ep->send_control(am_id, {reinterpret_cast<const std::byte*>(&h), sizeof(h)});
}

void WorkerImpl::deliver_eager_to(RequestImpl* req, const std::byte* payload, size_t len,
                                  size_t total, uint64_t sender, uint64_t sreq) {
  req->matched = true;
  req->info.length = total;
  req->sender_uid = sender;
  size_t n = std::min(len, req->length);
  if (n) copy_bytes(req->buffer, payload, n);
  req->recv_status = total > req->length ? Status::BufferTooSmall : Status::Ok;
  if (sreq != 0) send_ack(sender, proto::kAmSyncAck, sreq, Status::Ok);
}

void WorkerImpl::on_eager(const std::byte* payload, size_t len, Tag tag, uint64_t sender,
                          uint64_t sreq) {
  if (RequestImpl* req = matcher_.match_posted(tag)) {
    req->info.tag = tag;
    deliver_eager_to(req, payload, len, len, sender, sreq);
    return complete_recv(req, req->recv_status);
  }
  Unexpected* u = unexpected_pool_.get();
  u->tag = tag;
  u->sender_uid = sender;
  u->sreq_id = sreq;
  u->total_length = u->received = len;
  u->data.reserve_discard(len);
  if (len) copy_bytes(u->data.data(), payload, len);
  matcher_.add_unexpected(u);
}

void WorkerImpl::on_eager_first(const proto::EagerFirstHdr& h, const std::byte* payload,
                                size_t len) {
  if (len > h.total_length) return protocol_error(h.sender_uid, "fragment beyond message");
  if (assemblies_.count(h.sender_uid))
    return protocol_error(h.sender_uid, "new message before the last one was complete");
  Assembly a;
  a.total = h.total_length;
  a.received = len;
  if (RequestImpl* req = matcher_.match_posted(h.tag)) {
    req->info.tag = h.tag;
    deliver_eager_to(req, payload, len, h.total_length, h.sender_uid, h.sreq_id);
    if (len == h.total_length) return complete_recv(req, req->recv_status);
    a.recv = req;
  } else {
    Unexpected* u = unexpected_pool_.get();
    u->tag = h.tag;
    u->sender_uid = h.sender_uid;
    u->sreq_id = h.sreq_id;
    u->total_length = h.total_length;
    u->received = len;
    u->data.reserve_discard(h.total_length);
    if (len) copy_bytes(u->data.data(), payload, len);
    matcher_.add_unexpected(u);
    if (len == h.total_length) return;
    a.unexpected = u;
  }
  assemblies_.emplace(h.sender_uid, a);
}

void WorkerImpl::on_eager_middle(const proto::EagerMiddleHdr& h, const std::byte* payload,
                                 size_t len) {
  auto it = assemblies_.find(h.sender_uid);
  if (it == assemblies_.end()) return protocol_error(h.sender_uid, "fragment of no message");
  Assembly& a = it->second;
  if (h.offset != a.received || len > a.total - a.received)
    return protocol_error(h.sender_uid, "fragment out of order or beyond the message");
  if (RequestImpl* req = a.recv) {
    if (h.offset < req->length)
      copy_bytes(req->buffer + h.offset, payload, std::min(len, req->length - h.offset));
  } else {
    copy_bytes(a.unexpected->data.data() + h.offset, payload, len);
    a.unexpected->received += len;
  }
  a.received += len;
  if (a.received < a.total) return;
  RequestImpl* done = a.recv;
  assemblies_.erase(it);
  if (done) complete_recv(done, done->recv_status);
}

void WorkerImpl::on_rts(const proto::RtsHdr& h, std::span<const std::byte> rkey) {
  if (RequestImpl* req = matcher_.match_posted(h.tag)) return start_rndv_recv(req, h, rkey);
  Unexpected* u = unexpected_pool_.get();
  u->kind = Unexpected::Kind::Rts;
  u->tag = h.tag;
  u->sender_uid = h.sender_uid;
  u->sreq_id = h.sreq_id;
  u->total_length = h.total_length;
  u->rts = h;
  u->rkey.assign(rkey.begin(), rkey.end());
  matcher_.add_unexpected(u);
}

RequestImpl* WorkerImpl::new_recv(void* buf, size_t length, Tag tag, Tag mask,
                                  const RecvParams& params, RequestImpl::CRecvCb c_cb) {
  RequestImpl* req = alloc_request();
  req->kind = ReqKind::Recv;
  req->buffer = static_cast<std::byte*>(buf);
  req->length = length;
  req->tag = tag;
  req->mask = mask;
  req->recv_cb = params.callback;
  req->c_recv_cb = c_cb;
  req->user = params.user;
  return req;
}

Status WorkerImpl::tag_recv(void* buf, size_t length, Tag tag, Tag mask, Request** out,
                            const RecvParams& params, RequestImpl::CRecvCb c_cb) {
  if (buf == nullptr && length != 0) return Status::InvalidParam;
  RequestImpl* req = new_recv(buf, length, tag, mask, params, c_cb);
  *out = req;
  Unexpected* u = matcher_.match_unexpected(tag, mask, true);
  if (u == nullptr) {
    matcher_.post(req);
    return Status::InProgress;
  }
  finish_recv_from_unexpected(req, u);
  return Status::InProgress;
}

void WorkerImpl::finish_recv_from_unexpected(RequestImpl* req, Unexpected* u) {
  req->info.tag = u->tag;
  if (is_error(u->error)) {
    complete_recv(req, u->error);
  } else if (u->kind == Unexpected::Kind::Rts) {
    start_rndv_recv(req, u->rts, u->rkey, true);
  } else {
    deliver_eager_to(req, u->data.data(), u->received, u->total_length, u->sender_uid,
                     u->sreq_id);
    if (u->received == u->total_length) {
      complete_recv(req, req->recv_status);
    } else {
      Assembly& a = assemblies_.at(u->sender_uid);
      a.unexpected = nullptr;
      a.recv = req;
    }
  }
  unexpected_pool_.put(u);
}

bool WorkerImpl::tag_probe(Tag tag, Tag mask, RecvInfo* info) {
  Unexpected* u = matcher_.match_unexpected(tag, mask, false);
  if (u == nullptr) return false;
  if (info) *info = {u->tag, u->total_length};
  return true;
}

Unexpected* WorkerImpl::tag_probe_remove(Tag tag, Tag mask, RecvInfo* info) {
  Unexpected* u = matcher_.match_unexpected(tag, mask, true);
  if (u == nullptr) return nullptr;
  u->taken = true;
  if (info) *info = {u->tag, u->total_length};
  return u;
}

Status WorkerImpl::tag_msg_recv(Unexpected* u, void* buf, size_t length, Request** out,
                                const RecvParams& params) {
  if (u == nullptr || !u->taken || (buf == nullptr && length != 0))
    return Status::InvalidParam;
  RequestImpl* req = new_recv(buf, length, u->tag, kTagMaskFull, params, nullptr);
  *out = req;
  finish_recv_from_unexpected(req, u);
  return Status::InProgress;
}

Status WorkerImpl::cancel(RequestImpl* req) {
  if (req->kind != ReqKind::Recv || req->done || !matcher_.unpost(req)) return Status::NotFound;
  complete_recv(req, Status::Canceled);
  return Status::Ok;
}

void WorkerImpl::start_rndv_recv(RequestImpl* req, const proto::RtsHdr& h,
                                 std::span<const std::byte> rkey, bool from_post) {
  req->matched = true;
  req->info = {h.tag, h.total_length};
  req->sender_uid = h.sender_uid;
  req->peer_req_id = h.sreq_id;
  req->recv_status = h.total_length > req->length ? Status::BufferTooSmall : Status::Ok;
  EndpointImpl* ep = find_endpoint(h.sender_uid);
  if (ep == nullptr) {
    TORUS_ERROR("rendezvous from worker %016llx, which never sent its address",
                static_cast<unsigned long long>(h.sender_uid));
    return complete_recv(req, Status::Unreachable);
  }
  if (is_error(ep->failed())) return complete_recv(req, ep->failed());
  req->proto = (h.flags & proto::kRtsGet) ? proto::ProtoId::RndvGet : proto::ProtoId::RndvPut;
  proto::protocol(req->proto).recv_rts(*ep, *req, h, rkey, from_post);
}

void WorkerImpl::on_user_am(const std::byte* data, size_t len) {
  proto::UserAmHdr h;
  if (!read_hdr(data, len, &h) || h.header_length > len - sizeof(h) || h.id > kMaxUserAmId)
    return protocol_error(0, "bad user active message");
  UserAm& am = user_am_[h.id];
  if (am.cb == nullptr) {
    TORUS_WARN("active message %u dropped: no handler set", h.id);
    return;
  }
  const std::byte* hdr = data + sizeof(h);
  am.cb(am.arg, {hdr, h.header_length},
        {hdr + h.header_length, len - sizeof(h) - h.header_length}, find_endpoint(h.sender_uid));
}

}  // namespace torus::core
