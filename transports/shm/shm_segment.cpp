// Creating, attaching and unlinking the POSIX shm segment; naming.
#include "transports/shm/shm_segment.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>

#include "core/base/log.h"
#include "core/base/pid_namespace.h"
#include "transports/shm/shm_fifo.h"

namespace torus::shm {
namespace {

constexpr size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

bool ring_size_ok(uint64_t n) {
  return n >= kMinFifoSize && n <= kMaxFifoSize && (n & (n - 1)) == 0;
}

std::string errno_text(const char* what, const std::string& name, int err) {
  return std::string(what) + "(" + name + "): " + std::strerror(err);
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '-';
}

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// After "torus-<job>-": exactly 16 lowercase hex digits, '-', one or more decimal digits.
bool is_uid_and_index(std::string_view rest) {
  if (rest.size() < 18 || rest[16] != '-') return false;
  for (size_t i = 0; i < 16; ++i)
    if (!is_hex(rest[i])) return false;
  for (size_t i = 17; i < rest.size(); ++i)
    if (rest[i] < '0' || rest[i] > '9') return false;
  return true;
}

}  // namespace

Result<Geometry> make_geometry(uint64_t fifo_size, uint64_t seg_size, uint64_t lanes,
                               uint64_t lane_size) {
  if (!ring_size_ok(fifo_size))
    return make_error(Status::InvalidParam,
                      "TORUS_SHM_FIFO_SIZE=" + std::to_string(fifo_size) +
                          " is invalid: it must be a power of two from " +
                          std::to_string(kMinFifoSize) + " to " + std::to_string(kMaxFifoSize));
  if (seg_size < kMinSegSize || seg_size > kMaxSegSize)
    return make_error(Status::InvalidParam,
                      "TORUS_SHM_SEG_SIZE=" + std::to_string(seg_size) +
                          " is invalid: it must be from " + std::to_string(kMinSegSize) +
                          " bytes to " + std::to_string(kMaxSegSize >> 20) + "m");
  if (lanes > kMaxLanes)
    return make_error(Status::InvalidParam, "TORUS_SHM_LANES=" + std::to_string(lanes) +
                                                " is invalid: it must be from 0 to " +
                                                std::to_string(kMaxLanes));
  if (lanes > 0 && !ring_size_ok(lane_size))
    return make_error(Status::InvalidParam,
                      "TORUS_SHM_LANE_SIZE=" + std::to_string(lane_size) +
                          " is invalid: it must be a power of two from " +
                          std::to_string(kMinFifoSize) + " to " + std::to_string(kMaxFifoSize));
  Geometry g;
  g.fifo_size = static_cast<uint32_t>(fifo_size);
  g.lanes = static_cast<uint32_t>(lanes);
  g.lane_size = lanes > 0 ? static_cast<uint32_t>(lane_size) : 0;
  // Segments start on cache lines so a chunk copy never shares a line with a neighbour's.
  g.seg_size = static_cast<uint32_t>(round_up(seg_size + kSegSlack, kCacheLine));
  g.region_slots = kRegionSlots;
  g.cells_offset = kPage;
  g.segs_offset = round_up(g.cells_offset + g.fifo_size * kCellSize, kPage);
  g.lanes_offset = round_up(g.segs_offset + size_t{g.fifo_size} * g.seg_size, kPage);
  g.lane_cells_offset = kPage;
  g.lane_segs_offset = round_up(g.lane_cells_offset + size_t{g.lane_size} * kCellSize, kPage);
  g.lane_stride = round_up(g.lane_segs_offset + size_t{g.lane_size} * g.seg_size, kPage);
  g.regions_offset = g.lanes_offset + size_t{g.lanes} * g.lane_stride;
  g.total_size = round_up(g.regions_offset + size_t{g.region_slots} * sizeof(RegionSlot), kPage);
  return g;
}

std::string job_name_part(std::string_view job_id) {
  std::string out;
  if (job_id.empty()) {
    out = std::to_string(::getpid());
    out.insert(out.begin(), 'p');  // not "p" + s: g++ 12 -O3 warns falsely (-Wrestrict)
    return out;
  }
  for (char c : job_id.substr(0, kMaxJobLen))
    out += (is_name_char(c) && c != '-') ? c : '_';
  return out;
}

std::string segment_name(std::string_view job_part, uint64_t worker_uid, unsigned n) {
  char tail[40];
  std::snprintf(tail, sizeof(tail), "-%016" PRIx64 "-%u", worker_uid, n);
  return "/torus-" + std::string(job_part) + tail;
}

bool is_valid_segment_name(std::string_view name) noexcept {
  if (name.size() > kMaxNameLen || name.substr(0, 7) != "/torus-") return false;
  for (char c : name.substr(1))
    if (!is_name_char(c)) return false;
  return true;
}

Result<std::unique_ptr<Segment>> Segment::create(std::string_view job_part,
                                                 uint64_t worker_uid, const Geometry& geo,
                                                 int expected_peers, unsigned first_n) {
  std::string name;
  int fd = -1;
  unsigned n = first_n;
  // n only disambiguates several ifaces of one worker; O_EXCL makes the choice race-free.
  for (; n < first_n + 4096; ++n) {
    name = segment_name(job_part, worker_uid, n);
    fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) break;
    if (errno != EEXIST)
      return make_error(Status::IoError, errno_text("shm_open", name, errno) +
                                             " (is /dev/shm mounted and writable?)");
  }
  if (fd < 0) return make_error(Status::IoError, "shm_open: no free segment name for " + name);
  if (::ftruncate(fd, static_cast<off_t>(geo.total_size)) != 0) {
    const int err = errno;
    ::close(fd);
    ::shm_unlink(name.c_str());
    return make_error(Status::NoMemory, errno_text("ftruncate", name, err) + " (" +
                                            std::to_string(geo.total_size) + " bytes)");
  }
  void* base = ::mmap(nullptr, geo.total_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);
  if (base == MAP_FAILED) {
    ::shm_unlink(name.c_str());
    return make_error(Status::NoMemory, errno_text("mmap", name, err));
  }
  auto* hdr = new (base) SegmentHeader{};
  hdr->version = kVersion;
  hdr->owner_pid = static_cast<int32_t>(::getpid());
  hdr->owner_pid_ns = pid_namespace_id();
  hdr->fifo_size = geo.fifo_size;
  hdr->seg_size = geo.seg_size;
  hdr->region_slots = geo.region_slots;
  hdr->expected_peers = expected_peers;
  hdr->total_size = geo.total_size;
  hdr->lanes = geo.lanes;
  hdr->lane_size = geo.lane_size;
  auto seg = std::make_unique<Segment>(Mapping{name, static_cast<std::byte*>(base), geo, n});
  fifo_init(seg->ring());
  for (uint32_t i = 0; i < geo.lanes; ++i) {
    new (seg->lane_header(i)) LaneHeader{};
    fifo_init(seg->ring(static_cast<int>(i)));
  }
  std::atomic_thread_fence(std::memory_order_release);
  hdr->magic = kMagic;
  if (expected_peers == 0) seg->unlink_name();
  return seg;
}

