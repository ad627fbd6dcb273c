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
    {.name = "TORUS_JOB_KEY", .type = Type::String, .default_value = "", .unit = "",
     .doc = "secret shared by the ranks of a job, set by the launcher; network handshakes "
            "(tcp) refuse peers without it; empty = no key (single-user machines, tests)"},
    {.name = "TORUS_BOOTSTRAP", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "how an MPI process learns its rank and exchanges addresses; auto = from the "
            "environment the launcher left (PMIx, PMI-2, PMI-1, else a one-rank job)",
     .choices = "auto|pmi1|pmi2|pmix|singleton"},
    {.name = "TORUS_RSH", .type = Type::String, .default_value = "ssh", .unit = "",
     .doc = "remote shell mpirun uses to start ranks on other hosts (command and arguments)"},

    // MPI collective algorithms: auto chooses by message size, process count and op; a
    // forced algorithm that cannot run a call (ring with a non-commutative op) falls back.
    {.name = "TORUS_COLL_BCAST", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "MPI_Bcast algorithm: binomial tree, or scatter then ring allgather (long "
            "messages)",
     .choices = "auto|binomial|scatter_allgather"},
    {.name = "TORUS_COLL_REDUCE", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "MPI_Reduce algorithm: binomial tree, or Rabenseifner's reduce-scatter and gather "
            "(long vectors)",
     .choices = "auto|binomial|rabenseifner"},
    {.name = "TORUS_COLL_ALLREDUCE", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "MPI_Allreduce algorithm: recursive doubling (short vectors), ring reduce-scatter "
            "and allgather (commutative ops), or Rabenseifner's halving and doubling",
     .choices = "auto|recursive_doubling|ring|rabenseifner"},
    {.name = "TORUS_COLL_REDUCE_SCATTER", .type = Type::Enum, .default_value = "auto",
     .unit = "",
     .doc = "MPI_Reduce_scatter(_block) algorithm: recursive halving, or ring (long vectors, "
            "commutative ops)",
     .choices = "auto|recursive_halving|ring"},
    {.name = "TORUS_COLL_ALLGATHER", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "MPI_Allgather algorithm: Bruck (short blocks) or ring",
     .choices = "auto|bruck|ring"},
    {.name = "TORUS_COLL_INFO", .type = Type::Bool, .default_value = "n", .unit = "",
     .doc = "rank 0 of a communicator prints each distinct collective algorithm choice "
            "(collective, algorithm, size, ranks) to stderr"},
    {.name = "TORUS_OP_SIMD", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "vector instructions of the predefined MPI reduction kernels (MPI_SUM...): auto = "
            "AVX2 where the CPU has it, else the baseline build (SSE2 on x86-64); avx2 makes "
            "MPI_Init fail on a CPU without it",
     .choices = "auto|avx2|none"},

    // Progress.
    {.name = "TORUS_SPIN_TIME", .type = Type::Duration, .default_value = "auto",
     .unit = "seconds",
     .doc = "how long a blocking call polls before it sleeps on the event fd; auto adapts to "
            "the number of cores",
     .allow_auto = true},
    {.name = "TORUS_SPIN_MAX", .type = Type::Duration, .default_value = "auto",
     .unit = "seconds",
     .doc = "longest spin a blocking call adapts to: a wait that slept and still ended soon "
            "after doubles the next spin (up to this), so two processes answering each other "
            "do not pay a wake-up per message when wake-ups are slow; a wait longer than this "
            "halves it again; auto = 1ms on a multi-core machine with no more local processes "
            "than cores, else TORUS_SPIN_TIME; set it to TORUS_SPIN_TIME for a fixed spin",
     .allow_auto = true},

    // Protocol selection.
    {.name = "TORUS_RNDV_THRESH", .type = Type::Size, .default_value = "auto", .unit = "bytes",
     .doc = "message size from which the rendezvous protocol is used; auto = from the cost "
            "model (shm: 256k while the cores share a cache; when a line between them "
            "shows them far apart, ~95k for a message sent alone, ~125k among others), "
            "then for sizes TORUS_PROTO_TUNE covers by measurement",
     .allow_auto = true},
    {.name = "TORUS_ZCOPY_THRESH", .type = Type::Size, .default_value = "auto", .unit = "bytes",
     .doc = "payload bytes from which an eager fragment is sent from the user's buffer on "
            "transports with zero-copy active messages (tcp); auto = 8k",
     .allow_auto = true},
    {.name = "TORUS_PROTO", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "force one tag-send protocol wherever it is usable",
     .choices = "auto|eager_short|eager_bcopy|rndv_get|rndv_put"},
    {.name = "TORUS_PROTO_TUNE", .type = Type::Bool, .default_value = "y", .unit = "",
     .doc = "choose between eager and rendezvous for mid-size messages (shm: 2k up to the "
            "eager cap) by timing each endpoint's own sends, per half-octave of sizes; n = "
            "the cost model's tables alone (as with a TORUS_RNDV_THRESH or TORUS_PROTO)"},
    {.name = "TORUS_PROTO_INFO", .type = Type::Bool, .default_value = "n", .unit = "",
     .doc = "print each endpoint's protocol table when it is created"},
    {.name = "TORUS_RNDV_FRAG_SIZE", .type = Type::Size, .default_value = "4m", .unit = "bytes",
     .doc = "largest single get/put of a rendezvous; larger transfers are split"},

    // Shared-memory transport.
    {.name = "TORUS_SHM_CMA", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "cross-memory attach (process_vm_readv) for shm get/put: auto tries it and falls "
            "back to bounce buffers when refused",
     .choices = "auto|y|n"},
    {.name = "TORUS_SHM_CMA_STAGE", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "copy a CMA get/put whose destination sits 1-15 bytes past its source modulo a "
            "page through an aligned staging buffer, where the kernel's rep movsb is slow at "
            "that distance (AMD Zen 3/4: 4-5x); auto times rep movsb once to decide",
     .choices = "auto|y|n"},
    {.name = "TORUS_SHM_FIFO_SIZE", .type = Type::Int, .default_value = "256", .unit = "cells",
     .doc = "cells in each worker's shared-memory receive FIFO; a power of two"},
    {.name = "TORUS_SHM_LANES", .type = Type::Int, .default_value = "auto", .unit = "lanes",
     .doc = "rings in each worker's segment that one sending process each has to itself "
            "(others share the FIFO): no sender waits on a line another one wrote; auto is one "
            "per expected local peer, at most 8; 0 none",
     .allow_auto = true},
    {.name = "TORUS_SHM_LANE_SIZE", .type = Type::Int, .default_value = "auto", .unit = "cells",
     .doc = "cells in each lane, a power of two; auto gives the lanes together twice "
            "TORUS_SHM_FIFO_SIZE's cells, each at most TORUS_SHM_FIFO_SIZE",
     .allow_auto = true},
    {.name = "TORUS_SHM_SEG_SIZE", .type = Type::Size, .default_value = "8k", .unit = "bytes",
     .doc = "payload bytes of each FIFO cell's eager segment (which adds 128 bytes for "
            "headers and alignment); larger eager messages are fragmented"},
    {.name = "TORUS_SHM_BOUNCE_SIZE", .type = Type::Size, .default_value = "256k",
     .unit = "bytes",
     .doc = "bytes of bounce-buffer get/put each endpoint may have unanswered when CMA is "
            "refused (the pipeline depth of the fallback copy)"},
    {.name = "TORUS_SHM_COOP_THRESH", .type = Type::Size, .default_value = "2m",
     .unit = "bytes",
     .doc = "smallest CMA get that the target process helps copy (both cores copy chunks at "
            "once), unless the initiator's own rendezvous sends are being read (both cores "
            "busy); 0 never asks for help"},
    {.name = "TORUS_SHM_COOP_ADAPTIVE", .type = Type::Size, .default_value = "inf",
     .unit = "bytes",
     .doc = "smallest CMA get that may be shared below TORUS_SHM_COOP_THRESH, while the "
            "cores share a cache: in that range each process times plain and shared gets in "
            "turns and uses the faster; inf never"},

    // TCP transport.
    {.name = "TORUS_NET_DEVICES", .type = Type::String, .default_value = "all", .unit = "",
     .doc = "network interfaces the network transports may use: all, or a list (eth0,lo)"},
    {.name = "TORUS_TCP_IFACES", .type = Type::String, .default_value = "", .unit = "",
     .doc = "interfaces the tcp transport listens on; empty = TORUS_NET_DEVICES"},
    {.name = "TORUS_TCP_SNDBUF", .type = Type::Size, .default_value = "auto", .unit = "bytes",
     .doc = "socket send buffer size (SO_SNDBUF); auto = the kernel's autotuning",
     .allow_auto = true},
    {.name = "TORUS_TCP_RCVBUF", .type = Type::Size, .default_value = "auto", .unit = "bytes",
     .doc = "socket receive buffer size (SO_RCVBUF); auto = the kernel's autotuning",
     .allow_auto = true},
    {.name = "TORUS_TCP_BULK_CONNS", .type = Type::Enum, .default_value = "1", .unit = "",
     .doc = "extra tcp connections per peer that large gets/puts are striped over, so two "
            "kernel copy paths run at once; 0 = one connection",
     .choices = "0|1|2|3|4|5|6|7"},
    {.name = "TORUS_TCP_STRIPE_MIN", .type = Type::Size, .default_value = "auto",
     .unit = "bytes",
     .doc = "tcp gets/puts from this size up are split over the main and the bulk "
            "connections; auto = 512k to other hosts and never within this one (one core "
            "does both ends' kernel work there); a size applies to every connection; inf = "
            "never",
     .allow_auto = true},
    {.name = "TORUS_TCP_CONGESTION", .type = Type::String, .default_value = "auto",
     .unit = "",
     .doc = "congestion control of tcp connections: auto = reno for connections within this "
            "host (a pacing one such as bbr only delays loopback traffic), the system's "
            "choice for the others; system = never set; or an algorithm name (cubic, bbr...) "
            "for every connection"},
    {.name = "TORUS_KEEPALIVE_INTERVAL", .type = Type::Duration, .default_value = "10s",
     .unit = "seconds",
     .doc = "liveness probe interval: TCP keepalive on idle tcp connections, a probe message "
            "per libfabric peer (a dead host is detected after a few intervals); inf = off",
     .allow_auto = false},

    // libfabric transport.
    {.name = "TORUS_OFI_PROVIDER", .type = Type::String, .default_value = "auto", .unit = "",
     .doc = "libfabric provider for the ofi transport (efa, cxi, psm3, verbs, tcp, sockets, "
            "shm); auto = FI_PROVIDER if set, else the first of efa, cxi, psm3, verbs found "
            "(tcp, sockets, udp and shm duplicate torus transports and open only when named)"},
    {.name = "TORUS_OFI_SEG_SIZE", .type = Type::Size, .default_value = "auto", .unit = "bytes",
     .doc = "largest ofi active message (header included), the size of each send bounce "
            "buffer and receive slot; capped by the provider's max_msg_size and, on ofi_rxm, "
            "by its eager buffer (FI_OFI_RXM_BUFFER_SIZE, 16k); auto = that buffer on ofi_rxm, "
            "8k elsewhere",
     .allow_auto = true},
    {.name = "TORUS_OFI_TX_BUFS", .type = Type::Int, .default_value = "128", .unit = "buffers",
     .doc = "registered send bounce buffers per ofi iface; none free = back-pressure"},
    {.name = "TORUS_OFI_RX_BUFS", .type = Type::Int, .default_value = "128", .unit = "buffers",
     .doc = "receive buffers posted per ofi iface when the provider lacks FI_MULTI_RECV (or "
            "TORUS_OFI_MULTI_RECV=n)"},
    {.name = "TORUS_OFI_MULTI_RECV", .type = Type::Bool, .default_value = "y", .unit = "",
     .doc = "receive ofi active messages into multi-receive buffers where the provider "
            "offers FI_MULTI_RECV; n = one posted buffer per message"},
    {.name = "TORUS_OFI_WAIT_FD", .type = Type::Bool, .default_value = "y", .unit = "",
     .doc = "ask the ofi completion queue for a wait fd so a worker can sleep; n = poll only"},

    // Memory: registration cache.
    {.name = "TORUS_RCACHE", .type = Type::Enum, .default_value = "auto", .unit = "",
     .doc = "registration cache: auto uses it when an unmap monitor works, y fails without "
            "one, n registers per operation",
     .choices = "auto|y|n"},
    {.name = "TORUS_RCACHE_MAX_SIZE", .type = Type::Size, .default_value = "auto",
     .unit = "bytes",
     .doc = "bytes of unused registrations kept before the least recently used are released; "
            "auto = from the machine's memory",
     .allow_auto = true},
    {.name = "TORUS_RCACHE_MAX_REGIONS", .type = Type::Int, .default_value = "auto",
     .unit = "regions",
     .doc = "unused registered regions kept before the least recently used are released",
     .allow_auto = true},
    {.name = "TORUS_RCACHE_STATS", .type = Type::Bool, .default_value = "n", .unit = "",
     .doc = "print registration-cache statistics (hits, misses, evictions, invalidations) at "
            "exit"},
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
