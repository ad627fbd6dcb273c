// The RMA protocol's active messages. The target side applies accumulates (reading the old
// bytes first for Get_accumulate and Compare_and_swap), keeps the window's lock and counts
// the general active target's post and complete messages; the origin side collects
// acknowledgements, results, lock grants and region answers. Everything runs inside the
// worker's progress, one message at a time.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>

#include "core/base/log.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/rma/win.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi {
namespace {

// User active-message id 0..63 of the library's own worker; only RMA uses one.
constexpr unsigned kRmaAmId = 1;
// A chunk fits one bcopy fragment of the smallest transport (shm's 8 KiB segment), with
// room for both headers.
constexpr size_t kChunkStart = 8192 - 256;
constexpr size_t kChunkFloor = 256;
std::atomic<size_t> g_chunk{kChunkStart};

Worker* g_installed_on = nullptr;  // guarded by rma_mutex

// Where [offset, offset + length) of the target's window lies in this process, or nullptr.
std::byte* target_bytes(Win& w, uint64_t offset, uint64_t length) {
  if (w.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    for (const WinRegion& r : w.attached)
      if (offset >= r.base && length <= r.size && offset - r.base <= r.size - length)
        return reinterpret_cast<std::byte*>(offset);
    return nullptr;
  }
  const uint64_t size = uint64_t(w.bytes);
  if (length > size || offset > size - length) return nullptr;
  return static_cast<std::byte*>(w.base) + offset;
}

// Applies one accumulate chunk at the target (copying the bytes it replaces into `old`
// first, when given), under the window's accumulate lock. Returns an MPI error code.
int apply(Win& w, const RmaAmHdr& h, std::span<const std::byte> data, std::byte* old) {
  std::byte* at = target_bytes(w, h.offset, h.length);
  if (!at) return MPI_ERR_RMA_RANGE;
  AccLockGuard guard(w.acc_lock[size_t(w.rank)]);
  return rma_apply(at, h.length, h.mpi_op, h.type, data, old);
}

int compare_and_swap(Win& w, const RmaAmHdr& h, std::span<const std::byte> data,
                     std::byte* old) {
  std::byte* at = target_bytes(w, h.offset, h.length);
  if (!at) return MPI_ERR_RMA_RANGE;
  AccLockGuard guard(w.acc_lock[size_t(w.rank)]);
  return rma_compare_and_swap(at, h.length, data, old);
}

RmaAmHdr reply_to(const Win& w, const RmaAmHdr& h, RmaAm kind) {
  RmaAmHdr r{};
  r.kind = kind;
  r.win_id = w.id;
  r.origin = w.rank;
  r.op_id = h.op_id;
  r.aux2 = h.aux2;
  return r;
}

void grant_waiting(Win& w) {
  while (!w.lock_queue.empty()) {
    auto [origin, exclusive] = w.lock_queue.front();
    if (w.exclusive_holder >= 0 || (exclusive && w.shared_holders > 0)) return;
    w.lock_queue.pop_front();
    if (exclusive) w.exclusive_holder = origin;
    else ++w.shared_holders;
    RmaAmHdr g{};
    g.kind = RmaAm::LockGrant;
    g.win_id = w.id;
    g.origin = w.rank;
    if (int e = rma_am_send(w, origin, g, {}))
      TORUS_WARN("RMA lock grant to rank %d failed (MPI error %d)", origin, e);
  }
}

// An acknowledgement or result for one of our chunks.
void on_answer(Win& w, const RmaAmHdr& h, std::span<const std::byte> data) {
  auto it = w.by_id.find(h.op_id);
  if (it == w.by_id.end()) {
    TORUS_WARN("RMA answer for unknown operation %u from rank %d dropped", h.op_id, h.origin);
    return;
  }
  RmaOp& op = *it->second;
  if (h.aux != MPI_SUCCESS && op.error == MPI_SUCCESS) op.error = int(h.aux);
  if (h.kind == RmaAm::Result && h.aux == MPI_SUCCESS) {
    if (h.aux2 > op.into.bytes() || data.size() > op.into.bytes() - h.aux2) {
      if (op.error == MPI_SUCCESS) op.error = MPI_ERR_INTERN;
    } else if (!data.empty()) {
      std::memcpy(static_cast<std::byte*>(op.into.data()) + h.aux2, data.data(), data.size());
    }
  }
  if (op.awaiting > 0 && --op.awaiting == 0 && !op.sending) w.by_id.erase(it);
}

void on_region_query(Win& w, const RmaAmHdr& h) {
  RmaAmHdr r = reply_to(w, h, RmaAm::RegionReply);
  std::span<const std::byte> key;
  for (const WinRegion& g : w.attached) {
    if (h.offset >= g.base && h.length <= g.size && h.offset - g.base <= g.size - h.length) {
      r.offset = g.base;
      r.length = g.size;
      key = g.rkey;
      break;
    }
  }
  (void)rma_am_send(w, h.origin, r, key);
}

void handle(const RmaAmHdr& h, std::span<const std::byte> data) {
  Win* w = win_by_id(h.win_id);
  if (!w) {
    TORUS_DEBUG("RMA message for a window no longer here (id %u) dropped", h.win_id);
    return;
  }
  if (h.origin < 0 || h.origin >= w->size) {
    TORUS_WARN("RMA message with a bad origin rank %d dropped", h.origin);
    return;
  }
  const size_t from = size_t(h.origin);
  switch (h.kind) {
    case RmaAm::Acc: {
      RmaAmHdr r = reply_to(*w, h, RmaAm::Ack);
      r.aux = apply(*w, h, data, nullptr);
      (void)rma_am_send(*w, h.origin, r, {});
      return;
    }
    case RmaAm::GetAcc:
    case RmaAm::Cas: {
      std::vector<std::byte> old(h.length);
      RmaAmHdr r = reply_to(*w, h, RmaAm::Result);
      r.aux = h.kind == RmaAm::Cas ? compare_and_swap(*w, h, data, old.data())
                                   : apply(*w, h, data, old.data());
      (void)rma_am_send(*w, h.origin, r, r.aux == MPI_SUCCESS ? old : std::vector<std::byte>{});
      return;
    }
    case RmaAm::Ack:
    case RmaAm::Result: return on_answer(*w, h, data);
    case RmaAm::LockReq:
      w->lock_queue.emplace_back(h.origin, h.aux != 0);
      return grant_waiting(*w);
    case RmaAm::LockGrant: w->granted[from] = 1; return;
    case RmaAm::Unlock:
      if (w->exclusive_holder == h.origin) w->exclusive_holder = -1;
      else if (w->shared_holders > 0) --w->shared_holders;
      return grant_waiting(*w);
    case RmaAm::Post: ++w->posts_from[from]; return;
    case RmaAm::Complete: ++w->completes_from[from]; return;
    case RmaAm::RegionQuery: return on_region_query(*w, h);
    case RmaAm::RegionReply:
      w->region_answer[from] = {h.offset, h.length, nullptr, {data.begin(), data.end()}};
      ++w->region_replies[from];
      return;
  }
  TORUS_WARN("RMA message of unknown kind %d dropped", int(h.kind));
}

struct Queued {
  RmaAmHdr h;
  std::vector<std::byte> payload;
};

struct Inbox {
  std::mutex mutex;  // never held while calling into the worker
  std::deque<Queued> queue;
  std::atomic<size_t> size{0};
};

Inbox& inbox() {
  static Inbox b;
  return b;
}

void push(const RmaAmHdr& h, std::span<const std::byte> payload) {
  Inbox& b = inbox();
  std::lock_guard lock(b.mutex);
  b.queue.push_back({h, {payload.begin(), payload.end()}});
  b.size.fetch_add(1, std::memory_order_release);
}

void on_am(void*, std::span<const std::byte> header, std::span<const std::byte> payload,
           Endpoint*) {
  RmaAmHdr h;
  if (header.size() != sizeof(h)) {
    TORUS_WARN("RMA message with a %zu-byte header dropped", header.size());
    return;
  }
  std::memcpy(&h, header.data(), sizeof(h));
  RmaMutex& m = rma_mutex();
  if (!m.try_lock()) {
    push(h, payload);  // the holder handles it before it lets go
    return;
  }
  if (rma_inbox_empty()) handle(h, payload);  // nothing queued before it: no copy
  else push(h, payload);
  m.unlock();
}

void free_copy(Request*, Status, void* user) { delete static_cast<std::vector<std::byte>*>(user); }

}  // namespace