Result<std::unique_ptr<Segment>> Segment::attach(const std::string& name, pid_t owner_pid) {
  if (!is_valid_segment_name(name))
    return make_error(Status::ProtocolError, "malformed shm segment name in peer address");
  const int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    const int err = errno;
    return make_error(err == ENOENT ? Status::Unreachable : Status::IoError,
                      errno_text("shm_open", name, err) +
                          (err == ENOENT ? " (peer exited, or more peers attached than its "
                                           "expected_local_peers)"
                                         : ""));
  }
  struct stat st {};
  SegmentHeader hdr_copy{};
  bool ok = ::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= sizeof(SegmentHeader) &&
            ::pread(fd, &hdr_copy, sizeof(hdr_copy), 0) == static_cast<ssize_t>(sizeof(hdr_copy));
  if (!ok) {
    ::close(fd);
    return make_error(Status::Unreachable, "shm segment " + name + " is not initialised");
  }
  if (hdr_copy.magic != kMagic || hdr_copy.version != kVersion ||
      hdr_copy.owner_pid != owner_pid) {
    ::close(fd);
    return make_error(Status::Unreachable,
                      "shm segment " + name + " has another owner or version (pid " +
                          std::to_string(hdr_copy.owner_pid) + ", version " +
                          std::to_string(hdr_copy.version) + ")");
  }
  // The header holds the stride, which is the setting plus kSegSlack, rounded to a line.
  auto geo = hdr_copy.seg_size < kSegSlack
                 ? Result<Geometry>(make_error(Status::ProtocolError, "segment too small"))
                 : make_geometry(hdr_copy.fifo_size, hdr_copy.seg_size - kSegSlack,
                                 hdr_copy.lanes, hdr_copy.lane_size);
  if (!geo || geo->seg_size != hdr_copy.seg_size || hdr_copy.region_slots != kRegionSlots ||
      hdr_copy.total_size != geo->total_size ||
      static_cast<size_t>(st.st_size) < geo->total_size) {
    ::close(fd);
    return make_error(Status::ProtocolError, "shm segment " + name + " has a bad geometry");
  }
  void* base = ::mmap(nullptr, geo->total_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);
  if (base == MAP_FAILED) return make_error(Status::NoMemory, errno_text("mmap", name, err));
  return std::make_unique<Segment>(Mapping{name, static_cast<std::byte*>(base), *geo, 0});
}

