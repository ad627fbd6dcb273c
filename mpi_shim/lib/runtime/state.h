// The process-wide MPI state between MPI_Init and MPI_Finalize: the bootstrap, the torus
// context and worker, and endpoints to world ranks, created on first use.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/api/torus.hpp"
#include "mpi_shim/bootstrap/bootstrap.h"

namespace torus::mpi {

enum class Phase { NotStarted, Running, Finalized };

struct Runtime {
  std::unique_ptr<boot::Bootstrap> boot;
  std::unique_ptr<Context> context;
  std::unique_ptr<Worker> worker;
  int world_rank = 0;
  int world_size = 1;
  int thread_level = 0;  // MPI_THREAD_*
  bool oversubscribed = false;  // more ranks on this host than CPUs
  std::thread::id main_thread;  // the one that called MPI_Init (MPI_Is_thread_main)
  // Values of the predefined attributes of MPI_COMM_WORLD (MPI_Comm_get_attr hands out
  // pointers to them, so they live as long as the runtime).
  struct {
    int tag_ub, host, io, wtime_is_global, appnum, universe_size;
  } attrs{};
  // Endpoints by world rank; nullptr until the first message to that rank.
  std::vector<std::atomic<Endpoint*>> endpoints;
  // World ranks whose connection failed for good (the endpoint error handler): waits on
  // messages from them (RMA answers) give up instead of waiting forever.
  std::unique_ptr<std::atomic<bool>[]> peer_failed;
  std::mutex connect_mutex;  // the bootstrap serves one thread at a time
};

// The runtime, or nullptr while no one uses it.
Runtime* runtime() noexcept;
// The world model's phase (MPI_Initialized, MPI_Finalized): sessions do not change it.
Phase phase() noexcept;
void set_phase(Phase p) noexcept;

// The runtime's users are the world model (MPI_Init..MPI_Finalize) and each open session.
// The first to open sets up the world (bootstrap, one fence for worker addresses) at
// `thread_level`; later ones share it at the level it has. The last to close runs the
// barrier, the fence and the tear-down, so it is collective over the world as MPI_Finalize
// is. A process sets the runtime up once: opening it after it stopped fails (the job's
// bootstrap cannot be joined twice). Both return an MPI error code.
int runtime_open(int thread_level);
int runtime_close();

// The endpoint to a world rank (a bootstrap get and a connect on first use), or nullptr with
// the reason logged.
Endpoint* endpoint_to(int world_rank);

// Whether the connection to a world rank failed for good.
bool peer_failed(int world_rank) noexcept;

// Blocks until req completes (spin, then sleep on the worker); returns its status.
Status wait_for(Request* req);
// Waits for and releases every request (null entries skipped); returns the first error.
Status wait_all(std::vector<Request*>& reqs);
// A wait on a condition the caller polls (Probe, Waitany, a nonblocking collective's Wait):
// each step() progresses the worker, and once the wait is older than the worker's spin,
// sleeps until an event (at most 1 ms, so a condition that no event announces is still
// seen). A wait that slept reports its length when it ends, so the spin adapts as it does
// for the worker's own waits (core/spin_policy.h).
class PolledWait {
 public:
  PolledWait() noexcept : since_(std::chrono::steady_clock::now()) {}
  PolledWait(const PolledWait&) = delete;
  PolledWait& operator=(const PolledWait&) = delete;
  ~PolledWait();
  void step();

 private:
  std::chrono::steady_clock::time_point since_;
  bool slept_ = false;
};

}  // namespace torus::mpi
