// The table of configuration variables. Every TORUS_* variable is declared here once, in
// documentation order; docs/tuning.md and `torus_info -c` are generated from this table.
#include "core/base/config.h"

namespace torus::config {
namespace {

constexpr VarDecl kVars[] = {
    // Logging and threading.
    {.name = "TORUS_LOG_LEVEL", .type = Type::Enum, .default_value = "warn", .unit = "",
     .doc = "log threshold: messages at this level or more severe are printed",
     .choices = "error|warn|info|debug|trace"},
    {.name = "TORUS_TLS", .type = Type::String, .default_value = "all", .unit = "",
     .doc = "transports to use: all, a list (shm,tcp) or an exclusion (^tcp); self is always "
            "on unless excluded"},
    {.name = "TORUS_THREAD_MODE", .type = Type::Enum, .default_value = "single", .unit = "",
     .doc = "whether several threads may call into a worker at once (multi: for "
            "MPI_THREAD_MULTIPLE, at the cost of locking)",
     .choices = "single|multi"},

    // Job identity, set by the launcher.
    {.name = "TORUS_JOB_ID", .type = Type::String, .default_value = "", .unit = "",
     .doc = "job identifier set by the launcher; names shared-memory segments; empty = derived "
            "from the process id"},
    // Progress.
    {.name = "TORUS_SPIN_TIME", .type = Type::Duration, .default_value = "auto",
     .unit = "seconds",
     .doc = "how long a blocking call polls before it sleeps on the event fd; auto adapts to "
            "the number of cores",
     .allow_auto = true},

    // Protocol selection.
    {.name = "TORUS_RNDV_THRESH", .type = Type::Size, .default_value = "auto", .unit = "bytes",
     .doc = "message size from which the rendezvous protocol is used; auto = from the cost model",
     .allow_auto = true},
    {.name = "TORUS_ZCOPY_THRESH", .type = Type::Size, .default_value = "auto", .unit = "bytes",
     .doc = "size from which eager sends go zero-copy on transports with zero-copy active "
            "messages (none in this build: shm and self copy)",
     .allow_auto = true},
    {.name = "TORUS_PROTO", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "force one tag-send protocol wherever it is usable",
     .choices = "auto|eager_short|eager_bcopy|rndv_get|rndv_put"},
    {.name = "TORUS_PROTO_INFO", .type = Type::Bool, .default_value = "n", .unit = "",
     .doc = "print each endpoint's protocol table when it is created"},
    {.name = "TORUS_RNDV_FRAG_SIZE", .type = Type::Size, .default_value = "4m", .unit = "bytes",
     .doc = "largest single get/put of a rendezvous; larger transfers are split"},

    // Shared-memory transport.
    {.name = "TORUS_SHM_CMA", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "cross-memory attach (process_vm_readv) for shm get/put: auto tries it and falls "
            "back to bounce buffers when refused",
     .choices = "auto|y|n"},
    {.name = "TORUS_SHM_FIFO_SIZE", .type = Type::Int, .default_value = "256", .unit = "cells",
     .doc = "cells in each worker's shared-memory receive FIFO; a power of two"},
    {.name = "TORUS_SHM_SEG_SIZE", .type = Type::Size, .default_value = "8k", .unit = "bytes",
     .doc = "bytes of each FIFO cell's eager segment; larger eager messages are fragmented"},
    {.name = "TORUS_SHM_BOUNCE_SIZE", .type = Type::Size, .default_value = "256k",
     .unit = "bytes",
     .doc = "bytes of bounce-buffer get/put each endpoint may have unanswered when CMA is "
            "refused (the pipeline depth of the fallback copy)"},
};

}  // namespace

std::span<const VarDecl> all_vars() noexcept { return kVars; }

// A linear scan: the table is small and lookups happen at configuration time, not per message.
const VarDecl* find_var(std::string_view name) noexcept {
  for (const VarDecl& v : kVars)
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace torus::config
