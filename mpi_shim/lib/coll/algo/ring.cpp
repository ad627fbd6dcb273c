// Ring algorithms: the segment-pipelined ring pass (ring.h), and on it ring allgather,
// ring reduce-scatter and ring allreduce. A ring moves (n-1)/n of the vector per rank and
// phase, the least any algorithm can, and only between neighbours.
#include "mpi_shim/lib/coll/algo/ring.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/algo/algos.h"
#include "mpi_shim/lib/coll/algo/util.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi::coll {

Status ring_pass(const CollContext& cc, const RingPass& p) {
  const int n = p.n;
  if (n < 2) return Status::Ok;
  const size_t seg = segment_bytes(p.esize);
  const auto block_at = [&](int step) { return ((p.first - step) % n + n) % n; };
  InFlight fl(cc);
  // Receive indexes of the step being combined and of the next one.
  std::vector<size_t> recvs[2];

  const auto post_recvs = [&](int step) -> Status {
    const int b = block_at(step + 1);
    std::byte* base = p.tmp ? p.tmp + size_t(step % 2) * p.tmp_area : p.dst + p.disp[b];
    std::vector<size_t>& ids = recvs[step % 2];
    ids.clear();
    for (size_t at = 0; at < p.len[b]; at += seg) {
      size_t id;
      Status s = fl.recv(p.left, p.phase0 + step % 32, base + at, std::min(seg, p.len[b] - at),
                         &id);
      if (is_error(s)) return s;
      ids.push_back(id);
    }
    return Status::Ok;
  };

  Status s = post_recvs(0);
  if (is_error(s)) return s;
  for (size_t at = 0; at < p.len[p.first]; at += seg) {
    s = fl.send(p.right, p.phase0, p.src + p.disp[p.first] + at,
                std::min(seg, p.len[p.first] - at));
    if (is_error(s)) return s;
  }
  for (int step = 0; step < n - 1; ++step) {
    const bool forward = step + 1 < n - 1;
    if (forward && is_error(s = post_recvs(step + 1))) return s;
    const int b = block_at(step + 1);
    const std::byte* in = p.tmp ? p.tmp + size_t(step % 2) * p.tmp_area : nullptr;
    std::byte* kept = p.dst + p.disp[b];
    std::byte* out = !forward && p.last ? p.last : kept;
    size_t at = 0;
    for (size_t id : recvs[step % 2]) {
      if (is_error(s = fl.wait(id))) return s;
      const size_t len = std::min(seg, p.len[b] - at);
      if (p.tmp) op_apply(p.op, p.type, in + at, p.mine + p.disp[b] + at, out + at, len / p.esize);
      if (forward && is_error(s = fl.send(p.right, p.phase0 + (step + 1) % 32, kept + at, len)))
        return s;
      at += len;
    }
  }
  return fl.wait_all();
}

Status allgather_ring(Comm& c, const void* sbuf, void* rbuf, size_t block) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  std::byte* dst = static_cast<std::byte*>(rbuf);
  if (sbuf != MPI_IN_PLACE && block) copy_bytes(dst + block * size_t(r), sbuf, block);
  std::vector<size_t> disp(static_cast<size_t>(n)), len(static_cast<size_t>(n), block);
  for (int i = 0; i < n; ++i) disp[size_t(i)] = block * size_t(i);
  RingPass p;
  p.n = n;
  p.left = (r - 1 + n) % n;
  p.right = (r + 1) % n;
  p.first = r;
  p.disp = disp.data();
  p.len = len.data();
  p.src = dst;
  p.dst = dst;
  return ring_pass(cc, p);
}

namespace {

// The reduce-scatter pass shared by ring reduce-scatter and ring allreduce: blocks of
// `disp`/`len`, this rank's contribution in `mine`, results combined into `dst`; rank r
// ends up with block (first - n + 1) mod n complete.
RingPass reduce_pass(const CollContext& cc, const std::vector<size_t>& disp,
                     const std::vector<size_t>& len, int first, const std::byte* mine,
                     std::byte* dst, std::byte* tmp, size_t tmp_area, MPI_Datatype type,
                     MPI_Op op) {
  const int n = cc.size(), r = cc.rank();
  RingPass p;
  p.n = n;
  p.left = (r - 1 + n) % n;
  p.right = (r + 1) % n;
  p.first = first;
  p.disp = disp.data();
  p.len = len.data();
  p.src = mine;
  p.dst = dst;
  p.esize = type_packed_size(type);
  p.tmp = tmp;
  p.tmp_area = tmp_area;
  p.mine = mine;
  p.op = op;
  p.type = type;
  return p;
}

}  // namespace

Status allreduce_ring(Comm& c, const void* sbuf, void* rbuf, size_t count, MPI_Datatype type,
                      MPI_Op op) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  const size_t esize = type_packed_size(type);
  const std::byte* mine = static_cast<const std::byte*>(sbuf == MPI_IN_PLACE ? rbuf : sbuf);
  std::byte* dst = static_cast<std::byte*>(rbuf);
  std::vector<size_t> disp = even_blocks(count, n, esize);
  std::vector<size_t> len(static_cast<size_t>(n));
  for (size_t i = 0; i < size_t(n); ++i) len[i] = disp[i + 1] - disp[i];
  const size_t area = len[0];  // the largest block (even_blocks puts the longer ones first)
  std::byte* tmp = c.scratch(2 * area).data();
  // Reduce-scatter: rank r sends its own block first and ends with block r + 1 complete.
  // Blocks never received (block r) are only read from `mine`, so rbuf needs no copy of
  // sbuf: every other block of rbuf is written by a combine, then block r by the allgather.
  RingPass rs = reduce_pass(cc, disp, len, r, mine, dst, tmp, area, type, op);
  Status s = ring_pass(cc, rs);
  if (is_error(s)) return s;
  RingPass ag = rs;
  ag.first = (r + 1) % n;
  ag.src = dst;
  ag.tmp = nullptr;
  ag.phase0 = 32;
  return ring_pass(cc, ag);
}

Status reduce_scatter_ring(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
                           MPI_Datatype type, MPI_Op op) {
  CollContext cc(c);
  const int n = cc.size(), r = cc.rank();
  const size_t esize = type_packed_size(type);
  std::vector<size_t> disp(size_t(n) + 1), len(static_cast<size_t>(n));
  for (size_t i = 0; i < size_t(n); ++i) {
    len[i] = counts[i] * esize;
    disp[i + 1] = disp[i] + len[i];
  }
  const bool in_place = sbuf == MPI_IN_PLACE;
  const std::byte* mine = static_cast<const std::byte*>(in_place ? rbuf : sbuf);
  const size_t area = *std::max_element(len.begin(), len.end());
  // Partial blocks are kept (and forwarded) in a scratch copy of the vector's layout.
  std::span<std::byte> space = c.scratch(2 * area + disp[size_t(n)]);
  std::byte* work = space.data() + 2 * area;
  // Rank r starts with block r - 1 so that it ends with block r.
  RingPass rs = reduce_pass(cc, disp, len, (r - 1 + n) % n, mine, work, space.data(), area,
                            type, op);
  // In place the result must wait until every send from rbuf is done; otherwise it goes
  // straight to the user's buffer.
  if (!in_place) rs.last = static_cast<std::byte*>(rbuf);
  Status s = ring_pass(cc, rs);
  if (is_error(s)) return s;
  if (in_place && len[size_t(r)]) copy_bytes(rbuf, work + disp[size_t(r)], len[size_t(r)]);
  return Status::Ok;
}

}  // namespace torus::mpi::coll
