// PMI-1 line parsing.
#include "mpi_shim/launcher/pmi_wire.h"

namespace torus::launcher::pmi {

const std::string* Command::find(std::string_view key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

Result<Command> parse_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() > kLineMax)
    return make_error(Status::ProtocolError, "line of " + std::to_string(line.size()) +
                                                 " bytes (limit " + std::to_string(kLineMax) + ")");
  for (char c : line)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return make_error(Status::ProtocolError, "control character in line");
  Command out;
  bool first = true;
  while (!line.empty()) {
    size_t sp = line.find(' ');
    std::string_view field = line.substr(0, sp);
    line = sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
    if (field.empty()) continue;  // runs of spaces
    size_t eq = field.find('=');
    // A word without '=' continues the previous value: some clients send free text (abort's
    // message) unescaped, and it is better kept than refused.
    if (eq == std::string_view::npos && !first && !out.fields.empty()) {
      out.fields.back().second += ' ';
      out.fields.back().second += field;
      continue;
    }
    if (eq == std::string_view::npos || eq == 0)
      return make_error(Status::ProtocolError, "field '" + std::string(field) + "' is not key=value");
    std::string_view key = field.substr(0, eq);
    std::string_view value = field.substr(eq + 1);
    if (first) {
      if (key != "cmd" || value.empty())
        return make_error(Status::ProtocolError, "line does not start with cmd=NAME");
      out.cmd = std::string(value);
      first = false;
    } else {
      out.fields.emplace_back(std::string(key), std::string(value));
    }
  }
  if (first) return make_error(Status::ProtocolError, "empty line");
  return out;
}

}  // namespace torus::launcher::pmi
