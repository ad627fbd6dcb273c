// Packed worker address: the worker's uid and, per interface, the transport name, device
// and the interface's own address bytes. Parsed with every length checked.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace torus::core {

struct IfaceAddress {
  std::string tl_name;
  std::string device;
  std::vector<std::byte> address;
};

struct WorkerAddress {
  uint64_t uid = 0;
  std::vector<IfaceAddress> ifaces;
};

std::vector<std::byte> pack_worker_address(const WorkerAddress& addr);
Result<WorkerAddress> unpack_worker_address(std::span<const std::byte> bytes);

}  // namespace torus::core
