// Attaching peers, watching them die (pidfds in the epoll set behind event_fd()), and failing
// their endpoints: in-flight operations first, then the ErrorHandler, once per endpoint.
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/base/log.h"
#include "transports/shm/shm_endpoint.h"
#include "transports/shm/shm_iface.h"
#include "transports/shm/shm_peer.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

namespace torus::shm {
namespace {

int pidfd_open(pid_t pid) noexcept {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

}  // namespace

socklen_t wake_address(const std::string& segment_name, sockaddr_un* out) noexcept {
  *out = sockaddr_un{};
  out->sun_family = AF_UNIX;
  // Abstract namespace: a leading NUL, no file to clean up, gone with the socket.
  // Names fit (kMaxNameLen); min() only guards the buffer.
  const std::string full = "torus-" + segment_name;
  const size_t len = std::min(sizeof(out->sun_path) - 1, full.size());
  std::memcpy(out->sun_path + 1, full.data(), len);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + len);
}

Result<Peer*> ShmIface::attach_peer(const std::string& peer_name, pid_t peer_pid) {
  if (auto it = peers_.find(peer_name); it != peers_.end()) {
    if (it->second->pid != peer_pid)
      return make_error(Status::Unreachable, "shm: segment " + peer_name +
                                                 " belongs to pid " +
                                                 std::to_string(it->second->pid));
    return it->second.get();
  }
  auto peer = std::make_unique<Peer>();
  peer->name = peer_name;
  peer->pid = peer_pid;
  Segment* seg = segment_.get();
  const bool self = peer_name == segment_->name();
  if (self) {
    if (peer_pid != pid_) return make_error(Status::Unreachable, "shm: address reused");
  } else {
    auto attached = Segment::attach(peer_name, peer_pid);
    if (!attached) return attached.error();
    peer->segment = std::move(*attached);
    seg = peer->segment.get();
    SegmentHeader* h = seg->header();
    const uint32_t n = h->attached.fetch_add(1, std::memory_order_acq_rel) + 1;
    // Once every expected peer has it mapped the name is no longer needed: remove it now, so
    // a crash later leaves nothing in /dev/shm.
    if (h->expected_peers > 0 && n >= static_cast<uint32_t>(h->expected_peers))
      seg->unlink_name();
    peer->pidfd = Fd(pidfd_open(peer_pid));
    if (peer->pidfd.get() < 0 && errno == ESRCH)
      return make_error(Status::Unreachable, "shm: peer pid " + std::to_string(peer_pid) +
                                                 " has exited");
    if (peer->pidfd.get() < 0) {
      watch_without_pidfd();
    } else {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.ptr = peer.get();
      if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, peer->pidfd.get(), &ev) != 0)
        return make_error(Status::IoError, std::string("epoll_ctl(pidfd): ") +
                                               std::strerror(errno));
    }
  }
  const Geometry& geo = seg->geometry();
  // Our own ring needs no lane: we are its only consumer and the producer is on our core.
  if (!self) peer->lane = LaneClaim::claim(*seg, pid_);
  peer->fifo = FifoWriter(seg->ring(peer->lane.index()), pid_);
  peer->regions = seg->regions();
  peer->region_slots = geo.region_slots;
  peer->wake_len = wake_address(peer_name, &peer->wake_addr);
  Peer* raw = peer.get();
  peers_.emplace(peer_name, std::move(peer));
  return raw;
}

void ShmIface::watch_without_pidfd() {
  if (timer_fd_.get() >= 0) return;
  TORUS_INFO("shm %s: pidfd_open: %s; probing peers with kill(pid, 0) every 100 ms instead",
             name().c_str(), std::strerror(errno));
  timer_fd_ = Fd(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  if (timer_fd_.get() < 0) return;
  const itimerspec every{{0, 100000000}, {0, 100000000}};
  ::timerfd_settime(timer_fd_.get(), 0, &every, nullptr);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &timer_fd_;  // tags: nullptr the wake socket, &timer_fd_, else a Peer
  ::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, timer_fd_.get(), &ev);
}

