// MPI_Put, MPI_Get and their request forms: the origin's data as contiguous bytes (packed
// or staged when its type is not dense), and one torus put or get per contiguous block of
// the target type. Also what every RMA call shares: target checks, target blocks, remote
// addresses and keys, and the ops' completion.
#include <algorithm>
#include <cstring>

#include "core/base/copy.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/rma/win.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi {

bool RmaOp::poll() {
  if (finished) return true;
  for (Request* r : reqs)
    if (r && !r->completed()) return false;
  if (awaiting > 0) {
    if (world_target < 0 || !peer_failed(world_target)) return false;
    awaiting = 0;  // the answers will never come
    if (error == MPI_SUCCESS) error = MPI_ERR_PROC_ABORTED;
  }
  for (Request*& r : reqs) {
    if (!r) continue;
    if (is_error(r->status()) && error == MPI_SUCCESS) error = rma_error(r->status());
    r->release();
    r = nullptr;
  }
  if (error == MPI_SUCCESS) into.finish(into.bytes());
  finished = true;
  return true;
}

RmaOp::~RmaOp() {
  for (Request* r : reqs)
    if (r) r->release();  // the transfer still runs; nothing waits for it any more
}

void target_blocks(const TypeInfo& t, size_t count, MPI_Aint disp, std::vector<RmaBlock>& out) {
  out.clear();
  if (count == 0 || t.size == 0) return;
  if (t.contiguous) {
    out.push_back({uint64_t(disp + t.true_lb), uint64_t(count * t.size)});
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    for (const TypeBlock& b : t.blocks) {
      if (b.length == 0) continue;
      const uint64_t at = uint64_t(disp + MPI_Aint(i) * t.extent + b.offset);
      if (!out.empty() && out.back().offset + out.back().length == at)
        out.back().length += uint64_t(b.length);
      else
        out.push_back({at, uint64_t(b.length)});
    }
  }
}

int rma_target(Win& w, int rank, MPI_Aint disp, int count, MPI_Datatype type,
               std::vector<RmaBlock>* blocks, size_t* bytes) {
  if (rank < 0 || rank >= w.size) return MPI_ERR_RANK;
  if (count < 0) return MPI_ERR_COUNT;
  const TypeInfo* t = type_info(type);
  if (!t || !t->committed.load(std::memory_order_relaxed)) return MPI_ERR_TYPE;
  if (disp < 0) return MPI_ERR_DISP;
  if (!win_can_access(w, rank)) return MPI_ERR_RMA_SYNC;
  const bool dynamic = w.flavor == MPI_WIN_FLAVOR_DYNAMIC;
  const WinPeer& p = w.peers[size_t(rank)];
  const MPI_Aint at = dynamic ? disp : disp * p.disp_unit;
  target_blocks(*t, size_t(count), at, *blocks);
  *bytes = size_t(count) * t->size;
  if (dynamic) return MPI_SUCCESS;  // the target's regions decide (rma_remote)
  for (const RmaBlock& b : *blocks) {
    // Offsets come from signed arithmetic: a block before the window wraps to a huge one.
    if (b.offset > p.size || b.length > p.size - b.offset) return MPI_ERR_RMA_RANGE;
  }
  return MPI_SUCCESS;
}

int rma_remote(Win& w, int r, const RmaBlock& b, uint64_t* addr,
               std::span<const std::byte>* rkey, RmaLock& lock) {
  if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC) {
    const WinPeer& p = w.peers[size_t(r)];
    *addr = p.base + b.offset;
    *rkey = p.rkey;
    return MPI_SUCCESS;
  }
  auto inside = [&](const WinRegion& g) {
    return b.offset >= g.base && b.length <= g.size && b.offset - g.base <= g.size - b.length;
  };
  auto& known = w.remote_regions[size_t(r)];
  auto it = std::find_if(known.begin(), known.end(), inside);
  if (it == known.end()) {
    RmaAmHdr q{};
    q.kind = RmaAm::RegionQuery;
    q.win_id = w.id;
    q.origin = w.rank;
    q.offset = b.offset;
    q.length = b.length;
    if (int e = rma_am_send(w, r, q, {})) return e;
    win_wait_until(lock, [&] { return w.region_replies[size_t(r)] > 0 || win_peer_failed(w, r); });
    if (w.region_replies[size_t(r)] == 0) return MPI_ERR_PROC_ABORTED;
    --w.region_replies[size_t(r)];
    WinRegion got = std::move(w.region_answer[size_t(r)]);
    if (got.size == 0 || !inside(got)) return MPI_ERR_RMA_RANGE;
    known.push_back(std::move(got));
    it = known.end() - 1;
  }
  *addr = b.offset;
  *rkey = it->rkey;
  return MPI_SUCCESS;
}

