// Reading launcher variables.
#include "mpi_shim/bootstrap/launcher_env.h"

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace torus::boot {

const char* process_env(const char* name) { return std::getenv(name); }

std::optional<int> env_count(const EnvFn& env, const char* name) {
  constexpr int kMax = 1 << 24;
  const char* v = env(name);
  if (!v) return std::nullopt;
  const char* end = v + std::strlen(v);
  int out = -1;
  auto [ptr, ec] = std::from_chars(v, end, out);
  if (v == end || ec != std::errc() || ptr != end || out < 0 || out > kMax) return std::nullopt;
  return out;
}

}  // namespace torus::boot
