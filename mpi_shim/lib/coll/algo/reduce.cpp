// Reduce by binomial tree and allreduce by recursive doubling (with n not a power of two,
// the first 2*(n - 2^k) ranks fold pairwise into 2^k participants first and unfold at the
// end): the short-vector algorithms, log2(n) steps of the whole vector. Both combine in rank
// order, so non-commutative ops get ranks 0 op 1 op ... op n-1, and every rank of an
// allreduce computes bitwise the same value.
#include <cstring>
#include <span>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/algo/algos.h"
#include "mpi_shim/lib/coll/algo/context.h"
#include "mpi_shim/lib/coll/algo/util.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi::coll {

Status reduce_binomial(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
                       MPI_Op op, int root) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  const bool commutative = op_commutative(op);
  // A commutative op may reduce on the tree rooted at the root itself, whose subtrees are
  // ranges of ranks rotated by the root; otherwise the tree is rooted at rank 0, so that
  // every subtree is a range of consecutive ranks, and rank 0 passes the result on.
  const int tree_root = commutative ? root : 0;
  const int vr = (r - tree_root + n) % n;
  const size_t bytes = count * type_packed_size(type);
  // `cur` holds this rank's partial result: the send buffer until the first combine, which
  // writes into `acc` (the root's receive buffer, a scratch area elsewhere). A leaf thus
  // sends straight from the user's buffer, and nobody copies it first.
  const bool acc_is_rbuf = r == root;
  std::span<std::byte> space = c.scratch(acc_is_rbuf ? bytes : 2 * bytes);
  std::byte* tmp = space.data();
  void* acc = acc_is_rbuf ? rbuf : space.data() + bytes;
  const void* cur = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vr & mask) {
      Status s = cc.send(((vr & ~mask) + tree_root) % n, 0, cur, bytes);
      if (is_error(s) || r != root) return s;
      break;  // a root inside rank 0's tree still waits for the result
    }
    if ((vr | mask) < n) {
      Status s = cc.recv(((vr | mask) + tree_root) % n, 0, tmp, bytes);
      if (is_error(s)) return s;
      // The child's subtree holds the ranks just above ours.
      combine(op, type, commutative, cur, tmp, acc, count);
      cur = acc;
    }
  }
  if (r == tree_root && r != root) return cc.send(root, 1, cur, bytes);
  if (r == root && tree_root != root) return cc.recv(tree_root, 1, rbuf, bytes);
  if (cur != rbuf) copy_bytes(rbuf, cur, bytes);  // a root without children (n == 1)
  return Status::Ok;
}

Status allreduce_recursive_doubling(Comm& c, const void* sbuf, void* rbuf, size_t count,
                                    MPI_Datatype type, MPI_Op op) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  const size_t bytes = count * type_packed_size(type);
  const bool commutative = op_commutative(op);
  // As in reduce: the partial result lives in the send buffer until the first combine
  // writes it into rbuf.
  const void* cur = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  // Scratch only for what arrives once rbuf holds a partial result (n > 2, or in place).
  const auto tmp = [&c, bytes] { return c.scratch(bytes).data(); };
  const int pof2 = pow2_floor(n);
  const int rem = n - pof2;

  // Fold: among the first 2*rem ranks, each even rank hands its vector to the odd one above.
  int newrank;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      Status s = cc.send(r + 1, 0, cur, bytes);
      if (is_error(s)) return s;
      newrank = -1;
    } else {
      std::byte* land = cur != rbuf ? static_cast<std::byte*>(rbuf) : tmp();  // as below
      Status s = cc.recv(r - 1, 0, land, bytes);
      if (is_error(s)) return s;
      combine(op, type, commutative, land, cur, rbuf, count);
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
      // Until the first combine, rbuf holds nothing of ours: the partner's vector lands
      // there and the combine runs in place, which keeps a third vector out of the cache
      // (2 ranks, far cores, 4 MiB: 419-457 against 550-985 us; 512 KiB-2 MiB 10-20 %).
      std::byte* land = cur != rbuf ? static_cast<std::byte*>(rbuf) : tmp();
      Status s = cc.sendrecv(peer, cur, bytes, peer, land, bytes, phase);
      if (is_error(s)) return s;
      // Participants in newrank order speak for ranges of ranks in rank order.
      if (newpeer < newrank) combine(op, type, commutative, land, cur, rbuf, count);
      else combine(op, type, commutative, cur, land, rbuf, count);
      cur = rbuf;
    }
  }
  if (cur != rbuf) copy_bytes(rbuf, cur, bytes);  // n == 1

  // Unfold: the odd ranks give the result back to their even partners.
  constexpr int kUnfoldPhase = 63;
  if (r < 2 * rem) {
    if (r % 2 == 1) return cc.send(r - 1, kUnfoldPhase, rbuf, bytes);
    return cc.recv(r + 1, kUnfoldPhase, rbuf, bytes);
  }
  return Status::Ok;
}

}  // namespace torus::mpi::coll
