// Scan and Exscan by recursive doubling: in round k each rank swaps its partial reduction
// (of the aligned block of 2^k ranks around it) with rank r ^ 2^k; what comes from below
// also joins the prefix. log2(n) rounds for any n. The partner's ranks lie wholly below or
// above ours, and each combine puts the lower ones first, so non-commutative ops are right.
#include <cstring>
#include <utility>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/algo/context.h"
#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi::coll {

Status scan(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type, MPI_Op op,
            bool exclusive) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  const size_t bytes = count * type_packed_size(type);
  std::byte* space = c.scratch(2 * bytes).data();
  std::byte* partial = space;           // reduction over the ranks this one has heard of
  std::byte* incoming = space + bytes;  // the partner's partial
  const void* own = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  copy_bytes(partial, own, bytes);
  // Inclusive: the prefix starts with this rank's own value (in place, it is there
  // already); exclusive: empty until a lower rank's partial arrives.
  bool have_prefix = !exclusive;
  if (!exclusive && own != rbuf) copy_bytes(rbuf, own, bytes);
  for (int mask = 1, phase = 0; mask < n; mask <<= 1, ++phase) {
    const int peer = r ^ mask;
    if (peer >= n) continue;
    Status s = cc.sendrecv(peer, partial, bytes, peer, incoming, bytes, phase);
    if (is_error(s)) return s;
    if (peer < r) {
      op_apply(op, type, incoming, partial, partial, count);
    } else {
      // partial op incoming, written over incoming (a user op writes its second operand);
      // the two areas then swap roles.
      op_apply(op, type, partial, incoming, incoming, count);
      std::swap(partial, incoming);
    }
    if (peer < r) {
      // Each partial from below covers ranks below all of those in the prefix so far.
      if (have_prefix) {
        op_apply(op, type, incoming, rbuf, rbuf, count);
      } else {
        copy_bytes(rbuf, incoming, bytes);
        have_prefix = true;
      }
    }
  }
  return Status::Ok;
}

}  // namespace torus::mpi::coll
