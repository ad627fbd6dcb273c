// Gather and scatter (linear: the root posts every transfer at once), allgather for short
// blocks (Bruck: ceil(log2 n) steps for any n; the ring for long ones is in ring.cpp)
// and alltoall (pairwise exchange: in step k, send to r + k and receive from r - k).
#include <cstring>
#include <vector>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/algo/algos.h"
#include "mpi_shim/lib/coll/algo/context.h"
#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi::coll {
namespace {

std::byte* block_at(void* base, size_t block, int i) {
  return static_cast<std::byte*>(base) + block * static_cast<size_t>(i);
}
const std::byte* block_at(const void* base, size_t block, int i) {
  return static_cast<const std::byte*>(base) + block * static_cast<size_t>(i);
}

}  // namespace

Status gather(Comm& c, const void* sbuf, void* rbuf, size_t block, int root) {
  CollContext cc(c);
  if (cc.rank() != root) return cc.send(root, 0, sbuf, block);
  std::vector<Request*> reqs(static_cast<size_t>(cc.size()), nullptr);
  Status first = Status::Ok;
  for (int i = 0; i < cc.size() && !is_error(first); ++i)
    if (i != root) first = cc.post_recv(i, 0, block_at(rbuf, block, i), block, &reqs[size_t(i)]);
  if (sbuf != MPI_IN_PLACE && block) copy_bytes(block_at(rbuf, block, root), sbuf, block);
  Status s = wait_all(reqs);
  return is_error(first) ? first : s;
}

Status scatter(Comm& c, const void* sbuf, void* rbuf, size_t block, int root) {
  CollContext cc(c);
  if (cc.rank() != root) return cc.recv(root, 0, rbuf, block);
  std::vector<Request*> reqs(static_cast<size_t>(cc.size()), nullptr);
  Status first = Status::Ok;
  for (int i = 0; i < cc.size() && !is_error(first); ++i)
    if (i != root) first = cc.post_send(i, 0, block_at(sbuf, block, i), block, &reqs[size_t(i)]);
  if (rbuf != MPI_IN_PLACE && block) copy_bytes(rbuf, block_at(sbuf, block, root), block);
  Status s = wait_all(reqs);
  return is_error(first) ? first : s;
}

Status allgather_bruck(Comm& c, const void* sbuf, void* rbuf, size_t block) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  // tmp[i] collects the block of rank r + i: at distance d, the first min(d, n - d) blocks
  // go to r - d and those of r + d .. arrive after ours. One rotation at the end puts them
  // in rank order; short blocks make the copies cheaper than the rounds they save.
  std::byte* tmp = c.scratch(block * size_t(n)).data();
  if (block)
    copy_bytes(tmp, sbuf == MPI_IN_PLACE ? block_at(rbuf, block, r) : sbuf, block);
  for (int d = 1, phase = 0; d < n; d <<= 1, ++phase) {
    const size_t k = size_t(d < n - d ? d : n - d);
    Status s = cc.sendrecv((r - d + n) % n, tmp, k * block, (r + d) % n,
                           block_at(tmp, block, d), k * block, phase);
    if (is_error(s)) return s;
  }
  if (block) {
    const size_t head = size_t(n - r);  // tmp[0 .. n - r) are ranks r .. n - 1
    copy_bytes(block_at(rbuf, block, r), tmp, head * block);
    copy_bytes(rbuf, block_at(tmp, block, n - r), size_t(r) * block);
  }
  return Status::Ok;
}

Status alltoall(Comm& c, const void* sbuf, void* rbuf, size_t block) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  std::vector<std::byte> copy;
  if (sbuf == MPI_IN_PLACE) {  // the send blocks are the receive buffer's old contents
    copy.assign(block_at(rbuf, block, 0), block_at(rbuf, block, n));
    sbuf = copy.data();
  }
  if (block) copy_bytes(block_at(rbuf, block, r), block_at(sbuf, block, r), block);
  for (int step = 1; step < n; ++step) {
    const int dst = (r + step) % n, src = (r - step + n) % n;
    Status s = cc.sendrecv(dst, block_at(sbuf, block, dst), block, src,
                           block_at(rbuf, block, src), block, step & 63);
    if (is_error(s)) return s;
  }
  return Status::Ok;
}

}  // namespace torus::mpi::coll
