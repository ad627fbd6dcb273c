// MPI_Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap and the request forms.
// The origin's data travels packed, cut into chunks that never split an element, one
// active message each per contiguous target block; the target applies each chunk whole in
// its progress, so chunks of concurrent accumulates never interleave within an element.
// The standard's atomicity is per element, which this gives.
#include <cstdint>
#include <cstring>

#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/rma/win.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {
namespace {

struct AccArgs {
  RmaAm kind = RmaAm::Acc;
  const void* origin = nullptr;
  int ocount = 0;
  MPI_Datatype otype = MPI_DATATYPE_NULL;
  void* result = nullptr;  // GetAcc, Cas
  int rcount = 0;
  MPI_Datatype rtype = MPI_DATATYPE_NULL;
  const void* compare = nullptr;  // Cas
  int rank = MPI_PROC_NULL;
  MPI_Aint disp = 0;
  int tcount = 0;
  MPI_Datatype ttype = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_REPLACE;
};

int check_op(const AccArgs& a, MPI_Datatype basic) {
  if (a.op == MPI_NO_OP) return a.kind == RmaAm::GetAcc ? MPI_SUCCESS : MPI_ERR_OP;
  if (a.op == MPI_REPLACE) return MPI_SUCCESS;
  if (is_user_op(a.op)) return MPI_ERR_OP;  // the standard allows predefined ops only
  return op_check(a.op, basic);
}

// The basic type a side's datatype is made of; MPI_ERR_TYPE when mixed or invalid.
int basic_of(MPI_Datatype type, MPI_Datatype* basic) {
  const TypeInfo* t = type_info(type);
  if (!t || !t->committed.load(std::memory_order_relaxed)) return MPI_ERR_TYPE;
  *basic = op_basic_type(type, nullptr);
  return *basic == MPI_DATATYPE_NULL ? MPI_ERR_TYPE : MPI_SUCCESS;
}

// The op applied to each target block in turn; the caller holds the target's lock.
int apply_blocks(std::byte* target, MPI_Op mop, MPI_Datatype basic, const std::byte* data,
                 std::byte* result, const std::vector<RmaBlock>& blocks) {
  size_t pos = 0;
  for (const RmaBlock& b : blocks) {
    std::span<const std::byte> in;
    if (mop != MPI_NO_OP) in = {data + pos, size_t(b.length)};
    if (int e = rma_apply(target + b.offset, b.length, mop, basic, in,
                          result ? result + pos : nullptr))
      return e;
    pos += size_t(b.length);
  }
  return MPI_SUCCESS;
}

// A target whose memory (and accumulate lock) this process maps: the op is applied here,
// now, under the target's lock, as the target would apply it. Returns an MPI error code.
int apply_local(Win& w, const AccArgs& a, RmaOp& op, std::byte* target, MPI_Datatype basic,
                const std::vector<RmaBlock>& blocks) {
  AccLockGuard guard(w.acc_lock[size_t(a.rank)]);
  auto* result = static_cast<std::byte*>(op.into.data());
  if (a.kind == RmaAm::Cas)
    return rma_compare_and_swap(target + blocks.front().offset, op.cas.size() / 2, op.cas,
                                result);
  return apply_blocks(target, a.op, basic, static_cast<const std::byte*>(op.origin.data()),
                      result, blocks);
}

// MPI_Accumulate to a mapped target, with nobody to wait for it afterwards, where
// apply_mapped_run does not apply (non-dense types): no op, only the origin's view, on the
// stack (an op costs a zeroed object, a result view and a destructor on every call).
int accumulate_now(Win& w, const AccArgs& a, MPI_Datatype basic, size_t bytes,
                   const std::vector<RmaBlock>& blocks) {
  MPI_Datatype other = basic;
  if (a.otype != a.ttype)
    if (int e = basic_of(a.otype, &other)) return e;
  if (other != basic) return MPI_ERR_TYPE;
  SendView origin;
  if (int e = origin.init(a.origin, a.ocount, a.otype)) return e;
  if (origin.bytes() != bytes) return MPI_ERR_ARG;
  AccLockGuard guard(w.acc_lock[size_t(a.rank)]);
  return apply_blocks(w.local[size_t(a.rank)], a.op, basic,
                      static_cast<const std::byte*>(origin.data()), nullptr, blocks);
}

// `count` elements of `type` as *n elements of *basic laid densely from the buffer's start
// (a predefined type, or a derived one such as a contiguous or a one-block struct); false
// when they are not.
bool dense_run(MPI_Datatype type, int count, MPI_Datatype* basic, size_t* n) {
  const TypeInfo* t = type_info(type);
  if (!t || !t->committed.load(std::memory_order_relaxed) || !t->contiguous ||
      t->true_lb != 0 || t->basic == MPI_DATATYPE_NULL)
    return false;
  *basic = t->basic;
  *n = size_t(count) * t->basic_count;
  return true;
}

// One dense run of elements at a target this process maps, with nobody to wait for it
// afterwards: checked and applied here, with no block list, view or op object. Counters,
// histogram bins and lock words (Fetch_and_op, Compare_and_swap, a one-element Accumulate)
// are what one-sided programs issue most, and the general path's bookkeeping costs more than
// the op. False leaves the call, and any error it has, to that path.
bool apply_mapped_run(Win& w, const AccArgs& a, int* err) {
  const int r = a.rank;
  if (r < 0 || r >= w.size || w.flavor == MPI_WIN_FLAVOR_DYNAMIC) return false;
  std::byte* const base = w.local[size_t(r)];
  std::atomic<uint32_t>* const acc_lock = w.acc_lock[size_t(r)];
  if (!base || !acc_lock || a.tcount <= 0 || a.disp < 0) return false;
  // The three sides must hold the same run of the same basic type (a pair type's padding,
  // as in MPI_SHORT_INT, makes a type not dense).
  MPI_Datatype basic = MPI_DATATYPE_NULL, other = MPI_DATATYPE_NULL;
  size_t n = 0, m = 0;
  if (!dense_run(a.ttype, a.tcount, &basic, &n) || n == 0) return false;
  if (a.op != MPI_NO_OP &&
      (!dense_run(a.otype, a.ocount, &other, &m) || other != basic || m != n))
    return false;
  if (a.kind != RmaAm::Acc &&
      (!dense_run(a.rtype, a.rcount, &other, &m) || other != basic || m != n))
    return false;
  const TypeInfo* t = type_info(basic);
  std::byte old[32];  // Compare_and_swap's types are at most 16 bytes
  if (a.kind == RmaAm::Cas) {
    if (n != 1 || t->size > sizeof old) return false;
  } else if ((a.kind == RmaAm::Acc && a.op == MPI_NO_OP) || !rma_op_valid(a.op, basic)) {
    return false;
  }
  const WinPeer& p = w.peers[size_t(r)];
  MPI_Aint at = 0, bytes = 0;
  if (__builtin_mul_overflow(a.disp, MPI_Aint(p.disp_unit), &at) ||
      __builtin_mul_overflow(MPI_Aint(n), MPI_Aint(t->size), &bytes) ||
      uint64_t(at) > p.size || uint64_t(bytes) > p.size - uint64_t(at))
    return false;
  std::byte* const target = base + at;
  const auto addrs = reinterpret_cast<uintptr_t>(target) | reinterpret_cast<uintptr_t>(a.origin) |
                     reinterpret_cast<uintptr_t>(a.result);
  if ((addrs & uintptr_t(t->align - 1)) != 0) return false;  // the kernels load whole elements

  RmaLock lock(rma_mutex());
  if (!win_can_access(w, r)) return false;
  AccLockGuard guard(acc_lock);
  const size_t len = size_t(bytes);
  if (a.kind == RmaAm::Cas) {
    std::memcpy(old, target, len);
    if (std::memcmp(old, a.compare, len) == 0) std::memcpy(target, a.origin, len);
    std::memcpy(a.result, old, len);
  } else {
    if (a.kind == RmaAm::GetAcc) std::memcpy(a.result, target, len);
    if (a.op == MPI_REPLACE) {
      std::memcpy(target, a.origin, len);
    } else if (a.op != MPI_NO_OP) {
      op_apply(a.op, basic, a.origin, target, target, n);
    }
  }
  *err = MPI_SUCCESS;
  return true;
}

// Starts the op; *out (when given) gets it for a request to wait on.
int start(Win& w, const AccArgs& a, RmaOpRef* out) {
  if (a.ocount < 0 || a.rcount < 0) return MPI_ERR_COUNT;
  if (int e = MPI_SUCCESS; !out && apply_mapped_run(w, a, &e)) return e;
  std::unique_lock lock(rma_mutex());
  thread_local std::vector<RmaBlock> blocks;  // reused: no allocation per call
  size_t bytes = 0;
  if (int e = rma_target(w, a.rank, a.disp, a.tcount, a.ttype, &blocks, &bytes)) return e;
  MPI_Datatype basic = MPI_DATATYPE_NULL, other = MPI_DATATYPE_NULL;
  if (int e = basic_of(a.ttype, &basic)) return e;
  if (int e = check_op(a, basic)) return e;
  // Applied here and now, with nobody to wait for it afterwards: the op lives on the stack.
  const bool local = w.local[size_t(a.rank)] && w.acc_lock[size_t(a.rank)];
  if (local && !out && a.kind == RmaAm::Acc) return accumulate_now(w, a, basic, bytes, blocks);
  RmaOp here;
  RmaOpRef held;
  if (!local || out) held = std::make_shared<RmaOp>();
  RmaOp& op = held ? *held : here;
  op.target = a.rank;
  if (a.op != MPI_NO_OP) {
    if (int e = basic_of(a.otype, &other)) return e;
    if (other != basic) return MPI_ERR_TYPE;
    if (int e = op.origin.init(a.origin, a.ocount, a.otype)) return e;
    if (op.origin.bytes() != bytes) return MPI_ERR_ARG;
  }
  if (a.kind != RmaAm::Acc) {
    if (int e = basic_of(a.rtype, &other)) return e;
    if (other != basic) return MPI_ERR_TYPE;
    if (int e = op.into.init(a.result, a.rcount, a.rtype)) return e;
    if (op.into.bytes() != bytes) return MPI_ERR_ARG;
  }
  if (a.kind == RmaAm::Cas) {
    op.cas.resize(2 * bytes);
    std::memcpy(op.cas.data(), a.compare, bytes);
    std::memcpy(op.cas.data() + bytes, a.origin, bytes);
  }
  if (local) {
    op.error = apply_local(w, a, op, w.local[size_t(a.rank)], basic, blocks);
    op.poll();  // finished: a staged result is unpacked
    const int e = op.error;
    if (out) *out = std::move(held);
    return e;
  }
  op.world_target = win_world_rank(w, a.rank);
  const uint32_t id = win_track(w, held);
  int e = MPI_SUCCESS;
  if (a.kind == RmaAm::Cas) {
    RmaAmHdr h{};
    h.kind = RmaAm::Cas;
    h.win_id = w.id;
    h.origin = w.rank;
    h.op_id = id;
    h.type = basic;
    h.offset = blocks.front().offset;
    h.length = bytes;
    e = rma_send_chunk(w, op, h, op.cas);
  } else {
    e = rma_send_chunks(w, op, id, a.kind, a.op, basic, blocks);
  }
  if (op.awaiting == 0) w.by_id.erase(id);
  if (e != MPI_SUCCESS) op.error = e;
  w.ops.push_back(held);
  if (out) *out = std::move(held);
  return e;
}

int run(MPI_Win win, const AccArgs& a, MPI_Request* request, const char* fn) {
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, fn);
  if (a.rank == MPI_PROC_NULL) {
    if (request) *request = rma_request_done(*w);
    return MPI_SUCCESS;
  }
  RmaOpRef op;
  if (int e = start(*w, a, request ? &op : nullptr)) return raise_win(w, e, fn);
  if (request) *request = rma_request(*w, std::move(op));
  return MPI_SUCCESS;
}

