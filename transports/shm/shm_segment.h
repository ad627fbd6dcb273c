// The POSIX shared-memory segment behind one iface: its name, geometry, creation by the owner,
// attachment by peers, unlinking once, and the host identity that decides reachability.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "transports/host_identity.h"
#include "transports/shm/shm_fifo.h"
#include "transports/shm/shm_wire.h"

namespace torus::shm {

// Offsets of the parts of a segment; a pure function of (fifo_size, seg_size), so an attacher
// recomputes it instead of trusting offsets written by someone else.
struct Geometry {
  uint32_t fifo_size = 0;
  uint32_t seg_size = 0;  // each cell's segment: the setting plus kSegSlack, a whole line
  uint32_t region_slots = kRegionSlots;
  uint32_t lanes = 0;
  uint32_t lane_size = 0;
  size_t cells_offset = 0;
  size_t segs_offset = 0;
  // Lane i: its LaneHeader at lanes_offset + i * lane_stride, cells and segments after it.
  size_t lanes_offset = 0;
  size_t lane_stride = 0;
  size_t lane_cells_offset = 0;  // within a lane
  size_t lane_segs_offset = 0;   // within a lane
  size_t regions_offset = 0;
  size_t total_size = 0;
};
// Fails with a message naming TORUS_SHM_FIFO_SIZE / TORUS_SHM_SEG_SIZE / TORUS_SHM_LANES /
// TORUS_SHM_LANE_SIZE and what they accept.
Result<Geometry> make_geometry(uint64_t fifo_size, uint64_t seg_size, uint64_t lanes = 0,
                               uint64_t lane_size = 0);

using tl::HostIdentity;
using tl::host_identity;

// The job id as it appears in names: [A-Za-z0-9_.] kept, others become '_', cut to
// kMaxJobLen; empty becomes "p<pid>".
std::string job_name_part(std::string_view job_id);
// "/torus-<job>-<uid as 16 hex>-<n>".
std::string segment_name(std::string_view job_part, uint64_t worker_uid, unsigned n);
// A name this transport could have produced: "/torus-" then printable name characters only.
bool is_valid_segment_name(std::string_view name) noexcept;

class Segment final {
 public:
  // Owner: creates "/torus-<job>-<uid>-<n>" for the first free n >= first_n (O_CREAT|O_EXCL,
  // 0600), sizes, maps and formats it.
  static Result<std::unique_ptr<Segment>> create(std::string_view job_part, uint64_t worker_uid,
                                                 const Geometry& geo, int expected_peers,
                                                 unsigned first_n = 0);
  // Peer: maps an existing segment after checking magic, version, owner pid and geometry.
  static Result<std::unique_ptr<Segment>> attach(const std::string& name, pid_t owner_pid);

  struct Mapping {
    std::string name;
    std::byte* base = nullptr;
    Geometry geo;
    unsigned index = 0;  // the <n> of the name
  };
  explicit Segment(Mapping m) noexcept : m_(std::move(m)) {}
  ~Segment();
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  const std::string& name() const noexcept { return m_.name; }
  unsigned index() const noexcept { return m_.index; }
  const Geometry& geometry() const noexcept { return m_.geo; }
  SegmentHeader* header() const noexcept { return reinterpret_cast<SegmentHeader*>(m_.base); }
  Cell* cells() const noexcept { return reinterpret_cast<Cell*>(m_.base + m_.geo.cells_offset); }
  std::byte* segs() const noexcept { return m_.base + m_.geo.segs_offset; }
  CoopSlot* coop_slots() const noexcept {
    return reinterpret_cast<CoopSlot*>(m_.base + kCoopOffset);
  }
  // The shared ring (lane < 0) or lane `lane` (< geometry().lanes).
  RingView ring(int lane = -1) const noexcept;
  LaneHeader* lane_header(uint32_t lane) const noexcept {
    return reinterpret_cast<LaneHeader*>(m_.base + m_.geo.lanes_offset +
                                         lane * m_.geo.lane_stride);
  }
  RegionSlot* regions() const noexcept {
    return reinterpret_cast<RegionSlot*>(m_.base + m_.geo.regions_offset);
  }

  // Removes the name unless someone (owner or a peer) already did. Never removes a name that
  // a later segment reused, because the flag lives in this segment.
  void unlink_name() noexcept;

 private:
  Mapping m_;
};

// Removes every "/dev/shm/torus-<job>-<16 hex>-<n>" of this job id; returns how many.
size_t remove_segments_of_job(std::string_view job_id);

// Removes the segments in `dir` that a process of our pid namespace left when it was killed
// or exited without closing its iface: our user's, formatted by this version, owner pid gone.
// Live owners, other namespaces and other users keep theirs. Returns how many it removed.
size_t remove_dead_segments(const char* dir = "/dev/shm");

}  // namespace torus::shm
