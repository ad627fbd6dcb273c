// MPI 4.0's large-count neighborhood vector collectives (Neighbor_allgatherv_c,
// Neighbor_alltoallv_c, Neighbor_alltoallw_c, each blocking, nonblocking and persistent): the
// int call when every count (and displacement it takes as an int) fits, else
// MPI_Neighbor_alltoallw's form of the same kind on per-peer types (large_count_vec.h).
// Every neighborhood call is the same exchange of blocks (neighbor_api.cpp), so processes on
// either path meet. The arrays are as long as the topology's degrees; without a topology
// (or a valid communicator) the int call is left to report that.
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/large_count.h"
#include "mpi_shim/lib/large_count_vec.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/comm/topo/neighbors.h"

using namespace torus::mpi;

namespace {

enum class Kind { Blocking, Nonblocking, Persistent };

// Which form of a call, with the arguments only some forms take.
struct Form {
  Kind kind;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Request* request = nullptr;
};

struct Degrees {
  int in = 0, out = 0;
  bool known = false;
};

Degrees degrees(MPI_Comm comm) {
  NeighborPlan plan;
  Comm* c = comm_get_intra(comm);
  if (!c || neighbor_plan(*c, &plan) != MPI_SUCCESS) return {};
  return {int(plan.sources.size()), int(plan.destinations.size()), true};
}

int int_allgatherv(const Form& f, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   void* recvbuf, const int rc[], const int rd[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  switch (f.kind) {
    case Kind::Blocking:
      return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, rc, rd, recvtype,
                                      comm);
    case Kind::Nonblocking:
      return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, rc, rd, recvtype,
                                       comm, f.request);
    case Kind::Persistent:
      break;
  }
  return PMPI_Neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, rc, rd, recvtype,
                                       comm, f.info, f.request);
}

int int_alltoallv(const Form& f, const void* sendbuf, const int sc[], const int sd[],
                  MPI_Datatype sendtype, void* recvbuf, const int rc[], const int rd[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  switch (f.kind) {
    case Kind::Blocking:
      return PMPI_Neighbor_alltoallv(sendbuf, sc, sd, sendtype, recvbuf, rc, rd, recvtype, comm);
    case Kind::Nonblocking:
      return PMPI_Ineighbor_alltoallv(sendbuf, sc, sd, sendtype, recvbuf, rc, rd, recvtype, comm,
                                      f.request);
    case Kind::Persistent:
      break;
  }
  return PMPI_Neighbor_alltoallv_init(sendbuf, sc, sd, sendtype, recvbuf, rc, rd, recvtype, comm,
                                      f.info, f.request);
}

int int_alltoallw(const Form& f, const void* sendbuf, const int sc[], const MPI_Aint sd[],
                  const MPI_Datatype st[], void* recvbuf, const int rc[], const MPI_Aint rd[],
                  const MPI_Datatype rt[], MPI_Comm comm) {
  switch (f.kind) {
    case Kind::Blocking:
      return PMPI_Neighbor_alltoallw(sendbuf, sc, sd, st, recvbuf, rc, rd, rt, comm);
    case Kind::Nonblocking:
      return PMPI_Ineighbor_alltoallw(sendbuf, sc, sd, st, recvbuf, rc, rd, rt, comm, f.request);
    case Kind::Persistent:
      break;
  }
  return PMPI_Neighbor_alltoallw_init(sendbuf, sc, sd, st, recvbuf, rc, rd, rt, comm, f.info,
                                      f.request);
}

// The w-form on both sides' per-peer types.
int w_form(const Form& f, const void* sendbuf, PeerBlocks& s, void* recvbuf, PeerBlocks& r,
           MPI_Comm comm, const char* fn) {
  int e = s.make_types();
  if (!e) e = r.make_types();
  if (e) return comm_error(comm, e, fn);
  return int_alltoallw(f, sendbuf, s.counts(), s.aint_displs(), s.types(), recvbuf, r.counts(),
                       r.aint_displs(), r.types(), comm);
}

int allgatherv(const Form& f, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
               void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
               MPI_Datatype recvtype, MPI_Comm comm, const char* fn) {
  const Degrees d = degrees(comm);
  BigCount one;
  PeerBlocks r;
  int e = one.init(sendcount, sendtype);
  if (!e && d.known) e = r.init(d.in, recvcounts, displs, recvtype);
  if (e) return comm_error(comm, e, fn);
  if (r.fits())
    return int_allgatherv(f, sendbuf, one.count(), one.type(), recvbuf, r.counts(), r.displs(),
                          recvtype, comm);
  // The one send block to every destination, as w-form blocks.
  const size_t out = size_t(d.out);
  const std::vector<MPI_Count> counts(out, sendcount);
  const std::vector<MPI_Aint> zeros(out, 0);
  const std::vector<MPI_Datatype> types(out, sendtype);
  PeerBlocks s;
  if ((e = s.init_w(d.out, counts.data(), zeros.data(), types.data(), false)))
    return comm_error(comm, e, fn);
  return w_form(f, sendbuf, s, recvbuf, r, comm, fn);
}

int alltoallv(const Form& f, const void* sendbuf, const MPI_Count sendcounts[],
              const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
              MPI_Comm comm, const char* fn) {
  const Degrees d = degrees(comm);
  PeerBlocks s, r;
  int e = MPI_SUCCESS;
  if (d.known) {
    e = s.init(d.out, sendcounts, sdispls, sendtype);
    if (!e) e = r.init(d.in, recvcounts, rdispls, recvtype);
  }
  if (e) return comm_error(comm, e, fn);
  if (s.fits() && r.fits())
    return int_alltoallv(f, sendbuf, s.counts(), s.displs(), sendtype, recvbuf, r.counts(),
                         r.displs(), recvtype, comm);
  return w_form(f, sendbuf, s, recvbuf, r, comm, fn);
}

// The int w-form takes MPI_Aint displacements already: only a count can be too large for it.
int alltoallw(const Form& f, const void* sendbuf, const MPI_Count sendcounts[],
              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
              const MPI_Datatype recvtypes[], MPI_Comm comm, const char* fn) {
  const Degrees d = degrees(comm);
  PeerBlocks s, r;
  int e = MPI_SUCCESS;
  if (d.known) {
    e = s.init_w(d.out, sendcounts, sdispls, sendtypes, false);
    if (!e) e = r.init_w(d.in, recvcounts, rdispls, recvtypes, false);
  }
  if (e) return comm_error(comm, e, fn);
  if (s.fits() && r.fits())
    return int_alltoallw(f, sendbuf, s.counts(), sdispls, sendtypes, recvbuf, r.counts(), rdispls,
                         recvtypes, comm);
  return w_form(f, sendbuf, s, recvbuf, r, comm, fn);
}

}  // namespace

