// The shm iface: setup, address and reachability, registration, and the receive path
// (progress, dispatch, arm). Peer attachment and failure handling are in shm_peer.cpp.
#include "transports/shm/shm_iface.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>

#include "core/base/coarse_clock.h"
#include "core/base/log.h"
#include "transports/shm/shm_endpoint.h"

namespace torus::shm {
namespace {

constexpr unsigned kMaxBatch = 64;      // cells per progress() call, to bound its latency
constexpr uint32_t kTickMask = 1023;    // look at the clock every 1024 progress calls
constexpr size_t kBcopyPrefetch = 512;  // bytes of a bcopy segment prefetched on sight
constexpr int64_t kCheckEveryNs = 1000000;

class ShmMemRegion final : public tl::MemRegion {
 public:
  ShmMemRegion(RegionTable& table, void* addr, size_t length, const PackedRkey& key)
      : table_(table), addr_(addr), length_(length), key_(key) {}
  ~ShmMemRegion() override { table_.remove(key_.slot); }
  void* address() const override { return addr_; }
  size_t length() const override { return length_; }
  void pack_rkey(std::span<std::byte> out) const override {
    TORUS_ASSERT(out.size() >= sizeof(key_));
    std::memcpy(out.data(), &key_, sizeof(key_));
  }

