// The persistent neighborhood collectives (MPI 4.0 MPI_Neighbor_*_init), as
// init.cpp's: arrays copied at their lengths, the topology's in- and out-degrees
// at init (none when the communicator has no topology: MPI_Start then reports that).
#include <vector>

#include "mpi_shim/lib/coll/persistent/started.h"
#include "mpi_shim/lib/comm/topo/neighbors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;
using namespace torus::mpi::persistent;

namespace {

struct Degrees {
  int in = 0, out = 0;
};

Degrees degrees(const Comm& c) {
  NeighborPlan plan;
  if (neighbor_plan(c, &plan) != MPI_SUCCESS) return {};
  return {int(plan.sources.size()), int(plan.destinations.size())};
}

std::vector<MPI_Aint> copy_aints(const MPI_Aint* a, int n) {
  return a && n > 0 ? std::vector<MPI_Aint>(a, a + n) : std::vector<MPI_Aint>{};
}
const MPI_Aint* aints_or_null(const std::vector<MPI_Aint>& v) {
  return v.empty() ? nullptr : v.data();
}
const MPI_Datatype* types_or_null(const std::vector<MPI_Datatype>& v) {
  return v.empty() ? nullptr : v.data();
}

}  // namespace

extern "C" {

int PMPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Neighbor_allgather_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* r) {
      return PMPI_Ineighbor_allgather(sendbuf, sendcount, st, recvbuf, recvcount, rt, comm, r);
    };
  });
}

int PMPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info /*info*/,
                                  MPI_Request* request) {
  return init(comm, request, "MPI_Neighbor_allgatherv_init", [=](HeldTypes& h, const Comm& c) {
    const Degrees d = degrees(c);
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    std::vector<int> rc = copy_of(recvcounts, d.in), rd = copy_of(displs, d.in);
    return [=](MPI_Request* r) {
      return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, st, recvbuf, data_or_null(rc),
                                       data_or_null(rd), rt, comm, r);
    };
  });
}

int PMPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Neighbor_alltoall_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* r) {
      return PMPI_Ineighbor_alltoall(sendbuf, sendcount, st, recvbuf, recvcount, rt, comm, r);
    };
  });
}

int PMPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Neighbor_alltoallv_init", [=](HeldTypes& h, const Comm& c) {
    const Degrees d = degrees(c);
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    std::vector<int> sc = copy_of(sendcounts, d.out), sd = copy_of(sdispls, d.out);
    std::vector<int> rc = copy_of(recvcounts, d.in), rd = copy_of(rdispls, d.in);
    return [=](MPI_Request* r) {
      return PMPI_Ineighbor_alltoallv(sendbuf, data_or_null(sc), data_or_null(sd), st, recvbuf,
                                      data_or_null(rc), data_or_null(rd), rt, comm, r);
    };
  });
}

int PMPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info /*info*/,
                                 MPI_Request* request) {
  return init(comm, request, "MPI_Neighbor_alltoallw_init", [=](HeldTypes& h, const Comm& c) {
    const Degrees d = degrees(c);
    std::vector<MPI_Datatype> st = h.hold(sendtypes, d.out), rt = h.hold(recvtypes, d.in);
    std::vector<int> sc = copy_of(sendcounts, d.out), rc = copy_of(recvcounts, d.in);
    std::vector<MPI_Aint> sd = copy_aints(sdispls, d.out), rd = copy_aints(rdispls, d.in);
    return [=](MPI_Request* r) {
      return PMPI_Ineighbor_alltoallw(sendbuf, data_or_null(sc), aints_or_null(sd),
                                      types_or_null(st), recvbuf, data_or_null(rc),
                                      aints_or_null(rd), types_or_null(rt), comm, r);
    };
  });
}

TORUS_MPI_ALIAS(MPI_Neighbor_allgather_init)
TORUS_MPI_ALIAS(MPI_Neighbor_allgatherv_init)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoall_init)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoallv_init)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoallw_init)

}  // extern "C"
