// The MPI tool information interface (MPI_T_*): state shared by its files. Control variables
// are torus's configuration registry (core/base/config), performance variables the shim's
// counters (counters.h), categories group both by component, and there are no events.
//
// Every MPI_T call takes the one mutex below for its whole length: the interface is safe to
// call from any thread, before MPI_Init and after MPI_Finalize, and is never on a data path.
// MPI_T calls return their error codes; no error handler is ever invoked (MPI 4.0 15.3.2).
#pragma once

#include <cstddef>
#include <mutex>
#include <string_view>

#include "core/base/config.h"

namespace torus::mpi::tool {

// Holds the interface's mutex; `ok` is false outside MPI_T_init_thread..MPI_T_finalize,
// where the call must return MPI_T_ERR_NOT_INITIALIZED.
struct Lock {
  Lock();
  std::unique_lock<std::mutex> lock;
  bool ok;
};

// The configuration in effect: the MPI context's while MPI runs, else the environment as
// MPI_T_init_thread found it. Caller holds the Lock.
const config::Config& current_config();

// The standard's string rule (MPI 4.0 15.3.3): with a buffer and *len > 0, at most *len - 1
// characters and a NUL; *len becomes the full length plus one. A null len returns nothing.
void copy_string(std::string_view s, char* buf, int* len);

// Handles that the last MPI_T_finalize frees (caller holds the Lock).
void free_cvar_handles();
void free_pvar_sessions();

// Performance variables (pvar.cpp), for the categories.
int pvar_count();

// A control variable's verbosity, which follows from its category (category.cpp).
int cvar_verbosity(std::string_view name);

// Text for the MPI_T_ERR_* codes (MPI_Error_string); nullptr for any other code.
const char* error_text(int code);

}  // namespace torus::mpi::tool