 private:
  RegionTable& table_;
  void* addr_;
  size_t length_;
  PackedRkey key_;
};

tl::IfaceAttr make_attr(const Settings& s, const Geometry& geo, bool oversubscribed) {
  tl::IfaceAttr a;
  a.caps.am_short = true;
  a.caps.am_bcopy = true;
  a.caps.get_zcopy = true;
  a.caps.put_zcopy = true;
  a.caps.connect_to_iface = true;
  a.limits.max_short = kMaxInline;
  a.limits.max_bcopy = geo.seg_size - kCacheLine;  // the rest is am_bcopy_aligned's room
  a.limits.max_iov = 1;
  a.limits.max_get = std::numeric_limits<size_t>::max();
  a.limits.max_put = std::numeric_limits<size_t>::max();
  a.limits.seg_size = geo.seg_size;
  // One cache-line hand-off each way; bcopy pays a copy in and a copy out, on two cores at
  // once: its bandwidth is Placement's for the class measured (near until measured).
  a.am_cost = tl::Cost{100, 20, Placement::kNearBps, false};
  // A message above an eighth of the ring would crowd out the other senders to that peer.
  // With more processes than cores, CPU time is what the ranks share, and eager spends two
  // copies of it where a get spends one: 4 ranks on 2 cores, allreduce of 128 KiB (32-64 KiB
  // messages) took 82-95 us with a rendezvous from 12-48 KiB, 138-243 eager.
  a.limits.max_eager = oversubscribed ? size_t{32} << 10 : size_t{geo.fifo_size} * (geo.seg_size - kSegSlack) / 8;
  if (s.cma == CmaMode::No)
    a.rma_cost = tl::Cost{3000, 500, 6e9, false};  // two copies through the FIFO, target polls
  else {
    // One syscall, one kernel copy: a fixed cost (~2 us on the AMD VMs, floor_cma: 4 KiB in
    // 1.7-2.4 us, 16 KiB in 2.6-3.6; 0.5 us on an Intel VM: measured at open, shm_rates.h),
    // and 12-24 GB/s beyond.
    a.rma_cost = tl::Cost{2000, 300, 20e9, false};
    if (const double ns = measure_cma_fixed_ns(); ns > 0) {
      const double copy_ns = 4096 * 1e9 / a.rma_cost.bandwidth_Bps;
      a.rma_cost.latency_ns = std::clamp(ns - copy_ns, 100.0, 5000.0);
      TORUS_DEBUG("shm: a 4 KiB CMA read takes %.0f ns here: get fixed cost %.0f ns", ns,
                  a.rma_cost.latency_ns);
    }
    // Among others, eager's two-core pipeline keeps more bandwidth than a get that only the
    // receiver's core copies: 700 ns more for a rendezvous in a stream where the get's fixed
    // cost is 2 us (AMD VMs), in proportion elsewhere. On the Intel VM (0.2 us) a fixed 700
    // kept 32 KiB streams eager: bidirectional 11.6 GB/s against 19.9 by rendezvous.
    a.rma_stream_extra_ns = 700 * a.rma_cost.latency_ns / 2000;
  }
  a.mem_types = tl::mem_type_bit(tl::MemType::Host);
  a.reach = tl::Reach::SameHost;
  a.rkey_size = sizeof(PackedRkey);
  return a;
}

// TORUS_SHM_LANES and TORUS_SHM_LANE_SIZE with "auto" resolved (kAutoLanes in shm_iface.h).
uint64_t lanes_of(const Settings& s, int expected_peers) {
  if (s.lanes != Settings::kAuto) return s.lanes;
  if (expected_peers < 0) return kAutoLanes;
  return std::min<uint64_t>(static_cast<uint64_t>(expected_peers), kAutoLanes);
}

uint64_t lane_size_of(const Settings& s, uint64_t lanes) {
  if (s.lane_size != Settings::kAuto) return s.lane_size;
  if (lanes == 0) return 0;
  const uint64_t share = std::bit_floor(kAutoLaneBudget * s.fifo_size / lanes);
  return std::min<uint64_t>(s.fifo_size, std::max<uint64_t>(kMinFifoSize, share));
}

}  // namespace

bool parse_address(std::span<const std::byte> bytes, PeerAddress* out, std::string* why) {
  auto fail = [why](const char* msg) {
    if (why != nullptr) *why = msg;
    return false;
  };
  if (bytes.size() < sizeof(AddressHeader)) return fail("shm: peer address too short");
  std::memcpy(&out->header, bytes.data(), sizeof(AddressHeader));
  const AddressHeader& h = out->header;
  if (h.magic != static_cast<uint32_t>(kMagic)) return fail("shm: not an shm address");
  if (h.version != kVersion) return fail("shm: peer runs another shm wire version");
  if (bytes.size() != sizeof(AddressHeader) + h.name_len) return fail("shm: bad address size");
  out->name.assign(reinterpret_cast<const char*>(bytes.data()) + sizeof(AddressHeader),
                   h.name_len);
  if (!is_valid_segment_name(out->name) || h.pid <= 0)
    return fail("shm: malformed segment name or pid in peer address");
  return true;
}

Result<std::unique_ptr<ShmIface>> ShmIface::open(const tl::IfaceParams& params,
                                                 const Settings& settings) {
  const uint64_t lanes = lanes_of(settings, params.expected_local_peers);
  auto geo = make_geometry(settings.fifo_size, settings.seg_size, lanes,
                           lane_size_of(settings, lanes));
  if (!geo) return geo.error();
  if (settings.bounce_size < geo->seg_size - kBounceDataOffset)
    return make_error(Status::InvalidParam,
                      "TORUS_SHM_BOUNCE_SIZE=" + std::to_string(settings.bounce_size) +
                          " is invalid: it must hold at least one chunk (TORUS_SHM_SEG_SIZE "
                          "- " + std::to_string(kBounceDataOffset) + " bytes)");
  auto host = host_identity();
  if (!host) return host.error();
  // Segments of killed processes would fill /dev/shm (tmpfs, memory) run after run; one look
  // per process is enough, later ifaces would find the same.
  static std::atomic<bool> swept{false};
  if (!swept.exchange(true, std::memory_order_relaxed)) remove_dead_segments();
  Parts parts{settings, *host, nullptr, Fd{}, Fd{}, false};
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  parts.oversubscribed =
      params.expected_local_peers >= 0 && cpus > 0 && params.expected_local_peers + 1 > cpus;
  // Our own segment must not outlive a failed open.
  auto fail = [&parts](Error e) -> Error {
    if (parts.segment != nullptr) parts.segment->unlink_name();
    return e;
  };
  parts.epoll_fd = Fd(::epoll_create1(EPOLL_CLOEXEC));
  if (parts.epoll_fd.get() < 0)
    return make_error(Status::IoError, std::string("epoll_create1: ") + std::strerror(errno));
  // A name unlinked early (every expected peer attached) may be taken again by a later iface
  // of this worker while the first still holds the socket of that name: try the next one.
  for (unsigned first_n = 0; parts.wake_fd.get() < 0;) {
    auto seg = Segment::create(job_name_part(params.job_id), params.worker_uid, *geo,
                               params.expected_local_peers, first_n);
    if (!seg) return seg.error();
    parts.segment = std::move(*seg);
    Fd sock(::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (sock.get() < 0)
      return fail(make_error(Status::IoError,
                             std::string("socket(AF_UNIX): ") + std::strerror(errno)));
    sockaddr_un sa{};
    const socklen_t sa_len = wake_address(parts.segment->name(), &sa);
    if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&sa), sa_len) == 0) {
      parts.wake_fd = std::move(sock);
    } else if (errno == EADDRINUSE && first_n < 64) {
      first_n = parts.segment->index() + 1;
      parts.segment->unlink_name();
      parts.segment.reset();
    } else {
      return fail(make_error(Status::IoError, "bind(@torus-" + parts.segment->name() +
                                                  "): " + std::strerror(errno)));
    }
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;  // the wake socket; &timer_fd_ is the timer, anything else a Peer
  if (::epoll_ctl(parts.epoll_fd.get(), EPOLL_CTL_ADD, parts.wake_fd.get(), &ev) != 0)
    return fail(make_error(Status::IoError, std::string("epoll_ctl: ") + std::strerror(errno)));
  return std::make_unique<ShmIface>(std::move(parts));
}

