// MPI_Ireduce (binomial tree, one child per round) and MPI_Iallreduce (recursive doubling;
// with n not a power of two the first 2*(n - 2^k) ranks fold pairwise first and unfold at
// the end), as rounds of engine.h. Each operation owns its scratch memory: several may be
// pending on one communicator, next to blocking collectives that use Comm::scratch.
// Combines keep rank order (op_apply's `in` is the lower ranks' part), so user ops that do
// not commute get the order MPI prescribes.
#include <cstring>
#include <vector>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/nonblocking/engine.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi::icoll {
namespace {

// Where a reduction's data lives while it runs.
struct Reduction {
  const void* sbuf;
  void* rbuf;
  size_t count;
  MPI_Datatype type;
  const TypeInfo* layout;  // held by the request (api.cpp); nullptr: look `type` up
  MPI_Op op;
  size_t bytes;
};

class Ireduce final : public IcollOp {
 public:
  Ireduce(Comm& c, const Reduction& red, int root)
      : IcollOp(c, 1),
        red_(red),
        root_(root),
        // A tree rooted elsewhere than rank 0 wraps around the rank order, which only a
        // commutative op may ignore.
        tree_root_(op_commutative(red.op) ? root : 0),
        vr_((rank() - tree_root_ + size()) % size()) {
    // cur_: this rank's partial result, the send buffer until the first combine writes into
    // acc_ (the root's receive buffer, or scratch): a leaf sends straight from the user's
    // buffer and nobody copies it first.
    cur_ = red.sbuf == MPI_IN_PLACE ? red.rbuf : red.sbuf;
    const bool acc_is_rbuf = vr_ == 0 && rank() == root_;
    scratch_.resize(acc_is_rbuf ? red.bytes : 2 * red.bytes);
    acc_ = acc_is_rbuf ? red.rbuf : scratch_.data() + red.bytes;
    for (int mask = 1; mask < size(); mask <<= 1) {
      if (vr_ & mask) {
        connect(c, real((vr_ & ~mask)));
        break;
      }
    }
    if (vr_ == 0 && rank() != root_) connect(c, root_);
  }

 private:
  int real(int vr) const { return (vr + tree_root_) % size(); }

  bool next_round() override {
    if (combine_) {  // a child's subtree holds the ranks above ours
      op_apply(red_.op, red_.type, cur_, scratch_.data(), acc_, red_.count, red_.layout);
      cur_ = acc_;
      combine_ = false;
    }
    while (mask_ < size()) {
      const int m = mask_;
      mask_ <<= 1;
      if (vr_ & m) {
        send(real(vr_ & ~m), 0, cur_, red_.bytes);
        mask_ = size();
        return true;
      }
      if ((vr_ | m) < size()) {
        recv(real(vr_ | m), 0, scratch_.data(), red_.bytes);
        combine_ = true;
        return true;
      }
    }
    if (tail_done_) return false;
    tail_done_ = true;
    // The tree's root holds the result; the real root may be another rank.
    if (vr_ == 0) {
      if (rank() != root_) {
        send(root_, 1, cur_, red_.bytes);
        return true;
      }
      if (cur_ != red_.rbuf) copy_bytes(red_.rbuf, cur_, red_.bytes);  // no children
      return false;
    }
    if (rank() == root_) {
      recv(tree_root_, 1, red_.rbuf, red_.bytes);
      return true;
    }
    return false;
  }

  Reduction red_;
  int root_;
  int tree_root_;
  int vr_;
  const void* cur_;
  void* acc_;
  std::vector<std::byte> scratch_;  // [0, bytes): a child's vector; then acc_ unless rbuf
  int mask_ = 1;
  bool combine_ = false;
  bool tail_done_ = false;
};

class Iallreduce final : public IcollOp {
 public:
  Iallreduce(Comm& c, const Reduction& red) : IcollOp(c, 2), red_(red), tmp_(red.bytes) {
    cur_ = red.sbuf == MPI_IN_PLACE ? red.rbuf : red.sbuf;
    const int n = size(), r = rank();
    while (pof2_ * 2 <= n) pof2_ *= 2;
    rem_ = n - pof2_;
    if (r < 2 * rem_) {
      // Fold: each even rank hands its vector to the odd one above and waits for the result.
      newrank_ = r % 2 == 0 ? -1 : r / 2;
      connect(c, r % 2 == 0 ? r + 1 : r - 1);
    } else {
      newrank_ = r - rem_;
    }
    if (newrank_ >= 0)
      for (int mask = 1; mask < pof2_; mask <<= 1) connect(c, peer_of(newrank_ ^ mask));
  }

