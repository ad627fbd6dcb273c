// MPI_Comm_idup of an intercommunicator: intercomm_dup's two agreements (inter.cpp) as
// nonblocking collectives behind a request. First the local group's own id (a BAND
// allreduce inside the group per window), then the intercommunicator's, free at every
// process of both groups: per window a BAND inside the group and an intercommunicator
// Iallreduce that brings the other group's BAND, both in flight at once, ANDed.
//
// Ordering, as for the intracommunicator's (idup.cpp): every window of every step needs
// sequence numbers that all processes of both groups agree on, and windows after the first
// start at different moments on each, so the call reserves one number per possible window
// on the intercommunicator and three per window on its local group.
#include <memory>
#include <utility>

#include "mpi_shim/lib/coll/inter/nonblocking.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"

namespace torus::mpi {
namespace {

class IdupInterOp final : public PendingOp {
 public:
  IdupInterOp(Comm& parent, std::unique_ptr<Comm> copy, MPI_Comm* newcomm)
      : copy_(std::move(copy)), newcomm_(newcomm) {
    // What the collectives need of the parent, which MPI_Comm_free may free meanwhile.
    Comm& lp = *parent.local;
    local_.context_id = lp.context_id;
    local_.rank = lp.rank;
    local_.size = lp.size;
    local_.world_ranks = lp.world_ranks;
    inter_.context_id = parent.context_id;
    inter_.rank = parent.rank;
    inter_.size = parent.size;
    inter_.world_ranks = parent.world_ranks;
    inter_.remote_world_ranks = parent.remote_world_ranks;
    inter_.local = std::make_shared<Comm>(local_);
    local_base_ = lp.coll_seq;
    lp.coll_seq += static_cast<uint32_t>(3 * kContextWindows);
    inter_base_ = parent.coll_seq;
    parent.coll_seq += static_cast<uint32_t>(kContextWindows);
    start_window();
  }

  bool poll() override {
    while (group_ || other_) {
      if ((group_ && !group_->poll()) || (other_ && !other_->poll())) return false;
      int band_error = finish_op(group_);
      if (int e = finish_op(other_); band_error == MPI_SUCCESS) band_error = e;
      if (inter_step_)
        for (size_t i = 0; i < kContextWindowWords; ++i) common_[i] &= theirs_[i];
      uint32_t id = 0;
      const int r = context_window_conclude(window_, true, mine_, common_, band_error, &id);
      if (r == kContextNextWindow) {
        ++window_;
        start_window();
        continue;
      }
      if (r != MPI_SUCCESS) {
        fail(r);
        break;
      }
      if (!inter_step_) {
        local_id_ = id;
        have_local_ = true;
        inter_step_ = true;
        window_ = 0;
        start_window();
        continue;
      }
      have_local_ = false;  // given to the new communicator, or back on failure
      result_ = intercomm_install_duplicate(std::move(copy_), inter_, local_id_, id, newcomm_);
    }
    return true;
  }

  int finish(MPI_Status* status) override {
    status_empty(status, result_);
    return result_;
  }

 private:
  static int finish_op(std::unique_ptr<PendingOp>& op) {
    if (!op) return MPI_SUCCESS;
    MPI_Status st;
    const int e = op->finish(&st);
    op.reset();
    return e;
  }

  void start_window() {
    context_window_offer(window_, true, mine_);
    const uint32_t w = static_cast<uint32_t>(window_);
    if (!inter_step_) {
      local_.coll_seq = local_base_ + w;
      group_ = icoll::iallreduce(local_, mine_, common_, kContextWindowWords, MPI_UNSIGNED,
                                 nullptr, MPI_BAND);
      return;
    }
    const uint32_t k = static_cast<uint32_t>(kContextWindows);
    local_.coll_seq = local_base_ + k + w;
    group_ = icoll::iallreduce(local_, mine_, common_, kContextWindowWords, MPI_UNSIGNED,
                               nullptr, MPI_BAND);
    inter_.local->coll_seq = local_base_ + 2 * k + w;
    inter_.coll_seq = inter_base_ + w;
    other_ = icoll::inter_iallreduce(inter_, mine_, theirs_, kContextWindowWords, MPI_UNSIGNED,
                                     nullptr, MPI_BAND);
  }

  void fail(int code) {
    if (have_local_) context_id_release(local_id_);
    have_local_ = false;
    (void)comm_delete_attrs(*copy_);
    copy_.reset();
    *newcomm_ = MPI_COMM_NULL;
    result_ = code;
  }

  Comm local_, inter_;
  std::unique_ptr<Comm> copy_;
  MPI_Comm* newcomm_;
  uint32_t local_base_ = 0, inter_base_ = 0;
  size_t window_ = 0;
  bool inter_step_ = false;
  bool have_local_ = false;
  uint32_t local_id_ = 0;
  uint32_t mine_[kContextWindowWords];
  uint32_t common_[kContextWindowWords];
  uint32_t theirs_[kContextWindowWords];
  std::unique_ptr<PendingOp> group_, other_;
  int result_ = MPI_ERR_INTERN;
};

}  // namespace

int intercomm_idup(Comm& c, MPI_Comm* newcomm, MPI_Request* request) {
  int e = MPI_SUCCESS;
  std::unique_ptr<Comm> copy = comm_duplicate(c, &e);
  if (!copy) return raise_error(&c, e, "MPI_Comm_idup");
  *request = request_create_op(std::make_unique<IdupInterOp>(c, std::move(copy), newcomm),
                               error_scope(c));
  return MPI_SUCCESS;
}

}  // namespace torus::mpi