ShmIface::ShmIface(Parts parts)
    : settings_(parts.settings),
      host_(parts.host),
      pid_(::getpid()),
      segment_(std::move(parts.segment)),
      wake_fd_(std::move(parts.wake_fd)),
      epoll_fd_(std::move(parts.epoll_fd)),
      regions_(segment_->regions(), segment_->geometry().region_slots),
      bounce_(*this, settings_.bounce_size, segment_->geometry().seg_size),
      coop_(*this, segment_->coop_slots(), settings_.coop_thresh, settings_.coop_adaptive) {
  const Geometry& geo = segment_->geometry();
  rings_ = ConsumerRings(*segment_);
  attr_ = make_attr(settings_, geo, parts.oversubscribed);
  AddressHeader h{};
  h.magic = static_cast<uint32_t>(kMagic);
  h.version = kVersion;
  h.name_len = static_cast<uint8_t>(segment_->name().size());
  h.pid = pid_;
  h.boot_id = host_.boot_id;
  h.ipc_ns = host_.ipc_ns;
  h.net_ns = host_.net_ns;
  h.pid_ns = host_.pid_ns;
  address_.resize(sizeof(h) + h.name_len);
  std::memcpy(address_.data(), &h, sizeof(h));
  std::memcpy(address_.data() + sizeof(h), segment_->name().data(), h.name_len);
  last_check_ns_ = coarse_now_ns();
}

ShmIface::~ShmIface() {
  // Endpoints must be gone (they must not outlive the iface); unlink if no peer did.
  segment_->unlink_name();
}

bool ShmIface::is_reachable(std::span<const std::byte> peer_address, std::string* why) const {
  PeerAddress pa;
  if (!parse_address(peer_address, &pa, why)) return false;
  const char* reason = nullptr;
  if (pa.header.boot_id != host_.boot_id)
    reason = "shm: peer is on another host (boot id differs)";
  else if (pa.header.ipc_ns != host_.ipc_ns)
    reason = "shm: peer is in another IPC namespace";
  else if (pa.header.net_ns != host_.net_ns)
    reason = "shm: peer is in another network namespace (wake-up sockets are per namespace)";
  else if (pa.header.pid_ns != host_.pid_ns)
    reason = "shm: peer is in another PID namespace (its pid would name another process here)";
  if (reason != nullptr && why != nullptr) *why = reason;
  return reason == nullptr;
}

Result<std::unique_ptr<tl::Endpoint>> ShmIface::connect(std::span<const std::byte> peer_address) {
  std::string why;
  if (!is_reachable(peer_address, &why)) return make_error(Status::Unreachable, why);
  PeerAddress pa;
  (void)parse_address(peer_address, &pa, nullptr);
  auto peer = attach_peer(pa.name, pa.header.pid);
  if (!peer) return peer.error();
  return std::unique_ptr<tl::Endpoint>(std::make_unique<ShmEndpoint>(*this, **peer));
}

void ShmIface::set_am_handler(tl::AmId id, tl::AmHandler handler, void* arg) {
  TORUS_ASSERT(id < tl::kMaxAmId);
  handlers_[id] = Handler{handler, arg};
}

void ShmIface::set_error_handler(tl::ErrorHandler handler, void* arg) {
  error_handler_ = handler;
  error_arg_ = arg;
}

Result<std::unique_ptr<tl::MemRegion>> ShmIface::mem_register(void* addr, size_t length,
                                                              uint32_t access) {
  if ((addr == nullptr && length != 0) ||
      (access & ~(tl::kAccessRead | tl::kAccessWrite | tl::kAccessAtomic)) != 0)
    return make_error(Status::InvalidParam, "shm mem_register: bad address or access bits");
  auto key = regions_.add(reinterpret_cast<uintptr_t>(addr), length, access);
  if (!key) return key.error();
  return std::unique_ptr<tl::MemRegion>(
      std::make_unique<ShmMemRegion>(regions_, addr, length, *key));
}

