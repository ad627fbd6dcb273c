// Intercommunicator collectives (blocking.h). Every process of both groups takes the call's
// sequence number on the intercommunicator (its CollContext), whether or not it sends across,
// so the next collective's messages carry the same number everywhere.
#include "mpi_shim/lib/coll/inter/blocking.h"

#include <numeric>
#include <vector>

#include "mpi_shim/lib/coll/algo/context.h"
#include "mpi_shim/lib/coll/algo/util.h"
#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"

namespace torus::mpi::coll {
namespace {

std::byte* at(void* base, size_t offset) { return static_cast<std::byte*>(base) + offset; }
const std::byte* at(const void* base, size_t offset) {
  return static_cast<const std::byte*>(base) + offset;
}

Status first_error(Status a, Status b) { return is_error(a) ? a : b; }

}  // namespace

Status inter_barrier(Comm& c) {
  CollContext cc(c);
  // Nobody leaves before the other group's leader knows its whole group has entered.
  Status s = barrier(*c.local);
  if (c.rank == 0 && !is_error(s)) s = cc.sendrecv(0, nullptr, 0, 0, nullptr, 0, 0);
  return first_error(s, barrier(*c.local));
}

Status inter_bcast(Comm& c, void* buf, size_t bytes, int root) {
  CollContext cc(c);
  if (root == MPI_PROC_NULL) return Status::Ok;
  if (root == MPI_ROOT) return cc.send(0, 0, buf, bytes);
  Status s = c.rank == 0 ? cc.recv(root, 0, buf, bytes) : Status::Ok;
  return first_error(s, bcast(*c.local, buf, bytes, 0));
}

Status inter_reduce(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
                    MPI_Op op, int root) {
  CollContext cc(c);
  const size_t bytes = count * type_packed_size(type);
  if (root == MPI_PROC_NULL) return Status::Ok;
  if (root == MPI_ROOT) return cc.recv(0, 0, rbuf, bytes);
  // The group reduces in rank order at its leader, which hands the result to the root.
  std::byte* tmp = c.rank == 0 ? c.scratch(bytes).data() : nullptr;
  Status s = reduce(*c.local, sbuf, tmp, count, type, op, 0);
  if (c.rank == 0 && !is_error(s)) s = cc.send(root, 0, tmp, bytes);
  return s;
}

Status inter_allreduce(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
                       MPI_Op op) {
  CollContext cc(c);
  const size_t bytes = count * type_packed_size(type);
  std::byte* tmp = c.rank == 0 ? c.scratch(bytes).data() : nullptr;
  Status s = reduce(*c.local, sbuf, tmp, count, type, op, 0);
  if (c.rank == 0 && !is_error(s)) s = cc.sendrecv(0, tmp, bytes, 0, rbuf, bytes, 0);
  return first_error(s, bcast(*c.local, rbuf, bytes, 0));
}

Status inter_reduce_scatter(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
                            MPI_Datatype type, MPI_Op op) {
  CollContext cc(c);
  const size_t esize = type_packed_size(type);
  const size_t n = static_cast<size_t>(c.size);
  std::vector<size_t> sizes(n), offsets(n);
  for (size_t i = 0; i < n; ++i) sizes[i] = counts[i] * esize;
  std::exclusive_scan(sizes.begin(), sizes.end(), offsets.begin(), size_t{0});
  const size_t total = offsets[n - 1] + sizes[n - 1];
  // The leader's scratch: this group's reduction, then the other group's beside it.
  std::byte* tmp = c.rank == 0 ? c.scratch(2 * total).data() : nullptr;
  Status s = reduce(*c.local, sbuf, tmp, total / (esize ? esize : 1), type, op, 0);
  if (c.rank == 0 && !is_error(s)) s = cc.sendrecv(0, tmp, total, 0, tmp + total, total, 0);
  const std::byte* theirs = c.rank == 0 ? tmp + total : nullptr;
  return first_error(s, scatterv(*c.local, theirs, sizes.data(), offsets.data(), rbuf,
                                 sizes[static_cast<size_t>(c.rank)], 0));
}

Status inter_gatherv(Comm& c, const void* sbuf, size_t sbytes, void* rbuf,
                     const size_t* rcounts, const size_t* rdispls, int root) {
  CollContext cc(c);
  if (root == MPI_PROC_NULL) return Status::Ok;
  if (root != MPI_ROOT) return cc.send(root, 0, sbuf, sbytes);
  InFlight fl(cc);
  for (int i = 0; i < c.remote_size(); ++i) {
    Status s = fl.recv(i, 0, at(rbuf, rdispls[i]), rcounts[i]);
    if (is_error(s)) return s;
  }
  return fl.wait_all();
}

Status inter_scatterv(Comm& c, const void* sbuf, const size_t* scounts, const size_t* sdispls,
                      void* rbuf, size_t rbytes, int root) {
  CollContext cc(c);
  if (root == MPI_PROC_NULL) return Status::Ok;
  if (root != MPI_ROOT) return cc.recv(root, 0, rbuf, rbytes);
  InFlight fl(cc);
  for (int i = 0; i < c.remote_size(); ++i) {
    Status s = fl.send(i, 0, at(sbuf, sdispls[i]), scounts[i]);
    if (is_error(s)) return s;
  }
  return fl.wait_all();
}

Status inter_alltoallv(Comm& c, const void* sbuf, const size_t* scounts, const size_t* sdispls,
                       void* rbuf, const size_t* rcounts, const size_t* rdispls) {
  CollContext cc(c);
  // Receives first, then sends starting at a different peer on each process, so no remote
  // process gets every group's first message at once.
  const int n = c.remote_size();
  InFlight fl(cc);
  for (int i = 0; i < n; ++i) {
    Status s = fl.recv(i, 0, at(rbuf, rdispls[i]), rcounts[i]);
    if (is_error(s)) return s;
  }
  for (int k = 0; k < n; ++k) {
    const int i = (c.rank + k) % n;
    Status s = fl.send(i, 0, at(sbuf, sdispls[i]), scounts[i]);
    if (is_error(s)) return s;
  }
  return fl.wait_all();
}

}  // namespace torus::mpi::coll
