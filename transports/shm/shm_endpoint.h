// The shm endpoint: active messages straight into the peer's FIFO, get/put by CMA (or the
// bounce protocol), and the state the iface keeps per endpoint for flush and failure.
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <utility>
#include <vector>

#include "transports/shm/shm_fifo.h"
#include "transports/shm/shm_peer.h"
#include "transports/transport.h"

namespace torus::shm {

class ShmIface;

class ShmEndpoint final : public tl::Endpoint {
 public:
  ShmEndpoint(ShmIface& iface, Peer& peer);
  ~ShmEndpoint() override;
  ShmEndpoint(const ShmEndpoint&) = delete;
  ShmEndpoint& operator=(const ShmEndpoint&) = delete;

  [[nodiscard]] Status am_short(tl::AmId id, std::span<const std::byte> header,
                                std::span<const std::byte> payload) override;
  [[nodiscard]] Status am_bcopy(tl::AmId id, tl::PackFn pack, void* arg) override {
    return am_bcopy_aligned(id, pack, arg, 0);
  }
  // Places the frame at the hinted alignment within the cell's segment (Cell::seg_offset).
  [[nodiscard]] Status am_bcopy_aligned(tl::AmId id, tl::PackFn pack, void* arg,
                                        uintptr_t align) override;
  [[nodiscard]] Status get_zcopy(std::span<std::byte> local, uint64_t remote_addr,
                                 std::span<const std::byte> rkey,
                                 tl::Completion* comp) override;
  [[nodiscard]] Status put_zcopy(std::span<const std::byte> local, uint64_t remote_addr,
                                 std::span<const std::byte> rkey,
                                 tl::Completion* comp) override;
  [[nodiscard]] Status flush(tl::Completion* comp) override;

  Peer& peer() const noexcept { return *peer_; }
  Status failure() const noexcept { return failed_; }

 private:
  friend class Bounce;
  friend class Coop;
  friend class ShmIface;

  Status rma(bool is_get, std::byte* local, size_t length, uint64_t remote_addr,
             std::span<const std::byte> rkey, tl::Completion* comp);
  // Maps a CMA errno to a status; in auto mode EPERM/ENOSYS switch this endpoint to bounce
  // (returns Ok then, meaning "retry by bounce").
  Status cma_failed(int err, const char* call);
  // Bounce bookkeeping after an operation ended.
  void op_done(uint64_t id);
  void prefetch_burst(uint32_t pos, size_t length) noexcept;

  // Cells a burst asks for ahead of its stores: with 4, mpi_bw between far vCPUs went
  // 1.6-1.8x at 1-32 B and 1.4x at 64 B; 8 did no better.
  static constexpr uint32_t kBurstPrefetchCells = 4;

  ShmIface& iface_;
  Peer* peer_;
  FifoWriter fifo_;  // a copy: saves a pointer hop on the fast path
  Status failed_ = Status::Ok;
  // The iface's progress count at this endpoint's last short send (prefetch_burst).
  uint32_t last_send_progress_ = ~0u;
  bool use_cma_;
  bool cma_proven_ = false;      // a CMA copy to this peer worked: cooperative gets may run
  bool active_ = false;          // in Bounce's send list
  bool error_reported_ = false;  // the ErrorHandler ran (or is queued)
  // Bounce state: operations not yet fully sent, in issue order; unanswered bytes; live ops.
  std::deque<uint64_t> to_send_;
  size_t window_used_ = 0;
  std::set<uint64_t> inflight_;
  std::vector<std::pair<uint64_t, tl::Completion*>> flushes_;  // (last op id covered, comp)
};

}  // namespace torus::shm
