// MPI_Gatherv, Scatterv, Allgatherv, Alltoallv, Scan, Exscan: argument checks, counts and
// displacements turned into bytes (predefined types are contiguous: extent == size), then
// the algorithms of coll.h.
#include <vector>

#include "mpi_shim/lib/coll.h"
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/op.h"
#include "mpi_shim/lib/pmpi.h"

using namespace torus::mpi;

namespace {

// counts[i] and displs[i] (elements of `type`) of n ranks in bytes; an MPI error code.
int to_bytes(int n, const int* counts, const int* displs, MPI_Datatype type,
             std::vector<size_t>* bcounts, std::vector<size_t>* bdispls) {
  const size_t size = type_size(type);
  if (size == 0) return MPI_ERR_TYPE;
  bcounts->resize(size_t(n));
  bdispls->resize(size_t(n));
  for (int i = 0; i < n; ++i) {
    if (counts[i] < 0) return MPI_ERR_COUNT;
    if (displs[i] < 0) return MPI_ERR_ARG;
    (*bcounts)[size_t(i)] = size_t(counts[i]) * size;
    (*bdispls)[size_t(i)] = size_t(displs[i]) * size;
  }
  return MPI_SUCCESS;
}

int bytes_of(int count, MPI_Datatype type, size_t* bytes) {
  const size_t size = type_size(type);
  if (size == 0) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  *bytes = size * size_t(count);
  return MPI_SUCCESS;
}

int finish(Comm* c, torus::Status s, const char* fn) {
  return check(c, error_from_status(s), fn);
}

}  // namespace

extern "C" {

int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Gatherv");
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Gatherv");
  size_t sbytes = 0;
  std::vector<size_t> counts, offsets;
  int err = MPI_SUCCESS;
  if (c->rank == root) err = to_bytes(c->size, recvcounts, displs, recvtype, &counts, &offsets);
  if (err == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) err = bytes_of(sendcount, sendtype, &sbytes);
  if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, "MPI_Gatherv");
  return finish(c, coll::gatherv(*c, sendbuf, sbytes, recvbuf, counts.data(), offsets.data(),
                                 root),
                "MPI_Gatherv");
}

int PMPI_Scatterv(const void* sendbuf, const int* sendcounts, const int* displs,
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Scatterv");
  if (root < 0 || root >= c->size) return raise_error(c, MPI_ERR_ROOT, "MPI_Scatterv");
  size_t rbytes = 0;
  std::vector<size_t> counts, offsets;
  int err = MPI_SUCCESS;
  if (c->rank == root) err = to_bytes(c->size, sendcounts, displs, sendtype, &counts, &offsets);
  if (err == MPI_SUCCESS && recvbuf != MPI_IN_PLACE) err = bytes_of(recvcount, recvtype, &rbytes);
  if (err == MPI_SUCCESS && recvbuf == MPI_IN_PLACE && c->rank != root) err = MPI_ERR_BUFFER;
  if (err) return raise_error(c, err, "MPI_Scatterv");
  return finish(c, coll::scatterv(*c, sendbuf, counts.data(), offsets.data(), recvbuf, rbytes,
                                  root),
                "MPI_Scatterv");
}

int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                    MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Allgatherv");
  (void)sendcount;  // must describe recvcounts[rank] bytes (the standard's rule)
  (void)sendtype;
  std::vector<size_t> counts, offsets;
  if (int err = to_bytes(c->size, recvcounts, displs, recvtype, &counts, &offsets))
    return raise_error(c, err, "MPI_Allgatherv");
  return finish(c, coll::allgatherv(*c, sendbuf, recvbuf, counts.data(), offsets.data()),
                "MPI_Allgatherv");
}

int PMPI_Alltoallv(const void* sendbuf, const int* sendcounts, const int* sdispls,
                   MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                   const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Alltoallv");
  if (sendbuf == MPI_IN_PLACE)
    return raise_error(c, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Alltoallv");
  std::vector<size_t> sc, so, rc, ro;
  int err = to_bytes(c->size, sendcounts, sdispls, sendtype, &sc, &so);
  if (err == MPI_SUCCESS) err = to_bytes(c->size, recvcounts, rdispls, recvtype, &rc, &ro);
  if (err) return raise_error(c, err, "MPI_Alltoallv");
  return finish(c, coll::alltoallv(*c, sendbuf, sc.data(), so.data(), recvbuf, rc.data(),
                                   ro.data()),
                "MPI_Alltoallv");
}

static int scan_common(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, bool exclusive, const char* fn) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, fn);
  size_t bytes = 0;
  int err = bytes_of(count, datatype, &bytes);
  if (err == MPI_SUCCESS) err = op_check(op, datatype);
  if (err) return raise_error(c, err, fn);
  if (count == 0) return MPI_SUCCESS;
  return finish(c, coll::scan(*c, sendbuf, recvbuf, size_t(count), datatype, op, exclusive), fn);
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
TORUS_MPI_ALIAS(MPI_Scan)
TORUS_MPI_ALIAS(MPI_Exscan)

}  // extern "C"