// Compare_and_swap's types: the integer, logical and byte ones.
bool cas_type(MPI_Datatype t) {
  const TypeInfo* info = type_info(t);
  return info && info->predefined != MPI_DATATYPE_NULL &&
         (op_valid(MPI_BAND, t) || op_valid(MPI_LAND, t));
}

AccArgs acc_args(const void* origin, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                 int tcount, MPI_Datatype ttype, MPI_Op op) {
  AccArgs a;
  a.origin = origin;
  a.ocount = ocount;
  a.otype = otype;
  a.rank = rank;
  a.disp = disp;
  a.tcount = tcount;
  a.ttype = ttype;
  a.op = op;
  return a;
}

int accumulate(const void* origin, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
               int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* request,
               const char* fn) {
  return run(win, acc_args(origin, ocount, otype, rank, disp, tcount, ttype, op), request, fn);
}

int get_accumulate(const void* origin, int ocount, MPI_Datatype otype, void* result, int rcount,
                   MPI_Datatype rtype, int rank, MPI_Aint disp, int tcount, MPI_Datatype ttype,
                   MPI_Op op, MPI_Win win, MPI_Request* request, const char* fn) {
  AccArgs a = acc_args(origin, ocount, otype, rank, disp, tcount, ttype, op);
  a.kind = RmaAm::GetAcc;
  a.result = result;
  a.rcount = rcount;
  a.rtype = rtype;
  return run(win, a, request, fn);
}

}  // namespace
}  // namespace torus::mpi

