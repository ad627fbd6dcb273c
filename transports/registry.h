// The module table: every transport is listed once in registry.cpp; TORUS_TLS filters it.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "transports/transport.h"

namespace torus::tl {

struct TransportEntry {
  std::string_view name;
  std::string_view description;
  std::unique_ptr<Transport> (*factory)();
};

std::span<const TransportEntry> transport_table() noexcept;

// Parses a TORUS_TLS value and returns, for each entry of transport_table(), whether it is
// enabled:
//   "" or "all"      every transport;
//   "shm,tcp"        only those, plus self: loopback inside a worker needs no device, so a
//                    list never drops it (exclude it explicitly with "^self");
//   "^tcp,verbs"     every transport but those (self included unless named).
// Names are case-sensitive; blanks around them and empty items are ignored. A name that
// torus knows but this build lacks (tcp, ofi, verbs, cuda_ipc before they are built) is
// ignored with a warning; any other name fails with InvalidParam, naming the variable, its
// value and the transports this build has.
Result<std::vector<bool>> select_transports(std::string_view spec);

}  // namespace torus::tl
