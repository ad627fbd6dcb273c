// Cooperative get: the initiator's side (slots, its own chunks, completion) and the target's
// (claiming chunks and writing them into the initiator).
#include "transports/shm/shm_coop.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "core/base/log.h"
#include "transports/shm/shm_cma.h"
#include "transports/shm/shm_endpoint.h"
#include "transports/shm/shm_iface.h"
#include "transports/shm/shm_segment.h"

namespace torus::shm {
namespace {

constexpr uint64_t kChunkMask = 0xffffffffull;
// Chunks of at least 64 KiB keep the per-syscall cost small; about 16 of them give the target,
// which joins a few microseconds late, a share of the work.
constexpr size_t kMinChunk = 64 << 10;
constexpr size_t kChunksWanted = 16;

uint32_t chunk_for(size_t length) {
  size_t c = std::max(kMinChunk, length / kChunksWanted);
  c = (c + kPage - 1) & ~(kPage - 1);
  return static_cast<uint32_t>(std::min<size_t>(c, 1u << 30));
}

bool peer_gone(const Peer& peer) {
  return peer.dead || (::kill(peer.pid, 0) != 0 && errno == ESRCH);
}

}  // namespace

Coop::Coop(ShmIface& iface, CoopSlot* slots, uint64_t threshold, uint64_t adaptive)
    : iface_(iface), slots_(slots), threshold_(threshold), policy_(adaptive, threshold) {
  for (uint32_t i = kCoopSlots; i > 0; --i) free_.push_back(i - 1);
}

bool Coop::decide(size_t length) noexcept {
  // While peers read from us too (both directions busy, as in an exchange), neither core is
  // idle: sharing slows the target's own gets as much as it speeds ours, and each side,
  // timing only its own gets, would see a gain (MPI bidirectional bandwidth at 128-512 KiB
  // lost 15-28 % so, and 2-8 % at 1-8 MiB). Such gets stay plain and out of the measurements.
  if (iface_.regions().readable() != 0) return false;
  if (length >= threshold_) return true;
  // Between far cores the measured choice picked sharing in streams where plain gets were
  // faster (mpi_bw at 512 KiB: 12.2-13.7 GB/s adaptive, 17.6-18.1 plain, three interleaved
  // pairs) and sharing gained nothing in a ping-pong (128-512 KiB level): far, only gets
  // from the threshold up are shared.
  if (!iface_.cores_near()) return false;
  const auto t = std::chrono::steady_clock::now().time_since_epoch();
  return policy_.choose(length, static_cast<uint64_t>(std::chrono::nanoseconds(t).count()));
}

int64_t Coop::claim(CoopSlot& slot, uint32_t generation, uint32_t chunks) noexcept {
  uint64_t v = slot.claim.load(std::memory_order_acquire);
  for (;;) {
    if ((v >> 32) != generation || (v & kChunkMask) >= chunks) return -1;
    if (slot.claim.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel))
      return static_cast<int64_t>(v & kChunkMask);
  }
}

Status Coop::get(ShmEndpoint& ep, std::byte* local, size_t length, uint64_t remote_addr,
                 const PackedRkey& key, tl::Completion* comp) {
  Peer& peer = ep.peer();
  if (free_.empty() || peer.segment == nullptr || comp == nullptr) return Status::NoResource;
  Op op;
  op.ep = &ep;
  op.comp = comp;
  op.local = local;
  op.remote_addr = remote_addr;
  op.length = length;
  op.chunk = chunk_for(length);
  op.chunks = static_cast<uint32_t>((length + op.chunk - 1) / op.chunk);
  op.slot = free_.back();
  if (++next_generation_ == 0) next_generation_ = 1;
  op.generation = next_generation_;
  CoopSlot& s = slots_[op.slot];
  s.target_done.store(0, std::memory_order_relaxed);
  s.orphan.store(0, std::memory_order_relaxed);
  s.claim.store(uint64_t{op.generation} << 32, std::memory_order_release);

  FifoWriter::Slot cell;
  if (!ep.fifo_.claim(cell)) return Status::NoResource;
  CoopRequest r{};
  r.generation = op.generation;
  r.slot = op.slot;
  r.chunks = op.chunks;
  r.chunk = op.chunk;
  r.length = length;
  r.remote_addr = remote_addr;
  r.local_addr = reinterpret_cast<uint64_t>(local);
  r.rkey = key;
  r.pid = iface_.pid();
  r.name_len = static_cast<uint8_t>(iface_.name().size());
  std::memcpy(r.name, iface_.name().data(), r.name_len);
  std::memcpy(cell.seg, &r, sizeof(r));
  if (ep.fifo_.publish(cell, static_cast<uint8_t>(InternalType::CoopGet),
                       kCellBcopy | kCellInternal, static_cast<uint32_t>(sizeof(r))))
    iface_.wake(peer);
  free_.pop_back();

  if (const int err = copy_own(op); err != 0) {
    const Status st = ep.cma_failed(err, "process_vm_readv");
    // Ok would mean "switched to bounce": this get is half done, so it fails instead.
    op.status = st == Status::Ok ? Status::IoError : st;
  }
  if (settle(op) == Status::InProgress) {
    ops_.push_back(op);
    return Status::InProgress;
  }
  free_.push_back(op.slot);
  return op.status;
}

