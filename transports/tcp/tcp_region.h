// Registered regions of a tcp iface and the check the target runs on every get/put request
// before a byte moves: region id, secret, range and access right.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>

#include "core/base/secret_pool.h"
#include "core/base/status.h"
#include "transports/tcp/tcp_wire.h"
#include "transports/transport.h"

namespace torus::tcp {

class RegionTable final {
 public:
  struct Key {
    uint64_t id = 0;
    uint64_t secret = 0;
  };
  Key add(uint64_t addr, uint64_t len, uint32_t access);
  void remove(uint64_t id) noexcept;
  // Live regions peers may read: a rendezvous send registers its buffer until the receiver
  // has it, so nonzero means a peer is (or is about to be) getting from us.
  uint32_t readable() const noexcept { return readable_; }
  // AccessDenied for an unknown (stale or forged) key, a wrong secret, a range outside the
  // region or a missing right.
  Status check(const uint8_t (&rkey)[kRkeySize], uint64_t addr, uint64_t len,
               uint32_t right) const noexcept;

 private:
  struct Entry {
    uint64_t addr, len, secret;
    uint32_t access;
  };
  std::unordered_map<uint64_t, Entry> regions_;
  uint64_t next_id_ = 1;  // ids are never reused, so a stale key never names a new region
  SecretPool secrets_;
  uint32_t readable_ = 0;
};

void pack_key(const RegionTable::Key& key, std::span<std::byte> out) noexcept;

class TcpRegion final : public tl::MemRegion {
 public:
  TcpRegion(RegionTable& table, void* addr, size_t len, RegionTable::Key key)
      : table_(table), addr_(addr), len_(len), key_(key) {}
  ~TcpRegion() override { table_.remove(key_.id); }
  void* address() const override { return addr_; }
  size_t length() const override { return len_; }
  void pack_rkey(std::span<std::byte> out) const override { pack_key(key_, out); }

 private:
  RegionTable& table_;
  void* addr_;
  size_t len_;
  RegionTable::Key key_;
};

}  // namespace torus::tcp
