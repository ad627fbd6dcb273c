// Endpoint: lane choice, protocol tables and the send side of every protocol. A send runs
// as far as the transport allows; back-pressure parks it on the pending queue, in order.
#include "core/endpoint.h"

#include <algorithm>
#include <cstring>

#include "core/base/copy.h"
#include "core/base/log.h"
#include "core/worker.h"

namespace torus::core {
namespace {

struct BytesPack {
  const std::byte* data;
  size_t length;
};

// Packs write a transport's send buffer, which the peer reads next: copy_to_peer.
size_t pack_bytes(void* dest, void* arg) {
  auto* b = static_cast<BytesPack*>(arg);
  copy_to_peer(dest, b->data, b->length);
  return b->length;
}

// A header followed by a slice of the user's buffer.
struct FragPack {
  const void* hdr;
  size_t hdr_length;
  const std::byte* payload;
  size_t length;
};

size_t pack_frag(void* dest, void* arg) {
  auto* f = static_cast<FragPack*>(arg);
  std::memcpy(dest, f->hdr, f->hdr_length);
  if (f->length)
    copy_to_peer(static_cast<std::byte*>(dest) + f->hdr_length, f->payload, f->length);
  return f->hdr_length + f->length;
}

// The frame goes where its payload lines up with the source (tl::Endpoint::am_bcopy_aligned).
Status bcopy_frag(tl::Endpoint& ep, proto::AmId id, FragPack& f) {
  return ep.am_bcopy_aligned(id, &pack_frag, &f,
                             reinterpret_cast<uintptr_t>(f.payload) - f.hdr_length);
}

template <typename H>
std::span<const std::byte> as_bytes_of(const H& h) {
  return {reinterpret_cast<const std::byte*>(&h), sizeof(H)};
}

}  // namespace

EndpointImpl::EndpointImpl(WorkerImpl* worker, WorkerAddress peer)
    : worker_(worker), peer_(std::move(peer)) {}

EndpointImpl::~EndpointImpl() = default;

Status EndpointImpl::init() {
  const auto& ifaces = worker_->ifaces();
  for (size_t i = 0; i < ifaces.size(); ++i) {
    // A worker reaches itself only through same-worker transports (self): attaching to its
    // own shared memory would count as a peer and unlink the segment early.
    bool loopback = peer_.uid == worker_->uid();
    if (loopback != (ifaces[i].iface->attributes().reach == tl::Reach::SameWorker)) continue;
    for (const IfaceAddress& pa : peer_.ifaces) {
      if (pa.tl_name != ifaces[i].tl_name) continue;
      std::string why;
      if (!ifaces[i].iface->is_reachable(pa.address, &why)) {
        TORUS_DEBUG("%s cannot reach worker %016llx: %s", pa.tl_name.c_str(),
                    static_cast<unsigned long long>(peer_.uid), why.c_str());
        continue;
      }
      auto ep = ifaces[i].iface->connect(pa.address);
      if (!ep) {
        TORUS_WARN("%s: connecting to worker %016llx failed: %s", pa.tl_name.c_str(),
                   static_cast<unsigned long long>(peer_.uid), ep.error().message.c_str());
        continue;
      }
      Lane lane;
      lane.iface_index = i;
      lane.tl_name = pa.tl_name;
      lane.tl_hash = proto::tl_hash(pa.tl_name.data(), pa.tl_name.size());
      lane.attr = &ifaces[i].iface->attributes();
      lane.ep = std::move(ep.value());
      lane.ep->user_data = this;
      lanes_.push_back(std::move(lane));
      break;  // one lane per local interface
    }
  }
  // AM lane: lowest latency; RMA lane: highest bandwidth among those with get or put.
  for (size_t i = 0; i < lanes_.size(); ++i) {
    const tl::IfaceAttr& a = *lanes_[i].attr;
    if (a.caps.am_bcopy &&
        (am_lane_ < 0 || a.am_cost.latency_ns < lanes_[static_cast<size_t>(am_lane_)].attr->am_cost.latency_ns))
      am_lane_ = static_cast<int>(i);
    if ((a.caps.get_zcopy || a.caps.put_zcopy) &&
        (rma_lane_ < 0 ||
         a.rma_cost.bandwidth_Bps > lanes_[static_cast<size_t>(rma_lane_)].attr->rma_cost.bandwidth_Bps))
      rma_lane_ = static_cast<int>(i);
  }
  if (am_lane_ < 0) return Status::Unreachable;
  build_tables();
  return Status::Ok;
}

void EndpointImpl::build_tables() {
  std::vector<proto::LaneInfo> infos;
  for (const Lane& l : lanes_) infos.push_back({l.tl_name, l.attr});
  const proto::SelectorConfig& cfg = worker_->selector_config();
  const tl::IfaceAttr& am = *lanes_[static_cast<size_t>(am_lane_)].attr;
  am_cost_epoch_ = &am.cost_epoch;
  built_epoch_ = am.cost_epoch;
  tag_table_ = proto::build_tag_table(infos, am_lane_, rma_lane_, cfg, proto::SendKind::Any);
  sync_table_ = proto::build_tag_table(infos, am_lane_, rma_lane_, cfg, proto::SendKind::Sync);
  alone_table_ =
      proto::build_tag_table(infos, am_lane_, rma_lane_, cfg, proto::SendKind::Alone);
  const size_t any_rndv = tag_table_.first_rndv(), alone_rndv = alone_table_.first_rndv();
  const proto::TuneBand band = proto::tune_band(
      infos[static_cast<size_t>(am_lane_)],
      rma_lane_ >= 0 ? &infos[static_cast<size_t>(rma_lane_)] : nullptr, cfg,
      std::min(any_rndv, alone_rndv));
  if (band.lo >= band.hi || !worker_->proto_tune()) {
    tuner_.reset();
    tune_lo_ = SIZE_MAX;
    tune_hi_ = 0;
  } else {
    // The measurements outlive a revision of the costs while the band stays (with an eager
    // cap it depends on limits only).
    if (!tuner_ || tuner_->lo() != band.lo || tuner_->hi() != band.hi)
      tuner_ = std::make_unique<proto::ProtoTuner>(band, tag_table_);
    tune_lo_ = band.lo;
    tune_hi_ = band.hi;
    rndv_range_ = {0, SIZE_MAX, band.rndv, static_cast<uint8_t>(rma_lane_), 0};
  }
  eager_range_ = {0, SIZE_MAX, proto::ProtoId::EagerBcopy, static_cast<uint8_t>(am_lane_), 0};
  // Explore only where the costs, not the transport's eager cap or the user, chose a
  // rendezvous for a message sent alone (shm: once a line between its cores showed them far
  // apart), and only without the tuner: its probes send the eager traffic the measurement
  // needs, where explore's eager messages cost 128-512 KiB ping-pongs 6-11 % (256 KiB: 11.8
  // against 10.6 us) and bidirectional 512 KiB a quarter.
  const bool chosen = cfg.forced || cfg.rndv_thresh != UINT64_MAX - 1;
  explore_max_ = !tuner_ && !chosen && am.limits.max_eager != 0 &&
                         alone_rndv <= am.limits.max_eager
                     ? am.limits.max_eager
                     : 0;
  alone_min_ = alone_max_ = 0;
  if (alone_rndv != any_rndv) {  // a rendezvous sooner alone: nothing else waits behind it
    alone_min_ = std::min(alone_rndv, any_rndv);
    alone_max_ = std::max(alone_rndv, any_rndv);
  }
}

void EndpointImpl::rebuild_tables() {
  build_tables();
  if (worker_->proto_info()) {
    const std::string d = "(costs revised) " + describe_impl();
    std::fprintf(stderr, "%s", d.c_str());
  }
}

size_t EndpointImpl::rndv_threshold() {
  if (*am_cost_epoch_ != built_epoch_) rebuild_tables();
  return tag_table_.first_rndv();
}

bool EndpointImpl::sent_alone() noexcept {
  const uint64_t polls = worker_->progress_calls();
  const bool alone = outstanding_ == nullptr && polls != last_alone_polls_;
  last_alone_polls_ = polls;
  return alone;
}

int EndpointImpl::rma_lane_index(uint32_t hash) const noexcept {
  for (size_t i = 0; i < lanes_.size(); ++i)
    if (lanes_[i].tl_hash == hash &&
        (lanes_[i].attr->caps.get_zcopy || lanes_[i].attr->caps.put_zcopy))
      return static_cast<int>(i);
  return -1;
}

std::string EndpointImpl::describe_impl() const {
  char line[160];
  std::snprintf(line, sizeof(line), "torus: endpoint %016llx -> %016llx\n",
                static_cast<unsigned long long>(worker_->uid()),
                static_cast<unsigned long long>(peer_.uid));
  std::string out = line;
  std::vector<proto::LaneInfo> infos;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    const Lane& l = lanes_[i];
    infos.push_back({l.tl_name, l.attr});
    std::snprintf(line, sizeof(line), "  lane %zu: %s/%s%s%s\n", i, l.tl_name.c_str(),
                  worker_->ifaces()[l.iface_index].device.c_str(),
                  static_cast<int>(i) == am_lane_ ? " [am]" : "",
                  static_cast<int>(i) == rma_lane_ ? " [rma]" : "");
    out += line;
  }
  out += "  tag_send:\n" + tag_table_.describe(infos);
  if (alone_max_ != 0) out += "  tag_send (sent alone):\n" + alone_table_.describe(infos);
  out += "  tag_send (synchronous):\n" + sync_table_.describe(infos);
  if (tuner_) {
    std::snprintf(line, sizeof(line),
                  "  tag_send %zu .. %zu, not synchronous: eager_bcopy or %s, as measured\n",
                  tune_lo_, tune_hi_ - 1, proto::proto_name(rndv_range_.proto));
    out += line + tuner_->describe(rndv_range_.proto);
  }
  return out;
}

