// MPI 4.0's large-count vector collectives, nonblocking and persistent (Iallgatherv_c ...
// Reduce_scatter_init_c), as large_count_vec.cpp's: the int call on int copies of the arrays
// when every entry fits, else per-peer types. What a started operation needs outlives the
// call: pending operations hold the layouts of the types they were given (type_blocks.h),
// persistent requests duplicates (persistent_coll.h), so the types made here are freed on
// return. A persistent call without a w-form starts the nonblocking _c call each time, on
// copies of its arrays.
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/large_count.h"
#include "mpi_shim/lib/large_count_vec.h"
#include "mpi_shim/lib/coll/persistent/started.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

bool is_root(const Comm* c, int root) { return c->inter() ? root == MPI_ROOT : root == c->rank; }

// As in large_count_vec.cpp: whether a rooted call's single count means anything here.
bool counted(const Comm* c, int root, const void* buf) {
  return c->inter() ? root >= 0 : buf != MPI_IN_PLACE;
}

template <typename T>
std::vector<T> copy_of(const T* a, int n) {
  return a && n > 0 ? std::vector<T>(a, a + n) : std::vector<T>{};
}

}  // namespace

extern "C" {

int PMPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  constexpr const char* fn = "MPI_Igatherv_c";
  int e = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, fn, &e, true);
  if (!c) return e;
  BigCount s;
  PeerBlocks r;
  e = s.init(counted(c, root, sendbuf) ? sendcount : 0, sendtype);
  if (!e && is_root(c, root)) e = r.init(c->remote_size(), recvcounts, displs, recvtype);
  if (e) return comm_error(comm, e, fn);
  if (r.fits())
    return PMPI_Igatherv(sendbuf, s.count(), s.type(), recvbuf, r.counts(), r.displs(), recvtype,
                         root, comm, request);
  if ((e = r.make_types())) return comm_error(comm, e, fn);
  return gatherv_root(c, sendbuf, s.count(), s.type(), recvbuf, r, root, request, fn);
}

int PMPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  constexpr const char* fn = "MPI_Iscatterv_c";
  int e = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, fn, &e, true);
  if (!c) return e;
  PeerBlocks s;
  BigCount r;
  e = r.init(counted(c, root, recvbuf) ? recvcount : 0, recvtype);
  if (!e && is_root(c, root)) e = s.init(c->remote_size(), sendcounts, displs, sendtype);
  if (e) return comm_error(comm, e, fn);
  if (s.fits())
    return PMPI_Iscatterv(sendbuf, s.counts(), s.displs(), sendtype, recvbuf, r.count(), r.type(),
                          root, comm, request);
  if ((e = s.make_types())) return comm_error(comm, e, fn);
  return scatterv_root(c, s, sendbuf, recvbuf, r.count(), r.type(), root, request, fn);
}

int PMPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  constexpr const char* fn = "MPI_Iallgatherv_c";
  int e = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, fn, &e, true);
  if (!c) return e;
  BigCount s;
  PeerBlocks r;
  e = s.init(sendbuf == MPI_IN_PLACE ? 0 : sendcount, sendtype);
  if (!e) e = r.init(c->remote_size(), recvcounts, displs, recvtype);
  if (e) return comm_error(comm, e, fn);
  if (r.fits())
    return PMPI_Iallgatherv(sendbuf, s.count(), s.type(), recvbuf, r.counts(), r.displs(),
                            recvtype, comm, request);
  if ((e = r.make_types())) return comm_error(comm, e, fn);
  return allgatherv_blocks(c, sendbuf, s.count(), s.type(), recvbuf, r, request, fn);
}

int PMPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request* request) {
  constexpr const char* fn = "MPI_Ialltoallv_c";
  int e = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, fn, &e, true);
  if (!c) return e;
  const int n = c->remote_size();
  PeerBlocks s, r;
  e = r.init(n, recvcounts, rdispls, recvtype);
  if (!e && sendbuf != MPI_IN_PLACE) e = s.init(n, sendcounts, sdispls, sendtype);
  if (e) return comm_error(comm, e, fn);
  if (s.fits() && r.fits())
    return PMPI_Ialltoallv(sendbuf, s.counts(), s.displs(), sendtype, recvbuf, r.counts(),
                           r.displs(), recvtype, comm, request);
  if (!(e = s.make_types())) e = r.make_types();
  if (e) return comm_error(comm, e, fn);
  return PMPI_Ialltoallw(sendbuf, s.counts(), s.displs(), s.types(), recvbuf, r.counts(),
                         r.displs(), r.types(), comm, request);
}

int PMPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request* request) {
  constexpr const char* fn = "MPI_Ialltoallw_c";
  int e = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, fn, &e, true);
  if (!c) return e;
  const int n = c->remote_size();
  PeerBlocks s, r;
  e = r.init_w(n, recvcounts, rdispls, recvtypes, true);
  if (!e && sendbuf != MPI_IN_PLACE) e = s.init_w(n, sendcounts, sdispls, sendtypes, true);
  if (e) return comm_error(comm, e, fn);
  if (s.fits() && r.fits())
    return PMPI_Ialltoallw(sendbuf, s.counts(), s.displs(), sendtypes, recvbuf, r.counts(),
                           r.displs(), recvtypes, comm, request);
  if (!(e = s.make_types())) e = r.make_types();
  if (e) return comm_error(comm, e, fn);
  return PMPI_Ialltoallw(sendbuf, s.counts(), s.displs(), s.types(), recvbuf, r.counts(),
                         r.displs(), r.types(), comm, request);
}

int PMPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                           MPI_Request* request) {
  constexpr const char* fn = "MPI_Ireduce_scatter_c";
  int e = MPI_SUCCESS;
  Comm* c = icoll_comm_and_request(comm, request, fn, &e, true);
  if (!c) return e;
  std::vector<int> small;
  bool fits = true;
  if ((e = reduce_scatter_counts(c->size, recvcounts, &small, &fits)))
    return comm_error(comm, e, fn);
  if (fits)
    return PMPI_Ireduce_scatter(sendbuf, recvbuf, small.data(), datatype, op, comm, request);
  return reduce_scatter_sizes(c, sendbuf, recvbuf, recvcounts, datatype, op, request, fn);
}

int PMPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request* request) {
  constexpr const char* fn = "MPI_Gatherv_init_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  BigCount s;
  PeerBlocks r;
  int e = s.init(counted(c, root, sendbuf) ? sendcount : 0, sendtype);
  if (!e && is_root(c, root)) e = r.init(c->remote_size(), recvcounts, displs, recvtype);
  if (e) return comm_error(comm, e, fn);
  if (r.fits())
    return PMPI_Gatherv_init(sendbuf, s.count(), s.type(), recvbuf, r.counts(), r.displs(),
                             recvtype, root, comm, info, request);
  const auto rc = copy_of(recvcounts, r.size());
  const auto rd = copy_of(displs, r.size());
  return persistent::init(comm, request, fn, [=](persistent::HeldTypes& h, const Comm&) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* q) {
      return PMPI_Igatherv_c(sendbuf, sendcount, st, recvbuf, rc.data(), rd.data(), rt, root,
                             comm, q);
    };
  });
}

int PMPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Info info, MPI_Request* request) {
  constexpr const char* fn = "MPI_Scatterv_init_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  PeerBlocks s;
  BigCount r;
  int e = r.init(counted(c, root, recvbuf) ? recvcount : 0, recvtype);
  if (!e && is_root(c, root)) e = s.init(c->remote_size(), sendcounts, displs, sendtype);
  if (e) return comm_error(comm, e, fn);
  if (s.fits())
    return PMPI_Scatterv_init(sendbuf, s.counts(), s.displs(), sendtype, recvbuf, r.count(),
                              r.type(), root, comm, info, request);
  const auto sc = copy_of(sendcounts, s.size());
  const auto sd = copy_of(displs, s.size());
  return persistent::init(comm, request, fn, [=](persistent::HeldTypes& h, const Comm&) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* q) {
      return PMPI_Iscatterv_c(sendbuf, sc.data(), sd.data(), st, recvbuf, recvcount, rt, root,
                              comm, q);
    };
  });
}

int PMPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request* request) {
  constexpr const char* fn = "MPI_Allgatherv_init_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  BigCount s;
  PeerBlocks r;
  int e = s.init(sendbuf == MPI_IN_PLACE ? 0 : sendcount, sendtype);
  if (!e) e = r.init(c->remote_size(), recvcounts, displs, recvtype);
  if (e) return comm_error(comm, e, fn);
  if (r.fits())
    return PMPI_Allgatherv_init(sendbuf, s.count(), s.type(), recvbuf, r.counts(), r.displs(),
                                recvtype, comm, info, request);
  const auto rc = copy_of(recvcounts, r.size());
  const auto rd = copy_of(displs, r.size());
  return persistent::init(comm, request, fn, [=](persistent::HeldTypes& h, const Comm&) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* q) {
      return PMPI_Iallgatherv_c(sendbuf, sendcount, st, recvbuf, rc.data(), rd.data(), rt, comm,
                                q);
    };
  });
}

int PMPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request* request) {
  constexpr const char* fn = "MPI_Alltoallv_init_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  const int n = c->remote_size();
  PeerBlocks s, r;
  int e = r.init(n, recvcounts, rdispls, recvtype);
  if (!e && sendbuf != MPI_IN_PLACE) e = s.init(n, sendcounts, sdispls, sendtype);
  if (e) return comm_error(comm, e, fn);
  if (s.fits() && r.fits())
    return PMPI_Alltoallv_init(sendbuf, s.counts(), s.displs(), sendtype, recvbuf, r.counts(),
                               r.displs(), recvtype, comm, info, request);
  if (!(e = s.make_types())) e = r.make_types();
  if (e) return comm_error(comm, e, fn);
  return PMPI_Alltoallw_init(sendbuf, s.counts(), s.displs(), s.types(), recvbuf, r.counts(),
                             r.displs(), r.types(), comm, info, request);
}

int PMPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request* request) {
  constexpr const char* fn = "MPI_Alltoallw_init_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  const int n = c->remote_size();
  PeerBlocks s, r;
  int e = r.init_w(n, recvcounts, rdispls, recvtypes, true);
  if (!e && sendbuf != MPI_IN_PLACE) e = s.init_w(n, sendcounts, sdispls, sendtypes, true);
  if (e) return comm_error(comm, e, fn);
  if (s.fits() && r.fits())
    return PMPI_Alltoallw_init(sendbuf, s.counts(), s.displs(), sendtypes, recvbuf, r.counts(),
                               r.displs(), recvtypes, comm, info, request);
  if (!(e = s.make_types())) e = r.make_types();
  if (e) return comm_error(comm, e, fn);
  return PMPI_Alltoallw_init(sendbuf, s.counts(), s.displs(), s.types(), recvbuf, r.counts(),
                             r.displs(), r.types(), comm, info, request);
}

int PMPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  constexpr const char* fn = "MPI_Reduce_scatter_init_c";
  Comm* c = comm_get(comm);
  if (!c) return comm_error(comm, MPI_ERR_COMM, fn);
  std::vector<int> small;
  bool fits = true;
  if (int e = reduce_scatter_counts(c->size, recvcounts, &small, &fits))
    return comm_error(comm, e, fn);
  if (fits)
    return PMPI_Reduce_scatter_init(sendbuf, recvbuf, small.data(), datatype, op, comm, info,
                                    request);
  const auto counts = copy_of(recvcounts, c->size);
  return persistent::init(comm, request, fn, [=](persistent::HeldTypes& h, const Comm&) {
    MPI_Datatype t = h.hold(datatype);
    return [=](MPI_Request* q) {
      return PMPI_Ireduce_scatter_c(sendbuf, recvbuf, counts.data(), t, op, comm, q);
    };
  });
}

TORUS_MPI_ALIAS(MPI_Igatherv_c)
TORUS_MPI_ALIAS(MPI_Iscatterv_c)
TORUS_MPI_ALIAS(MPI_Iallgatherv_c)
TORUS_MPI_ALIAS(MPI_Ialltoallv_c)
TORUS_MPI_ALIAS(MPI_Ialltoallw_c)
TORUS_MPI_ALIAS(MPI_Ireduce_scatter_c)
TORUS_MPI_ALIAS(MPI_Gatherv_init_c)
TORUS_MPI_ALIAS(MPI_Scatterv_init_c)
TORUS_MPI_ALIAS(MPI_Allgatherv_init_c)
TORUS_MPI_ALIAS(MPI_Alltoallv_init_c)
TORUS_MPI_ALIAS(MPI_Alltoallw_init_c)
TORUS_MPI_ALIAS(MPI_Reduce_scatter_init_c)

}  // extern "C"
