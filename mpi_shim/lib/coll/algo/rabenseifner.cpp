// Rabenseifner's reduce and allreduce for long vectors: a recursive-halving reduce-scatter
// (halving.h) leaves each of the pof2 participants one block complete, then the blocks
// go to the root (reduce) or everywhere by recursive doubling (allreduce). Each rank moves
// about twice the vector instead of log2(n) times, and the combining is split n ways. The
// halving combines in rank order, so non-commutative ops are safe too.
#include <vector>

#include "mpi_shim/lib/coll/algo/algos.h"
#include "mpi_shim/lib/coll/algo/halving.h"
#include "mpi_shim/lib/coll/algo/util.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi::coll {
namespace {

// Retraces the halving levels backwards: at each, swap the range held with the partner's
// sibling range, so that every participant ends with all blocks in `work`.
Status doubling_allgather(const CollContext& cc, const Fold& f, const size_t* off,
                          std::byte* work, const std::vector<std::pair<int, int>>& levels,
                          size_t seg) {
  int lo = halving_block(f.newrank, f.pof2), hi = lo + 1;
  for (int level = int(levels.size()) - 1; level >= 0; --level) {
    const auto [plo, phi] = levels[size_t(level)];
    const int mid = (plo + phi) / 2;
    const int other_lo = lo == plo ? mid : plo, other_hi = lo == plo ? phi : mid;
    const int peer = f.rank_of(f.newrank ^ (1 << level));
    // In segments, as the halving and the ring: one message of the whole range would wait
    // for all of it, where segments overlap their transfers (and on shm stay eager while
    // the cores are near).
    Status s = stream_exchange(cc, kDoublingPhase + level, peer, work + off[lo],
                               off[hi] - off[lo], peer, work + off[other_lo],
                               off[other_hi] - off[other_lo], seg, [](size_t, size_t) {});
    if (is_error(s)) return s;
    lo = plo;
    hi = phi;
  }
  return Status::Ok;
}

}  // namespace

Status allreduce_rabenseifner(Comm& c, const void* sbuf, void* rbuf, size_t count,
                              MPI_Datatype type, MPI_Op op) {
  CollContext cc(c);
  const int r = cc.rank();
  const size_t esize = type_packed_size(type), bytes = count * esize;
  const bool commutative = op_commutative(op);
  const std::byte* mine = static_cast<const std::byte*>(sbuf == MPI_IN_PLACE ? rbuf : sbuf);
  std::byte* work = static_cast<std::byte*>(rbuf);
  const Fold f(cc.size(), r);
  const std::vector<size_t> off = even_blocks(count, f.pof2, esize);
  // Folding in takes a whole vector, halving at most half of it; a rank folded away none.
  const size_t tmp_bytes = f.newrank < 0        ? 0
                           : r < 2 * f.rem      ? bytes
                                                : halving_tmp(off.data(), f.pof2);
  std::byte* tmp = c.scratch(tmp_bytes).data();
  if (r < 2 * f.rem) {
    Status s = fold_in(cc, f, mine, work, tmp, bytes, op, type, commutative);
    if (is_error(s)) return s;
    if (f.newrank < 0) return cc.recv(r + 1, kFinalPhase, rbuf, bytes);
    mine = work;
  }
  std::vector<std::pair<int, int>> levels;
  Status s = halve(cc, f, off.data(), mine, work, tmp, op, type, commutative, &levels);
  if (is_error(s)) return s;
  s = doubling_allgather(cc, f, off.data(), work, levels, segment_bytes(esize));
  if (is_error(s)) return s;
  if (r < 2 * f.rem) return cc.send(r - 1, kFinalPhase, rbuf, bytes);
  return Status::Ok;
}

Status reduce_rabenseifner(Comm& c, const void* sbuf, void* rbuf, size_t count,
                           MPI_Datatype type, MPI_Op op, int root) {
  CollContext cc(c);
  const int r = cc.rank();
  const size_t esize = type_packed_size(type), bytes = count * esize;
  const bool commutative = op_commutative(op);
  const std::byte* mine = static_cast<const std::byte*>(sbuf == MPI_IN_PLACE ? rbuf : sbuf);
  const Fold f(cc.size(), r);
  const std::vector<size_t> off = even_blocks(count, f.pof2, esize);
  // The root combines into its receive buffer, the other participants into scratch after
  // tmp (sized as in allreduce).
  const size_t tmp_bytes = f.newrank < 0        ? 0
                           : r < 2 * f.rem      ? bytes
                                                : halving_tmp(off.data(), f.pof2);
  std::span<std::byte> space = c.scratch(tmp_bytes + (r == root || f.newrank < 0 ? 0 : bytes));
  std::byte* tmp = space.data();
  std::byte* work = r == root ? static_cast<std::byte*>(rbuf) : space.data() + tmp_bytes;
  if (r < 2 * f.rem) {
    Status s = fold_in(cc, f, mine, work, tmp, bytes, op, type, commutative);
    if (is_error(s)) return s;
    mine = work;
  }
  if (f.newrank >= 0) {
    std::vector<std::pair<int, int>> levels;
    Status s = halve(cc, f, off.data(), mine, work, tmp, op, type, commutative, &levels);
    if (is_error(s)) return s;
    if (r != root) {
      const size_t b = size_t(halving_block(f.newrank, f.pof2));
      return cc.send(root, kFinalPhase, work + off[b], off[b + 1] - off[b]);
    }
  } else if (r != root) {
    return Status::Ok;
  }
  // The root collects every participant's block (its own is in place already).
  InFlight fl(cc);
  for (int nr = 0; nr < f.pof2; ++nr) {
    if (nr == f.newrank) continue;
    const size_t b = size_t(halving_block(nr, f.pof2));
    Status s = fl.recv(f.rank_of(nr), kFinalPhase, static_cast<std::byte*>(rbuf) + off[b],
                       off[b + 1] - off[b]);
    if (is_error(s)) return s;
  }
  return fl.wait_all();
}

}  // namespace torus::mpi::coll
