// Worker: opening interfaces, endpoints by uid, progress, sleeping, request completion.
#include "core/worker.h"

#include <sched.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/base/config.h"
#include "core/base/log.h"
#include "core/context.h"
#include "core/endpoint.h"
#include "core/rma.h"
#include "core/worker_address.h"

namespace torus::core {

using Clock = std::chrono::steady_clock;

WorkerImpl::WorkerImpl(ContextImpl* ctx, uint64_t uid) : ctx_(ctx), uid_(uid) {}

WorkerImpl::~WorkerImpl() {
  // Endpoints first: their transport endpoints must go before the interfaces.
  endpoints_.clear();
  assemblies_.clear();
  pool_.drop_registrations();
  handles_.clear();
  ifaces_.clear();
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

Status WorkerImpl::open_ifaces(const WorkerParams& params) {
  const config::Config& cfg = ctx_->config;
  multi_ = params.thread_multi || cfg.get_string("TORUS_THREAD_MODE") == "multi";
  sel_cfg_.rndv_thresh = cfg.get_size("TORUS_RNDV_THRESH");
  sel_cfg_.rndv_frag_size = cfg.get_size("TORUS_RNDV_FRAG_SIZE");
  if (sel_cfg_.rndv_frag_size == 0 || sel_cfg_.rndv_frag_size == config::kSizeInf)
    sel_cfg_.rndv_frag_size = SIZE_MAX / 2;
  // Below ~8 KiB a copy costs less than keeping the buffer borrowed until it is written.
  const uint64_t zt = cfg.get_size("TORUS_ZCOPY_THRESH");
  zcopy_thresh_ = zt == config::kSizeAuto ? 8192 : zt == config::kSizeInf ? SIZE_MAX : zt;
  const std::string& forced = cfg.get_string("TORUS_PROTO");
  if (forced != "auto") {
    sel_cfg_.forced = proto::proto_from_name(forced, &sel_cfg_.forced_proto);
  }
  proto_info_ = cfg.get_bool("TORUS_PROTO_INFO");
  proto_tune_ = cfg.get_bool("TORUS_PROTO_TUNE");
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  yield_when_idle_ = ctx_->expected_local_peers >= 0 && cpus > 0 &&
                     ctx_->expected_local_peers + 1 > cpus;
  double spin = cfg.get_duration("TORUS_SPIN_TIME");
  if (spin == config::kDurationAuto) {
    // Polling beats sleeping only while the peer can run on another core.
    spin = cpus > 1 ? 50e-6 : 2e-6;
  } else if (spin == config::kDurationInf) {
    spin = 1e9;
  }
  double spin_max = cfg.get_duration("TORUS_SPIN_MAX");
  if (spin_max == config::kDurationAuto) {
    // With more processes than cores the answer needs this very core: sleep, do not spin.
    spin_max = cpus > 1 && !yield_when_idle_ ? 1e-3 : spin;
  } else if (spin_max == config::kDurationInf) {
    spin_max = 1e9;
  }
  spin_.configure(std::chrono::nanoseconds(static_cast<int64_t>(spin * 1e9)),
                  std::chrono::nanoseconds(static_cast<int64_t>(spin_max * 1e9)));

  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) {
    TORUS_ERROR("epoll_create1 failed: %s", std::strerror(errno));
    return Status::IoError;
  }
  tl::IfaceParams ip;
  ip.config = &cfg;
  ip.worker_uid = uid_;
  ip.job_id = ctx_->job_id;
  ip.expected_local_peers = ctx_->expected_local_peers;
  WorkerAddress addr;
  addr.uid = uid_;
  for (TransportSlot& slot : ctx_->transports) {
    for (const tl::DeviceInfo& dev : slot.devices) {
      auto iface = slot.transport->open(dev, ip);
      if (!iface) {
        TORUS_WARN("transport %s device %s: %s", slot.name.c_str(), dev.name.c_str(),
                   iface.error().message.c_str());
        continue;
      }
      std::unique_ptr<tl::Iface> i = std::move(iface.value());
      register_am_handlers(*i);
      i->set_error_handler(&WorkerImpl::tl_error, this);
      if (int fd = i->event_fd(); fd >= 0) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = ifaces_.size();
        if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
          TORUS_ERROR("epoll_ctl(ADD, %s fd %d) failed: %s", slot.name.c_str(), fd,
                      std::strerror(errno));
          return Status::IoError;
        }
      }
      auto a = i->address();
      addr.ifaces.push_back({slot.name, dev.name, {a.begin(), a.end()}});
      ifaces_.push_back({slot.name, dev.name, std::move(i)});
    }
  }
  if (ifaces_.empty()) return Status::Unreachable;
  address_ = pack_worker_address(addr);
  return Status::Ok;
}

