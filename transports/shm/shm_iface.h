// The shm iface: owns its segment (FIFO, eager segments, region table), the wake-up socket
// and the epoll set behind event_fd(), the peers it attached, and the bounce engine.
// Implemented in shm_iface.cpp (setup, address, data path) and shm_peer.cpp (attachment,
// liveness, failure).
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "transports/shm/shm_bounce.h"
#include "transports/shm/shm_cma.h"
#include "transports/shm/shm_coop.h"
#include "transports/shm/shm_fifo.h"
#include "transports/shm/shm_lanes.h"
#include "transports/shm/shm_peer.h"
#include "transports/shm/shm_placement.h"
#include "transports/shm/shm_rates.h"
#include "transports/shm/shm_region.h"
#include "transports/shm/shm_segment.h"
#include "transports/transport.h"

namespace torus::shm {

class ShmEndpoint;

// The iface's knobs, from TORUS_SHM_* (shm_transport.cpp reads them).
struct Settings {
  CmaMode cma = CmaMode::Auto;
  bool cma_stage = false;           // TORUS_SHM_CMA_STAGE, "auto" resolved
  uint64_t fifo_size = 256;         // TORUS_SHM_FIFO_SIZE
  uint64_t seg_size = 8192;         // TORUS_SHM_SEG_SIZE
  uint64_t bounce_size = 256 << 10; // TORUS_SHM_BOUNCE_SIZE
  uint64_t coop_thresh = 2 << 20;   // TORUS_SHM_COOP_THRESH (0: never)
  uint64_t coop_adaptive = UINT64_MAX;  // TORUS_SHM_COOP_ADAPTIVE (inf: never)
  static constexpr uint64_t kAuto = UINT64_MAX;
  uint64_t lanes = kAuto;      // TORUS_SHM_LANES
  uint64_t lane_size = kAuto;  // TORUS_SHM_LANE_SIZE
};
// "auto" lanes: one per expected peer up to kAutoLanes (kAutoLanes when the number of peers
// is unknown), together at most kAutoLaneBudget FIFOs' worth of cells, each at most the
// FIFO's size. Two ranks' bidirectional bandwidth at 8-16 KiB was 3 % lower on a 64-cell
// lane than on 256 cells; eight full-size lanes would cost 17 MiB a process.
inline constexpr uint64_t kAutoLanes = 8;
inline constexpr uint64_t kAutoLaneBudget = 2;

// A parsed peer address.
struct PeerAddress {
  AddressHeader header{};
  std::string name;
};
bool parse_address(std::span<const std::byte> bytes, PeerAddress* out, std::string* why);

class ShmIface final : public tl::Iface {
 public:
  static Result<std::unique_ptr<ShmIface>> open(const tl::IfaceParams& params,
                                                const Settings& settings);

  struct Parts {
    Settings settings;
    HostIdentity host;
    std::unique_ptr<Segment> segment;
    Fd wake_fd;
    Fd epoll_fd;
    bool oversubscribed = false;  // more local processes expected than cores online
  };
  explicit ShmIface(Parts parts);
  ~ShmIface() override;
  ShmIface(const ShmIface&) = delete;
  ShmIface& operator=(const ShmIface&) = delete;

  const tl::IfaceAttr& attributes() const override { return attr_; }
  std::span<const std::byte> address() const override { return address_; }
  bool is_reachable(std::span<const std::byte> peer_address, std::string* why) const override;
  Result<std::unique_ptr<tl::Endpoint>> connect(std::span<const std::byte> peer_address) override;
  void set_am_handler(tl::AmId id, tl::AmHandler handler, void* arg) override;
  void set_error_handler(tl::ErrorHandler handler, void* arg) override;
  unsigned progress() override;
  int event_fd() const override { return epoll_fd_.get(); }
  [[nodiscard]] Status arm() override;
  Result<std::unique_ptr<tl::MemRegion>> mem_register(void* addr, size_t length,
                                                      uint32_t access) override;

