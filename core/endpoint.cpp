// Endpoint: lane choice, protocol tables, and running the chosen protocol. A send runs as
// far as the transport allows; back-pressure parks it on the pending queue, in order.
#include "core/endpoint.h"

#include <algorithm>
#include <cstring>

#include "core/base/log.h"
#include "core/worker.h"
#include "protocols/protocol.h"
#include "protocols/rma_ops.h"
#include "protocols/user_am.h"

namespace torus::core {

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
      lane.iface = ifaces[i].iface.get();
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
  local_uid_ = worker_->uid();
  zcopy_thresh_ = worker_->zcopy_thresh();
  rndv_frag_size_ = worker_->rndv_frag_size();
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
    rndv_range_ = {0, SIZE_MAX, band.rndv, static_cast<uint8_t>(rma_lane_), 0,
                   &proto::protocol(band.rndv)};
  }
  eager_range_ = {0, SIZE_MAX, proto::ProtoId::EagerBcopy, static_cast<uint8_t>(am_lane_), 0,
                  &proto::protocol(proto::ProtoId::EagerBcopy)};
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

void EndpointImpl::send_control(uint8_t am_id, std::span<const std::byte> bytes) {
  if (is_error(failed_)) return;
  if (pending_.empty()) {
    Status s = send_now(am_id, bytes);
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
    } else if (send_now(item.am_id, item.bytes) == Status::NoResource) {
      return false;
    }
    pending_.pop_front();
  }
  if (!pending_gets_.empty()) {
    running_gets_.swap(pending_gets_);
    for (RequestImpl* r : running_gets_) {
      r->queued = false;
      if (!r->done) proto::protocol(r->proto).recv_progress(*this, *r);
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
  // Fast path: a message that goes out whole, now, completes inline with no request.
  if (__builtin_expect(!p.sync && wired_ && pending_.empty(), 1)) {
    Status s = r.protocol->send_inline(*this, r.lane, buf, length, tag);
    if (s != Status::NoResource) return s;
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
  if (id > kMaxUserAmId || header.size() > proto::kMaxUserAmHeader) return Status::InvalidParam;
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
  if (req->am_user_id != 0)
    return proto::send_user_am(*this, *req, static_cast<uint8_t>(req->am_user_id - 1),
                               req->am_header);
  if (req->rma != RequestImpl::Rma::None) return proto::rma_step(*this, *req);
  if (req->proto < proto::ProtoId::Count) return proto::protocol(req->proto).send(*this, *req);
  worker_->complete_send(req, Status::InvalidParam);
  return Status::Ok;
}

void EndpointImpl::complete_send(proto::Op& op, Status status) {
  worker_->complete_send(static_cast<RequestImpl*>(&op), status);
}

void EndpointImpl::complete_recv(proto::Op& op, Status status) {
  worker_->complete_recv(static_cast<RequestImpl*>(&op), status);
}

void EndpointImpl::protocol_error(const char* what) { worker_->protocol_error(peer_.uid, what); }

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
