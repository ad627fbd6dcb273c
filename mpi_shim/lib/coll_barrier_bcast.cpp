// Barrier (dissemination: ceil(log2 n) rounds, any n) and broadcast (binomial tree).
#include "mpi_shim/lib/coll.h"
#include "mpi_shim/lib/coll_context.h"

namespace torus::mpi::coll {

Status barrier(Comm& c) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  // Round k: tell rank r + 2^k we arrived, hear from r - 2^k. After the last round every rank
  // has (transitively) heard from every other.
  for (int dist = 1, phase = 0; dist < n; dist <<= 1, ++phase) {
    Status s = cc.sendrecv((r + dist) % n, nullptr, 0, (r - dist + n) % n, nullptr, 0, phase);
    if (is_error(s)) return s;
  }
  return Status::Ok;
}

Status bcast(Comm& c, void* buf, size_t bytes, int root) {
  CollContext cc(c);
  const int n = cc.size();
  const int vr = (cc.rank() - root + n) % n;  // rank relative to the root
  // Receive from the parent: the rank that differs from us in our lowest set bit.
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (vr & mask) {
      Status s = cc.recv((vr - mask + root) % n, 0, buf, bytes);
      if (is_error(s)) return s;
      break;
    }
  }
  // Send to the children, farthest subtree first so it starts early.
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask < n) {
      Status s = cc.send((vr + mask + root) % n, 0, buf, bytes);
      if (is_error(s)) return s;
    }
  }
  return Status::Ok;
}

}  // namespace torus::mpi::coll
