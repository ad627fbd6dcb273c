// MPI_Ireduce_scatter(_block) as two rounds of engine.h: every rank posts at once the
// receives of its block from all others and the sends of their blocks to them, then combines
// the n contributions to its block in rank order. One round trip of latency, and every rank
// moves what the pairwise exchange moves (its input once, its block n - 1 times), with the
// contributions held in the operation's scratch meanwhile; the rank-order combine makes any
// op right, commutative or not.
#include <algorithm>
#include <vector>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/nonblocking/engine.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi::icoll {
namespace {

class IreduceScatter final : public IcollOp {
 public:
  IreduceScatter(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
                 MPI_Datatype type, const TypeInfo* layout, MPI_Op op)
      : IcollOp(c, 2 * static_cast<size_t>(std::max(c.size - 1, 1))),
        rbuf_(rbuf),
        type_(type),
        layout_(layout),
        op_(op),
        in_(static_cast<const std::byte*>(sbuf == MPI_IN_PLACE ? rbuf : sbuf)),
        disp_(static_cast<size_t>(c.size) + 1) {
    const size_t esize = reduction_bytes(1, type, layout);
    const size_t n = static_cast<size_t>(size()), r = static_cast<size_t>(rank());
    for (size_t i = 0; i < n; ++i) disp_[i + 1] = disp_[i] + counts[i] * esize;
    mine_count_ = counts[r];
    mine_ = mine_count_ * esize;
    // Slot i holds rank i's contribution. Our own is read from the input, except in place:
    // the result is written from the start of rbuf, over the input, so it is copied first.
    in_place_ = sbuf == MPI_IN_PLACE;
    slots_.resize(mine_ * (in_place_ ? n : n - 1));
    if (in_place_ && mine_) copy_bytes(slot(r), in_ + disp_[r], mine_);
    for (size_t p = 0; p < n; ++p)
      if (p != r && counts[p]) connect(c, static_cast<int>(p));
  }

 private:
  std::byte* slot(size_t i) {
    const size_t r = static_cast<size_t>(rank());
    if (in_place_ || i < r) return slots_.data() + i * mine_;
    return slots_.data() + (i - 1) * mine_;  // no slot for our own
  }
  const void* contribution(size_t i) {
    if (!in_place_ && i == static_cast<size_t>(rank())) return in_ + disp_[i];
    return slot(i);
  }

  bool next_round() override {
    const int n = size(), r = rank();
    if (!posted_) {
      posted_ = true;
      // Receives first, so the blocks rarely wait in the unexpected queue; sends in the
      // pairwise order, so no rank is everyone's first target.
      if (mine_)
        for (int k = 1; k < n; ++k) {
          const int p = (r - k + n) % n;
          recv(p, 0, slot(size_t(p)), mine_);
        }
      for (int k = 1; k < n; ++k) {
        const size_t p = size_t((r + k) % n);
        if (disp_[p + 1] > disp_[p]) send(int(p), 0, in_ + disp_[p], disp_[p + 1] - disp_[p]);
      }
      return true;
    }
    if (mine_ == 0 || combined_) return false;
    combined_ = true;
    // rbuf = c0 op (c1 op (... op c[n-1])): op_apply writes `in op inout`.
    copy_bytes(rbuf_, contribution(size_t(n - 1)), mine_);
    for (int i = n - 2; i >= 0; --i)
      op_apply(op_, type_, contribution(size_t(i)), rbuf_, rbuf_, mine_count_, layout_);
    return false;
  }

  void* rbuf_;
  MPI_Datatype type_;
  const TypeInfo* layout_;
  MPI_Op op_;
  const std::byte* in_;
  std::vector<size_t> disp_;  // bytes: rank i's block of the input is [disp_[i], disp_[i+1])
  size_t mine_count_ = 0;
  size_t mine_ = 0;
  bool in_place_ = false;
  std::vector<std::byte> slots_;
  bool posted_ = false;
  bool combined_ = false;
};

}  // namespace

std::unique_ptr<PendingOp> ireduce_scatter(Comm& c, const void* sbuf, void* rbuf,
                                           const size_t* counts, MPI_Datatype type,
                                           const TypeInfo* layout, MPI_Op op) {
  return launch<IreduceScatter>(c, sbuf, rbuf, counts, type, layout, op);
}

}  // namespace torus::mpi::icoll