Status EndpointImpl::send_bytes(uint8_t am_id, std::span<const std::byte> bytes) {
  tl::Endpoint& ep = *am_lane().ep;
  const tl::IfaceAttr& a = *am_lane().attr;
  if (a.caps.am_short && bytes.size() <= a.limits.max_short)
    return ep.am_short(am_id, bytes, {});
  TORUS_ASSERT(bytes.size() <= a.limits.max_bcopy);
  BytesPack p{bytes.data(), bytes.size()};
  return ep.am_bcopy(am_id, &pack_bytes, &p);
}

void EndpointImpl::send_control(uint8_t am_id, std::span<const std::byte> bytes) {
  if (is_error(failed_)) return;
  if (pending_.empty()) {
    Status s = send_bytes(am_id, bytes);
    if (s == Status::Ok) return;
    if (s != Status::NoResource) {
      TORUS_WARN("control message %u to %016llx failed: %s", am_id,
                 static_cast<unsigned long long>(peer_.uid), status_string(s));
      return;
    }
  }
  pending_.push_back({nullptr, am_id, {bytes.begin(), bytes.end()}});
  worker_->schedule(this);
}

void EndpointImpl::ensure_wireup() {
  if (wired_) return;
  wired_ = true;
  const std::vector<std::byte>& addr = worker_->address();
  std::vector<std::byte> msg(sizeof(proto::WireupHdr) + addr.size());
  proto::WireupHdr h{worker_->uid(), proto::kWireVersion, {}, static_cast<uint32_t>(addr.size())};
  std::memcpy(msg.data(), &h, sizeof(h));
  std::memcpy(msg.data() + sizeof(h), addr.data(), addr.size());
  send_control(proto::kAmWireup, msg);
}

