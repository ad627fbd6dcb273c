// Outcome: the Result of a control-path step that returns nothing but may fail with the facts.
// The bootstrap's public calls return a bare Status, so they log the message once (report()).
#pragma once

#include <variant>

#include "core/base/status.h"

namespace torus::boot {

using Outcome = Result<std::monostate>;

inline Outcome success() { return std::monostate{}; }

// Logs a failure's message (the one place it is logged) and returns its status.
Status report(const Outcome& outcome, const char* what);

}  // namespace torus::boot
