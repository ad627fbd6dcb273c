// The chosen collectives of coll/coll.h: the one-rank cases, then the algorithm select.h picks.
#include <cstring>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/algo/algos.h"
#include "mpi_shim/lib/coll/algo/select.h"
#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi::coll {
namespace {

// A reduction over one rank: its own vector.
void copy_in(const void* sbuf, void* rbuf, size_t bytes) {
  if (sbuf != MPI_IN_PLACE && bytes) copy_bytes(rbuf, sbuf, bytes);
}

}  // namespace

Status bcast(Comm& c, void* buf, size_t bytes, int root) {
  if (c.size == 1) return Status::Ok;
  if (select_bcast(c, bytes) == Algo::ScatterAllgather)
    return bcast_scatter_allgather(c, buf, bytes, root);
  return bcast_binomial(c, buf, bytes, root);
}

Status reduce(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type, MPI_Op op,
              int root) {
  const size_t bytes = count * type_packed_size(type);
  if (c.size == 1) {
    copy_in(sbuf, rbuf, bytes);
    return Status::Ok;
  }
  if (select_reduce(c, count, bytes, op_commutative(op)) == Algo::Rabenseifner)
    return reduce_rabenseifner(c, sbuf, rbuf, count, type, op, root);
  return reduce_binomial(c, sbuf, rbuf, count, type, op, root);
}

Status allreduce(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
                 MPI_Op op) {
  const size_t bytes = count * type_packed_size(type);
  if (c.size == 1) {
    copy_in(sbuf, rbuf, bytes);
    return Status::Ok;
  }
  switch (select_allreduce(c, count, bytes, op_commutative(op))) {
    case Algo::Ring: return allreduce_ring(c, sbuf, rbuf, count, type, op);
    case Algo::Rabenseifner: return allreduce_rabenseifner(c, sbuf, rbuf, count, type, op);
    default: return allreduce_recursive_doubling(c, sbuf, rbuf, count, type, op);
  }
}

Status reduce_scatter(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
                      MPI_Datatype type, MPI_Op op) {
  const size_t esize = type_packed_size(type);
  if (c.size == 1) {
    copy_in(sbuf, rbuf, counts[0] * esize);
    return Status::Ok;
  }
  size_t total = 0;
  for (int i = 0; i < c.size; ++i) total += counts[i];
  if (select_reduce_scatter(c, total, total * esize, op_commutative(op)) == Algo::Ring)
    return reduce_scatter_ring(c, sbuf, rbuf, counts, type, op);
  return reduce_scatter_halving(c, sbuf, rbuf, counts, type, op);
}

Status allgather(Comm& c, const void* sbuf, void* rbuf, size_t block) {
  if (c.size == 1) {
    copy_in(sbuf, rbuf, block);
    return Status::Ok;
  }
  if (select_allgather(c, block) == Algo::Bruck) return allgather_bruck(c, sbuf, rbuf, block);
  return allgather_ring(c, sbuf, rbuf, block);
}

}  // namespace torus::mpi::coll
