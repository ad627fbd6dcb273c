// MPI_T_init_thread and MPI_T_finalize, and what the tool files share (tool.h).
#include "mpi_shim/lib/tool/tool.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi::tool {
namespace {

struct State {
  std::mutex mutex;
  int refcount = 0;  // MPI_T_init_thread calls not yet matched by MPI_T_finalize
  // The environment's values, for use outside MPI_Init..MPI_Finalize.
  std::optional<config::Config> snapshot;
};

State& state() {
  static State s;
  return s;
}

// A TORUS_* value that does not parse makes MPI_Init fail, naming it; the interface still
// starts, and reports the defaults until MPI runs.
config::Config load_snapshot() {
  if (auto cfg = config::Config::load()) return std::move(cfg.value());
  static const char* const kEmpty[] = {nullptr};
  auto defaults = config::Config::load(kEmpty);
  return std::move(defaults.value());
}

}  // namespace

Lock::Lock() : lock(state().mutex), ok(state().refcount > 0) {}

const config::Config& current_config() {
  Runtime* rt = runtime();
  if (rt && rt->context) return rt->context->config();
  return *state().snapshot;
}

void copy_string(std::string_view s, char* buf, int* len) {
  if (!len) return;
  if (buf && *len > 0) {
    const size_t n = std::min(s.size(), static_cast<size_t>(*len - 1));
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
  }
  *len = static_cast<int>(s.size()) + 1;
}

const char* error_text(int code) {
  switch (code) {
    case MPI_T_ERR_MEMORY: return "MPI_T: out of memory";
    case MPI_T_ERR_NOT_INITIALIZED: return "MPI_T: the tool interface is not initialized";
    case MPI_T_ERR_CANNOT_INIT: return "MPI_T: the tool interface cannot be initialized";
    case MPI_T_ERR_INVALID_INDEX: return "MPI_T: invalid index (no such variable or item)";
    case MPI_T_ERR_INVALID_ITEM: return "MPI_T: invalid item index";
    case MPI_T_ERR_INVALID_HANDLE: return "MPI_T: invalid handle";
    case MPI_T_ERR_OUT_OF_HANDLES: return "MPI_T: no more handles available";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "MPI_T: no more sessions available";
    case MPI_T_ERR_INVALID_SESSION: return "MPI_T: invalid performance variable session";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "MPI_T: the control variable cannot be set now";
    case MPI_T_ERR_CVAR_SET_NEVER:
      return "MPI_T: the control variable is read-only (fixed when MPI starts)";
    case MPI_T_ERR_PVAR_NO_STARTSTOP:
      return "MPI_T: the performance variable cannot be started or stopped (continuous)";
    case MPI_T_ERR_PVAR_NO_WRITE: return "MPI_T: the performance variable cannot be written";
    case MPI_T_ERR_PVAR_NO_ATOMIC:
      return "MPI_T: the performance variable cannot be read and reset atomically";
    case MPI_T_ERR_INVALID_NAME: return "MPI_T: no variable or category of that name";
    case MPI_T_ERR_INVALID: return "MPI_T: invalid argument";
    case MPI_T_ERR_NOT_SUPPORTED: return "MPI_T: not supported";
    default: return nullptr;
  }
}

}  // namespace torus::mpi::tool

using namespace torus::mpi;

extern "C" {

int PMPI_T_init_thread(int required, int* provided) {
  tool::State& s = tool::state();
  std::lock_guard lock(s.mutex);
  if (s.refcount == 0) s.snapshot = tool::load_snapshot();
  ++s.refcount;
  // Every call serializes on one mutex, so any level can be given.
  if (provided) *provided = std::clamp(required, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE);
  return MPI_SUCCESS;
}

int PMPI_T_finalize(void) {
  tool::State& s = tool::state();
  std::lock_guard lock(s.mutex);
  if (s.refcount == 0) return MPI_T_ERR_NOT_INITIALIZED;
  if (--s.refcount == 0) {
    // The last finalize ends every session and handle (MPI 4.0 15.3.4).
    tool::free_cvar_handles();
    tool::free_pvar_sessions();
    s.snapshot.reset();
  }
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_T_init_thread)
TORUS_MPI_ALIAS(MPI_T_finalize)

}  // extern "C"
