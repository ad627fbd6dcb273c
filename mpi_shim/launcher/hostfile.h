// Host lists: `--host h1:2,h2` and hostfiles (`host slots=N`, `host:N`, `host`, `# comment`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace torus::launcher {

struct HostSlots {
  std::string name;
  int slots = 1;
};

// Appends the hosts of `text` ("h1:2,h2") to `hosts`; a repeated name adds its slots.
Status parse_host_list(std::string_view text, std::vector<HostSlots>& hosts, std::string* error);

// Reads a hostfile. A line it cannot parse fails with "FILE:LINE: ..." and the line.
Result<std::vector<HostSlots>> read_hostfile(const std::string& path);

}  // namespace torus::launcher