void EndpointImpl::queue_request(RequestImpl* req) {
  if (req->queued) return;
  req->queued = true;
  if (req->kind == ReqKind::Recv) {
    pending_gets_.push_back(req);
  } else {
    // An operation already under way was issued before anything still queued: it goes
    // first, so a later flush or message cannot overtake its remaining fragments.
    pending_.push_front({req, 0, {}});
  }
  worker_->schedule(this);
}

bool EndpointImpl::progress_pending() {
  while (!pending_.empty()) {
    PendingItem& item = pending_.front();
    if (RequestImpl* r = item.req) {
      if (!r->done && start_send(r) == Status::NoResource) return false;
      r->queued = false;
    } else if (send_bytes(item.am_id, item.bytes) == Status::NoResource) {
      return false;
    }
    pending_.pop_front();
  }
  if (!pending_gets_.empty()) {
    running_gets_.swap(pending_gets_);
    for (RequestImpl* r : running_gets_) {
      r->queued = false;
      if (!r->done) worker_->rndv_get_progress(r);
    }
    running_gets_.clear();
  }
  return pending_gets_.empty();
}

Status EndpointImpl::send_tag(const void* buf, size_t length, Tag tag, Request** out,
                              const SendParams& p) {
  if (__builtin_expect(is_error(failed_), 0)) return failed_;
  if (__builtin_expect(*am_cost_epoch_ != built_epoch_, 0)) rebuild_tables();
  const proto::ProtoRange* rp;
  if (length >= tune_lo_ && length < tune_hi_ && !p.sync) {
    rp = tuner_->choose(length) ? &rndv_range_ : &eager_range_;
  } else {
    const proto::ProtoTable& table =
        p.sync ? sync_table_
        : length >= alone_min_ && length < alone_max_ && sent_alone() ? alone_table_
                                                                       : tag_table_;
    rp = &table.lookup(length);
    // Where the AM lane's costs (as revised by its measurements) send messages below its
    // eager cap to rendezvous, one in kExploreEvery of them still goes eager: the
    // measurement needs that traffic to see the costs fall again.
    if (__builtin_expect(length <= explore_max_ && !p.sync, 0) &&
        (rp->proto == proto::ProtoId::RndvGet || rp->proto == proto::ProtoId::RndvPut) &&
        ++explored_ % kExploreEvery == 0)
      rp = &eager_range_;
  }
  const proto::ProtoRange& r = *rp;
  // Fast paths: a message that goes out whole, now, completes inline with no request.
  if (__builtin_expect(!p.sync && wired_ && pending_.empty(), 1)) {
    if (r.proto == proto::ProtoId::EagerShort) {
      proto::EagerHdr h{tag};
      Status s = am_lane().ep->am_short(proto::kAmEagerOnly, as_bytes_of(h),
                                        {static_cast<const std::byte*>(buf), length});
      if (s != Status::NoResource) return s;
    } else if (r.proto == proto::ProtoId::EagerBcopy) {
      // One packed fragment, as send_bcopy_fragments would send it (not when send_fragment
      // would choose zero-copy, which needs the request for its completion).
      const Lane& l = lanes_[r.lane];
      const bool zcopy = l.attr->caps.am_zcopy && length >= worker_->zcopy_thresh() &&
                         sizeof(proto::EagerHdr) + length <= l.attr->limits.max_zcopy;
      if (!zcopy && length + sizeof(proto::EagerHdr) <= l.attr->limits.max_bcopy) {
        proto::EagerHdr h{tag};
        FragPack f{&h, sizeof(h), static_cast<const std::byte*>(buf), length};
        Status s = bcopy_frag(*l.ep, proto::kAmEagerOnly, f);
        if (s != Status::NoResource) return s;
      }
    }
  }
  ensure_wireup();
  RequestImpl* req = worker_->alloc_request();
  req->kind = ReqKind::Send;
  req->ep = this;
  req->buffer = static_cast<std::byte*>(const_cast<void*>(buf));
  req->length = length;
  req->tag = tag;
  req->sync = p.sync;
  req->proto = r.proto;
  req->lane = r.lane;
  return launch(req, out, p);
}