void ShmIface::wake(const Peer& peer) const noexcept {
  // EAGAIN: a wake-up is already queued; ECONNREFUSED: the peer is gone (its pidfd says so).
  const char byte = 0;
  (void)::sendto(wake_fd_.get(), &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL,
                 reinterpret_cast<const sockaddr*>(&peer.wake_addr), peer.wake_len);
}

unsigned ShmIface::progress() {
  unsigned n = 0;
  if (armed_) {
    // We may have slept: eat the wake-up datagram and look at the pidfds now.
    armed_ = false;
    rings_.disarm();
    check_events();
  }
  n += poll_fifo();
  if (bounce_.busy()) n += bounce_.pump();
  if (coop_.busy()) n += coop_.poll();
  if (((++ticks_) & kTickMask) == 0) {
    const int64_t now = coarse_now_ns();
    if (now - last_check_ns_ >= kCheckEveryNs) {
      last_check_ns_ = now;
      check_events();
    }
  }
  if (!done_.empty() || !errors_.empty()) n += run_deferred();
  return n;
}

Status ShmIface::arm() {
  // A cooperative get in flight waits on the peer's copy, which sends no wake-up.
  if (bounce_.busy() || coop_.busy() || !done_.empty() || !errors_.empty())
    return Status::NoResource;
  if (!rings_.arm()) return Status::NoResource;
  armed_ = true;
  return Status::Ok;
}

// Asks for the message's other lines as soon as its first is seen: they sit in the
// producer's cache, and the handler's tag matching would otherwise run before the first load
// of them, one cross-core fetch after the other. Harmless on a malformed cell: a prefetch of a
// line within the segment never faults.
void ShmIface::prefetch_payload(const FifoReader& ring, const Cell& cell, uint32_t length,
                                uint8_t flags) noexcept {
  if (flags == 0) {
    if (length <= kLine0Inline) return;
    const auto* base = reinterpret_cast<const char*>(&cell);
    for (size_t off = kCacheLine; off < kCellHeader + length && off < kCellSize; off += kCacheLine)
      prefetch_line(base + off);
  } else if (flags == kCellBcopy) {
    // The first lines only: the hardware's stream prefetch follows the copy's own loads.
    const char* seg = reinterpret_cast<const char*>(ring.segment_of_head());
    const size_t bytes = length < kBcopyPrefetch ? length : kBcopyPrefetch;
    const char* first = seg + (cell.seg_offset & (kCacheLine - 1));
    for (size_t off = 0; off < bytes; off += kCacheLine) prefetch_line(first + off);
  }
}

// Lanes first: while peers have lanes, the shared ring carries only the others' messages.
unsigned ShmIface::poll_fifo() {
  unsigned n = 0;
  for (uint32_t i = 0, used = rings_.used(); i < used; ++i) n += poll_ring(rings_.lane(i));
  return n + poll_ring(rings_.shared());
}

unsigned ShmIface::poll_ring(FifoReader& ring) {
  unsigned n = 0;
  for (; n < kMaxBatch; ++n) {
    const Cell* cell = ring.peek();
    if (cell == nullptr) {
      // A ring no message used yet (the shared one while every peer has a lane) is not
      // where the next message will be.
      if (!placement_.near() && ring.head() != 0) ring.prefetch_head();
      break;
    }
    // Read the header once: a misbehaving peer could change it while we look.
    const uint32_t length = cell->length;
    const uint8_t id = cell->am_id;
    const uint8_t flags = cell->flags;
    prefetch_payload(ring, *cell, length, flags);
    ring.note_segment_span(flags == 0 ? 0 : length + (cell->seg_offset & (kCacheLine - 1)));
    if (flags == 0 && length <= kMaxInline && id < tl::kMaxAmId && banned_.empty())
      deliver(id, cell->data, length);
    else
      dispatch_slow(ring, *cell);
    ring.release();
  }
  if (n != 0) ring.publish_released();
  return n;
}

void ShmIface::deliver(uint8_t id, const void* data, size_t length) {
  const Handler& h = handlers_[id];
  if (h.fn != nullptr) {
    h.fn(h.arg, data, length);
    return;
  }
  if ((warned_ids_ & (1u << id)) == 0) {
    warned_ids_ |= 1u << id;
    TORUS_WARN("shm %s: active message id %u has no handler; dropped (logged once per id)",
               name().c_str(), id);
  }
}

