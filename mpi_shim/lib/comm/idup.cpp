// MPI_Comm_idup(_with_info): Comm_dup's context-id agreement (context_ids.cpp) as
// nonblocking allreduces, one per window of ids, behind a request. The attributes are copied
// when the call is made, the communicator is installed and *newcomm written when the request
// completes.
//
// Ordering: every window's allreduce needs a collective sequence number that all members
// agree on, and a window after the first starts only when the previous one ended, at a
// different moment on each rank, while other collectives may have begun on the parent. So
// the call reserves one number per possible window up front, the same on every rank.
//
// Progress: the first window (the only one unless a member holds more than 2048
// communicators) advances inside any progress of the worker, as every nonblocking
// collective; a later window starts from Test or Wait on this request.
#include <memory>
#include <utility>

#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

class IdupOp final : public PendingOp {
 public:
  IdupOp(Comm& parent, std::unique_ptr<Comm> copy, MPI_Comm* newcomm)
      : copy_(std::move(copy)), newcomm_(newcomm) {
    // What the allreduces need of the parent, which MPI_Comm_free may free meanwhile.
    over_.context_id = parent.context_id;
    over_.rank = parent.rank;
    over_.size = parent.size;
    over_.world_ranks = parent.world_ranks;
    seq_base_ = parent.coll_seq;
    parent.coll_seq += static_cast<uint32_t>(kContextWindows);
    start_window();
  }

  // Completes the communicator as soon as the agreement has ended, so that a request
  // released by MPI_Request_free still yields it. (Two threads may not test one request at
  // once, the standard's rule, so this runs on one thread at a time.)
  bool poll() override {
    while (inner_) {
      if (!inner_->poll()) return false;
      MPI_Status st;
      const int band_error = inner_->finish(&st);
      inner_.reset();
      result_ = context_window_conclude(window_, true, mine_, common_, band_error, &context_id_);
      if (result_ == kContextNextWindow) {
        ++window_;
        start_window();
        continue;
      }
      if (result_ == MPI_SUCCESS) {
        result_ = comm_install_duplicate(std::move(copy_), context_id_, newcomm_);
      } else {
        (void)comm_delete_attrs(*copy_);
        *newcomm_ = MPI_COMM_NULL;
      }
      copy_.reset();
    }
    return true;
  }

  int finish(MPI_Status* status) override {
    status_empty(status, result_);
    return result_;
  }

 private:
  void start_window() {
    context_window_offer(window_, true, mine_);
    over_.coll_seq = seq_base_ + static_cast<uint32_t>(window_);
    inner_ = icoll::iallreduce(over_, mine_, common_, kContextWindowWords, MPI_UNSIGNED, nullptr,
                               MPI_BAND);
  }

  Comm over_;
  std::unique_ptr<Comm> copy_;
  MPI_Comm* newcomm_;
  uint32_t seq_base_ = 0;
  size_t window_ = 0;
  uint32_t mine_[kContextWindowWords];
  uint32_t common_[kContextWindowWords];
  std::unique_ptr<PendingOp> inner_;
  int result_ = MPI_ERR_INTERN;
  uint32_t context_id_ = 0;
};

}  // namespace

extern "C" {

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_idup");
  if (!newcomm || !request) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_idup");
  if (c->inter()) return intercomm_idup(*c, newcomm, request);
  int e = MPI_SUCCESS;
  std::unique_ptr<Comm> copy = comm_duplicate(*c, &e);
  if (!copy) return raise_error(c, e, "MPI_Comm_idup");
  *request =
      request_create_op(std::make_unique<IdupOp>(*c, std::move(copy), newcomm), error_scope(*c));
  return MPI_SUCCESS;
}

// Hints in `info` change nothing here, as for MPI_Comm_dup_with_info.
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info /*info*/, MPI_Comm* newcomm,
                             MPI_Request* request) {
  return PMPI_Comm_idup(comm, newcomm, request);
}

TORUS_MPI_ALIAS(MPI_Comm_idup)
TORUS_MPI_ALIAS(MPI_Comm_idup_with_info)

}  // extern "C"
