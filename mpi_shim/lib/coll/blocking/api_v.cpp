// MPI_Gatherv, Scatterv, Allgatherv, Alltoallv, Alltoallw, Scan, Exscan: argument checks,
// counts and displacements turned into bytes (datatype/blocks.h: dense types in place, others
// packed back to back in a staging area), then the algorithms of coll/coll.h.
#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/coll/inter/blocking_api.h"
#include "mpi_shim/lib/coll/reduce_view.h"
#include "mpi_shim/lib/datatype/blocks.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

int finish(Comm* c, torus::Status s, const char* fn) {
  return check(c, error_from_status(s), fn);
}

// The rest of Alltoallv/Alltoallw once the blocks are set up (err: how that went). In
// place, sb is a snapshot of rb's blocks (the standard ignores the send arguments then).
int alltoall_blocks(Comm* c, TypeBlocks& sb, TypeBlocks& rb, int err, const char* fn) {
  if (err == MPI_SUCCESS && sb.counts()[c->rank] != rb.counts()[c->rank]) err = MPI_ERR_TRUNCATE;
  if (err) return raise_error(c, err, fn);
  sb.pack_all();
  torus::Status s = coll::alltoallv(*c, sb.data(), sb.counts(), sb.offsets(), rb.data(),
                                    rb.counts(), rb.offsets());
  if (!torus::is_error(s)) rb.unpack_all();
  return finish(c, s, fn);
}

}  // namespace

extern "C" {

int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Gatherv");
  if (c->inter())
    return inter_gatherv_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                              recvtype, root);
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Gatherv");
  SendView sv;
  TypeBlocks rb;
  int err = MPI_SUCCESS;
  if (c->rank == root) err = rb.init(recvbuf, c->size, recvcounts, displs, recvtype);
  if (err == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) err = sv.init(sendbuf, sendcount, sendtype);
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err == MPI_SUCCESS && c->rank == root && sendbuf != MPI_IN_PLACE &&
      sv.bytes() != rb.counts()[root])
    err = MPI_ERR_TRUNCATE;
  if (err) return raise_error(c, err, "MPI_Gatherv");
  if (c->rank == root && sendbuf == MPI_IN_PLACE) rb.pack(root);
  const void* own = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : sv.data();
  torus::Status s = coll::gatherv(*c, own, sv.bytes(), rb.data(), rb.counts(), rb.offsets(), root);
  if (c->rank == root && !torus::is_error(s)) rb.unpack_all();
  return finish(c, s, "MPI_Gatherv");
}

int PMPI_Scatterv(const void* sendbuf, const int* sendcounts, const int* displs,
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Scatterv");
  if (c->inter())
    return inter_scatterv_call(c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                               recvtype, root);
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Scatterv");
  TypeBlocks sb;
  RecvView rv;
  int err = MPI_SUCCESS;
  if (c->rank == root) err = sb.init(sendbuf, c->size, sendcounts, displs, sendtype);
  if (err == MPI_SUCCESS && recvbuf != MPI_IN_PLACE) err = rv.init(recvbuf, recvcount, recvtype);
  if (err == MPI_SUCCESS && recvbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err == MPI_SUCCESS && c->rank == root && recvbuf != MPI_IN_PLACE &&
      rv.bytes() != sb.counts()[root])
    err = MPI_ERR_TRUNCATE;
  if (err) return raise_error(c, err, "MPI_Scatterv");
  sb.pack_all();
  void* own = recvbuf == MPI_IN_PLACE ? MPI_IN_PLACE : rv.data();
  torus::Status s =
      coll::scatterv(*c, sb.data(), sb.counts(), sb.offsets(), own, rv.bytes(), root);
  if (!torus::is_error(s)) rv.finish(rv.bytes());
  return finish(c, s, "MPI_Scatterv");
}

