// The vector collectives: Gatherv and Scatterv (linear, the root posts every transfer at
// once), Allgatherv (ring, forwarding the block received last) and Alltoallv (pairwise
// exchange). Counts and displacements are in bytes here.
#include <cstring>
#include <vector>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/algo/context.h"
#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi::coll {
namespace {

std::byte* at(void* base, size_t offset) { return static_cast<std::byte*>(base) + offset; }
const std::byte* at(const void* base, size_t offset) {
  return static_cast<const std::byte*>(base) + offset;
}

}  // namespace

Status gatherv(Comm& c, const void* sbuf, size_t sbytes, void* rbuf, const size_t* rcounts,
               const size_t* rdispls, int root) {
  CollContext cc(c);
  if (cc.rank() != root) return cc.send(root, 0, sbuf, sbytes);
  std::vector<Request*> reqs(static_cast<size_t>(cc.size()), nullptr);
  Status first = Status::Ok;
  for (int i = 0; i < cc.size() && !is_error(first); ++i)
    if (i != root)
      first = cc.post_recv(i, 0, at(rbuf, rdispls[i]), rcounts[i], &reqs[size_t(i)]);
  if (sbuf != MPI_IN_PLACE && rcounts[root])
    copy_bytes(at(rbuf, rdispls[root]), sbuf, rcounts[root]);
  Status s = wait_all(reqs);
  return is_error(first) ? first : s;
}

Status scatterv(Comm& c, const void* sbuf, const size_t* scounts, const size_t* sdispls,
                void* rbuf, size_t rbytes, int root) {
  CollContext cc(c);
  if (cc.rank() != root) return cc.recv(root, 0, rbuf, rbytes);
  std::vector<Request*> reqs(static_cast<size_t>(cc.size()), nullptr);
  Status first = Status::Ok;
  for (int i = 0; i < cc.size() && !is_error(first); ++i)
    if (i != root)
      first = cc.post_send(i, 0, at(sbuf, sdispls[i]), scounts[i], &reqs[size_t(i)]);
  if (rbuf != MPI_IN_PLACE && scounts[root])
    copy_bytes(rbuf, at(sbuf, sdispls[root]), scounts[root]);
  Status s = wait_all(reqs);
  return is_error(first) ? first : s;
}

Status allgatherv(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
                  const size_t* displs) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  if (sbuf != MPI_IN_PLACE && counts[r]) copy_bytes(at(rbuf, displs[r]), sbuf, counts[r]);
  const int right = (r + 1) % n, left = (r - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int sb = (r - step + n) % n, rb = (r - step - 1 + n) % n;
    Status s = cc.sendrecv(right, at(rbuf, displs[sb]), counts[sb], left, at(rbuf, displs[rb]),
                           counts[rb], step & 63);
    if (is_error(s)) return s;
  }
  return Status::Ok;
}

Status alltoallv(Comm& c, const void* sbuf, const size_t* scounts, const size_t* sdispls,
                 void* rbuf, const size_t* rcounts, const size_t* rdispls) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  if (scounts[r]) copy_bytes(at(rbuf, rdispls[r]), at(sbuf, sdispls[r]), scounts[r]);
  for (int step = 1; step < n; ++step) {
    const int dst = (r + step) % n, src = (r - step + n) % n;
    Status s = cc.sendrecv(dst, at(sbuf, sdispls[dst]), scounts[dst], src,
                           at(rbuf, rdispls[src]), rcounts[src], step & 63);
    if (is_error(s)) return s;
  }
  return Status::Ok;
}

}  // namespace torus::mpi::coll