void rma_inbox_drain() {
  Inbox& b = inbox();
  while (b.size.load(std::memory_order_acquire) != 0) {
    Queued q;
    {
      std::lock_guard lock(b.mutex);
      q = std::move(b.queue.front());
      b.queue.pop_front();
      b.size.fetch_sub(1, std::memory_order_relaxed);
    }
    handle(q.h, q.payload);
  }
}

bool rma_inbox_empty() { return inbox().size.load(std::memory_order_acquire) == 0; }

void rma_am_install() {
  Runtime* rt = runtime();
  Worker* worker = rt->worker.get();
  if (g_installed_on == worker) return;
  // The first window: nobody holds the lock yet.
  rma_mutex().set_threaded(rt->thread_level == MPI_THREAD_MULTIPLE);
  std::lock_guard lock(rma_mutex());
  worker->set_am_handler(kRmaAmId, &on_am, nullptr);
  g_installed_on = worker;
}

int rma_am_send(const Win& w, int r, const RmaAmHdr& h, std::span<const std::byte> payload,
                bool stable) {
  Endpoint* ep = win_endpoint(w, r);
  if (!ep) return MPI_ERR_PROC_ABORTED;
  // A send that cannot leave at once keeps pointing at its payload: unless the payload
  // outlives the answer to it, give the send a copy that lives until it completes.
  auto* copy = payload.empty() || stable
                   ? nullptr
                   : new std::vector<std::byte>(payload.begin(), payload.end());
  SendParams p;
  p.callback = &free_copy;
  p.user = copy;
  Request* req = nullptr;
  Status s = ep->am_send(kRmaAmId, {reinterpret_cast<const std::byte*>(&h), sizeof(h)},
                         copy ? std::span<const std::byte>(*copy) : payload,
                         &req, p);
  if (s == Status::InProgress) {
    req->release();
    return MPI_SUCCESS;
  }
  delete copy;
  return is_error(s) ? rma_error(s) : MPI_SUCCESS;
}

