// Scan and Exscan by recursive doubling: in round k each rank swaps its partial reduction
// (of the 2^k ranks ending at it) with rank r ^ 2^k; what comes from below also joins the
// prefix. log2(n) rounds for any n. The predefined ops are commutative, so the operand order
// of each combine does not matter.
#include <cstring>

#include "mpi_shim/lib/coll.h"
#include "mpi_shim/lib/coll_context.h"
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/op.h"

namespace torus::mpi::coll {

Status scan(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type, MPI_Op op,
            bool exclusive) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  const size_t bytes = count * type_size(type);
  std::byte* space = c.scratch(3 * bytes).data();
  std::byte* partial = space;           // reduction over the ranks this one has heard of
  std::byte* incoming = space + bytes;  // the partner's partial
  std::byte* own = space + 2 * bytes;   // this rank's input (rbuf may be it, in place)
  std::memcpy(own, sbuf == MPI_IN_PLACE ? rbuf : sbuf, bytes);
  std::memcpy(partial, own, bytes);
  // Inclusive: the prefix starts with this rank's own value; exclusive: empty until a
  // lower rank's partial arrives.
  bool have_prefix = !exclusive;
  if (!exclusive) std::memcpy(rbuf, own, bytes);
  for (int mask = 1, phase = 0; mask < n; mask <<= 1, ++phase) {
    const int peer = r ^ mask;
    if (peer >= n) continue;
    Status s = cc.sendrecv(peer, partial, bytes, peer, incoming, bytes, phase);
    if (is_error(s)) return s;
    op_apply(op, type, incoming, partial, partial, count);
    if (peer < r) {
      if (have_prefix) {
        op_apply(op, type, incoming, rbuf, rbuf, count);
      } else {
        std::memcpy(rbuf, incoming, bytes);
        have_prefix = true;
      }
    }
  }
  return Status::Ok;
}

}  // namespace torus::mpi::coll