Result<EndpointImpl*> WorkerImpl::connect(std::span<const std::byte> address) {
  auto peer = unpack_worker_address(address);
  if (!peer) return peer.error();
  if (EndpointImpl* ep = find_endpoint(peer->uid)) return ep;
  uint64_t uid = peer->uid;
  auto ep = std::make_unique<EndpointImpl>(this, std::move(peer.value()));
  if (Status s = ep->init(); s != Status::Ok)
    return make_error(s, "no transport reaches worker " + std::to_string(uid) +
                             " (see the log for each transport's reason)");
  EndpointImpl* raw = ep.get();
  endpoints_.emplace(uid, std::move(ep));
  if (proto_info_) {
    std::string d = raw->describe_impl();
    std::fprintf(stderr, "%s", d.c_str());
  }
  return raw;
}

EndpointImpl* WorkerImpl::find_endpoint(uint64_t uid) const noexcept {
  auto it = endpoints_.find(uid);
  return it == endpoints_.end() ? nullptr : it->second.get();
}

void WorkerImpl::schedule(EndpointImpl* ep) {
  if (!ep->scheduled) {
    ep->scheduled = true;
    scheduled_.push_back(ep);
  }
}

unsigned WorkerImpl::progress() {
  unsigned n = 0;
  ++progress_calls_;
  for (IfaceEntry& i : ifaces_) n += i.iface->progress();
  if (!scheduled_.empty()) {
    // Swap with a kept buffer: endpoints may reschedule themselves while we walk the list.
    running_.swap(scheduled_);
    for (EndpointImpl* ep : running_) {
      ep->scheduled = false;
      if (!ep->progress_pending()) schedule(ep);
      ++n;
    }
    running_.clear();
  }
  return n;
}

Status WorkerImpl::arm() {
  if (!scheduled_.empty()) return Status::NoResource;
  for (IfaceEntry& i : ifaces_)
    if (i.iface->arm() != Status::Ok) return Status::NoResource;
  return Status::Ok;
}

Status WorkerImpl::wait(std::chrono::nanoseconds timeout) {
  if (arm() != Status::Ok) return Status::Ok;
  int ms = -1;
  if (timeout != std::chrono::nanoseconds::max()) {
    auto m = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count();
    if (std::chrono::nanoseconds(std::chrono::milliseconds(m)) < timeout) ++m;
    ms = m > INT32_MAX ? INT32_MAX : static_cast<int>(m);
  }
  epoll_event evs[8];
  int r = epoll_wait(epoll_fd_, evs, 8, ms);
  if (r < 0 && errno != EINTR) {
    TORUS_ERROR("epoll_wait failed: %s", std::strerror(errno));
    return Status::IoError;
  }
  return r == 0 ? Status::Timeout : Status::Ok;
}

Status WorkerImpl::wait_request(RequestImpl* req, std::chrono::nanoseconds timeout) {
  // The clock is read only once the request has outlasted 64 polls: most small messages
  // complete sooner, and a clock read costs 30-70 ns in a VM (more than a poll).
  Clock::time_point start{};
  bool started = false;
  const bool bounded = timeout != std::chrono::nanoseconds::max();
  unsigned polls = 0;
  bool outlasted = false;
  while (!req->done) {
    unsigned events;
    if (multi_) {
      std::lock_guard<std::recursive_mutex> lock(mu_);
      events = progress();
    } else {
      events = progress();
    }
    if (req->done) break;
    if (yield_when_idle_ && events == 0) sched_yield();
    // Check the clock only every few polls: it costs as much as an empty poll.
    if ((++polls & 63) != 0) continue;
    const auto now = Clock::now();
    if (!started) {
      // Spin time and deadline count from here, 64 polls late: a deadline is a lower bound.
      start = now;
      started = true;
    }
    auto elapsed = now - start;
    if (bounded && elapsed >= timeout) return Status::Timeout;
    if (elapsed < spin_.current()) {
      if ((polls & 1023) == 0) sched_yield();
      continue;
    }
    outlasted = true;
    auto left = bounded ? timeout - std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed)
                        : std::chrono::nanoseconds(std::chrono::milliseconds(100));
    if (left > std::chrono::milliseconds(100)) left = std::chrono::milliseconds(100);
    // A timed-out sleep just loops: the request's own deadline is checked above.
    if (Status s = wait(left); s == Status::IoError) return s;
  }
  if (outlasted) spin_.outlasted(Clock::now() - start);
  return req->status;
}