int rma_send_chunk(Win& w, RmaOp& op, const RmaAmHdr& h, std::span<const std::byte> payload) {
  // Counted as awaited before it leaves: a target in this process may answer within the send.
  ++op.awaiting;
  int e = rma_am_send(w, op.target, h, payload, true);
  if (e != MPI_SUCCESS) --op.awaiting;
  return e;
}

int rma_send_chunks(Win& w, RmaOp& op, uint32_t id, RmaAm kind, MPI_Op mpi_op,
                    MPI_Datatype basic, const std::vector<RmaBlock>& blocks) {
  const size_t elem = type_packed_size(basic);
  const auto* data = static_cast<const std::byte*>(op.origin.data());
  RmaAmHdr h{};
  h.kind = kind;
  h.win_id = w.id;
  h.origin = w.rank;
  h.op_id = id;
  h.mpi_op = mpi_op;
  h.type = basic;
  size_t pos = 0;
  op.sending = true;
  struct Done {
    RmaOp& op;
    ~Done() { op.sending = false; }
  } done{op};
  for (const RmaBlock& b : blocks) {
    for (uint64_t k = 0; k < b.length;) {
      const uint64_t n = std::min<uint64_t>(rma_chunk_bytes(elem), b.length - k);
      h.offset = b.offset + k;
      h.length = n;
      h.aux2 = pos;
      std::span<const std::byte> payload;
      if (mpi_op != MPI_NO_OP) payload = {data + pos, size_t(n)};
      int e = rma_send_chunk(w, op, h, payload);
      if (e == MPI_ERR_UNSUPPORTED_OPERATION && rma_chunk_shrink()) continue;
      if (e != MPI_SUCCESS) return e;
      k += n;
      pos += size_t(n);
    }
  }
  return MPI_SUCCESS;
}

size_t rma_chunk_bytes(size_t element_bytes) noexcept {
  const size_t c = g_chunk.load(std::memory_order_relaxed);
  return element_bytes == 0 ? c : std::max(element_bytes, c / element_bytes * element_bytes);
}

bool rma_chunk_shrink() noexcept {
  size_t c = g_chunk.load(std::memory_order_relaxed);
  if (c <= kChunkFloor) return false;
  g_chunk.store(c / 2, std::memory_order_relaxed);
  return true;
}

}  // namespace torus::mpi
