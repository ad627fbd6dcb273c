// MPI_Iscan and MPI_Iexscan: coll/algo/scan.cpp's recursive doubling as rounds of engine.h, one
// exchange with rank r ^ 2^k per round. The partner's ranks lie wholly below or above ours
// and each combine puts the lower ones first, so non-commutative ops are right. The
// operation owns its two scratch vectors.
#include <utility>
#include <vector>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/nonblocking/engine.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi::icoll {
namespace {

class Iscan final : public IcollOp {
 public:
  Iscan(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
        const TypeInfo* layout, MPI_Op op, bool exclusive)
      : IcollOp(c, 2),
        rbuf_(rbuf),
        count_(count),
        type_(type),
        layout_(layout),
        op_(op),
        bytes_(reduction_bytes(count, type, layout)),
        space_(2 * bytes_),
        // Inclusive: the prefix starts with this rank's own value; exclusive: empty until a
        // lower rank's partial arrives.
        have_prefix_(!exclusive) {
    partial_ = space_.data();
    incoming_ = space_.data() + bytes_;
    const void* own = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    copy_bytes(partial_, own, bytes_);
    if (!exclusive && own != rbuf) copy_bytes(rbuf, own, bytes_);
    for (int mask = 1; mask < size(); mask <<= 1)
      if ((rank() ^ mask) < size()) connect(c, rank() ^ mask);
  }

 private:
  bool next_round() override {
    if (peer_ >= 0) combine();
    while (mask_ < size()) {
      const int peer = rank() ^ mask_, phase = phase_;
      mask_ <<= 1;
      ++phase_;  // both partners count every level, used or not: the phases agree
      if (peer >= size()) continue;
      recv(peer, phase, incoming_, bytes_);
      send(peer, phase, partial_, bytes_);
      peer_ = peer;
      return true;
    }
    return false;
  }

  void combine() {
    const bool from_below = peer_ < rank();
    peer_ = -1;
    if (from_below) {
      op_apply(op_, type_, incoming_, partial_, partial_, count_, layout_);
      // Each partial from below covers ranks below all of those in the prefix so far.
      if (have_prefix_) {
        op_apply(op_, type_, incoming_, rbuf_, rbuf_, count_, layout_);
      } else {
        copy_bytes(rbuf_, incoming_, bytes_);
        have_prefix_ = true;
      }
      return;
    }
    // partial op incoming, written over incoming (a user op writes its second operand); the
    // two areas then swap roles.
    op_apply(op_, type_, partial_, incoming_, incoming_, count_, layout_);
    std::swap(partial_, incoming_);
  }

  void* rbuf_;
  size_t count_;
  MPI_Datatype type_;
  const TypeInfo* layout_;
  MPI_Op op_;
  size_t bytes_;
  std::vector<std::byte> space_;
  std::byte* partial_;   // the reduction over the ranks this one has heard of
  std::byte* incoming_;  // the partner's partial
  bool have_prefix_;
  int mask_ = 1;
  int phase_ = 0;
  int peer_ = -1;  // the partner of the round that just completed
};

}  // namespace

std::unique_ptr<PendingOp> iscan(Comm& c, const void* sbuf, void* rbuf, size_t count,
                                 MPI_Datatype type, const TypeInfo* layout, MPI_Op op,
                                 bool exclusive) {
  return launch<Iscan>(c, sbuf, rbuf, count, type, layout, op, exclusive);
}

}  // namespace torus::mpi::icoll