MemHandleImpl* WorkerImpl::adopt_handle(std::unique_ptr<MemHandleImpl> h) {
  MemHandleImpl* raw = h.get();
  handles_.emplace(raw, std::move(h));
  return raw;
}

void WorkerImpl::drop_handle(MemHandleImpl* h) { handles_.erase(h); }

void WorkerImpl::release(RequestImpl* req) {
  if (req->done) {
    pool_.put(req);
  } else {
    req->released = true;
  }
}

void WorkerImpl::complete_send(RequestImpl* req, Status status) {
  if (req->done) return;
  if (req->ep != nullptr) endpoint_of(req)->untrack(req);
  req->mr.reset();
  req->status = status;
  req->done = true;
  req->stage = SendStage::Done;
  if (req->send_cb) req->send_cb(req, status, req->user);
  if (req->c_send_cb) req->c_send_cb(reinterpret_cast<torus_request_t*>(static_cast<Request*>(req)),
                   static_cast<torus_status_t>(status), req->user);
  if (req->released) pool_.put(req);
}

void WorkerImpl::complete_recv(RequestImpl* req, Status status) {
  if (req->done) return;
  if (req->ep != nullptr) endpoint_of(req)->untrack(req);
  req->mr.reset();
  req->status = status;
  req->done = true;
  if (req->recv_cb) req->recv_cb(req, status, req->info, req->user);
  if (req->c_recv_cb)
    req->c_recv_cb(reinterpret_cast<torus_request_t*>(static_cast<Request*>(req)),
                   static_cast<torus_status_t>(status), req->info.tag, req->info.length,
                   req->user);
  if (req->released) pool_.put(req);
}

void WorkerImpl::register_am_handlers(tl::Iface& iface) {
  // Transports pass no id to a handler, so each id gets its own instantiation.
  [&]<size_t... I>(std::index_sequence<I...>) {
    (iface.set_am_handler(static_cast<tl::AmId>(I), &WorkerImpl::am_dispatch<I>, this), ...);
  }(std::make_index_sequence<proto::kAmCount>{});
}

void WorkerImpl::tl_error(void* arg, tl::Endpoint* tl_ep, Status status) {
  auto* self = static_cast<WorkerImpl*>(arg);
  auto* ep = static_cast<EndpointImpl*>(tl_ep->user_data);
  if (ep != nullptr) self->on_peer_failed(ep, status);
}

void WorkerImpl::on_peer_failed(EndpointImpl* ep, Status status) {
  if (is_error(ep->failed())) return;
  TORUS_WARN("peer worker %016llx failed: %s", static_cast<unsigned long long>(ep->uid()),
             status_string(status));
  uint64_t uid = ep->uid();
  // Receives still assembling fragments from this peer can never finish.
  if (auto it = assemblies_.find(uid); it != assemblies_.end()) {
    if (it->second.recv) complete_recv(it->second.recv, status);
    if (Unexpected* u = it->second.unexpected; u != nullptr && u->taken) {
      u->error = status;  // its holder still receives it (with the error) and frees it
    } else if (u != nullptr) {
      matcher_.remove_unexpected(u);
      unexpected_pool_.put(u);
    }
    assemblies_.erase(it);
  }
  ep->fail(status);
  if (error_cb_) error_cb_(error_arg_, ep, status);
}

void WorkerImpl::protocol_error(uint64_t sender, const char* what) {
  TORUS_ERROR("malformed message from worker %016llx: %s; dropping the connection",
              static_cast<unsigned long long>(sender), what);
  if (EndpointImpl* ep = find_endpoint(sender)) on_peer_failed(ep, Status::ProtocolError);
}

void WorkerImpl::set_am_handler(unsigned id, AmCallback cb, void* arg) {
  if (id <= kMaxUserAmId) user_am_[id] = {cb, arg};
}

}  // namespace torus::core
