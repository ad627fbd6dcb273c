// Generalized requests (MPI_Grequest_start, MPI_Grequest_complete): an operation the
// application runs itself, behind an MPI_Request that every completion call accepts. It is a
// PendingOp whose poll() reads the flag MPI_Grequest_complete sets, so Wait keeps progressing
// torus (and sleeps as other waits do) while another thread, or a callback run during
// progress, finishes the work.
#include <atomic>
#include <memory>

#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/slot.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

using namespace torus::mpi;

namespace {

class GeneralizedOp final : public PendingOp {
 public:
  GeneralizedOp(MPI_Grequest_query_function* query, MPI_Grequest_free_function* free_fn,
                MPI_Grequest_cancel_function* cancel, void* extra)
      : query_(query), free_(free_fn), cancel_(cancel), extra_(extra) {}
  // The handle goes away (freed by a completion call or MPI_Request_free): the standard's
  // one call of free_fn. Its error code has no call left to return it through.
  ~GeneralizedOp() override {
    if (free_) (void)free_(extra_);
  }

  bool poll() override { return (state_.load(std::memory_order_acquire) & kCompleted) != 0; }

  // query_fn fills the status; its return code is the request's error, so it also becomes
  // the status's MPI_ERROR (the multi-request calls report MPI_ERR_IN_STATUS with it).
  int finish(MPI_Status* status) override {
    MPI_Status local;
    status_empty(&local);
    const int code = query_ ? query_(extra_, &local) : MPI_SUCCESS;
    local.MPI_ERROR = code;
    if (status != MPI_STATUS_IGNORE) *status = local;
    return code;
  }

  void cancel() override {
    if (cancel_) (void)cancel_(extra_, poll() ? 1 : 0);
  }

  bool free_when_done() override {
    const unsigned old = state_.fetch_or(kDetached, std::memory_order_acq_rel);
    return (old & kCompleted) == 0;
  }
  bool finish_repeats() const override { return true; }

  // MPI_Grequest_complete. True when MPI_Request_free came first, so the caller must now free
  // the handle. After the flag is set the op may be destroyed by a waiting thread at once:
  // nothing here touches it afterwards.
  bool complete() {
    const unsigned old = state_.fetch_or(kCompleted, std::memory_order_acq_rel);
    return (old & kDetached) != 0;
  }
  bool completed() const { return (state_.load(std::memory_order_acquire) & kCompleted) != 0; }

 private:
  static constexpr unsigned kCompleted = 1, kDetached = 2;
  MPI_Grequest_query_function* query_;
  MPI_Grequest_free_function* free_;
  MPI_Grequest_cancel_function* cancel_;
  void* extra_;
  std::atomic<unsigned> state_{0};
};

}  // namespace

extern "C" {

int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn,
                        MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                        MPI_Request* request) {
  if (request == nullptr) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Grequest_start");
  // No communicator is involved: errors on the request go to MPI_COMM_WORLD's handler.
  *request = request_create_op(
      std::make_unique<GeneralizedOp>(query_fn, free_fn, cancel_fn, extra_state),
      error_scope(nullptr));
  return MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request) {
  Slot* s = slot_of(request);
  auto* op = s ? dynamic_cast<GeneralizedOp*>(s->op.get()) : nullptr;
  if (!op || op->completed())
    return raise_error(nullptr, MPI_ERR_REQUEST, "MPI_Grequest_complete");
  if (op->complete()) return PMPI_Request_free(&request);  // freed earlier: free_fn runs now
  // A waiter sleeping on the worker sees the flag within its polling interval (PolledWait).
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Grequest_start)
TORUS_MPI_ALIAS(MPI_Grequest_complete)

}  // extern "C"