Status EndpointImpl::launch(RequestImpl* req, Request** out, const SendParams& p) {
  Status s = pending_.empty() ? start_send(req) : Status::NoResource;
  if (s == Status::NoResource) {
    req->queued = true;
    pending_.push_back({req, 0, {}});
    worker_->schedule(this);
  } else if (req->done) {
    // Completed inline: report it here; no callback, no request.
    Status st = req->status;
    worker_->release_now(req);
    return st;
  }
  // Set only now: a completion inside the first attempt must not call back.
  req->send_cb = p.callback;
  req->user = p.user;
  *out = req;
  return Status::InProgress;
}

Status EndpointImpl::send_am(unsigned id, std::span<const std::byte> header,
                             std::span<const std::byte> payload, Request** out,
                             const SendParams& p) {
  if (id > kMaxUserAmId || header.size() > 64) return Status::InvalidParam;
  if (is_error(failed_)) return failed_;
  const tl::IfaceAttr& a = *am_lane().attr;
  if (sizeof(proto::UserAmHdr) + header.size() + payload.size() > a.limits.max_bcopy)
    return Status::Unsupported;
  ensure_wireup();
  RequestImpl* req = worker_->alloc_request();
  req->kind = ReqKind::Send;
  req->ep = this;
  req->am_user_id = id + 1;  // nonzero marks an active message
  req->am_header.assign(header.begin(), header.end());
  req->buffer = const_cast<std::byte*>(payload.data());
  req->length = payload.size();
  return launch(req, out, p);
}