RingView Segment::ring(int lane) const noexcept {
  if (lane < 0)
    return shared_ring(header(), cells(), segs(), m_.geo.fifo_size, m_.geo.seg_size);
  LaneHeader* h = lane_header(static_cast<uint32_t>(lane));
  std::byte* base = reinterpret_cast<std::byte*>(h);
  return RingView{&h->tail,
                  &h->released,
                  &header()->sleeping,
                  reinterpret_cast<Cell*>(base + m_.geo.lane_cells_offset),
                  base + m_.geo.lane_segs_offset,
                  m_.geo.lane_size,
                  m_.geo.seg_size};
}

Segment::~Segment() {
  if (m_.base != nullptr) ::munmap(m_.base, m_.geo.total_size);
}

void Segment::unlink_name() noexcept {
  if (header()->unlinked.exchange(1, std::memory_order_acq_rel) != 0) return;
  if (::shm_unlink(m_.name.c_str()) != 0 && errno != ENOENT)
    TORUS_WARN("shm_unlink(%s): %s", m_.name.c_str(), std::strerror(errno));
}

size_t remove_segments_of_job(std::string_view job_id) {
  if (job_id.empty()) return 0;
  const std::string prefix = "torus-" + job_name_part(job_id) + "-";
  DIR* dir = ::opendir("/dev/shm");
  if (dir == nullptr) return 0;
  size_t removed = 0;
  while (const dirent* e = ::readdir(dir)) {
    std::string_view entry(e->d_name);
    if (entry.substr(0, prefix.size()) != prefix) continue;
    if (!is_uid_and_index(entry.substr(prefix.size()))) continue;
    std::string name(entry);
    name.insert(name.begin(), '/');
    if (::shm_unlink(name.c_str()) == 0) ++removed;
  }
  ::closedir(dir);
  return removed;
}

size_t remove_dead_segments(const char* dir) {
  const uint64_t ns = pid_namespace_id();
  if (ns == 0) return 0;
  DIR* d = ::opendir(dir);
  if (d == nullptr) return 0;
  const uid_t me = ::geteuid();
  size_t removed = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view entry(e->d_name);
    // libfabric's regions ("torus-ofi-...") have their own sweep and no header of ours.
    if (entry.substr(0, 6) != "torus-" || entry.substr(0, 10) == "torus-ofi-") continue;
    const int fd = ::openat(::dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st{};
    SegmentHeader hdr{};
    // Only our own segments (another user's we could not remove), formatted by this version:
    // a name without magic yet may be one a live process is creating right now.
    const bool ours =
        ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == me &&
        static_cast<size_t>(st.st_size) >= sizeof hdr &&
        ::pread(fd, &hdr, sizeof hdr, 0) == static_cast<ssize_t>(sizeof hdr) &&
        hdr.magic == kMagic && hdr.version == kVersion;
    ::close(fd);
    if (!ours || !pid_is_gone(hdr.owner_pid_ns, hdr.owner_pid)) continue;
    if (::unlinkat(::dirfd(d), e->d_name, 0) == 0) {
      ++removed;
      TORUS_DEBUG("shm: removed %s/%s, left by pid %d", dir, e->d_name, hdr.owner_pid);
    }
  }
  ::closedir(d);
  return removed;
}

}  // namespace torus::shm