 private:
  enum class Stage { Fold, Double, Unfold, Done };
  static constexpr int kUnfoldPhase = 63;

  int peer_of(int newpeer) const { return newpeer < rem_ ? newpeer * 2 + 1 : newpeer + rem_; }

  bool next_round() override {
    if (combine_) {
      // The partner's part covers the lower ranks exactly when its rank is lower.
      const void* lower = peer_lower_ ? tmp_.data() : cur_;
      const void* upper = peer_lower_ ? cur_ : tmp_.data();
      op_apply(red_.op, red_.type, lower, upper, red_.rbuf, red_.count, red_.layout);
      cur_ = red_.rbuf;
      combine_ = false;
    }
    const int r = rank();
    switch (stage_) {
      case Stage::Fold:
        stage_ = Stage::Double;
        if (size() == 1) {
          stage_ = Stage::Done;
          if (cur_ != red_.rbuf) copy_bytes(red_.rbuf, cur_, red_.bytes);
          return false;
        }
        if (r < 2 * rem_) {
          if (r % 2 == 0) {
            send(r + 1, 0, cur_, red_.bytes);
          } else {
            recv(r - 1, 0, tmp_.data(), red_.bytes);
            combine_ = true;
            peer_lower_ = true;
          }
          return true;
        }
        [[fallthrough]];
      case Stage::Double:
        if (newrank_ >= 0 && mask_ < pof2_) {
          const int peer = peer_of(newrank_ ^ mask_);
          recv(peer, phase_, tmp_.data(), red_.bytes);
          send(peer, phase_, cur_, red_.bytes);
          combine_ = true;
          peer_lower_ = peer < r;
          mask_ <<= 1;
          ++phase_;
          return true;
        }
        stage_ = Stage::Unfold;
        [[fallthrough]];
      case Stage::Unfold:
        stage_ = Stage::Done;
        if (r < 2 * rem_) {
          if (r % 2 == 1) send(r - 1, kUnfoldPhase, red_.rbuf, red_.bytes);
          else recv(r + 1, kUnfoldPhase, red_.rbuf, red_.bytes);
          return true;
        }
        [[fallthrough]];
      case Stage::Done:
        return false;
    }
    return false;
  }

  Reduction red_;
  std::vector<std::byte> tmp_;  // the partner's vector
  const void* cur_;             // as in Ireduce: the send buffer until the first combine
  int pof2_ = 1;
  int rem_ = 0;
  int newrank_ = -1;
  Stage stage_ = Stage::Fold;
  int mask_ = 1;
  int phase_ = 1;
  bool combine_ = false;
  bool peer_lower_ = false;
};

}  // namespace

std::unique_ptr<PendingOp> ireduce(Comm& c, const void* sbuf, void* rbuf, size_t count,
                                   MPI_Datatype type, const TypeInfo* layout, MPI_Op op,
                                   int root) {
  return launch<Ireduce>(
      c, Reduction{sbuf, rbuf, count, type, layout, op, reduction_bytes(count, type, layout)},
      root);
}

std::unique_ptr<PendingOp> iallreduce(Comm& c, const void* sbuf, void* rbuf, size_t count,
                                      MPI_Datatype type, const TypeInfo* layout, MPI_Op op) {
  return launch<Iallreduce>(
      c, Reduction{sbuf, rbuf, count, type, layout, op, reduction_bytes(count, type, layout)});
}

}  // namespace torus::mpi::icoll