  // For endpoints and the bounce engine.
  const Settings& settings() const noexcept { return settings_; }
  const std::string& name() const noexcept { return segment_->name(); }
  pid_t pid() const noexcept { return pid_; }
  const RegionTable& regions() const noexcept { return regions_; }
  Bounce& bounce() noexcept { return bounce_; }
  Coop& coop() noexcept { return coop_; }
  void wake(const Peer& peer) const noexcept;
  Result<Peer*> attach_peer(const std::string& name, pid_t pid);
  void defer_completion(tl::Completion* comp, Status status) { done_.emplace_back(comp, status); }
  void add_endpoint(ShmEndpoint* ep) { endpoints_.push_back(ep); }
  // The cores' placement, sampled in eager sends (shm_placement.h): a change of class
  // revises am_cost and moves attributes().cost_epoch on.
  bool sample_placement() noexcept { return placement_.sample_next(); }
  bool cores_near() const noexcept { return placement_.near(); }
  double copy_out_Bps() const noexcept { return copy_out_.Bps(); }  // 0 until measured
  uint32_t progress_calls() const noexcept { return ticks_; }
  void line_timed(uint64_t ticks) noexcept;
  void remove_endpoint(ShmEndpoint* ep) noexcept;

 private:
  struct Handler {
    tl::AmHandler fn = nullptr;
    void* arg = nullptr;
  };

  unsigned poll_fifo();
  unsigned poll_ring(FifoReader& ring);
  void prefetch_payload(const FifoReader& ring, const Cell& cell, uint32_t length,
                        uint8_t flags) noexcept;
  void dispatch_slow(const FifoReader& ring, const Cell& cell);
  void malformed(int32_t sender, const char* what);
  void deliver(uint8_t id, const void* data, size_t length);
  void deliver_timed(uint8_t id, const void* data, size_t length);
  void update_eager_cost() noexcept;
  unsigned run_deferred();
  // shm_peer.cpp
  void check_events();
  void drain_wake_socket() noexcept;
  void watch_without_pidfd();
  void drop_peer(Peer& peer, Status why);
  void fail_endpoint(ShmEndpoint& ep, Status status);
  bool endpoint_alive(const ShmEndpoint* ep) const noexcept;

  Settings settings_;
  HostIdentity host_;
  pid_t pid_;
  std::unique_ptr<Segment> segment_;
  ConsumerRings rings_;
  Fd wake_fd_;
  Fd epoll_fd_;
  Fd timer_fd_;  // only without pidfds: wakes a sleeper every 100 ms to probe peers' pids
  tl::IfaceAttr attr_;
  std::vector<std::byte> address_;
  std::array<Handler, tl::kMaxAmId> handlers_{};
  tl::ErrorHandler error_handler_ = nullptr;
  void* error_arg_ = nullptr;
  RegionTable regions_;
  Bounce bounce_;
  Coop coop_;
  Placement placement_;
  CopyOutRate copy_out_;

  std::map<std::string, std::unique_ptr<Peer>, std::less<>> peers_;
  std::vector<std::unique_ptr<Peer>> dead_peers_;  // still referenced by failed endpoints
  std::vector<ShmEndpoint*> endpoints_;
  std::vector<int32_t> banned_;  // pids whose messages are discarded (sent a malformed one)
  std::vector<std::pair<tl::Completion*, Status>> done_;
  std::vector<std::pair<ShmEndpoint*, Status>> errors_;

  bool armed_ = false;       // arm() ran: the next progress() looks at the socket and pidfds
  uint32_t ticks_ = 0;       // progress calls, to look at pidfds about every millisecond
  unsigned error_delay_ = 0;  // progress calls an endpoint failure waited for the ring
  static constexpr unsigned kMaxErrorDelay = 1024;
  int64_t last_check_ns_ = 0;
  uint32_t warned_ids_ = 0;  // AM ids already reported as having no handler
};

}  // namespace torus::shm