int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                    MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Allgatherv");
  if (c->inter())
    return inter_allgatherv_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                 recvtype);
  SendView sv;
  TypeBlocks rb;
  int err = rb.init(recvbuf, c->size, recvcounts, displs, recvtype);
  if (err == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
    err = sv.init(sendbuf, sendcount, sendtype);
    if (err == MPI_SUCCESS && sv.bytes() != rb.counts()[c->rank]) err = MPI_ERR_TRUNCATE;
  }
  if (err) return raise_error(c, err, "MPI_Allgatherv");
  if (sendbuf == MPI_IN_PLACE) rb.pack(c->rank);
  const void* own = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : sv.data();
  torus::Status s = coll::allgatherv(*c, own, rb.data(), rb.counts(), rb.offsets());
  if (!torus::is_error(s)) rb.unpack_all();
  return finish(c, s, "MPI_Allgatherv");
}

int PMPI_Alltoallv(const void* sendbuf, const int* sendcounts, const int* sdispls,
                   MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                   const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Alltoallv");
  TypeBlocks sb, rb;
  const int n = c->remote_size();
  int err = rb.init(recvbuf, n, recvcounts, rdispls, recvtype);
  if (c->inter()) {
    if (err == MPI_SUCCESS)
      err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER
                                    : sb.init(sendbuf, n, sendcounts, sdispls, sendtype);
    return inter_alltoall_blocks(c, sb, rb, err, "MPI_Alltoallv");
  }
  if (err == MPI_SUCCESS)
    err = sendbuf == MPI_IN_PLACE ? sb.snapshot(rb)
                                  : sb.init(sendbuf, n, sendcounts, sdispls, sendtype);
  return alltoall_blocks(c, sb, rb, err, "MPI_Alltoallv");
}

int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Alltoallw");
  TypeBlocks sb, rb;
  const int n = c->remote_size();
  int err = rb.init_w(recvbuf, n, recvcounts, rdispls, recvtypes);
  if (c->inter()) {
    if (err == MPI_SUCCESS)
      err = sendbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER
                                    : sb.init_w(sendbuf, n, sendcounts, sdispls, sendtypes);
    return inter_alltoall_blocks(c, sb, rb, err, "MPI_Alltoallw");
  }
  if (err == MPI_SUCCESS)
    err = sendbuf == MPI_IN_PLACE ? sb.snapshot(rb)
                                  : sb.init_w(sendbuf, n, sendcounts, sdispls, sendtypes);
  return alltoall_blocks(c, sb, rb, err, "MPI_Alltoallw");
}

static int scan_common(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, bool exclusive, const char* fn) {
  Comm* c = comm_get_intra(comm);  // scans are not defined on intercommunicators
  if (!c) return raise_error(comm_get(comm), MPI_ERR_COMM, fn);
  if (int err = reduction_check(count, datatype, op)) return raise_error(c, err, fn);
  if (count == 0 || type_packed_size(datatype) == 0) return MPI_SUCCESS;
  const size_t n = size_t(count);
  ReduceView v;
  if (int e = v.init(sendbuf, n, recvbuf, n, datatype, op)) return raise_error(c, e, fn);
  torus::Status s = coll::scan(*c, v.sbuf(), v.rbuf(), n * v.scale(), v.type(), op, exclusive);
  // Exscan leaves rank 0's receive buffer untouched.
  if (!torus::is_error(s) && !(exclusive && c->rank == 0)) v.finish(n);
  return finish(c, s, fn);
}

int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm) {
  return scan_common(sendbuf, recvbuf, count, datatype, op, comm, false, "MPI_Scan");
}

int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm) {
  return scan_common(sendbuf, recvbuf, count, datatype, op, comm, true, "MPI_Exscan");
}

TORUS_MPI_ALIAS(MPI_Gatherv)
TORUS_MPI_ALIAS(MPI_Scatterv)
TORUS_MPI_ALIAS(MPI_Allgatherv)
TORUS_MPI_ALIAS(MPI_Alltoallv)
TORUS_MPI_ALIAS(MPI_Alltoallw)
TORUS_MPI_ALIAS(MPI_Scan)
TORUS_MPI_ALIAS(MPI_Exscan)

}  // extern "C"
