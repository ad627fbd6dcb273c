// MPI_Reduce_scatter and MPI_Reduce_scatter_block: argument checks, then coll::reduce_scatter.
#include <utility>
#include <vector>

#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/coll/inter/blocking_api.h"
#include "mpi_shim/lib/coll/reduce_view.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

// counts: elements per rank (already checked to be >= 0).
int reduce_scatter_common(Comm* c, const void* sendbuf, void* recvbuf,
                          std::vector<size_t> counts, MPI_Datatype datatype, MPI_Op op,
                          const char* fn) {
  if (int err = reduction_check(0, datatype, op)) return raise_error(c, err, fn);
  if (c->inter())
    return inter_reduce_scatter_call(c, sendbuf, recvbuf, counts.data(), datatype, op, fn);
  size_t total = 0;
  for (size_t n : counts) total += n;
  if (total == 0 || type_packed_size(datatype) == 0) return MPI_SUCCESS;
  // In place, the input is the whole of recvbuf; the result is its first counts[rank].
  const size_t mine = counts[size_t(c->rank)];
  ReduceView v;
  if (int e = v.init(sendbuf, total, recvbuf, sendbuf == MPI_IN_PLACE ? total : mine, datatype,
                     op))
    return raise_error(c, e, fn);
  for (size_t& n : counts) n *= v.scale();
  torus::Status s = coll::reduce_scatter(*c, v.sbuf(), v.rbuf(), counts.data(), v.type(), op);
  if (!torus::is_error(s)) v.finish(mine);
  return check(c, error_from_status(s), fn);
}

}  // namespace

extern "C" {

int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int* recvcounts,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Reduce_scatter");
  if (!recvcounts) return raise_error(c, MPI_ERR_ARG, "MPI_Reduce_scatter");
  std::vector<size_t> counts(size_t(c->size));
  for (int i = 0; i < c->size; ++i) {
    if (recvcounts[i] < 0) return raise_error(c, MPI_ERR_COUNT, "MPI_Reduce_scatter");
    counts[size_t(i)] = size_t(recvcounts[i]);
  }
  return reduce_scatter_common(c, sendbuf, recvbuf, std::move(counts), datatype, op,
                               "MPI_Reduce_scatter");
}

int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Reduce_scatter_block");
  if (recvcount < 0) return raise_error(c, MPI_ERR_COUNT, "MPI_Reduce_scatter_block");
  std::vector<size_t> counts(size_t(c->size), size_t(recvcount));
  return reduce_scatter_common(c, sendbuf, recvbuf, std::move(counts), datatype, op,
                               "MPI_Reduce_scatter_block");
}

TORUS_MPI_ALIAS(MPI_Reduce_scatter)
TORUS_MPI_ALIAS(MPI_Reduce_scatter_block)

}  // extern "C"
