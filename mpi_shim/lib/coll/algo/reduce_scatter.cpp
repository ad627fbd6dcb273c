// Reduce-scatter by recursive halving for any op: fold to a power of two, halve (in rank
// order, halving.h) with the blocks cut at the ranks' own counts, then the holder of
// each block, which halving leaves bit-reversed, sends every rank its part directly. log2(n)
// + 2 steps, about the vector once per rank; the ring (ring.cpp) is for long vectors
// and commutative ops.
#include <cstring>
#include <vector>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/algo/algos.h"
#include "mpi_shim/lib/coll/algo/halving.h"
#include "mpi_shim/lib/coll/algo/util.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi::coll {

Status reduce_scatter_halving(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
                              MPI_Datatype type, MPI_Op op) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  const size_t esize = type_packed_size(type);
  const bool commutative = op_commutative(op);
  std::vector<size_t> disp(size_t(n) + 1);
  for (size_t i = 0; i < size_t(n); ++i) disp[i + 1] = disp[i] + counts[i] * esize;
  const size_t total = disp[size_t(n)];
  const Fold f(n, r);
  // Participant nr's block is the part of the ranks it speaks for.
  std::vector<size_t> off(size_t(f.pof2) + 1, total);
  for (int nr = 0; nr < f.pof2; ++nr)
    off[size_t(nr)] = disp[size_t(nr < f.rem ? 2 * nr : nr + f.rem)];

  const std::byte* mine = static_cast<const std::byte*>(sbuf == MPI_IN_PLACE ? rbuf : sbuf);
  const size_t tmp_bytes = f.newrank < 0        ? 0
                           : r < 2 * f.rem      ? total
                                                : halving_tmp(off.data(), f.pof2);
  std::span<std::byte> space = c.scratch(tmp_bytes + (f.newrank < 0 ? 0 : total));
  std::byte* tmp = space.data();
  std::byte* work = space.data() + tmp_bytes;
  if (r < 2 * f.rem) {
    Status s = fold_in(cc, f, mine, work, tmp, total, op, type, commutative);
    if (is_error(s)) return s;
    mine = work;
  }
  if (f.newrank >= 0) {
    std::vector<std::pair<int, int>> levels;
    Status s = halve(cc, f, off.data(), mine, work, tmp, op, type, commutative, &levels);
    if (is_error(s)) return s;
  }
  // Every read of the input is done: rbuf may take the result even in place.
  InFlight fl(cc);
  const size_t my_len = counts[r] * esize;
  const int holder = f.rank_of(halving_block(f.newrank_of(r), f.pof2));
  if (holder != r && my_len) {
    Status s = fl.recv(holder, kFinalPhase, rbuf, my_len);
    if (is_error(s)) return s;
  }
  if (f.newrank >= 0) {
    const int b = halving_block(f.newrank, f.pof2);  // the participant whose part it is
    const int ranks[2] = {b < f.rem ? 2 * b : b + f.rem, b < f.rem ? 2 * b + 1 : -1};
    for (int t : ranks) {
      if (t < 0 || counts[t] == 0) continue;
      if (t == r) {
        copy_bytes(rbuf, work + disp[size_t(t)], my_len);
        continue;
      }
      Status s = fl.send(t, kFinalPhase, work + disp[size_t(t)], counts[t] * esize);
      if (is_error(s)) return s;
    }
  }
  return fl.wait_all();
}

}  // namespace torus::mpi::coll