namespace {

class RmaPending final : public PendingOp {
 public:
  explicit RmaPending(RmaOpRef op) : op_(std::move(op)) {}
  bool poll() override {
    std::lock_guard lock(rma_mutex());
    return op_->poll();
  }
  int finish(MPI_Status* status) override {
    status_empty(status);
    return op_->error;
  }

 private:
  RmaOpRef op_;
};

// A target whose memory this process maps: the blocks are copied now, between `mine` (the
// origin's bytes) and the target. To itself the origin buffer may overlap the window, so
// memmove there.
void copy_blocks(bool put, std::byte* mine, std::byte* target, bool self,
                 const std::vector<RmaBlock>& blocks) {
  size_t pos = 0;
  for (const RmaBlock& b : blocks) {
    std::byte* there = target + b.offset;
    std::byte* dst = put ? there : mine + pos;
    const std::byte* src = put ? mine + pos : there;
    if (self) std::memmove(dst, src, b.length);
    else copy_bytes(dst, src, b.length);
    pos += b.length;
  }
}

void copy_local(RmaOp& op, bool put, std::byte* target, bool self,
                const std::vector<RmaBlock>& blocks) {
  auto* mine = put ? const_cast<std::byte*>(static_cast<const std::byte*>(op.origin.data()))
                   : static_cast<std::byte*>(op.into.data());
  copy_blocks(put, mine, target, self, blocks);
  op.poll();  // finishes it: a staged get is unpacked
}

// The same without an op (nobody waits for it): the views live on the stack.
int copy_now(Win& w, bool put, void* origin, int ocount, MPI_Datatype otype, int rank,
             size_t bytes, const std::vector<RmaBlock>& blocks) {
  std::byte* target = w.local[size_t(rank)];
  const bool self = rank == w.rank;
  if (put) {
    SendView v;
    if (int e = v.init(origin, ocount, otype)) return e;
    if (v.bytes() != bytes) return MPI_ERR_ARG;
    copy_blocks(true, const_cast<std::byte*>(static_cast<const std::byte*>(v.data())), target,
                self, blocks);
    return MPI_SUCCESS;
  }
  RecvView v;
  if (int e = v.init(origin, ocount, otype)) return e;
  if (v.bytes() != bytes) return MPI_ERR_ARG;
  copy_blocks(false, static_cast<std::byte*>(v.data()), target, self, blocks);
  v.finish(bytes);
  return MPI_SUCCESS;
}

// Starts a put (put=true) or get of the user's data; *out gets the op. Returns an MPI code.
int transfer(Win& w, bool put, void* origin, int ocount, MPI_Datatype otype, int rank,
             MPI_Aint disp, int tcount, MPI_Datatype ttype, RmaOpRef* out) {
  const bool out_wanted = out != nullptr;
  if (ocount < 0) return MPI_ERR_COUNT;
  RmaLock lock(rma_mutex());
  // Reused: a put of a few bytes should not cost an allocation.
  thread_local std::vector<RmaBlock> blocks;
  size_t bytes = 0;
  if (int e = rma_target(w, rank, disp, tcount, ttype, &blocks, &bytes)) return e;
  if (!out_wanted && w.local[size_t(rank)])
    return copy_now(w, put, origin, ocount, otype, rank, bytes, blocks);
  auto op = std::make_shared<RmaOp>();
  op->target = rank;
  int e = put ? op->origin.init(origin, ocount, otype) : op->into.init(origin, ocount, otype);
  if (e != MPI_SUCCESS) return e;
  if ((put ? op->origin.bytes() : op->into.bytes()) != bytes) return MPI_ERR_ARG;
  if (std::byte* target = w.local[size_t(rank)]) {
    copy_local(*op, put, target, rank == w.rank, blocks);
    *out = std::move(op);  // finished: nothing to wait for (out is set on this path)
    return MPI_SUCCESS;
  }
  Endpoint* ep = win_endpoint(w, rank);
  if (!ep && bytes > 0) return MPI_ERR_PROC_ABORTED;
  std::byte* data = put ? const_cast<std::byte*>(static_cast<const std::byte*>(op->origin.data()))
                        : static_cast<std::byte*>(op->into.data());
  size_t pos = 0;
  int first = MPI_SUCCESS;
  bool one_sided = true;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const RmaBlock& b = blocks[i];
    uint64_t addr = 0;
    std::span<const std::byte> rkey;
    if ((first = rma_remote(w, rank, b, &addr, &rkey, lock)) != MPI_SUCCESS) break;
    Request* req = nullptr;
    Status s = put ? ep->put(data + pos, b.length, addr, rkey, &req)
                   : ep->get(data + pos, b.length, addr, rkey, &req);
    if (s == Status::Unsupported && i == 0) {
      one_sided = false;  // no one-sided lane to this peer: the target copies (below)
      break;
    }
    if (s == Status::InProgress) op->reqs.push_back(req);
    else if (is_error(s)) {
      first = rma_error(s);
      break;
    }
    pos += b.length;
  }
  if (!one_sided) {
    // As a replacing accumulate of bytes (put) or a fetch that changes nothing (get).
    op->world_target = win_world_rank(w, rank);
    const uint32_t id = win_track(w, op);
    first = put ? rma_send_chunks(w, *op, id, RmaAm::Acc, MPI_REPLACE, MPI_BYTE, blocks)
                : rma_send_chunks(w, *op, id, RmaAm::GetAcc, MPI_NO_OP, MPI_BYTE, blocks);
    if (op->awaiting == 0) w.by_id.erase(id);
  }
  if (first != MPI_SUCCESS && op->error == MPI_SUCCESS) op->error = first;
  w.ops.push_back(op);  // whatever was issued is waited for by the next flush
  if (out) *out = std::move(op);
  return first;
}

