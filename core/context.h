// Context internals: the configuration snapshot and the transports TORUS_TLS allows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/api/torus.hpp"
#include "core/base/config.h"
#include "transports/transport.h"

namespace torus::core {

struct TransportSlot {
  std::string name;
  std::unique_ptr<tl::Transport> transport;
  std::vector<tl::DeviceInfo> devices;  // empty: not viable, see why
  std::string why;
};

class ContextImpl {
 public:
  config::Config config;
  std::vector<TransportSlot> transports;
  std::string job_id;
  int expected_local_peers = -1;
};

}  // namespace torus::core
