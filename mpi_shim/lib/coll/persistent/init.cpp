// Persistent collectives (MPI 4.0, MPI_Barrier_init ... MPI_Neighbor_alltoallw_init): each
// MPI_Start begins the nonblocking collective with the arguments given at init, so every
// instance takes the communicator's next collective sequence number, in the order all
// ranks start them (the standard's rule). Derived datatypes are duplicated at init, so the
// user may free theirs while the request lives; count and displacement arrays are copied.
// Argument errors other than the communicator and the request pointer show at MPI_Start,
// raised there through the communicator's handler.
#include "mpi_shim/lib/coll/persistent/started.h"

#include <vector>

#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;
using namespace torus::mpi::persistent;

extern "C" {

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Barrier_init", [comm](HeldTypes&, const Comm&) {
    return [comm](MPI_Request* r) { return PMPI_Ibarrier(comm, r); };
  });
}

int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Bcast_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype t = h.hold(datatype);
    return [=](MPI_Request* r) { return PMPI_Ibcast(buffer, count, t, root, comm, r); };
  });
}

int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Reduce_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype t = h.hold(datatype);
    return
        [=](MPI_Request* r) { return PMPI_Ireduce(sendbuf, recvbuf, count, t, op, root, comm, r); };
  });
}

int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Allreduce_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype t = h.hold(datatype);
    return [=](MPI_Request* r) { return PMPI_Iallreduce(sendbuf, recvbuf, count, t, op, comm, r); };
  });
}

int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Reduce_scatter_block_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype t = h.hold(datatype);
    return [=](MPI_Request* r) {
      return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, t, op, comm, r);
    };
  });
}

int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info /*info*/,
                             MPI_Request* request) {
  return init(comm, request, "MPI_Reduce_scatter_init", [=](HeldTypes& h, const Comm& c) {
    const int n = c.size;
    MPI_Datatype t = h.hold(datatype);
    std::vector<int> counts = copy_of(recvcounts, n);
    return [=](MPI_Request* r) {
      return PMPI_Ireduce_scatter(sendbuf, recvbuf, data_or_null(counts), t, op, comm, r);
    };
  });
}

int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Scan_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype t = h.hold(datatype);
    return [=](MPI_Request* r) { return PMPI_Iscan(sendbuf, recvbuf, count, t, op, comm, r); };
  });
}

int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Exscan_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype t = h.hold(datatype);
    return [=](MPI_Request* r) { return PMPI_Iexscan(sendbuf, recvbuf, count, t, op, comm, r); };
  });
}

int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Gather_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* r) {
      return PMPI_Igather(sendbuf, sendcount, st, recvbuf, recvcount, rt, root, comm, r);
    };
  });
}

int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Scatter_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* r) {
      return PMPI_Iscatter(sendbuf, sendcount, st, recvbuf, recvcount, rt, root, comm, r);
    };
  });
}

int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info /*info*/,
                        MPI_Request* request) {
  return init(comm, request, "MPI_Allgather_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* r) {
      return PMPI_Iallgather(sendbuf, sendcount, st, recvbuf, recvcount, rt, comm, r);
    };
  });
}

int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info /*info*/,
                       MPI_Request* request) {
  return init(comm, request, "MPI_Alltoall_init", [=](HeldTypes& h, const Comm&) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* r) {
      return PMPI_Ialltoall(sendbuf, sendcount, st, recvbuf, recvcount, rt, comm, r);
    };
  });
}

int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Gatherv_init", [=](HeldTypes& h, const Comm& c) {
    const int n = c.remote_size();  // one block per remote rank
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    std::vector<int> rc = copy_of(recvcounts, n), rd = copy_of(displs, n);
    return [=](MPI_Request* r) {
      return PMPI_Igatherv(sendbuf, sendcount, st, recvbuf, data_or_null(rc), data_or_null(rd), rt,
                           root, comm, r);
    };
  });
}

int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Scatterv_init", [=](HeldTypes& h, const Comm& c) {
    const int n = c.remote_size();  // one block per remote rank
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    std::vector<int> sc = copy_of(sendcounts, n), sd = copy_of(displs, n);
    return [=](MPI_Request* r) {
      return PMPI_Iscatterv(sendbuf, data_or_null(sc), data_or_null(sd), st, recvbuf, recvcount, rt,
                            root, comm, r);
    };
  });
}

int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Allgatherv_init", [=](HeldTypes& h, const Comm& c) {
    const int n = c.remote_size();  // one block per remote rank
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    std::vector<int> rc = copy_of(recvcounts, n), rd = copy_of(displs, n);
    return [=](MPI_Request* r) {
      return PMPI_Iallgatherv(sendbuf, sendcount, st, recvbuf, data_or_null(rc), data_or_null(rd),
                              rt, comm, r);
    };
  });
}

int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Alltoallv_init", [=](HeldTypes& h, const Comm& c) {
    const int n = c.remote_size();  // one block per remote rank
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    std::vector<int> sc = copy_of(sendcounts, n), sd = copy_of(sdispls, n);
    std::vector<int> rc = copy_of(recvcounts, n), rd = copy_of(rdispls, n);
    return [=](MPI_Request* r) {
      return PMPI_Ialltoallv(sendbuf, data_or_null(sc), data_or_null(sd), st, recvbuf,
                             data_or_null(rc), data_or_null(rd), rt, comm, r);
    };
  });
}

int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Alltoallw_init", [=](HeldTypes& h, const Comm& c) {
    const int n = c.remote_size();  // one block per remote rank
    std::vector<MPI_Datatype> st = h.hold(sendtypes, n), rt = h.hold(recvtypes, n);
    std::vector<int> sc = copy_of(sendcounts, n), sd = copy_of(sdispls, n);
    std::vector<int> rc = copy_of(recvcounts, n), rd = copy_of(rdispls, n);
    return [=](MPI_Request* r) {
      return PMPI_Ialltoallw(sendbuf, data_or_null(sc), data_or_null(sd),
                             st.empty() ? nullptr : st.data(), recvbuf, data_or_null(rc),
                             data_or_null(rd), rt.empty() ? nullptr : rt.data(), comm, r);
    };
  });
}

TORUS_MPI_ALIAS(MPI_Barrier_init)
TORUS_MPI_ALIAS(MPI_Bcast_init)
TORUS_MPI_ALIAS(MPI_Reduce_init)
TORUS_MPI_ALIAS(MPI_Allreduce_init)
TORUS_MPI_ALIAS(MPI_Reduce_scatter_block_init)
TORUS_MPI_ALIAS(MPI_Reduce_scatter_init)
TORUS_MPI_ALIAS(MPI_Scan_init)
TORUS_MPI_ALIAS(MPI_Exscan_init)
TORUS_MPI_ALIAS(MPI_Gather_init)
TORUS_MPI_ALIAS(MPI_Scatter_init)
TORUS_MPI_ALIAS(MPI_Allgather_init)
TORUS_MPI_ALIAS(MPI_Alltoall_init)
TORUS_MPI_ALIAS(MPI_Gatherv_init)
TORUS_MPI_ALIAS(MPI_Scatterv_init)
TORUS_MPI_ALIAS(MPI_Allgatherv_init)
TORUS_MPI_ALIAS(MPI_Alltoallv_init)
TORUS_MPI_ALIAS(MPI_Alltoallw_init)

}  // extern "C"