Status EndpointImpl::start_send(RequestImpl* req) {
  if (is_error(failed_)) {
    worker_->complete_send(req, failed_);
    return Status::Ok;
  }
  if (req->am_user_id != 0) return send_user_am(req);
  if (req->rma != RequestImpl::Rma::None) return rma_step(req);
  if (req->stage == SendStage::Putting) return put_fragments(req);
  switch (req->proto) {
    case proto::ProtoId::EagerShort: return send_eager_short(req);
    case proto::ProtoId::EagerBcopy: return send_bcopy_fragments(req);
    case proto::ProtoId::RndvGet:
    case proto::ProtoId::RndvPut: return send_rts(req);
    case proto::ProtoId::Count: break;
  }
  worker_->complete_send(req, Status::InvalidParam);
  return Status::Ok;
}

Status EndpointImpl::send_user_am(RequestImpl* req) {
  proto::UserAmHdr h{worker_->uid(), static_cast<uint8_t>(req->am_user_id - 1),
                     static_cast<uint8_t>(req->am_header.size()), {}};
  std::byte hdr[sizeof(h) + 64];
  std::memcpy(hdr, &h, sizeof(h));
  if (!req->am_header.empty())
    std::memcpy(hdr + sizeof(h), req->am_header.data(), req->am_header.size());
  FragPack f{hdr, sizeof(h) + req->am_header.size(), req->buffer, req->length};
  const tl::IfaceAttr& a = *am_lane().attr;
  Status s = a.caps.am_short && f.hdr_length + f.length <= a.limits.max_short
                 ? am_lane().ep->am_short(proto::kAmUser, {hdr, f.hdr_length},
                                          {req->buffer, req->length})
                 : bcopy_frag(*am_lane().ep, proto::kAmUser, f);
  if (s == Status::NoResource) return s;
  worker_->complete_send(req, s);
  return Status::Ok;
}

Status EndpointImpl::send_eager_short(RequestImpl* req) {
  std::span<const std::byte> payload{req->buffer, req->length};
  Status s;
  if (req->sync) {
    proto::EagerSyncHdr h{req->tag, worker_->uid(), req->id()};
    s = am_lane().ep->am_short(proto::kAmEagerSync, as_bytes_of(h), payload);
  } else {
    proto::EagerHdr h{req->tag};
    s = am_lane().ep->am_short(proto::kAmEagerOnly, as_bytes_of(h), payload);
  }
  if (s == Status::NoResource) return s;
  if (is_error(s) || !req->sync) {
    worker_->complete_send(req, s);
  } else {
    req->stage = SendStage::WaitAck;
    track(req);
  }
  return Status::Ok;
}

Status EndpointImpl::send_fragment(RequestImpl* req, proto::AmId id, const void* hdr,
                                   size_t hdr_len, const std::byte* data, size_t len) {
  Lane& l = lanes_[req->lane];
  if (l.attr->caps.am_zcopy && len >= worker_->zcopy_thresh() &&
      hdr_len + len <= l.attr->limits.max_zcopy) {
    req->comp.func = &EndpointImpl::zcopy_completion;
    const iovec iov{const_cast<std::byte*>(data), len};
    Status s = l.ep->am_zcopy(id, {static_cast<const std::byte*>(hdr), hdr_len}, {&iov, 1},
                              &req->comp);
    if (s == Status::InProgress) {
      ++req->inflight;
      return Status::Ok;
    }
    return s;
  }
  FragPack f{hdr, hdr_len, data, len};
  return bcopy_frag(*l.ep, id, f);
}