void ShmIface::dispatch_slow(const FifoReader& ring, const Cell& cell) {
  const uint32_t length = cell.length;
  const uint8_t id = cell.am_id;
  const uint8_t flags = cell.flags;
  const int32_t sender = cell.sender;
  if (std::find(banned_.begin(), banned_.end(), sender) != banned_.end()) return;
  const uint32_t seg_size = segment_->geometry().seg_size;
  if (flags == 0) {
    if (length > kMaxInline) return malformed(sender, "inline length too large");
    if (id >= tl::kMaxAmId) return malformed(sender, "active message id out of range");
    return deliver(id, cell.data, length);
  }
  if (flags == kCellBcopy) {
    const uint32_t offset = cell.seg_offset;
    if (offset >= kCacheLine) return malformed(sender, "bcopy offset beyond a line");
    if (length > seg_size - offset) return malformed(sender, "bcopy length exceeds the segment");
    if (id >= tl::kMaxAmId) return malformed(sender, "active message id out of range");
    if (length >= seg_size / 2 && copy_out_.sample_next()) [[unlikely]]
      return deliver_timed(id, ring.segment_of_head() + offset, length);
    return deliver(id, ring.segment_of_head() + offset, length);
  }
  if (flags == (kCellBcopy | kCellInternal)) {
    if (length > seg_size) return malformed(sender, "internal length exceeds the segment");
    if (!bounce_.on_message(id, ring.segment_of_head(), length, sender))
      return malformed(sender, "bad bounce message");
    return;
  }
  malformed(sender, "unknown cell flags");
}

// A whole segment's delivery, timed: the handler copies it out (shm_rates.h). The steady
// clock's cost (20-70 ns in VMs) is small beside a segment's copy, and one in
// CopyOutRate::kSampleEvery pays it.
void ShmIface::deliver_timed(uint8_t id, const void* data, size_t length) {
  const auto t0 = std::chrono::steady_clock::now();
  deliver(id, data, length);
  const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - t0;
  if (copy_out_.record(static_cast<double>(length), took.count())) update_eager_cost();
}

// Eager's bandwidth for the cost model: the placement's class, or the measured copy-out
// rate where that is lower.
void ShmIface::update_eager_cost() noexcept {
  double bps = placement_.bandwidth_Bps();
  if (copy_out_.Bps() > 0) bps = std::min(bps, copy_out_.Bps());
  if (bps == attr_.am_cost.bandwidth_Bps) return;
  attr_.am_cost.bandwidth_Bps = bps;
  ++attr_.cost_epoch;
  TORUS_DEBUG("shm: eager bandwidth %.1f GB/s (cores %s, copy-out %.1f GB/s)", bps / 1e9,
              placement_.near() ? "near" : "far", copy_out_.Bps() / 1e9);
}

void ShmIface::malformed(int32_t sender, const char* what) {
  if (std::find(banned_.begin(), banned_.end(), sender) != banned_.end()) return;
  banned_.push_back(sender);
  TORUS_ERROR("shm %s: malformed message from pid %d (%s); dropping that peer and discarding "
              "its messages",
              name().c_str(), static_cast<int>(sender), what);
  std::vector<Peer*> victims;
  for (auto& [peer_name, peer] : peers_)
    if (peer->pid == sender) victims.push_back(peer.get());
  for (Peer* p : victims) drop_peer(*p, Status::ProtocolError);
}

unsigned ShmIface::run_deferred() {
  unsigned n = 0;
  // Callbacks may start operations or destroy endpoints: work on swapped-out lists.
  while (!done_.empty() || !errors_.empty()) {
    std::vector<std::pair<tl::Completion*, Status>> done;
    done.swap(done_);
    for (auto& [comp, status] : done) {
      comp->func(comp, status);
      ++n;
    }
    // A dead peer's last messages may still sit in our ring: deliver them before its
    // failure, so data it sent before exiting is never lost. Live peers could keep the ring
    // busy forever, hence the bound.
    if (rings_.any_published() && ++error_delay_ < kMaxErrorDelay) break;
    error_delay_ = 0;
    std::vector<std::pair<ShmEndpoint*, Status>> errors;
    errors.swap(errors_);
    for (auto& [ep, status] : errors) {
      if (!endpoint_alive(ep) || error_handler_ == nullptr) continue;
      error_handler_(error_arg_, ep, status);
      ++n;
    }
  }
  return n;
}

void ShmIface::line_timed(uint64_t ticks) noexcept {
  if (!placement_.record_ticks(ticks)) return;
  TORUS_DEBUG("shm: %u of the last %u lines from the consumer's core took over %.0f ns: the "
              "cores look %s",
              placement_.slow_loads(), Placement::kWindow, Placement::kSlowNs,
              placement_.near() ? "near" : "far");
  update_eager_cost();
}

}  // namespace torus::shm