extern "C" {

int PMPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv({Kind::Blocking}, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                    recvtype, comm, "MPI_Neighbor_allgatherv_c");
}
int PMPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void* recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request* request) {
  return allgatherv({Kind::Nonblocking, MPI_INFO_NULL, request}, sendbuf, sendcount, sendtype,
                    recvbuf, recvcounts, displs, recvtype, comm, "MPI_Ineighbor_allgatherv_c");
}
int PMPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void* recvbuf,
                                    const MPI_Count recvcounts[], const MPI_Aint displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
  return allgatherv({Kind::Persistent, info, request}, sendbuf, sendcount, sendtype, recvbuf,
                    recvcounts, displs, recvtype, comm, "MPI_Neighbor_allgatherv_init_c");
}

int PMPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv({Kind::Blocking}, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                   rdispls, recvtype, comm, "MPI_Neighbor_alltoallv_c");
}
int PMPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoallv({Kind::Nonblocking, MPI_INFO_NULL, request}, sendbuf, sendcounts, sdispls,
                   sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                   "MPI_Ineighbor_alltoallv_c");
}
int PMPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  return alltoallv({Kind::Persistent, info, request}, sendbuf, sendcounts, sdispls, sendtype,
                   recvbuf, recvcounts, rdispls, recvtype, comm, "MPI_Neighbor_alltoallv_init_c");
}

int PMPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                              MPI_Comm comm) {
  return alltoallw({Kind::Blocking}, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                   rdispls, recvtypes, comm, "MPI_Neighbor_alltoallw_c");
}
int PMPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void* recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request* request) {
  return alltoallw({Kind::Nonblocking, MPI_INFO_NULL, request}, sendbuf, sendcounts, sdispls,
                   sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                   "MPI_Ineighbor_alltoallw_c");
}
int PMPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallw({Kind::Persistent, info, request}, sendbuf, sendcounts, sdispls, sendtypes,
                   recvbuf, recvcounts, rdispls, recvtypes, comm,
                   "MPI_Neighbor_alltoallw_init_c");
}

TORUS_MPI_ALIAS(MPI_Neighbor_allgatherv_c)
TORUS_MPI_ALIAS(MPI_Ineighbor_allgatherv_c)
TORUS_MPI_ALIAS(MPI_Neighbor_allgatherv_init_c)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoallv_c)
TORUS_MPI_ALIAS(MPI_Ineighbor_alltoallv_c)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoallv_init_c)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoallw_c)
TORUS_MPI_ALIAS(MPI_Ineighbor_alltoallw_c)
TORUS_MPI_ALIAS(MPI_Neighbor_alltoallw_init_c)

}  // extern "C"
