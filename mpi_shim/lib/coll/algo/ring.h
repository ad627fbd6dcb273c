// One pass of blocks around the ring of ranks, pipelined by segment: the engine under ring
// allgather, ring reduce-scatter (ring allreduce is both) and the allgather half of the
// scatter-allgather broadcast.
#pragma once

#include <cstddef>

#include "core/api/torus.hpp"
#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/coll/algo/context.h"

namespace torus::mpi::coll {

// n - 1 steps over n blocks: at step s this rank sends block (first - s) mod n to `right`
// and receives block (first - s - 1) mod n from `left`; the block received at step s is the
// one it sends at step s + 1. Each segment is forwarded as soon as it has arrived (and been
// combined), so a long vector streams round the ring instead of moving a block per step.
struct RingPass {
  int n = 1;
  int left = 0, right = 0;
  int first = 0;
  const size_t* disp = nullptr;  // byte offset of block b in src, dst and mine
  const size_t* len = nullptr;   // byte length of block b
  const std::byte* src = nullptr;  // where the block sent at step 0 is read
  std::byte* dst = nullptr;        // where received (combined) blocks are kept and sent from
  int phase0 = 0;                  // steps use phases phase0 .. phase0 + 31
  size_t esize = 1;                // segments are whole elements

  // Reduce-scatter (tmp != nullptr): segments arrive in tmp (two areas of tmp_area bytes,
  // alternating by step, so the next step's receives are posted while this one's are
  // combined) and dst[b] = incoming op mine[b]. The op must be commutative: a block meets
  // the ranks in ring order, not rank order.
  std::byte* tmp = nullptr;
  size_t tmp_area = 0;
  const std::byte* mine = nullptr;
  MPI_Op op = MPI_OP_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  // Where the block received at the last step goes instead of dst + disp[b] (nullptr: dst).
  std::byte* last = nullptr;
};

Status ring_pass(const CollContext& cc, const RingPass& p);

}  // namespace torus::mpi::coll
