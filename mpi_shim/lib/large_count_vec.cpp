// MPI 4.0's large-count vector collectives, blocking (Allgatherv_c ... Reduce_scatter_c):
// the int call on int copies of the arrays when every entry fits (the common case), else
// the per-peer types of large_count_vec.h through MPI_Alltoallw, or through the int calls'
// algorithms where there is no w-form (large_count_vec_blocks.cpp). A single count (the
// non-root side, Allgatherv's send side) is converted as in large_count.h either way.
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/large_count.h"
#include "mpi_shim/lib/large_count_vec.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

// The side of a rooted call that holds the arrays: intra, the rank named; inter, MPI_ROOT.
bool is_root(const Comm* c, int root) { return c->inter() ? root == MPI_ROOT : root == c->rank; }

// Whether the single count of a rooted call means anything here (its buffer is not an
// intra root's MPI_IN_PLACE, and on an intercommunicator this is the other group).
bool counted(const Comm* c, int root, const void* buf) {
  return c->inter() ? root >= 0 : buf != MPI_IN_PLACE;
}

}  // namespace

extern "C" {

int PMPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
  constexpr const char* fn = "MPI_Gatherv_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  BigCount s;
  PeerBlocks r;
  int e = s.init(counted(c, root, sendbuf) ? sendcount : 0, sendtype);
  if (!e && is_root(c, root)) e = r.init(c->remote_size(), recvcounts, displs, recvtype);
  if (e) return comm_error(comm, e, fn);
  if (r.fits())
    return PMPI_Gatherv(sendbuf, s.count(), s.type(), recvbuf, r.counts(), r.displs(), recvtype,
                        root, comm);
  if ((e = r.make_types())) return comm_error(comm, e, fn);
  return gatherv_root(c, sendbuf, s.count(), s.type(), recvbuf, r, root, nullptr, fn);
}

int PMPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* fn = "MPI_Scatterv_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  PeerBlocks s;
  BigCount r;
  int e = r.init(counted(c, root, recvbuf) ? recvcount : 0, recvtype);
  if (!e && is_root(c, root)) e = s.init(c->remote_size(), sendcounts, displs, sendtype);
  if (e) return comm_error(comm, e, fn);
  if (s.fits())
    return PMPI_Scatterv(sendbuf, s.counts(), s.displs(), sendtype, recvbuf, r.count(), r.type(),
                         root, comm);
  if ((e = s.make_types())) return comm_error(comm, e, fn);
  return scatterv_root(c, s, sendbuf, recvbuf, r.count(), r.type(), root, nullptr, fn);
}

int PMPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr const char* fn = "MPI_Allgatherv_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  BigCount s;
  PeerBlocks r;
  int e = s.init(sendbuf == MPI_IN_PLACE ? 0 : sendcount, sendtype);
  if (!e) e = r.init(c->remote_size(), recvcounts, displs, recvtype);
  if (e) return comm_error(comm, e, fn);
  if (r.fits())
    return PMPI_Allgatherv(sendbuf, s.count(), s.type(), recvbuf, r.counts(), r.displs(),
                           recvtype, comm);
  if ((e = r.make_types())) return comm_error(comm, e, fn);
  return allgatherv_blocks(c, sendbuf, s.count(), s.type(), recvbuf, r, nullptr, fn);
}

// In place the send arrays mean nothing and stay unread, by this and by the int calls.
int PMPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr const char* fn = "MPI_Alltoallv_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  const int n = c->remote_size();
  PeerBlocks s, r;
  int e = r.init(n, recvcounts, rdispls, recvtype);
  if (!e && sendbuf != MPI_IN_PLACE) e = s.init(n, sendcounts, sdispls, sendtype);
  if (e) return comm_error(comm, e, fn);
  if (s.fits() && r.fits())
    return PMPI_Alltoallv(sendbuf, s.counts(), s.displs(), sendtype, recvbuf, r.counts(),
                          r.displs(), recvtype, comm);
  if (!(e = s.make_types())) e = r.make_types();
  if (e) return comm_error(comm, e, fn);
  return PMPI_Alltoallw(sendbuf, s.counts(), s.displs(), s.types(), recvbuf, r.counts(),
                        r.displs(), r.types(), comm);
}

int PMPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  constexpr const char* fn = "MPI_Alltoallw_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  const int n = c->remote_size();
  PeerBlocks s, r;
  int e = r.init_w(n, recvcounts, rdispls, recvtypes, true);
  if (!e && sendbuf != MPI_IN_PLACE) e = s.init_w(n, sendcounts, sdispls, sendtypes, true);
  if (e) return comm_error(comm, e, fn);
  if (s.fits() && r.fits())
    return PMPI_Alltoallw(sendbuf, s.counts(), s.displs(), sendtypes, recvbuf, r.counts(),
                          r.displs(), recvtypes, comm);
  if (!(e = s.make_types())) e = r.make_types();
  if (e) return comm_error(comm, e, fn);
  return PMPI_Alltoallw(sendbuf, s.counts(), s.displs(), s.types(), recvbuf, r.counts(),
                        r.displs(), r.types(), comm);
}

// The counts are the same on every process, and so is the path taken.
int PMPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  constexpr const char* fn = "MPI_Reduce_scatter_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  std::vector<int> small;
  bool fits = true;
  if (int e = reduce_scatter_counts(c->size, recvcounts, &small, &fits))
    return comm_error(comm, e, fn);
  if (fits) return PMPI_Reduce_scatter(sendbuf, recvbuf, small.data(), datatype, op, comm);
  return reduce_scatter_sizes(c, sendbuf, recvbuf, recvcounts, datatype, op, nullptr, fn);
}

TORUS_MPI_ALIAS(MPI_Gatherv_c)
TORUS_MPI_ALIAS(MPI_Scatterv_c)
TORUS_MPI_ALIAS(MPI_Allgatherv_c)
TORUS_MPI_ALIAS(MPI_Alltoallv_c)
TORUS_MPI_ALIAS(MPI_Alltoallw_c)
TORUS_MPI_ALIAS(MPI_Reduce_scatter_c)

}  // extern "C"