int Coop::copy_own(Op& op) {
  CoopSlot& s = slots_[op.slot];
  const pid_t pid = op.ep->peer().pid;
  int err = 0;
  for (;;) {
    const int64_t i = claim(s, op.generation, op.chunks);
    if (i < 0) break;
    ++op.own;
    const size_t off = static_cast<size_t>(i) * op.chunk;
    const size_t n = std::min<size_t>(op.chunk, op.length - off);
    err = cma_read(pid, {op.local + off, n}, op.remote_addr + off, iface_.settings().cma_stage);
    if (err != 0) break;
  }
  op.claimed = op.chunks;
  if (err != 0) {
    // Close the job: the target must not start on what is left.
    uint64_t v = s.claim.load(std::memory_order_acquire);
    while ((v & kChunkMask) < op.chunks &&
           !s.claim.compare_exchange_weak(v, (uint64_t{op.generation} << 32) | op.chunks,
                                          std::memory_order_acq_rel)) {
    }
    op.claimed = static_cast<uint32_t>(std::min<uint64_t>(v & kChunkMask, op.chunks));
  }
  return err;
}

Status Coop::settle(Op& op) {
  CoopSlot& s = slots_[op.slot];
  const uint32_t theirs = op.claimed - op.own;
  const uint32_t done = s.target_done.load(std::memory_order_acquire);
  const uint32_t orphan = s.orphan.load(std::memory_order_acquire);
  if (done + (orphan != 0 ? 1 : 0) < theirs) return Status::InProgress;
  received_ += done;
  if (orphan != 0 && orphan <= op.chunks && op.status == Status::Ok) {
    // The target claimed this chunk and could not write it: copy it here.
    const size_t off = size_t{orphan - 1} * op.chunk;
    const size_t n = std::min<size_t>(op.chunk, op.length - off);
    if (const int err = cma_read(op.ep->peer().pid, {op.local + off, n}, op.remote_addr + off,
                                 iface_.settings().cma_stage);
        err != 0) {
      const Status st = op.ep->cma_failed(err, "process_vm_readv");
      op.status = st == Status::Ok ? Status::IoError : st;
    }
  }
  return Status::Ok;
}

unsigned Coop::poll() {
  std::vector<Op> finished;
  for (size_t i = 0; i < ops_.size();) {
    Op& op = ops_[i];
    const bool dead = op.ep->peer().dead;
    if (!dead && settle(op) == Status::InProgress) {
      ++i;
      continue;
    }
    // A dead target never writes again: whatever it held is lost with the endpoint.
    if (dead && op.status == Status::Ok) op.status = Status::ConnectionReset;
    finished.push_back(op);
    ops_.erase(ops_.begin() + static_cast<long>(i));
  }
  for (Op& op : finished) {
    free_.push_back(op.slot);
    op.comp->func(op.comp, op.status);
  }
  return static_cast<unsigned>(finished.size());
}

void Coop::fail_ops(ShmEndpoint& ep, Status status) {
  for (Op& op : ops_)
    if (op.ep == &ep && op.status == Status::Ok) op.status = status;
}

void Coop::forget_endpoint(ShmEndpoint& ep) {
  // The endpoint goes away now, but a live target may still be writing a chunk into the
  // caller's buffer: wait for that (one chunk copy) before the buffer can be reused.
  std::vector<tl::Completion*> canceled;
  for (size_t i = 0; i < ops_.size();) {
    Op& op = ops_[i];
    if (op.ep != &ep) {
      ++i;
      continue;
    }
    while (!peer_gone(ep.peer()) && settle(op) == Status::InProgress) sched_yield();
    free_.push_back(op.slot);
    canceled.push_back(op.comp);
    ops_.erase(ops_.begin() + static_cast<long>(i));
  }
  for (tl::Completion* c : canceled) c->func(c, Status::Canceled);
}

bool Coop::on_request(const std::byte* seg, uint32_t length, int32_t sender) {
  if (length != sizeof(CoopRequest)) return false;
  CoopRequest r;
  std::memcpy(&r, seg, sizeof(r));
  if (r.slot >= kCoopSlots || r.chunk == 0 || r.chunks == 0 || r.generation == 0 ||
      r.name_len == 0 || r.name_len > kMaxNameLen || r.pid != sender ||
      uint64_t{r.chunks - 1} * r.chunk >= r.length ||
      uint64_t{r.chunks} * r.chunk < r.length)
    return false;
  const std::string name(r.name, r.name_len);
  if (!is_valid_segment_name(name)) return false;
  // From here on, declining is never an error: the initiator copies what we leave.
  if (iface_.regions().check(r.rkey, r.remote_addr, r.length, tl::kAccessRead) != Status::Ok)
    return true;
  auto peer = iface_.attach_peer(name, sender);
  if (!peer || (*peer)->segment == nullptr || (*peer)->dead || (*peer)->no_coop_writes)
    return true;
  Peer& p = **peer;
  CoopSlot& s = p.segment->coop_slots()[r.slot];
  for (;;) {
    const int64_t i = claim(s, r.generation, r.chunks);
    if (i < 0) break;
    const uint64_t off = static_cast<uint64_t>(i) * r.chunk;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(r.chunk, r.length - off));
    const auto* src = reinterpret_cast<const std::byte*>(static_cast<uintptr_t>(r.remote_addr + off));
    if (const int err = cma_write(p.pid, {src, n}, r.local_addr + off, iface_.settings().cma_stage);
        err != 0) {
      s.orphan.store(static_cast<uint32_t>(i) + 1, std::memory_order_release);
      p.no_coop_writes = true;
      TORUS_DEBUG("shm %s: process_vm_writev to pid %d: %s; no longer helping its gets",
                  iface_.name().c_str(), static_cast<int>(p.pid), std::strerror(err));
      break;
    }
    ++helped_;
    s.target_done.fetch_add(1, std::memory_order_release);
  }
  return true;
}

}  // namespace torus::shm
