// Barrier (dissemination: ceil(log2 n) rounds, any n) and broadcast: a binomial tree for
// short messages (log2(n) steps of the whole message), scatter then ring allgather for long
// ones (about twice the message per rank, whatever n).
#include <vector>

#include "mpi_shim/lib/coll/algo/algos.h"
#include "mpi_shim/lib/coll/algo/context.h"
#include "mpi_shim/lib/coll/algo/ring.h"
#include "mpi_shim/lib/coll/algo/util.h"
#include "mpi_shim/lib/coll/coll.h"

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

Status bcast_binomial(Comm& c, void* buf, size_t bytes, int root) {
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

Status bcast_scatter_allgather(Comm& c, void* buf, size_t bytes, int root) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  const int vr = (r - root + n) % n;
  std::byte* data = static_cast<std::byte*>(buf);
  // Block i (in ranks relative to the root) goes to rank root + i.
  const std::vector<size_t> disp = even_blocks(bytes, n, 1);
  std::vector<size_t> len(static_cast<size_t>(n));
  for (size_t i = 0; i < size_t(n); ++i) len[i] = disp[i + 1] - disp[i];
  {
    // The root posts every block at once (each receiver pulls its own in parallel) and
    // waits for them all before the ring writes into its buffer.
    InFlight fl(cc);
    if (vr == 0) {
      for (int i = 1; i < n; ++i) {
        if (!len[size_t(i)]) continue;
        Status s = fl.send((i + root) % n, 0, data + disp[size_t(i)], len[size_t(i)]);
        if (is_error(s)) return s;
      }
    } else if (len[size_t(vr)]) {
      Status s = fl.recv(root, 0, data + disp[size_t(vr)], len[size_t(vr)]);
      if (is_error(s)) return s;
    }
    Status s = fl.wait_all();
    if (is_error(s)) return s;
  }
  RingPass p;
  p.n = n;
  p.left = (r - 1 + n) % n;
  p.right = (r + 1) % n;
  p.first = vr;
  p.disp = disp.data();
  p.len = len.data();
  p.src = data;
  p.dst = data;
  p.phase0 = 1;
  return ring_pass(cc, p);
}

}  // namespace torus::mpi::coll
