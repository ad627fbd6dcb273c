// Region table and rkey validation. Only the owning iface writes its table; peers read the
// shared copy under a seqlock, so a slot never appears half-written to them.
#include "transports/shm/shm_region.h"

#include <cerrno>
#include <cstring>

#include "transports/transport.h"

namespace torus::shm {

Status unpack_rkey(std::span<const std::byte> packed, PackedRkey* out) noexcept {
  if (packed.size() != sizeof(PackedRkey)) return Status::InvalidParam;
  std::memcpy(out, packed.data(), sizeof(PackedRkey));
  return out->magic == kRkeyMagic ? Status::Ok : Status::AccessDenied;
}

Status check_remote_rkey(const RegionSlot* table, uint32_t slots, const PackedRkey& key,
                         uint64_t addr, uint64_t len, uint32_t right) noexcept {
  if (key.slot >= slots || (key.generation & 1) != 0) return Status::AccessDenied;
  const RegionSlot& s = table[key.slot];
  const uint32_t g1 = s.generation.load(std::memory_order_acquire);
  const uint32_t access = s.access.load(std::memory_order_relaxed);
  const uint64_t secret = s.secret.load(std::memory_order_relaxed);
  const uint64_t base = s.addr.load(std::memory_order_relaxed);
  const uint64_t base_len = s.length.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  const uint32_t g2 = s.generation.load(std::memory_order_relaxed);
  if (g1 != g2 || g1 != key.generation || secret != key.secret) return Status::AccessDenied;
  if ((access & right) != right || !range_inside(addr, len, base, base_len))
    return Status::AccessDenied;
  return Status::Ok;
}

RegionTable::RegionTable(RegionSlot* shared, uint32_t slots)
    : shared_(shared), local_(slots) {
  free_.reserve(slots);
  for (uint32_t i = slots; i-- > 0;) free_.push_back(i);  // slot 0 first
}

Result<PackedRkey> RegionTable::add(uintptr_t addr, size_t len, uint32_t access) {
  if (free_.empty())
    return make_error(Status::NoResource, "shm: all " + std::to_string(local_.size()) +
                                              " registration slots are in use");
  auto secret = secrets_.next();
  if (!secret) return secret.error();
  const uint32_t slot = free_.back();
  free_.pop_back();
  Entry& e = local_[slot];
  e = Entry{addr, len, *secret, access, e.generation + 2, true};
  if (access & tl::kAccessRead) ++readable_;
  RegionSlot& s = shared_[slot];
  s.generation.store(e.generation - 1, std::memory_order_relaxed);  // odd: changing
  std::atomic_thread_fence(std::memory_order_release);
  s.access.store(access, std::memory_order_relaxed);
  s.secret.store(e.secret, std::memory_order_relaxed);
  s.addr.store(addr, std::memory_order_relaxed);
  s.length.store(len, std::memory_order_relaxed);
  s.generation.store(e.generation, std::memory_order_release);
  return PackedRkey{kRkeyMagic, slot, e.generation, access, e.secret, addr, len};
}

void RegionTable::remove(uint32_t slot) noexcept {
  if (slot >= local_.size() || !local_[slot].live) return;
  Entry& e = local_[slot];
  RegionSlot& s = shared_[slot];
  s.generation.store(e.generation + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.access.store(0, std::memory_order_relaxed);
  s.secret.store(0, std::memory_order_relaxed);
  s.addr.store(0, std::memory_order_relaxed);
  s.length.store(0, std::memory_order_relaxed);
  // The next registration of this slot publishes generation + 2; until then the slot stays
  // odd, which no key matches.
  e.live = false;
  if (e.access & tl::kAccessRead) --readable_;
  free_.push_back(slot);
}

Status RegionTable::check(const PackedRkey& key, uint64_t addr, uint64_t len,
                          uint32_t right) const noexcept {
  if (key.slot >= local_.size()) return Status::AccessDenied;
  const Entry& e = local_[key.slot];
  if (!e.live || e.generation != key.generation || e.secret != key.secret)
    return Status::AccessDenied;
  if ((e.access & right) != right || !range_inside(addr, len, e.addr, e.len))
    return Status::AccessDenied;
  return Status::Ok;
}

}  // namespace torus::shm
