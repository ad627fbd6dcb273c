// Parsing of host lists and hostfiles, in both Open MPI's (`slots=N`) and MPICH's (`host:N`)
// spellings. A repeated host adds up its slots, as in both of them.
#include "mpi_shim/launcher/hostfile.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace torus::launcher {
namespace {

bool parse_slots(std::string_view s, int* out) {
  if (s.empty() || s.size() > 7) return false;
  int n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  if (n < 1) return false;
  *out = n;
  return true;
}

bool valid_host_name(std::string_view h) {
  if (h.empty()) return false;
  for (char c : h)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '.' || c == '-' || c == '_'))
      return false;
  return true;
}

void add_host(std::vector<HostSlots>& hosts, std::string_view name, int slots) {
  for (HostSlots& h : hosts)
    if (h.name == name) {
      h.slots += slots;
      return;
    }
  hosts.push_back(HostSlots{std::string(name), slots});
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// One entry "host" or "host:N".
bool parse_entry(std::string_view e, std::string_view* name, int* slots) {
  *slots = 1;
  size_t colon = e.find(':');
  *name = e.substr(0, colon);
  if (colon != std::string_view::npos && !parse_slots(e.substr(colon + 1), slots)) return false;
  return valid_host_name(*name);
}

}  // namespace

Status parse_host_list(std::string_view text, std::vector<HostSlots>& hosts, std::string* error) {
  while (true) {
    size_t comma = text.find(',');
    std::string_view e = trim(text.substr(0, comma));
    std::string_view name;
    int slots = 1;
    if (!parse_entry(e, &name, &slots)) {
      *error = "--host: cannot parse '" + std::string(e) + "': expected HOST or HOST:SLOTS";
      return Status::InvalidParam;
    }
    add_host(hosts, name, slots);
    if (comma == std::string_view::npos) return Status::Ok;
    text.remove_prefix(comma + 1);
  }
}

Result<std::vector<HostSlots>> read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return make_error(Status::NotFound,
                      "cannot open hostfile " + path + ": " + std::strerror(errno));
  std::vector<HostSlots> hosts;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    std::string_view l = line;
    l = trim(l.substr(0, l.find('#')));
    if (l.empty()) continue;
    auto bad = [&](const char* why) {
      return make_error(Status::InvalidParam, path + ":" + std::to_string(lineno) + ": " + why +
                                                  ": '" + std::string(trim(line)) + "'");
    };
    size_t sp = l.find_first_of(" \t");
    std::string_view name;
    int slots = 1;
    if (!parse_entry(l.substr(0, sp), &name, &slots))
      return bad("expected 'host', 'host:N' or 'host slots=N'");
    // Open MPI's attributes after the name: slots=N counts, max_slots=N is accepted and
    // ignored (we never place more than slots without --oversubscribe).
    std::string_view rest = sp == std::string_view::npos ? std::string_view() : trim(l.substr(sp));
    while (!rest.empty()) {
      size_t end = rest.find_first_of(" \t");
      std::string_view attr = rest.substr(0, end);
      if (attr.substr(0, 6) == "slots=") {
        if (!parse_slots(attr.substr(6), &slots)) return bad("slots= needs a positive number");
      } else if (attr.substr(0, 10) == "max_slots=" || attr.substr(0, 10) == "max-slots=") {
        int ignored = 0;
        if (!parse_slots(attr.substr(10), &ignored)) return bad("max_slots= needs a positive number");
      } else {
        return bad("unknown attribute (expected slots=N)");
      }
      rest = end == std::string_view::npos ? std::string_view() : trim(rest.substr(end));
    }
    add_host(hosts, name, slots);
  }
  if (hosts.empty()) return make_error(Status::InvalidParam, path + ": no hosts in the hostfile");
  return hosts;
}

}  // namespace torus::launcher
