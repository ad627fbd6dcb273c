// The fold and recursive halving of halving.h.
#include "mpi_shim/lib/coll/algo/halving.h"

#include "mpi_shim/lib/coll/algo/util.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"

namespace torus::mpi::coll {

Fold::Fold(int n, int r) : pof2(pow2_floor(n)), rem(n - pof2) {
  if (r < 2 * rem) newrank = r % 2 == 0 ? -1 : r / 2;
  else newrank = r - rem;
}

int halving_block(int newrank, int pof2) {
  int block = 0;
  for (int mask = 1, top = pof2 / 2; mask < pof2; mask <<= 1, top >>= 1)
    if (newrank & mask) block |= top;
  return block;
}

Status fold_in(const CollContext& cc, const Fold& f, const std::byte* mine, std::byte* work,
               std::byte* tmp, size_t bytes, MPI_Op op, MPI_Datatype type, bool commutative) {
  const int r = cc.rank();
  const size_t esize = type_packed_size(type);
  if (f.newrank < 0)
    return stream_exchange(cc, kFoldPhase, r + 1, mine, bytes, -1, nullptr, 0,
                           segment_bytes(esize), [](size_t, size_t) {});
  return stream_exchange(cc, kFoldPhase, -1, nullptr, 0, r - 1, tmp, bytes, segment_bytes(esize),
                         [&](size_t at, size_t len) {
                           combine(op, type, commutative, tmp + at, mine + at, work + at,
                                   len / esize);
                         });
}

Status halve(const CollContext& cc, const Fold& f, const size_t* off, const std::byte* cur,
             std::byte* work, std::byte* tmp, MPI_Op op, MPI_Datatype type, bool commutative,
             std::vector<std::pair<int, int>>* levels) {
  const size_t esize = type_packed_size(type), seg = segment_bytes(esize);
  int lo = 0, hi = f.pof2;
  for (int mask = 1, phase = kHalvingPhase; mask < f.pof2; mask <<= 1, ++phase) {
    const int partner = f.newrank ^ mask;
    const int mid = (lo + hi) / 2;
    // The lower of the pair keeps the lower half; the partner's contribution covers ranks
    // wholly below ours when it is the lower one.
    const bool lower = (f.newrank & mask) == 0;
    const int keep_lo = lower ? lo : mid, keep_hi = lower ? mid : hi;
    const int send_lo = lower ? mid : lo, send_hi = lower ? hi : mid;
    levels->emplace_back(lo, hi);
    const size_t kb = off[keep_lo], klen = off[keep_hi] - kb;
    const size_t sb = off[send_lo], slen = off[send_hi] - sb;
    const int peer = f.rank_of(partner);
    Status s = stream_exchange(cc, phase, peer, cur + sb, slen, peer, tmp, klen, seg,
                               [&](size_t at, size_t len) {
                                 const std::byte* theirs = tmp + at;
                                 const std::byte* ours = cur + kb + at;
                                 if (lower)
                                   combine(op, type, commutative, ours, theirs, work + kb + at,
                                           len / esize);
                                 else
                                   combine(op, type, commutative, theirs, ours, work + kb + at,
                                           len / esize);
                               });
    if (is_error(s)) return s;
    cur = work;
    lo = keep_lo;
    hi = keep_hi;
  }
  return Status::Ok;
}

}  // namespace torus::mpi::coll
