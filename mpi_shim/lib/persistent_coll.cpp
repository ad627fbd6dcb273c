// Persistent collectives (MPI 4.0, MPI_Barrier_init ... MPI_Neighbor_alltoallw_init): each
// MPI_Start begins the nonblocking collective with the arguments given at init, so every
// instance takes the communicator's next collective sequence number, in the order all
// ranks start them (the standard's rule). Derived datatypes are duplicated at init, so the
// user may free theirs while the request lives; count and displacement arrays are copied.
// Argument errors other than the communicator and the request pointer show at MPI_Start,
// raised there through the communicator's handler.
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "mpi_shim/lib/comm.h"
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/pmpi.h"
#include "mpi_shim/lib/request.h"
#include "mpi_shim/lib/request_slot.h"
#include "mpi_shim/lib/runtime.h"

using namespace torus::mpi;
using torus::Request;

namespace {

// An instance: the nonblocking collective's own request, completed through the table.
class Started final : public PendingOp {
 public:
  explicit Started(MPI_Request inner) : inner_(inner) {}
  bool poll() override { return slot_done(slot_of(inner_)); }
  int finish(MPI_Status* status) override { return slot_retire(&inner_, slot_of(inner_), status); }

 private:
  MPI_Request inner_;
};

// The types the request holds: derived ones duplicated, predefined (and invalid, which the
// start reports) as they are.
class HeldTypes {
 public:
  HeldTypes() = default;
  HeldTypes(const HeldTypes&) = delete;
  HeldTypes& operator=(const HeldTypes&) = delete;
  ~HeldTypes() {
    if (phase() != Phase::Running) return;  // the type table is gone with the library
    for (MPI_Datatype& t : dups_) (void)PMPI_Type_free(&t);
  }
  MPI_Datatype hold(MPI_Datatype t) {
    const TypeInfo* info = type_info(t);
    if (!info || info->predefined != MPI_DATATYPE_NULL) return t;
    MPI_Datatype dup = MPI_DATATYPE_NULL;
    if (PMPI_Type_dup(t, &dup) != MPI_SUCCESS) return t;
    dups_.push_back(dup);
    return dup;
  }
  std::vector<MPI_Datatype> hold(const MPI_Datatype* ts, int n) {
    std::vector<MPI_Datatype> out;
    for (int i = 0; ts && i < n; ++i) out.push_back(hold(ts[i]));
    return out;
  }

 private:
  std::vector<MPI_Datatype> dups_;
};

class PersistentColl final : public PersistentOp {
 public:
  using StartFn = std::function<int(MPI_Request*)>;
  PersistentColl(std::unique_ptr<HeldTypes> types, StartFn start)
      : types_(std::move(types)), start_(std::move(start)) {}
  int start(Request** req) override {
    std::unique_ptr<PendingOp> op;
    return start_op(req, &op);
  }
  int start_op(Request** req, std::unique_ptr<PendingOp>* op) override {
    *req = nullptr;
    MPI_Request inner = MPI_REQUEST_NULL;
    if (int e = start_(&inner)) return e;
    *op = std::make_unique<Started>(inner);
    return MPI_SUCCESS;
  }
  bool raises_own_errors() const override { return true; }

 private:
  std::unique_ptr<HeldTypes> types_;
  StartFn start_;
};

// The n entries of an array argument (none for a null pointer: the start reports it).
std::vector<int> copy_of(const int* a, int n) {
  return a && n > 0 ? std::vector<int>(a, a + n) : std::vector<int>{};
}
const int* data_or_null(const std::vector<int>& v) { return v.empty() ? nullptr : v.data(); }

// The length of the arrays the call reads.
int array_len(const Comm& c) { return c.size; }

// Makes the request; `make` builds the start function from the held types.
template <typename Make>
int init(MPI_Comm comm, MPI_Request* request, const char* fn, Make&& make) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, fn);
  if (!request) return raise_error(c, MPI_ERR_ARG, fn);
  auto types = std::make_unique<HeldTypes>();
  PersistentColl::StartFn start = make(*types, array_len(*c));
  *request = request_create_persistent(
      std::make_unique<PersistentColl>(std::move(types), std::move(start)), false, error_scope(*c));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Barrier_init", [comm](HeldTypes&, int) {
    return [comm](MPI_Request* r) { return PMPI_Ibarrier(comm, r); };
  });
}

