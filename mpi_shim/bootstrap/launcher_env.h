// Reading what a launcher left in the environment, through a getenv-shaped function so tests
// can pass a fake environment.
#pragma once

#include <functional>
#include <optional>

namespace torus::boot {

using EnvFn = std::function<const char*(const char*)>;

// The process environment (std::getenv).
const char* process_env(const char* name);

// A non-negative decimal integer (at most 2^24: ranks, sizes, node indices); nullopt when the
// variable is absent or holds anything else.
std::optional<int> env_count(const EnvFn& env, const char* name);

}  // namespace torus::boot