int put_or_get(MPI_Win win, bool put, void* origin, int ocount, MPI_Datatype otype, int rank,
               MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Request* request,
               const char* fn) {
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, fn);
  if (rank == MPI_PROC_NULL) {
    if (request) *request = rma_request_done(*w);
    return MPI_SUCCESS;
  }
  RmaOpRef op;
  if (int e = transfer(*w, put, origin, ocount, otype, rank, disp, tcount, ttype,
                       request ? &op : nullptr))
    return raise_win(w, e, fn);
  if (request) *request = rma_request(*w, std::move(op));
  return MPI_SUCCESS;
}

}  // namespace

MPI_Request rma_request(Win& w, RmaOpRef op) {
  return request_create_op(std::make_unique<RmaPending>(std::move(op)), win_error_scope(w));
}

MPI_Request rma_request_done(const Win& w) {
  MPI_Status st;
  status_empty(&st);
  return request_create(nullptr, false, win_error_scope(w), st);
}

}  // namespace torus::mpi

using namespace torus;
using namespace torus::mpi;

extern "C" {

int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win) {
  return put_or_get(win, true, const_cast<void*>(origin_addr), origin_count, origin_datatype,
                    target_rank, target_disp, target_count, target_datatype, nullptr,
                    "MPI_Put");
}

int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win) {
  return put_or_get(win, false, origin_addr, origin_count, origin_datatype, target_rank,
                    target_disp, target_count, target_datatype, nullptr, "MPI_Get");
}

int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  if (!request) return raise_win(win_get(win), MPI_ERR_ARG, "MPI_Rput");
  return put_or_get(win, true, const_cast<void*>(origin_addr), origin_count, origin_datatype,
                    target_rank, target_disp, target_count, target_datatype, request,
                    "MPI_Rput");
}

int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  if (!request) return raise_win(win_get(win), MPI_ERR_ARG, "MPI_Rget");
  return put_or_get(win, false, origin_addr, origin_count, origin_datatype, target_rank,
                    target_disp, target_count, target_datatype, request, "MPI_Rget");
}

TORUS_MPI_ALIAS(MPI_Put)
TORUS_MPI_ALIAS(MPI_Get)
TORUS_MPI_ALIAS(MPI_Rput)
TORUS_MPI_ALIAS(MPI_Rget)

}  // extern "C"