int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Bcast_init", [=](HeldTypes& h, int) {
    MPI_Datatype t = h.hold(datatype);
    return [=](MPI_Request* r) { return PMPI_Ibcast(buffer, count, t, root, comm, r); };
  });
}

int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Reduce_init", [=](HeldTypes& h, int) {
    MPI_Datatype t = h.hold(datatype);
    return
        [=](MPI_Request* r) { return PMPI_Ireduce(sendbuf, recvbuf, count, t, op, root, comm, r); };
  });
}

int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Allreduce_init", [=](HeldTypes& h, int) {
    MPI_Datatype t = h.hold(datatype);
    return [=](MPI_Request* r) { return PMPI_Iallreduce(sendbuf, recvbuf, count, t, op, comm, r); };
  });
}

int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Reduce_scatter_block_init", [=](HeldTypes& h, int) {
    MPI_Datatype t = h.hold(datatype);
    return [=](MPI_Request* r) {
      return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, t, op, comm, r);
    };
  });
}

int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info /*info*/,
                             MPI_Request* request) {
  return init(comm, request, "MPI_Reduce_scatter_init", [=](HeldTypes& h, int n) {
    MPI_Datatype t = h.hold(datatype);
    std::vector<int> counts = copy_of(recvcounts, n);
    return [=](MPI_Request* r) {
      return PMPI_Ireduce_scatter(sendbuf, recvbuf, data_or_null(counts), t, op, comm, r);
    };
  });
}

int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Scan_init", [=](HeldTypes& h, int) {
    MPI_Datatype t = h.hold(datatype);
    return [=](MPI_Request* r) { return PMPI_Iscan(sendbuf, recvbuf, count, t, op, comm, r); };
  });
}

int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Exscan_init", [=](HeldTypes& h, int) {
    MPI_Datatype t = h.hold(datatype);
    return [=](MPI_Request* r) { return PMPI_Iexscan(sendbuf, recvbuf, count, t, op, comm, r); };
  });
}

int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Gather_init", [=](HeldTypes& h, int) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* r) {
      return PMPI_Igather(sendbuf, sendcount, st, recvbuf, recvcount, rt, root, comm, r);
    };
  });
}

int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Scatter_init", [=](HeldTypes& h, int) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* r) {
      return PMPI_Iscatter(sendbuf, sendcount, st, recvbuf, recvcount, rt, root, comm, r);
    };
  });
}

int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info /*info*/,
                        MPI_Request* request) {
  return init(comm, request, "MPI_Allgather_init", [=](HeldTypes& h, int) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* r) {
      return PMPI_Iallgather(sendbuf, sendcount, st, recvbuf, recvcount, rt, comm, r);
    };
  });
}

int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info /*info*/,
                       MPI_Request* request) {
  return init(comm, request, "MPI_Alltoall_init", [=](HeldTypes& h, int) {
    MPI_Datatype st = h.hold(sendtype), rt = h.hold(recvtype);
    return [=](MPI_Request* r) {
      return PMPI_Ialltoall(sendbuf, sendcount, st, recvbuf, recvcount, rt, comm, r);
    };
  });
}

int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  return init(comm, request, "MPI_Gatherv_init", [=](HeldTypes& h, int n) {
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
  return init(comm, request, "MPI_Scatterv_init", [=](HeldTypes& h, int n) {
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
  return init(comm, request, "MPI_Allgatherv_init", [=](HeldTypes& h, int n) {
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
  return init(comm, request, "MPI_Alltoallv_init", [=](HeldTypes& h, int n) {
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
  return init(comm, request, "MPI_Alltoallw_init", [=](HeldTypes& h, int n) {
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
