// Reduce (binomial tree) and allreduce (recursive doubling; with n not a power of two, the
// first 2*(n - 2^k) ranks fold pairwise into 2^k participants first and unfold at the end).
// Every predefined op is commutative, so the tree may combine in any order; the exchange in
// recursive doubling computes a op b on one side and b op a on the other, which is bitwise
// the same for every op here, so all ranks get identical results.
#include <cstring>
#include <span>

#include "mpi_shim/lib/coll.h"
#include "mpi_shim/lib/coll_context.h"
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/op.h"

namespace torus::mpi::coll {

Status reduce(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type, MPI_Op op,
              int root) {
  CollContext cc(c);
  const int n = cc.size();
  const int vr = (cc.rank() - root + n) % n;
  const size_t bytes = count * type_size(type);
  // `cur` holds this rank's partial result: the send buffer until the first combine, which
  // writes into `acc` (the root's receive buffer, a scratch area elsewhere). A leaf thus
  // sends straight from the user's buffer, and nobody copies it first.
  std::span<std::byte> space = c.scratch(vr == 0 ? bytes : 2 * bytes);
  std::byte* tmp = space.data();
  void* acc = vr == 0 ? rbuf : space.data() + bytes;
  const void* cur = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vr & mask) return cc.send(((vr & ~mask) + root) % n, 0, cur, bytes);
    if ((vr | mask) < n) {
      Status s = cc.recv(((vr | mask) + root) % n, 0, tmp, bytes);
      if (is_error(s)) return s;
      op_apply(op, type, tmp, cur, acc, count);
      cur = acc;
    }
  }
  if (cur != rbuf) std::memcpy(rbuf, cur, bytes);  // a root without children (n == 1)
  return Status::Ok;
}

Status allreduce(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
                 MPI_Op op) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  const size_t bytes = count * type_size(type);
  // As in reduce: the partial result lives in the send buffer until the first combine
  // writes it into rbuf.
  const void* cur = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  if (n == 1) {
    if (cur != rbuf) std::memcpy(rbuf, cur, bytes);
    return Status::Ok;
  }
  std::byte* tmp = c.scratch(bytes).data();
  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int rem = n - pof2;

  // Fold: among the first 2*rem ranks, each even rank hands its vector to the odd one above.
  int newrank;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      Status s = cc.send(r + 1, 0, cur, bytes);
      if (is_error(s)) return s;
      newrank = -1;
    } else {
      Status s = cc.recv(r - 1, 0, tmp, bytes);
      if (is_error(s)) return s;
      op_apply(op, type, tmp, cur, rbuf, count);
      cur = rbuf;
      newrank = r / 2;
    }
  } else {
    newrank = r - rem;
  }

  if (newrank >= 0) {
    int phase = 1;
    for (int mask = 1; mask < pof2; mask <<= 1, ++phase) {
      const int newpeer = newrank ^ mask;
      const int peer = newpeer < rem ? newpeer * 2 + 1 : newpeer + rem;
      Status s = cc.sendrecv(peer, cur, bytes, peer, tmp, bytes, phase);
      if (is_error(s)) return s;
      op_apply(op, type, tmp, cur, rbuf, count);
      cur = rbuf;
    }
  }

  // Unfold: the odd ranks give the result back to their even partners.
  constexpr int kUnfoldPhase = 63;
  if (r < 2 * rem) {
    if (r % 2 == 1) return cc.send(r - 1, kUnfoldPhase, rbuf, bytes);
    return cc.recv(r + 1, kUnfoldPhase, rbuf, bytes);
  }
  return Status::Ok;
}

}  // namespace torus::mpi::coll
