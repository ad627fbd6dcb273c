// The module table and the TORUS_TLS filter. Adding a transport = one line in kTable.
#include "transports/registry.h"

#include <algorithm>
#include <string>

#include "core/base/log.h"
#include "transports/self/self_transport.h"
#include "transports/shm/shm_transport.h"
#include "transports/tcp/tcp_transport.h"
#if TORUS_HAVE_OFI
#include "transports/ofi/ofi_transport.h"
#endif

namespace torus::tl {
namespace {

// Workers open transports in this order. Lanes are chosen by advertised cost, not position.
constexpr TransportEntry kTable[] = {
    {"self", "loopback inside one worker", &torus::self::make_transport},
    {"shm", "shared memory between processes on one host", &torus::shm::make_transport},
    {"tcp", "TCP sockets, between hosts and as the fallback", &torus::tcp::make_transport},
#if TORUS_HAVE_OFI
    {"ofi", "libfabric RDM: EFA, cxi, psm3, verbs (tcp, sockets when named)",
     &torus::ofi::make_transport},
#endif
};

// Transports torus knows of but this build does not contain yet (or was configured
// without): a TORUS_TLS written for a fuller build still works here, with a warning.
#if TORUS_HAVE_OFI
constexpr std::string_view kNotBuilt[] = {"verbs", "cuda_ipc"};
#else
constexpr std::string_view kNotBuilt[] = {"ofi", "verbs", "cuda_ipc"};
#endif

constexpr std::string_view kBlanks = " \t\n\r";

std::string_view trim(std::string_view s) noexcept {
  const size_t b = s.find_first_not_of(kBlanks);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kBlanks) - b + 1);
}

std::string known_names() {
  std::string out;
  for (const TransportEntry& e : kTable) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

}  // namespace

std::span<const TransportEntry> transport_table() noexcept { return kTable; }

Result<std::vector<bool>> select_transports(std::string_view spec) {
  const std::string_view value = spec;  // as the user wrote it, for the error message
  spec = trim(spec);
  constexpr size_t n = std::size(kTable);
  if (spec.empty() || spec == "all") return std::vector<bool>(n, true);

  const bool exclude = spec.front() == '^';
  if (exclude) spec.remove_prefix(1);
  std::vector<bool> named(n, false);
  bool all = false;
  while (true) {
    const size_t comma = spec.find(',');
    const std::string_view name = trim(spec.substr(0, comma));
    if (name == "all" && !exclude) {
      all = true;
    } else if (!name.empty()) {
      const auto it = std::find_if(std::begin(kTable), std::end(kTable),
                                   [name](const TransportEntry& e) { return e.name == name; });
      if (it != std::end(kTable)) {
        named[static_cast<size_t>(it - std::begin(kTable))] = true;
      } else if (std::find(std::begin(kNotBuilt), std::end(kNotBuilt), name) !=
                 std::end(kNotBuilt)) {
        TORUS_WARN("TORUS_TLS=\"%.*s\": transport '%.*s' is not built into this torus; ignored",
                   static_cast<int>(value.size()), value.data(),
                   static_cast<int>(name.size()), name.data());
      } else {
        return make_error(Status::InvalidParam,
                          "TORUS_TLS=\"" + std::string(value) + "\": unknown transport '" +
                              std::string(name) + "'; known transports: " + known_names());
      }
    }
    if (comma == std::string_view::npos) break;
    spec.remove_prefix(comma + 1);
  }

  std::vector<bool> enabled(n);
  for (size_t i = 0; i < n; ++i) {
    if (exclude)
      enabled[i] = !named[i];
    else
      enabled[i] = all || named[i] || kTable[i].name == "self";
  }
  return enabled;
}

}  // namespace torus::tl
