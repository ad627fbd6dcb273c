// The endpoint's data path: am_short/am_bcopy into the peer's FIFO, get/put by CMA after an
// rkey check against the peer's region table, falling back to the bounce protocol.
#include "transports/shm/shm_endpoint.h"

#include <cstring>

#include "core/base/log.h"
#include "transports/shm/shm_iface.h"
#include "transports/shm/shm_region.h"

namespace torus::shm {
namespace {

// Bytes [from, to) of header followed by payload, to the same offsets of dst.
void copy_span_range(std::byte* dst, std::span<const std::byte> header,
                     std::span<const std::byte> payload, size_t from, size_t to) {
  const size_t h = header.size();
  if (from < h) {
    const size_t end = to < h ? to : h;
    std::memcpy(dst + from, header.data() + from, end - from);
    from = end;
  }
  if (from < to) std::memcpy(dst + from, payload.data() + (from - h), to - from);
}

}  // namespace

ShmEndpoint::ShmEndpoint(ShmIface& iface, Peer& peer)
    : iface_(iface), peer_(&peer), fifo_(peer.fifo),
      use_cma_(iface.settings().cma != CmaMode::No) {
  peer.endpoints.push_back(this);
  iface.add_endpoint(this);
}

ShmEndpoint::~ShmEndpoint() {
  iface_.bounce().forget_endpoint(*this);
  iface_.coop().forget_endpoint(*this);
  for (auto& [barrier, comp] : flushes_) comp->func(comp, Status::Canceled);
  iface_.remove_endpoint(this);
}

// A send that follows this endpoint's previous send with no progress call between them is
// part of a burst (a window of Isends, a bandwidth loop): the next cells will be written soon,
// so their lines are asked for now, and the stores into them find the lines owned instead of
// each waiting for its own transfer from the consumer's core. A send after progress (a
// ping-pong's answer) asks for nothing: the consumer may be polling those lines.
void ShmEndpoint::prefetch_burst(uint32_t pos, size_t length) noexcept {
  const uint32_t calls = iface_.progress_calls();
  if (calls == last_send_progress_) {
    const auto lines = static_cast<uint32_t>((kCellHeader + length + kCacheLine - 1) / kCacheLine);
    fifo_.prefetch_ahead(pos, kBurstPrefetchCells, lines);
  }
  last_send_progress_ = calls;
}

Status ShmEndpoint::am_short(tl::AmId id, std::span<const std::byte> header,
                             std::span<const std::byte> payload) {
  const size_t length = header.size() + payload.size();
  if (failed_ != Status::Ok) [[unlikely]]
    return failed_;
  if (length > kMaxInline || id >= tl::kMaxAmId) [[unlikely]]
    return Status::InvalidParam;
  FifoWriter::Slot slot;
  if (!fifo_.claim(slot)) return Status::NoResource;
  // Short messages time the line too: a process that only answers (a receiver's acks, a
  // rendezvous initiator) learns the placement its gets are shared by (shm_coop.cpp).
  if (iface_.sample_placement()) [[unlikely]] {
    if (const uint64_t ticks = fifo_.time_released_line()) iface_.line_timed(ticks);
  }
  prefetch_burst(slot.pos, length);
  // The bytes past line 0 first, then line 0's and the sequence word together: the consumer
  // polls line 0, and every store into it while it polls costs the line a round trip.
  std::byte* dst = slot.cell->data;
  if (length > kLine0Inline) copy_span_range(dst, header, payload, kLine0Inline, length);
  copy_span_range(dst, header, payload, 0, length < kLine0Inline ? length : kLine0Inline);
  if (fifo_.publish(slot, id, 0, static_cast<uint32_t>(length))) iface_.wake(*peer_);
  return Status::Ok;
}

Status ShmEndpoint::am_bcopy_aligned(tl::AmId id, tl::PackFn pack, void* arg,
                                     uintptr_t align) {
  if (failed_ != Status::Ok) [[unlikely]]
    return failed_;
  if (id >= tl::kMaxAmId) [[unlikely]]
    return Status::InvalidParam;
  FifoWriter::Slot slot;
  if (!fifo_.claim(slot)) return Status::NoResource;
  // The cell is claimed: it must be published whatever pack does, or the ring stalls.
  if (iface_.sample_placement()) [[unlikely]] {
    if (const uint64_t ticks = fifo_.time_released_line()) iface_.line_timed(ticks);
  }
  // The frame starts where the source lines up with it modulo a line, so the copy in (and,
  // for a receive buffer aligned as the send buffer, the copy out) never takes the CPU's
  // slow aliased path: a page-aligned send buffer lands a few bytes past a page-aligned
  // slot otherwise, and on a far core the vector loop that path takes (copy.h) spends a
  // round trip per line where `rep movsb` writes whole lines without fetching them
  // (8000 B ping-pong between far vCPUs: 2.4 against 1.0 us one way).
  // max_bcopy leaves a line of the segment for this.
  const size_t offset = (align - reinterpret_cast<uintptr_t>(slot.seg)) & (kCacheLine - 1);
  const size_t written = pack(slot.seg + offset, arg);
  TORUS_ASSERT(written + kCacheLine <= fifo_.seg_size());
  if (fifo_.publish(slot, id, kCellBcopy, static_cast<uint32_t>(written),
                    static_cast<uint16_t>(offset)))
    iface_.wake(*peer_);
  return Status::Ok;
}

Status ShmEndpoint::get_zcopy(std::span<std::byte> local, uint64_t remote_addr,
                              std::span<const std::byte> rkey, tl::Completion* comp) {
  return rma(true, local.data(), local.size(), remote_addr, rkey, comp);
}

Status ShmEndpoint::put_zcopy(std::span<const std::byte> local, uint64_t remote_addr,
                              std::span<const std::byte> rkey, tl::Completion* comp) {
  // Bounce only reads from `local` on a put.
  return rma(false, const_cast<std::byte*>(local.data()), local.size(), remote_addr, rkey, comp);
}

Status ShmEndpoint::rma(bool is_get, std::byte* local, size_t length, uint64_t remote_addr,
                        std::span<const std::byte> rkey, tl::Completion* comp) {
  if (failed_ != Status::Ok) return failed_;
  PackedRkey key;
  if (const Status u = unpack_rkey(rkey, &key); u != Status::Ok) return u;
  const uint32_t right = is_get ? tl::kAccessRead : tl::kAccessWrite;
  // Checked here for both paths, so a refused key moves no byte even by bounce; the target
  // checks again against its private table before it touches memory.
  const Status s =
      check_remote_rkey(peer_->regions, peer_->region_slots, key, remote_addr, length, right);
  if (s != Status::Ok) return s;
  if (length == 0) return Status::Ok;
  if (use_cma_) {
    // Only once CMA is known to work with this peer: a refusal half-way through a shared
    // get could not fall back to bounce.
    if (is_get && cma_proven_ && iface_.coop().wanted(length)) {
      const Status c = iface_.coop().get(*this, local, length, remote_addr, key, comp);
      if (c != Status::NoResource) return c;
    }
    const bool stage = iface_.settings().cma_stage;
    const int err = is_get ? cma_read(peer_->pid, {local, length}, remote_addr, stage)
                           : cma_write(peer_->pid, {local, length}, remote_addr, stage);
    if (err == 0) {
      cma_proven_ = true;
      return Status::Ok;
    }
    const Status st = cma_failed(err, is_get ? "process_vm_readv" : "process_vm_writev");
    if (st != Status::Ok) return st;
  }
  if (comp == nullptr) return Status::InvalidParam;  // bounce completes later
  return iface_.bounce().start(*this, is_get, local, length, remote_addr, key, comp);
}

Status ShmEndpoint::cma_failed(int err, const char* call) {
  if (cma_unavailable(err) && iface_.settings().cma == CmaMode::Auto) {
    use_cma_ = false;
    TORUS_INFO("shm %s: %s on pid %d: %s; this endpoint now copies get/put through shared "
               "memory (TORUS_SHM_CMA=n skips the attempt)",
               iface_.name().c_str(), call, static_cast<int>(peer_->pid), std::strerror(err));
    return Status::Ok;
  }
  if (err == ESRCH) return Status::ConnectionReset;  // the pidfd reports it from progress()
  if (cma_unavailable(err)) {
    TORUS_ERROR("shm %s: %s on pid %d: %s, and TORUS_SHM_CMA=y forbids the fallback (set "
                "TORUS_SHM_CMA=auto, or allow ptrace: kernel.yama.ptrace_scope)",
                iface_.name().c_str(), call, static_cast<int>(peer_->pid), std::strerror(err));
    return Status::Unsupported;
  }
  TORUS_WARN("shm %s: %s on pid %d: %s", iface_.name().c_str(), call,
             static_cast<int>(peer_->pid), std::strerror(err));
  return Status::IoError;
}

Status ShmEndpoint::flush(tl::Completion* comp) {
  if (failed_ != Status::Ok) return failed_;
  if (inflight_.empty()) return Status::Ok;
  if (comp == nullptr) return Status::InvalidParam;
  flushes_.emplace_back(*inflight_.rbegin(), comp);
  return Status::InProgress;
}

void ShmEndpoint::op_done(uint64_t id) {
  inflight_.erase(id);
  size_t n = 0;
  while (n < flushes_.size() && (inflight_.empty() || *inflight_.begin() > flushes_[n].first))
    iface_.defer_completion(flushes_[n++].second, Status::Ok);
  flushes_.erase(flushes_.begin(), flushes_.begin() + static_cast<ptrdiff_t>(n));
}

}  // namespace torus::shm
