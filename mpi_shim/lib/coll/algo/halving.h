// Recursive halving, the reduce-scatter under Rabenseifner's reduce and allreduce and under
// the halving reduce-scatter, with the fold that brings any process count to a power of two.
// The halves are cut so that each exchange meets a partner whose ranks lie wholly below or
// wholly above this one's: combining in that order keeps non-commutative ops right.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "core/api/torus.hpp"
#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/coll/algo/context.h"

namespace torus::mpi::coll {

// Phases: the fold 0, halving steps 1.., the allgather that retraces them 24.., the final
// hand-over (unfold, gather to the root, delivery) 62.
inline constexpr int kFoldPhase = 0;
inline constexpr int kHalvingPhase = 1;
inline constexpr int kDoublingPhase = 24;
inline constexpr int kFinalPhase = 62;

// With n = pof2 + rem, the first 2*rem ranks pair up: even rank r hands its vector to r + 1
// and sits out (newrank -1); the others take part as newrank 0 .. pof2 - 1, in rank order.
struct Fold {
  Fold(int n, int r);
  int pof2, rem, newrank;
  // The rank of a participant.
  int rank_of(int nr) const { return nr < rem ? 2 * nr + 1 : nr + rem; }
  // The participant that speaks for rank r (itself, or r + 1 for an even folded rank).
  int newrank_of(int r) const { return r < 2 * rem ? r / 2 : r - rem; }
};

// The block a participant holds complete after halving: its newrank with the bits reversed
// (the first step decides the top half, and it is decided by the lowest bit).
int halving_block(int newrank, int pof2);

// The participant's part: `off` (pof2 + 1 byte offsets) cuts the vector into pof2 blocks;
// `cur` is its contribution (after the fold), combined results go to `work` (which may be
// cur), `tmp` takes incoming halves (halving_tmp bytes). levels receives the range of
// blocks held before each step, for the allgather that retraces them.
inline size_t halving_tmp(const size_t* off, int pof2) {
  const size_t low = off[pof2 / 2] - off[0], high = off[pof2] - off[pof2 / 2];
  return low > high ? low : high;
}
Status halve(const CollContext& cc, const Fold& f, const size_t* off, const std::byte* cur,
             std::byte* work, std::byte* tmp, MPI_Op op, MPI_Datatype type, bool commutative,
             std::vector<std::pair<int, int>>* levels);

// The fold's transfer: an even folded rank sends its `bytes` of `mine` to r + 1, which
// combines them (the lower ranks' contribution) with its own into work through tmp.
Status fold_in(const CollContext& cc, const Fold& f, const std::byte* mine, std::byte* work,
               std::byte* tmp, size_t bytes, MPI_Op op, MPI_Datatype type, bool commutative);

}  // namespace torus::mpi::coll
