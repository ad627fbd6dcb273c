// World setup and tear-down: bootstrap, torus context and worker, one fence for addresses,
// endpoints on demand.
#include "mpi_shim/lib/runtime/state.h"

#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "core/base/config.h"
#include "core/base/log.h"
#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/rma/win.h"
#include "mpi_shim/lib/tool/counters.h"

namespace torus::mpi {
namespace {

// The one MPI runtime of the process; the phase is atomic so that MPI_Initialized and
// MPI_Finalized may be called from any thread at any time.
std::unique_ptr<Runtime> g_runtime;
std::atomic<Phase> g_phase{Phase::NotStarted};
// Guards the users count and the set-up and tear-down it triggers.
std::mutex g_users_mutex;
int g_users = 0;
bool g_stopped = false;  // set up once and torn down: it cannot come back

constexpr const char* kAddrKey = "mpi-addr";

void on_endpoint_error(void* arg, Endpoint* ep, Status status) {
  Runtime* rt = static_cast<Runtime*>(arg);
  std::fprintf(stderr, "torus MPI: rank %d: connection to peer %016llx failed: %s\n",
               rt->world_rank, static_cast<unsigned long long>(ep->peer_uid()),
               status_string(status));
  for (size_t r = 0; r < rt->endpoints.size(); ++r)
    if (rt->endpoints[r].load(std::memory_order_acquire) == ep)
      rt->peer_failed[r].store(true, std::memory_order_release);
}

int setup_failed(const char* what, const std::string& why) {
  std::fprintf(stderr, "torus MPI: MPI_Init: %s: %s\n", what, why.c_str());
  return MPI_ERR_OTHER;
}

}  // namespace

Runtime* runtime() noexcept { return g_runtime.get(); }
Phase phase() noexcept { return g_phase.load(std::memory_order_acquire); }
void set_phase(Phase p) noexcept { g_phase.store(p, std::memory_order_release); }

namespace {

int runtime_start(int thread_level) {
  auto rt = std::make_unique<Runtime>();
  auto boot = boot::open_bootstrap();
  if (!boot) return setup_failed("bootstrap", boot.error().message);
  rt->boot = std::move(boot.value());
  const boot::JobInfo& job = rt->boot->job();
  if (job.size > kMaxRanks)
    return setup_failed("job size", std::to_string(job.size) + " ranks; at most " +
                                        std::to_string(kMaxRanks) + " fit in the tag");
  rt->world_rank = job.rank;
  rt->world_size = job.size;
  rt->thread_level = thread_level;
  tool_counters.multi_thread = thread_level == MPI_THREAD_MULTIPLE;
  rt->main_thread = std::this_thread::get_id();
  rt->attrs.tag_ub = kTagUb;
  rt->attrs.host = MPI_PROC_NULL;   // no process is "the host"
  rt->attrs.io = MPI_ANY_SOURCE;    // every process can do I/O
  rt->attrs.wtime_is_global = 0;    // MPI_Wtime is a per-host monotonic clock
  rt->attrs.appnum = job.appnum;
  rt->attrs.universe_size = job.size;

  ContextParams cp;
  cp.expected_local_peers = job.local_size - 1;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  rt->oversubscribed = cpus > 0 && job.local_size > cpus;
  auto ctx = Context::create(cp);
  if (!ctx) return setup_failed("torus context", ctx.error().message);
  rt->context = std::move(ctx.value());
  const std::string& simd = rt->context->config().get_string("TORUS_OP_SIMD");
  const OpKernels kernels = simd == "none"   ? OpKernels::Generic
                            : simd == "avx2" ? OpKernels::Avx2
                                             : op_kernels_best();
  if (!op_set_kernels(kernels))
    return setup_failed("TORUS_OP_SIMD", "avx2: this CPU has no AVX2 (accepted: auto|avx2|none)");
  WorkerParams wp;
  wp.thread_multi = thread_level == MPI_THREAD_MULTIPLE;
  auto worker = rt->context->create_worker(wp);
  if (!worker) return setup_failed("torus worker", worker.error().message);
  rt->worker = std::move(worker.value());
  rt->worker->set_error_handler(on_endpoint_error, rt.get());

  // One put and one fence; peers' addresses are fetched when first needed (endpoint_to).
  std::vector<std::byte> addr = rt->worker->address();
  if (is_error(rt->boot->put(kAddrKey, std::string_view(reinterpret_cast<const char*>(addr.data()),
                                                         addr.size()))) ||
      is_error(rt->boot->fence()))
    return setup_failed("address exchange", "the bootstrap's put or fence failed");
  rt->endpoints = std::vector<std::atomic<Endpoint*>>(static_cast<size_t>(job.size));
  rt->peer_failed = std::make_unique<std::atomic<bool>[]>(static_cast<size_t>(job.size));
  comms_init(job.rank, job.size);
  g_runtime = std::move(rt);
  return MPI_SUCCESS;
}

int runtime_stop() {
  Runtime* rt = g_runtime.get();
  // The barrier progresses the worker until every rank got here, so no rank still waits on
  // a message (or a rendezvous acknowledgement) from us; the fence then guarantees that the
  // barrier's own last messages were received before anyone tears its worker down.
  Comm* world = comm_get(MPI_COMM_WORLD);
  Status s = coll::barrier(*world);
  if (is_error(s))
    std::fprintf(stderr, "torus MPI: MPI_Finalize: closing barrier failed: %s\n",
                 status_string(s));
  bool fenced = !is_error(rt->boot->fence());
  wins_clear();  // their memory registrations go before the worker
  comms_clear();
  rt->endpoints.clear();
  rt->worker.reset();
  rt->context.reset();
  bool finalized = !is_error(rt->boot->finalize());
  g_runtime.reset();
  return (!is_error(s) && fenced && finalized) ? MPI_SUCCESS : MPI_ERR_OTHER;
}

}  // namespace

int runtime_open(int thread_level) {
  std::lock_guard lock(g_users_mutex);
  if (g_users > 0) {
    ++g_users;
    return MPI_SUCCESS;
  }
  if (g_stopped) {
    std::fprintf(stderr, "torus MPI: the library was started and stopped already; a process "
                         "can start it only once\n");
    return MPI_ERR_OTHER;
  }
  const int rc = runtime_start(thread_level);
  if (rc == MPI_SUCCESS) g_users = 1;
  return rc;
}

int runtime_close() {
  std::lock_guard lock(g_users_mutex);
  if (g_users == 0) return MPI_ERR_OTHER;
  if (--g_users > 0) return MPI_SUCCESS;
  g_stopped = true;
  return runtime_stop();
}

Endpoint* endpoint_to(int world_rank) {
  Runtime* rt = g_runtime.get();
  std::atomic<Endpoint*>& slot = rt->endpoints[static_cast<size_t>(world_rank)];
  if (Endpoint* ep = slot.load(std::memory_order_acquire)) return ep;
  std::lock_guard lock(rt->connect_mutex);
  if (Endpoint* ep = slot.load(std::memory_order_relaxed)) return ep;
  auto addr = rt->boot->get(world_rank, kAddrKey);
  if (!addr) {
    std::fprintf(stderr, "torus MPI: rank %d: address of rank %d: %s\n", rt->world_rank,
                 world_rank, addr.error().message.c_str());
    return nullptr;
  }
  auto ep = rt->worker->connect(
      std::span(reinterpret_cast<const std::byte*>(addr->data()), addr->size()));
  if (!ep) {
    std::fprintf(stderr, "torus MPI: rank %d: connect to rank %d: %s\n", rt->world_rank,
                 world_rank, ep.error().message.c_str());
    return nullptr;
  }
  slot.store(ep.value(), std::memory_order_release);
  return ep.value();
}

bool peer_failed(int world_rank) noexcept {
  const Runtime* rt = g_runtime.get();
  return rt && rt->peer_failed[static_cast<size_t>(world_rank)].load(std::memory_order_acquire);
}

Status wait_for(Request* req) { return g_runtime->worker->wait_request(req); }

Status wait_all(std::vector<Request*>& reqs) {
  Status first = Status::Ok;
  for (Request*& req : reqs) {
    if (!req) continue;
    Status s = wait_for(req);
    if (is_error(s) && !is_error(first)) first = s;
    req->release();
    req = nullptr;
  }
  return first;
}

void PolledWait::step() {
  Worker& w = *g_runtime->worker;
  if (w.progress() != 0) return;
  if (g_runtime->oversubscribed) sched_yield();  // the peer we wait for may need this CPU
  if (std::chrono::steady_clock::now() - since_ > w.spin_time()) {
    slept_ = true;
    (void)w.wait(std::chrono::milliseconds(1));
  }
}

PolledWait::~PolledWait() {
  if (slept_ && g_runtime)
    g_runtime->worker->note_outlasted_wait(std::chrono::steady_clock::now() - since_);
}

}  // namespace torus::mpi
