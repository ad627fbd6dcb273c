// MPI_Ireduce_scatter, Ireduce_scatter_block, Iscan, Iexscan: the blocking versions' argument
// checks (coll/blocking/api_reduce_scatter.cpp, coll/blocking/api_v.cpp; same error classes), then
// an operation of icoll.h behind a new request, non-dense types staged by a ReduceView the
// request owns.
#include <memory>
#include <utility>
#include <vector>

#include "mpi_shim/lib/coll/inter/nonblocking_api.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/coll/nonblocking/staging.h"
#include "mpi_shim/lib/coll/reduce_view.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

// counts: elements per rank (already checked to be >= 0).
int ireduce_scatter_common(Comm* c, const void* sendbuf, void* recvbuf,
                           std::vector<size_t> counts, MPI_Datatype datatype, MPI_Op op,
                           MPI_Request* request, const char* fn) {
  if (int err = reduction_check(0, datatype, op)) return raise_error(c, err, fn);
  if (c->inter())
    return inter_ireduce_scatter_call(c, sendbuf, recvbuf, std::move(counts), datatype, op,
                                      request, fn);
  size_t total = 0;
  for (size_t n : counts) total += n;
  if (total == 0 || type_packed_size(datatype) == 0) {
    *request = icoll_done_request(*c);
    return MPI_SUCCESS;
  }
  // In place, the input is the whole of recvbuf; the result is its first counts[rank].
  const size_t mine = counts[size_t(c->rank)];
  auto st = std::make_unique<Staging>();
  ReduceView& v = st->red;
  if (int e = v.init(sendbuf, total, recvbuf, sendbuf == MPI_IN_PLACE ? total : mine, datatype,
                     op))
    return raise_error(c, e, fn);
  st->red_elements = mine;
  for (size_t& n : counts) n *= v.scale();
  auto pending =
      icoll::ireduce_scatter(*c, v.sbuf(), v.rbuf(), counts.data(), v.type(), v.layout(), op);
  return icoll_start(*c, std::move(pending), std::move(st), request);
}

int iscan_common(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request* request, bool exclusive,
                 const char* fn) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, fn, &err);
  if (!c) return err;
  if ((err = reduction_check(count, datatype, op))) return raise_error(c, err, fn);
  if (count == 0 || type_packed_size(datatype) == 0) {
    *request = icoll_done_request(*c);
    return MPI_SUCCESS;
  }
  const size_t n = size_t(count);
  auto st = std::make_unique<Staging>();
  ReduceView& v = st->red;
  if (int e = v.init(sendbuf, n, recvbuf, n, datatype, op)) return raise_error(c, e, fn);
  // Exscan leaves rank 0's receive buffer untouched.
  st->red_elements = exclusive && c->rank == 0 ? 0 : n;
  auto pending = icoll::iscan(*c, v.sbuf(), v.rbuf(), n * v.scale(), v.type(), v.layout(), op,
                              exclusive);
  return icoll_start(*c, std::move(pending), std::move(st), request);
}

}  // namespace

extern "C" {

int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Ireduce_scatter", &err, true);
  if (!c) return err;
  if (!recvcounts) return raise_error(c, MPI_ERR_ARG, "MPI_Ireduce_scatter");
  std::vector<size_t> counts(size_t(c->size));
  for (int i = 0; i < c->size; ++i) {
    if (recvcounts[i] < 0) return raise_error(c, MPI_ERR_COUNT, "MPI_Ireduce_scatter");
    counts[size_t(i)] = size_t(recvcounts[i]);
  }
  return ireduce_scatter_common(c, sendbuf, recvbuf, std::move(counts), datatype, op, request,
                                "MPI_Ireduce_scatter");
}

int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request* request) {
  int err = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, "MPI_Ireduce_scatter_block", &err, true);
  if (!c) return err;
  if (recvcount < 0) return raise_error(c, MPI_ERR_COUNT, "MPI_Ireduce_scatter_block");
  std::vector<size_t> counts(size_t(c->size), size_t(recvcount));
  return ireduce_scatter_common(c, sendbuf, recvbuf, std::move(counts), datatype, op, request,
                                "MPI_Ireduce_scatter_block");
}

int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request* request) {
  return iscan_common(sendbuf, recvbuf, count, datatype, op, comm, request, false, "MPI_Iscan");
}

int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return iscan_common(sendbuf, recvbuf, count, datatype, op, comm, request, true,
                      "MPI_Iexscan");
}

TORUS_MPI_ALIAS(MPI_Ireduce_scatter)
TORUS_MPI_ALIAS(MPI_Ireduce_scatter_block)
TORUS_MPI_ALIAS(MPI_Iscan)
TORUS_MPI_ALIAS(MPI_Iexscan)

}  // extern "C"