Status EndpointImpl::send_bcopy_fragments(RequestImpl* req) {
  const size_t max = lanes_[req->lane].attr->limits.max_bcopy;
  if (req->stage == SendStage::Queued) {
    Status s;
    size_t sent;
    if (!req->sync && req->length + sizeof(proto::EagerHdr) <= max) {
      proto::EagerHdr h{req->tag};
      s = send_fragment(req, proto::kAmEagerOnly, &h, sizeof(h), req->buffer, req->length);
      sent = req->length;
    } else if (req->sync && req->length + sizeof(proto::EagerSyncHdr) <= max) {
      proto::EagerSyncHdr h{req->tag, worker_->uid(), req->id()};
      s = send_fragment(req, proto::kAmEagerSync, &h, sizeof(h), req->buffer, req->length);
      sent = req->length;
    } else {
      proto::EagerFirstHdr h{req->tag, worker_->uid(), req->sync ? req->id() : 0, req->length};
      sent = std::min(req->length, max - sizeof(h));
      s = send_fragment(req, proto::kAmEagerFirst, &h, sizeof(h), req->buffer, sent);
    }
    if (s == Status::NoResource) return s;
    if (is_error(s)) {
      worker_->complete_send(req, s);
      return Status::Ok;
    }
    req->stage = SendStage::Fragments;
    req->offset = sent;
    if (req->sync) track(req);
  }
  while (req->offset < req->length) {
    proto::EagerMiddleHdr h{worker_->uid(), req->offset};
    size_t n = std::min(req->length - req->offset, max - sizeof(h));
    Status s = send_fragment(req, proto::kAmEagerMiddle, &h, sizeof(h),
                             req->buffer + req->offset, n);
    if (s == Status::NoResource) return s;
    if (is_error(s)) {
      req->xfer_status = s;
      if (req->inflight == 0) worker_->complete_send(req, s);
      return Status::Ok;
    }
    req->offset += n;
  }
  // Zero-copy fragments still being written keep the user's buffer borrowed.
  if (req->inflight == 0) finish_fragments(req);
  return Status::Ok;
}

void EndpointImpl::finish_fragments(RequestImpl* req) {
  if (is_error(req->xfer_status)) {
    worker_->complete_send(req, req->xfer_status);
  } else if (req->sync && !req->acked) {
    req->stage = SendStage::WaitAck;
  } else {
    worker_->complete_send(req, Status::Ok);
  }
}

void EndpointImpl::zcopy_completion(tl::Completion* c, Status s) {
  RequestImpl* req = RequestImpl::of_completion(c);
  --req->inflight;
  if (is_error(s)) req->xfer_status = s;
  if (req->inflight != 0 || req->done) return;
  // Fragments not yet sent: the queued request resumes from progress (and meets the error).
  if (req->offset < req->length && req->queued) return;
  req->ep->finish_fragments(req);
}

Status EndpointImpl::send_rts(RequestImpl* req) {
  Lane& rl = lanes_[req->lane];
  const bool get = req->proto == proto::ProtoId::RndvGet;
  size_t rkey_len = 0;
  if (get && req->length > 0 && !req->mr) {
    tl::Iface& iface = *worker_->ifaces()[rl.iface_index].iface;
    auto mr = iface.mem_register(req->buffer, req->length, tl::kAccessRead);
    if (!mr) {
      TORUS_ERROR("rndv_get: registering %zu bytes failed: %s", req->length,
                  mr.error().message.c_str());
      worker_->complete_send(req, mr.status());
      return Status::Ok;
    }
    req->mr = std::move(mr.value());
  }
  if (req->mr) rkey_len = rl.attr->rkey_size;
  std::byte msg[sizeof(proto::RtsHdr) + 256];
  TORUS_ASSERT(rkey_len <= 256);
  proto::RtsHdr h{req->tag,
                  worker_->uid(),
                  req->id(),
                  req->length,
                  reinterpret_cast<uint64_t>(req->buffer),
                  rl.tl_hash,
                  static_cast<uint16_t>(rkey_len),
                  static_cast<uint8_t>((get ? proto::kRtsGet : proto::kRtsPut) |
                                       (req->sync ? proto::kRtsSync : 0)),
                  0};
  std::memcpy(msg, &h, sizeof(h));
  if (rkey_len) req->mr->pack_rkey({msg + sizeof(h), rkey_len});
  Status s = send_bytes(proto::kAmRts, {msg, sizeof(h) + rkey_len});
  if (s == Status::NoResource) return s;
  if (is_error(s)) {
    worker_->complete_send(req, s);
    return Status::Ok;
  }
  req->stage = SendStage::WaitAck;
  track(req);
  return Status::Ok;
}

void EndpointImpl::on_ack(RequestImpl* req, Status status) {
  if (req->stage == SendStage::WaitAck) {
    worker_->complete_send(req, status == Status::BufferTooSmall ? Status::Ok : status);
  } else {
    req->acked = true;  // a sync eager matched before its last fragment left
  }
}

