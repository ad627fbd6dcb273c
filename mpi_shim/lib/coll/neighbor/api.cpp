// MPI_Neighbor_allgather(v), Neighbor_alltoall(v/w) and their nonblocking forms: the
// topology's neighbor lists (comm/topo/neighbors.h), blocks turned into bytes by datatype/blocks.h
// (dense types in place, others staged), then one round of coll/nonblocking/icoll.h's ineighbor. A
// blocking call waits for that operation itself; a nonblocking one hands it to a request.
// MPI_IN_PLACE has no meaning here and is refused (MPI_ERR_BUFFER).
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/coll/nonblocking/staging.h"
#include "mpi_shim/lib/datatype/blocks.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

using namespace torus::mpi;

namespace {

// Everything a neighborhood collective needs while it runs.
struct Neighbor {
  NeighborPlan plan;
  SendView send;  // allgather(v): the one block every destination gets
  std::vector<size_t> send_counts, send_offsets;
  TypeBlocks sblocks;  // alltoall(v/w)
  TypeBlocks rblocks;
  bool one_block = false;
  size_t in() const { return plan.sources.size(); }
  size_t out() const { return plan.destinations.size(); }
  // A neighbor beyond a grid's edge sent nothing: its block stays as the user left it.
  void complete() {
    for (size_t i = 0; i < in(); ++i)
      if (plan.sources[i] != MPI_PROC_NULL) rblocks.unpack(int(i));
  }
};

// The communicator and its neighbor lists, or nullptr after raising the error (*err).
Comm* setup(MPI_Comm comm, const void* sendbuf, void* recvbuf, Neighbor* n, const char* fn,
            int* err) {
  Comm* c = comm_get_intra(comm);  // no intercommunicator collectives here yet
  if (!c) {
    *err = raise_error(comm_get(comm), MPI_ERR_COMM, fn);
    return nullptr;
  }
  int e = neighbor_plan(*c, &n->plan);
  if (!e && (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)) e = MPI_ERR_BUFFER;
  if (e) {
    *err = raise_error(c, e, fn);
    return nullptr;
  }
  return c;
}

// Block i at i * count elements, for the calls with one count.
std::vector<int> uniform(size_t n, int count, std::vector<int>* displs) {
  displs->resize(n);
  for (size_t i = 0; i < n; ++i) (*displs)[i] = int(i) * count;
  return std::vector<int>(n, count);
}

// Runs the collective once its blocks are set up (err: how that went); request == nullptr
// for a blocking call.
int run(Comm* c, std::unique_ptr<Neighbor> n, int err, MPI_Request* request, const char* fn) {
  if (err) return raise_error(c, err, fn);
  const void* sbase = nullptr;
  const size_t *scounts = nullptr, *soffsets = nullptr;
  if (n->one_block) {
    n->send_counts.assign(n->out(), n->send.bytes());
    n->send_offsets.assign(n->out(), 0);
    sbase = n->send.data();
    scounts = n->send_counts.data();
    soffsets = n->send_offsets.data();
  } else {
    n->sblocks.pack_all();
    sbase = n->sblocks.data();
    scounts = n->sblocks.counts();
    soffsets = n->sblocks.offsets();
  }
  auto inner = icoll::ineighbor(*c, n->plan, sbase, scounts, soffsets, n->rblocks.data(),
                                n->rblocks.counts(), n->rblocks.offsets());
  auto op = std::make_unique<StagedOp<Neighbor>>(std::move(inner), std::move(n));
  if (request) {
    *request = request_create_op(std::move(op), error_scope(*c));
    return MPI_SUCCESS;
  }
  PolledWait wait;
  while (!op->poll()) wait.step();
  return check(c, op->finish(MPI_STATUS_IGNORE), fn);
}

// recvcounts == nullptr: the uniform form (recvcount); `vector`: the v-form, whose arrays
// must be there when the process has neighbors.
int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, bool vector,
              const int* recvcounts, const int* displs, int recvcount, MPI_Datatype recvtype,
              MPI_Comm comm, MPI_Request* request, const char* fn) {
  auto n = std::make_unique<Neighbor>();
  int err = MPI_SUCCESS;
  Comm* c = setup(comm, sendbuf, recvbuf, n.get(), fn, &err);
  if (!c) return err;
  if (vector && n->in() > 0 && (!recvcounts || !displs)) return raise_error(c, MPI_ERR_ARG, fn);
  n->one_block = true;
  err = n->send.init(sendbuf, sendcount, sendtype);
  std::vector<int> counts, at;
  if (!vector) {
    counts = uniform(n->in(), recvcount, &at);
    recvcounts = counts.data();
    displs = at.data();
  }
  if (!err) err = n->rblocks.init(recvbuf, int(n->in()), recvcounts, displs, recvtype);
  return run(c, std::move(n), err, request, fn);
}

