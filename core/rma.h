// One-sided operations of the public API: registered memory handles with packed remote keys
// (one key per RMA-capable transport), and get/put/flush on an endpoint's RMA lane.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/api/torus.hpp"
#include "transports/transport.h"

namespace torus::core {

class WorkerImpl;

class MemHandleImpl final : public MemHandle {
 public:
  struct Entry {
    uint32_t tl_hash;
    size_t rkey_size;
    std::unique_ptr<tl::MemRegion> region;
  };
  void* addr = nullptr;
  size_t len = 0;
  std::vector<Entry> entries;
};

// Packed remote key: u8 count, then per transport: u32 name hash, u16 length, key bytes.
std::vector<std::byte> pack_remote_key(const MemHandleImpl& h);
// The key bytes for one transport inside a packed remote key; empty span if absent or the
// packing is malformed.
std::span<const std::byte> find_remote_key(std::span<const std::byte> packed, uint32_t tl_hash);

Result<MemHandleImpl*> register_memory(WorkerImpl& w, void* addr, size_t len, uint32_t access);

}  // namespace torus::core