void EndpointImpl::on_rtr(RequestImpl* req, const proto::RtrHdr& h,
                          std::span<const std::byte> rkey) {
  int lane = rma_lane_index(h.rma_tl);
  if (lane < 0 || h.length > req->length) {
    worker_->protocol_error(peer_.uid, "RTR names no usable lane or too many bytes");
    return;
  }
  req->lane = static_cast<uint8_t>(lane);
  req->peer_req_id = h.rreq_id;
  req->put_remote_addr = h.address;
  req->put_length = h.length;
  req->peer_rkey.assign(rkey.begin(), rkey.end());
  req->stage = SendStage::Putting;
  req->offset = 0;
  req->xfer_status = Status::Ok;
  if (put_fragments(req) == Status::NoResource) queue_request(req);
}

Status EndpointImpl::put_fragments(RequestImpl* req) {
  Lane& l = lanes_[req->lane];
  size_t frag = std::min(worker_->rndv_frag_size(), l.attr->limits.max_put);
  if (frag == 0) frag = req->put_length;
  req->comp.func = &EndpointImpl::put_completion;
  while (req->offset < req->put_length && !is_error(req->xfer_status)) {
    size_t n = std::min(frag, req->put_length - req->offset);
    Status s = l.ep->put_zcopy({req->buffer + req->offset, n}, req->put_remote_addr + req->offset,
                               req->peer_rkey, &req->comp);
    if (s == Status::NoResource) return s;
    if (s == Status::InProgress) ++req->inflight;
    else if (is_error(s)) req->xfer_status = s;
    if (!is_error(s)) req->offset += n;
  }
  if (req->inflight != 0) return Status::Ok;
  if (is_error(req->xfer_status)) {
    finish_put(req);
    return Status::Ok;
  }
  req->comp.func = &EndpointImpl::flush_completion;
  Status s = l.ep->flush(&req->comp);
  if (s == Status::NoResource) return s;
  if (s != Status::InProgress) {
    if (is_error(s)) req->xfer_status = s;
    finish_put(req);
  }
  return Status::Ok;
}

void EndpointImpl::put_completion(tl::Completion* c, Status s) {
  RequestImpl* req = RequestImpl::of_completion(c);
  --req->inflight;
  if (is_error(s)) req->xfer_status = s;
  if (req->inflight == 0 && !req->done && !req->queued &&
      req->ep->put_fragments(req) == Status::NoResource)
    req->ep->queue_request(req);
}

void EndpointImpl::flush_completion(tl::Completion* c, Status s) {
  RequestImpl* req = RequestImpl::of_completion(c);
  if (is_error(s)) req->xfer_status = s;
  req->ep->finish_put(req);
}

void EndpointImpl::finish_put(RequestImpl* req) {
  Status st = req->xfer_status;
  proto::AckHdr h{req->peer_req_id, static_cast<int32_t>(st), 0};
  send_control(proto::kAmFin, as_bytes_of(h));
  worker_->complete_send(req, st);
}

void EndpointImpl::track(RequestImpl* req) {
  if (req->ep_prev != nullptr || outstanding_ == req) return;
  req->ep_prev = nullptr;
  req->ep_next = outstanding_;
  if (outstanding_) outstanding_->ep_prev = req;
  outstanding_ = req;
}

void EndpointImpl::untrack(RequestImpl* req) {
  if (req->ep_prev == nullptr && outstanding_ != req) return;
  if (req->ep_prev) req->ep_prev->ep_next = req->ep_next; else outstanding_ = req->ep_next;
  if (req->ep_next) req->ep_next->ep_prev = req->ep_prev;
  req->ep_next = req->ep_prev = nullptr;
}

void EndpointImpl::fail(Status status) {
  failed_ = status;
  std::deque<PendingItem> pending;
  pending.swap(pending_);
  for (PendingItem& item : pending)
    if (item.req && !item.req->done) worker_->complete_send(item.req, status);
  pending_gets_.clear();
  while (RequestImpl* r = outstanding_) {
    untrack(r);
    if (r->kind == ReqKind::Send) worker_->complete_send(r, status);
    else worker_->complete_recv(r, status);
  }
}

}  // namespace torus::core