using namespace torus;
using namespace torus::mpi;

extern "C" {

int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, nullptr, "MPI_Accumulate");
}

int PMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request* request) {
  if (!request) return raise_win(win_get(win), MPI_ERR_ARG, "MPI_Raccumulate");
  return accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, request, "MPI_Raccumulate");
}

int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void* result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count,
                        target_datatype, op, win, nullptr, "MPI_Get_accumulate");
}

int PMPI_Rget_accumulate(const void* origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void* result_addr, int result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win, MPI_Request* request) {
  if (!request) return raise_win(win_get(win), MPI_ERR_ARG, "MPI_Rget_accumulate");
  return get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count,
                        target_datatype, op, win, request, "MPI_Rget_accumulate");
}

int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  const TypeInfo* t = type_info(datatype);
  if (!t || t->predefined == MPI_DATATYPE_NULL)
    return raise_win(win_get(win), MPI_ERR_TYPE, "MPI_Fetch_and_op");
  return get_accumulate(origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                        target_disp, 1, datatype, op, win, nullptr, "MPI_Fetch_and_op");
}

int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win) {
  const char* fn = "MPI_Compare_and_swap";
  if (!cas_type(datatype)) return raise_win(win_get(win), MPI_ERR_TYPE, fn);
  AccArgs a = acc_args(origin_addr, 1, datatype, target_rank, target_disp, 1, datatype,
                       MPI_REPLACE);
  a.kind = RmaAm::Cas;
  a.result = result_addr;
  a.rcount = 1;
  a.rtype = datatype;
  a.compare = compare_addr;
  return run(win, a, nullptr, fn);
}

TORUS_MPI_ALIAS(MPI_Accumulate)
TORUS_MPI_ALIAS(MPI_Raccumulate)
TORUS_MPI_ALIAS(MPI_Get_accumulate)
TORUS_MPI_ALIAS(MPI_Rget_accumulate)
TORUS_MPI_ALIAS(MPI_Fetch_and_op)
TORUS_MPI_ALIAS(MPI_Compare_and_swap)

}  // extern "C"