int alltoall(const void* sendbuf, bool vector, const int* sendcounts, const int* sdispls,
             int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
             const int* rdispls, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request* request, const char* fn) {
  auto n = std::make_unique<Neighbor>();
  int err = MPI_SUCCESS;
  Comm* c = setup(comm, sendbuf, recvbuf, n.get(), fn, &err);
  if (!c) return err;
  if (vector &&
      ((n->out() > 0 && (!sendcounts || !sdispls)) || (n->in() > 0 && (!recvcounts || !rdispls))))
    return raise_error(c, MPI_ERR_ARG, fn);
  std::vector<int> scounts, sat, rcounts, rat;
  if (!vector) {
    scounts = uniform(n->out(), sendcount, &sat);
    sendcounts = scounts.data();
    sdispls = sat.data();
    rcounts = uniform(n->in(), recvcount, &rat);
    recvcounts = rcounts.data();
    rdispls = rat.data();
  }
  err = n->sblocks.init(sendbuf, int(n->out()), sendcounts, sdispls, sendtype);
  if (!err) err = n->rblocks.init(recvbuf, int(n->in()), recvcounts, rdispls, recvtype);
  return run(c, std::move(n), err, request, fn);
}

int alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
              MPI_Request* request, const char* fn) {
  auto n = std::make_unique<Neighbor>();
  int err = MPI_SUCCESS;
  Comm* c = setup(comm, sendbuf, recvbuf, n.get(), fn, &err);
  if (!c) return err;
  if ((n->out() > 0 && (!sendcounts || !sdispls || !sendtypes)) ||
      (n->in() > 0 && (!recvcounts || !rdispls || !recvtypes)))
    return raise_error(c, MPI_ERR_ARG, fn);
  err = n->sblocks.init_w(sendbuf, int(n->out()), sendcounts, sdispls, sendtypes);
  if (!err) err = n->rblocks.init_w(recvbuf, int(n->in()), recvcounts, rdispls, recvtypes);
  return run(c, std::move(n), err, request, fn);
}

// A null request pointer, raised on the communicator's handler (MPI_COMM_WORLD's for an
// invalid one).
int null_request(MPI_Comm comm, const char* fn) {
  return raise_error(comm_get(comm), MPI_ERR_ARG, fn);
}

}  // namespace

extern "C" {

int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather(sendbuf, sendcount, sendtype, recvbuf, false, nullptr, nullptr, recvcount,
                   recvtype, comm, nullptr, "MPI_Neighbor_allgather");
}

int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather(sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, displs, 0, recvtype,
                   comm, nullptr, "MPI_Neighbor_allgatherv");
}

int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall(sendbuf, false, nullptr, nullptr, sendcount, sendtype, recvbuf, nullptr, nullptr,
                  recvcount, recvtype, comm, nullptr, "MPI_Neighbor_alltoall");
}

int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall(sendbuf, true, sendcounts, sdispls, 0, sendtype, recvbuf, recvcounts, rdispls, 0,
                  recvtype, comm, nullptr, "MPI_Neighbor_alltoallv");
}

int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm) {
  return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                   comm, nullptr, "MPI_Neighbor_alltoallw");
}

int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  if (!request) return null_request(comm, "MPI_Ineighbor_allgather");
  return allgather(sendbuf, sendcount, sendtype, recvbuf, false, nullptr, nullptr, recvcount,
                   recvtype, comm, request, "MPI_Ineighbor_allgather");
}

int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (!request) return null_request(comm, "MPI_Ineighbor_allgatherv");
  return allgather(sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, displs, 0, recvtype,
                   comm, request, "MPI_Ineighbor_allgatherv");
}

int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  if (!request) return null_request(comm, "MPI_Ineighbor_alltoall");
  return alltoall(sendbuf, false, nullptr, nullptr, sendcount, sendtype, recvbuf, nullptr, nullptr,
                  recvcount, recvtype, comm, request, "MPI_Ineighbor_alltoall");
}

int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  if (!request) return null_request(comm, "MPI_Ineighbor_alltoallv");
  return alltoall(sendbuf, true, sendcounts, sdispls, 0, sendtype, recvbuf, recvcounts, rdispls, 0,
                  recvtype, comm, request, "MPI_Ineighbor_alltoallv");
}

int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request* request) {
  if (!request) return null_request(comm, "MPI_Ineighbor_alltoallw");
  return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                   comm, request, "MPI_Ineighbor_alltoallw");
}

TORUS_MPI_ALIAS(MPI_Neighbor_allgather)
TORUS_MPI_ALIAS(MPI_Neighbor_allgatherv)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoall)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoallv)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoallw)
TORUS_MPI_ALIAS(MPI_Ineighbor_allgather)
TORUS_MPI_ALIAS(MPI_Ineighbor_allgatherv)
TORUS_MPI_ALIAS(MPI_Ineighbor_alltoall)
TORUS_MPI_ALIAS(MPI_Ineighbor_alltoallv)
TORUS_MPI_ALIAS(MPI_Ineighbor_alltoallw)

}  // extern "C"
