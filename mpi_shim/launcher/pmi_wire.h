// The PMI-1 wire format: one command per line, space-separated key=value fields, the first
// being cmd=NAME. Parsing is pure so it can be tested and fuzzed alone.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/status.h"

namespace torus::launcher::pmi {

// Limits advertised in cmd=maxes; a put beyond them is refused with rc=-1.
inline constexpr size_t kKvsNameMax = 256;
inline constexpr size_t kKeyMax = 64;
inline constexpr size_t kValMax = 1024;
// A line longer than this is malformed (a value plus its key and command fit well inside).
inline constexpr size_t kLineMax = 4096;

struct Command {
  std::string cmd;
  std::vector<std::pair<std::string, std::string>> fields;  // in wire order, cmd excluded

  // The value of key, or nullptr. Keys may come in any order.
  const std::string* find(std::string_view key) const;
};

// Parses one line without its '\n'. Fails on a line that does not start with cmd=NAME, an
// empty key, or a control byte. A word without '=' is appended to the previous value.
Result<Command> parse_line(std::string_view line);

}  // namespace torus::launcher::pmi
