// Which algorithm a collective call runs: by message size, process count and whether the op
// commutes, unless TORUS_COLL_<NAME> forces one; a forced algorithm that cannot run the call
// falls back to one that can. TORUS_COLL_INFO=y has rank 0 of the communicator print each
// distinct choice once.
#pragma once

#include <cstddef>

#include "mpi_shim/lib/comm/comm.h"

namespace torus::mpi::coll {

enum class Algo {
  Binomial,
  ScatterAllgather,
  RecursiveDoubling,
  Ring,
  Rabenseifner,
  RecursiveHalving,
  Bruck,
};

// The spelling TORUS_COLL_* uses.
const char* algo_name(Algo a) noexcept;

// count: elements; bytes: of the whole vector (reduce_scatter: the sum over ranks).
Algo select_bcast(const Comm& c, size_t bytes);
Algo select_reduce(const Comm& c, size_t count, size_t bytes, bool commutative);
// With 2 or 4 ranks and a long vector it may ask the ranks (placement.h): collective.
Algo select_allreduce(Comm& c, size_t count, size_t bytes, bool commutative);
Algo select_reduce_scatter(const Comm& c, size_t count, size_t bytes, bool commutative);
// block: bytes per rank.
Algo select_allgather(const Comm& c, size_t block);

}  // namespace torus::mpi::coll
