#include "transports/tcp/tcp_region.h"

#include <cstring>

#include "transports/tcp/tcp_auth.h"

namespace torus::tcp {

RegionTable::Key RegionTable::add(uint64_t addr, uint64_t len, uint32_t access) {
  // random_u64 is the fallback where the kernel refuses: ids keep keys unique regardless.
  Result<uint64_t> secret = secrets_.next();
  Key k{next_id_++, secret ? *secret : random_u64()};
  regions_.emplace(k.id, Entry{addr, len, k.secret, access});
  if (access & tl::kAccessRead) ++readable_;
  return k;
}

void RegionTable::remove(uint64_t id) noexcept {
  const auto it = regions_.find(id);
  if (it == regions_.end()) return;
  if (it->second.access & tl::kAccessRead) --readable_;
  regions_.erase(it);
}

Status RegionTable::check(const uint8_t (&rkey)[kRkeySize], uint64_t addr, uint64_t len,
                          uint32_t right) const noexcept {
  Key k;
  std::memcpy(&k.id, rkey, 8);
  std::memcpy(&k.secret, rkey + 8, 8);
  const auto it = regions_.find(k.id);
  if (it == regions_.end()) return Status::AccessDenied;
  const Entry& e = it->second;
  // Compare secrets without an early exit, so timing does not reveal matching bytes.
  if ((e.secret ^ k.secret) != 0) return Status::AccessDenied;
  if ((e.access & right) != right) return Status::AccessDenied;
  if (addr < e.addr || len > e.len || addr - e.addr > e.len - len) return Status::AccessDenied;
  return Status::Ok;
}

void pack_key(const RegionTable::Key& key, std::span<std::byte> out) noexcept {
  if (out.size() < kRkeySize) return;
  std::memcpy(out.data(), &key.id, 8);
  std::memcpy(out.data() + 8, &key.secret, 8);
}

}  // namespace torus::tcp