void ShmIface::drain_wake_socket() noexcept {
  char buf[64];
  while (::recv(wake_fd_.get(), buf, sizeof(buf), MSG_DONTWAIT) > 0) {
  }
}

void ShmIface::check_events() {
  epoll_event events[16];
  for (;;) {
    const int n = ::epoll_wait(epoll_fd_.get(), events, 16, 0);
    if (n <= 0) break;
    for (int i = 0; i < n; ++i) {
      if (events[i].data.ptr == &timer_fd_) {
        uint64_t ticks;
        (void)!::read(timer_fd_.get(), &ticks, sizeof(ticks));
        continue;
      }
      auto* peer = static_cast<Peer*>(events[i].data.ptr);
      if (peer == nullptr) {
        drain_wake_socket();
      } else if (!peer->dead) {
        TORUS_INFO("shm %s: peer pid %d (%s) exited", name().c_str(), static_cast<int>(peer->pid),
                   peer->name.c_str());
        drop_peer(*peer, Status::ConnectionReset);
      }
    }
    if (n < 16) break;
  }
  // Without pidfds (kernels before 5.3) fall back to probing the pid.
  std::vector<Peer*> gone;
  for (auto& [peer_name, peer] : peers_)
    if (peer->segment != nullptr && peer->pidfd.get() < 0 && ::kill(peer->pid, 0) != 0 &&
        errno == ESRCH)
      gone.push_back(peer.get());
  for (Peer* p : gone) drop_peer(*p, Status::ConnectionReset);
}

void ShmIface::drop_peer(Peer& peer, Status why) {
  if (peer.dead || peer.segment == nullptr) return;  // never drop ourselves
  peer.dead = true;
  if (peer.pidfd.get() >= 0) {
    ::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_DEL, peer.pidfd.get(), nullptr);
    peer.pidfd.reset();
  }
  bounce_.forget_peer(peer);
  const std::vector<ShmEndpoint*> eps = peer.endpoints;
  for (ShmEndpoint* ep : eps) fail_endpoint(*ep, why);
  // A peer that crashed before enough peers attached leaves its name behind: remove it.
  if (why == Status::ConnectionReset) peer.segment->unlink_name();
  peer.lane.release();
  peer.segment.reset();
  auto it = peers_.find(peer.name);
  if (it == peers_.end()) return;
  std::unique_ptr<Peer> owned = std::move(it->second);
  peers_.erase(it);
  if (!owned->endpoints.empty()) dead_peers_.push_back(std::move(owned));
}

void ShmIface::fail_endpoint(ShmEndpoint& ep, Status status) {
  if (is_error(ep.failed_)) return;
  ep.failed_ = status;
  bounce_.fail_ops(ep, status);
  coop_.fail_ops(ep, status);
  for (auto& [barrier, comp] : ep.flushes_) defer_completion(comp, status);
  ep.flushes_.clear();
  if (!ep.error_reported_) {
    ep.error_reported_ = true;
    errors_.emplace_back(&ep, status);
  }
}

bool ShmIface::endpoint_alive(const ShmEndpoint* ep) const noexcept {
  return std::find(endpoints_.begin(), endpoints_.end(), ep) != endpoints_.end();
}

void ShmIface::remove_endpoint(ShmEndpoint* ep) noexcept {
  endpoints_.erase(std::remove(endpoints_.begin(), endpoints_.end(), ep), endpoints_.end());
  errors_.erase(std::remove_if(errors_.begin(), errors_.end(),
                               [ep](const auto& e) { return e.first == ep; }),
                errors_.end());
  Peer& peer = ep->peer();
  peer.endpoints.erase(std::remove(peer.endpoints.begin(), peer.endpoints.end(), ep),
                       peer.endpoints.end());
  if (peer.dead && peer.endpoints.empty())
    dead_peers_.erase(std::remove_if(dead_peers_.begin(), dead_peers_.end(),
                                     [&peer](const auto& p) { return p.get() == &peer; }),
                      dead_peers_.end());
}

}  // namespace torus::shm
