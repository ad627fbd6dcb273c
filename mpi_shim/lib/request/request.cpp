// The request table and MPI_Wait, Waitall, Waitany, Test, Testall, Testany, Request_free,
// Cancel, Test_cancelled. Slots live in fixed-size chunks that are never moved or freed, so a
// handle is resolved without a lock; allocation takes one.
#include "mpi_shim/lib/request/request.h"

#include <array>
#include <chrono>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "core/base/log.h"
#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/request/slot.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi {
namespace {

constexpr uint32_t kHandleBase = 0xac000000u;
constexpr uint32_t kChunkBits = 10;
constexpr uint32_t kChunkSize = 1u << kChunkBits;
// 4M requests outstanding at most. The index would fit 16M (the handle's low 24 bits), but
// `chunks` lives in .bss, which counts against libmpi.so's 2 MiB load span (runtime/slot_table.h).
constexpr uint32_t kMaxChunks = 1u << (22 - kChunkBits);

struct RequestTable {
  std::array<std::atomic<Slot*>, kMaxChunks> chunks{};  // lock-free lookups
  std::mutex mutex;                                       // guards everything below
  std::vector<std::unique_ptr<Slot[]>> owned;             // the chunks' storage, in order
  std::vector<uint32_t> free_list;
  uint32_t used = 0;  // slots handed out at least once
};
RequestTable g_requests;

// The table's lock, taken only where MPI calls may run concurrently: under
// MPI_THREAD_MULTIPLE, or outside Init..Finalize where no level was granted. Below MULTIPLE
// the application serializes its MPI calls, and two uncontended atomics per allocation and
// per free are a tenth of a small message's cost.
std::unique_lock<std::mutex> table_lock() {
  const Runtime* rt = runtime();
  if (rt != nullptr && rt->thread_level != MPI_THREAD_MULTIPLE)
    return std::unique_lock<std::mutex>(g_requests.mutex, std::defer_lock);
  return std::unique_lock<std::mutex>(g_requests.mutex);
}

// A freed slot holds nothing: slot_alloc() then resets only its plain fields.
void slot_free(MPI_Request h, Slot* s) {
  s->persistent.reset();
  s->op.reset();
  s->active = false;
  auto lock = table_lock();
  g_requests.free_list.push_back(static_cast<uint32_t>(h) & 0xffffffu);
}

// A slot index never handed out before, its chunk allocated if need be; under the lock.
[[gnu::noinline]] uint32_t slot_grow() {
  const uint32_t idx = g_requests.used++;
  TORUS_ASSERT((idx >> kChunkBits) < kMaxChunks);  // 4M requests outstanding
  if ((idx >> kChunkBits) == g_requests.owned.size()) {
    g_requests.owned.push_back(std::make_unique<Slot[]>(kChunkSize));
    g_requests.chunks[idx >> kChunkBits].store(g_requests.owned.back().get(),
                                               std::memory_order_release);
  }
  return idx;
}

// A fresh slot with every field at its default.
Slot* slot_alloc(MPI_Request* handle) {
  uint32_t idx;
  {
    auto lock = table_lock();
    if (!g_requests.free_list.empty()) [[likely]] {
      idx = g_requests.free_list.back();
      g_requests.free_list.pop_back();
    } else {
      idx = slot_grow();
    }
  }
  *handle = static_cast<MPI_Request>(kHandleBase | idx);
  Slot* s = &g_requests.chunks[idx >> kChunkBits].load()[idx & (kChunkSize - 1)];
  // Fresh or freed (slot_free emptied its owning pointers): the plain fields get defaults.
  s->req = nullptr;
  s->is_recv = false;
  s->errors = ErrorScope{};
  s->done_status = MPI_Status{};
  s->done_code = MPI_SUCCESS;
  s->active = false;
  return s;
}

}  // namespace

Slot* slot_of(MPI_Request h) {
  uint32_t v = static_cast<uint32_t>(h);
  if ((v & 0xff000000u) != kHandleBase) return nullptr;
  uint32_t idx = v & 0xffffffu;
  if ((idx >> kChunkBits) >= kMaxChunks) return nullptr;
  Slot* chunk = g_requests.chunks[idx >> kChunkBits].load(std::memory_order_acquire);
  return chunk ? &chunk[idx & (kChunkSize - 1)] : nullptr;
}

void slot_settle(Slot* s) {
  if (s->op) {
    status_empty(&s->done_status);
    s->done_code = s->op->finish(&s->done_status);
    if (!s->op->finish_repeats()) s->op.reset();
  } else if (s->req) {
    MPI_Status* st = &s->done_status;
    Status ts = s->req->status();
    const bool canceled = ts == Status::Canceled;
    const int code = canceled ? MPI_SUCCESS : error_from_status(ts);
    if (canceled) {
      status_empty(st);
      st->count_hi_and_cancelled |= 1;
    } else if (s->is_recv) {
      RecvInfo info = s->req->info();
      status_set(st, tag_source(info.tag), tag_user(info.tag), info.length, code);
    } else {
      status_empty(st);
      st->MPI_ERROR = code;
    }
    s->done_code = code;
    s->req->release();
    s->req = nullptr;
  }
}

int slot_retire(MPI_Request* handle, Slot* s, MPI_Status* st) {
  slot_settle(s);
  const int code = s->done_code;
  if (st != MPI_STATUS_IGNORE) *st = s->done_status;
  if (s->persistent) {
    // Inactive again: the handle stays, and a completion call on it returns the empty status.
    s->active = false;
    status_empty(&s->done_status);
    s->done_code = MPI_SUCCESS;
  } else {
    slot_free(*handle, s);
    *handle = MPI_REQUEST_NULL;
  }
  return code;
}

bool slot_done(Slot* s) {
  if (s->op) return s->op->poll();
  return !s->req || s->req->completed();
}

void slot_wait(Slot* s) {
  if (s->op) {
    PolledWait wait;
    while (!s->op->poll()) wait.step();
  } else if (s->req) {
    (void)wait_for(s->req);  // the outcome is read from the request by slot_settle
  }
}

int request_error(const ErrorScope& errors, int code, const char* fn) {
  return code == MPI_SUCCESS ? code : raise_in_scope(errors, code, fn);
}

MPI_Request request_create(Request* req, bool is_recv, const ErrorScope& errors,
                           const MPI_Status& done_status) {
  MPI_Request handle;
  Slot* s = slot_alloc(&handle);
  s->req = req;
  s->is_recv = is_recv;
  s->errors = errors;
  s->done_status = done_status;
  s->done_code = done_status.MPI_ERROR;
  return handle;
}

MPI_Request request_create_op(std::unique_ptr<PendingOp> op, const ErrorScope& errors) {
  MPI_Request handle;
  Slot* s = slot_alloc(&handle);
  s->op = std::move(op);
  s->errors = errors;
  return handle;
}

MPI_Request request_create_persistent(std::unique_ptr<PersistentOp> op, bool is_recv,
                                      const ErrorScope& errors) {
  MPI_Request handle;
  Slot* s = slot_alloc(&handle);
  s->persistent = std::move(op);
  s->is_recv = is_recv;
  s->errors = errors;
  status_empty(&s->done_status);
  return handle;
}

int request_start(MPI_Request request, ErrorScope* errors) {
  Slot* s = slot_of(request);
  if (!s || !s->persistent || s->active) return MPI_ERR_REQUEST;
  *errors = s->errors;
  Request* req = nullptr;
  std::unique_ptr<PendingOp> op;
  if (int code = s->persistent->start_op(&req, &op)) {
    if (s->persistent->raises_own_errors()) errors->handler = MPI_ERRORS_RETURN;
    return code;
  }
  s->req = req;
  s->op = std::move(op);
  status_empty(&s->done_status);
  s->done_code = MPI_SUCCESS;
  s->active = true;
  return MPI_SUCCESS;
}

}  // namespace torus::mpi

using namespace torus::mpi;

extern "C" {

int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (*request == MPI_REQUEST_NULL) {
    status_empty(status);
    return MPI_SUCCESS;
  }
  Slot* s = slot_of(*request);
  if (!s) return raise_error(nullptr, MPI_ERR_REQUEST, "MPI_Wait");
  slot_wait(s);
  const ErrorScope eh = s->errors;
  return request_error(eh, slot_retire(request, s, status), "MPI_Wait");
}

int PMPI_Waitall(int count, MPI_Request* requests, MPI_Status* statuses) {
  bool failed = false;
  ErrorScope eh;
  int first_code = MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    if (requests[i] == MPI_REQUEST_NULL) {
      status_empty(st);
      continue;
    }
    Slot* s = slot_of(requests[i]);
    if (!s) return raise_error(nullptr, MPI_ERR_REQUEST, "MPI_Waitall");
    slot_wait(s);
    const ErrorScope this_eh = s->errors;
    int code = slot_retire(&requests[i], s, st);
    if (code != MPI_SUCCESS && !failed) {
      failed = true;
      eh = this_eh;
      first_code = code;
    }
  }
  if (!failed) return MPI_SUCCESS;
  // With real statuses the caller finds each request's code in MPI_ERROR.
  return request_error(eh, statuses == MPI_STATUSES_IGNORE ? first_code : MPI_ERR_IN_STATUS,
                       "MPI_Waitall");
}

int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    status_empty(status);
    return MPI_SUCCESS;
  }
  Slot* s = slot_of(*request);
  if (!s) return raise_error(nullptr, MPI_ERR_REQUEST, "MPI_Test");
  if (!slot_done(s)) {
    runtime()->worker->progress();
    if (!slot_done(s)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  const ErrorScope eh = s->errors;
  return request_error(eh, slot_retire(request, s, status), "MPI_Test");
}

int PMPI_Waitany(int count, MPI_Request* requests, int* index, MPI_Status* status) {
  PolledWait wait;
  for (;;) {
    bool any_active = false;
    for (int i = 0; i < count; ++i) {
      if (requests[i] == MPI_REQUEST_NULL) continue;
      Slot* s = slot_of(requests[i]);
      if (!s) return raise_error(nullptr, MPI_ERR_REQUEST, "MPI_Waitany");
      if (!slot_active(s)) continue;
      any_active = true;
      if (slot_done(s)) {
        *index = i;
        const ErrorScope eh = s->errors;
        return request_error(eh, slot_retire(&requests[i], s, status), "MPI_Waitany");
      }
    }
    if (!any_active) {
      *index = MPI_UNDEFINED;
      status_empty(status);
      return MPI_SUCCESS;
    }
    wait.step();
  }
}

int PMPI_Testany(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status) {
  runtime()->worker->progress();
  bool any_active = false;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    Slot* s = slot_of(requests[i]);
    if (!s) return raise_error(nullptr, MPI_ERR_REQUEST, "MPI_Testany");
    if (!slot_active(s)) continue;
    any_active = true;
    if (slot_done(s)) {
      *index = i;
      *flag = 1;
      const ErrorScope eh = s->errors;
      return request_error(eh, slot_retire(&requests[i], s, status), "MPI_Testany");
    }
  }
  // With no active request the call succeeds at once, as the standard says.
  *flag = any_active ? 0 : 1;
  *index = MPI_UNDEFINED;
  if (!any_active) status_empty(status);
  return MPI_SUCCESS;
}

int PMPI_Testall(int count, MPI_Request* requests, int* flag, MPI_Status* statuses) {
  runtime()->worker->progress();
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    Slot* s = slot_of(requests[i]);
    if (!s) return raise_error(nullptr, MPI_ERR_REQUEST, "MPI_Testall");
    if (!slot_done(s)) {
      *flag = 0;  // all or nothing: no request is completed by a false Testall
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  return PMPI_Waitall(count, requests, statuses);  // every one is done: this only retires
}

int PMPI_Request_free(MPI_Request* request) {
  Slot* s = slot_of(*request);
  if (!s) return raise_error(nullptr, MPI_ERR_REQUEST, "MPI_Request_free");
  // The operation still runs to completion; torus returns the request to its pool then
  // (for a persistent request: the instance started last, if it is still active).
  // A multi-step operation cannot finish without being polled: it is waited for here.
  if (s->op) {
    if (s->op->free_when_done()) {
      *request = MPI_REQUEST_NULL;
      return MPI_SUCCESS;
    }
    slot_wait(s);
    s->op.reset();
  }
  if (s->req) s->req->release();
  s->req = nullptr;
  slot_free(*request, s);
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int PMPI_Cancel(MPI_Request* request) {
  Slot* s = slot_of(*request);
  if (!s) return raise_error(nullptr, MPI_ERR_REQUEST, "MPI_Cancel");
  // Only unmatched receives can be canceled. A send cannot: once posted, torus has handed
  // it to the transport (or to the peer's unexpected queue) and has no way to recall it. The
  // standard lets a cancel fail: the send then completes normally and Test_cancelled says
  // false. The same holds for receives that already matched. A multi-step operation decides
  // for itself (a staged receive cancels its transfer, a collective cannot be canceled).
  if (s->op) {
    s->op->cancel();
  } else if (s->req && s->is_recv && !s->req->completed()) {
    (void)runtime()->worker->cancel(s->req);
  }
  return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  *flag = status->count_hi_and_cancelled & 1;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Waitany)
TORUS_MPI_ALIAS(MPI_Testany)
TORUS_MPI_ALIAS(MPI_Testall)
TORUS_MPI_ALIAS(MPI_Request_free)
TORUS_MPI_ALIAS(MPI_Cancel)
TORUS_MPI_ALIAS(MPI_Test_cancelled)
TORUS_MPI_ALIAS(MPI_Wait)
TORUS_MPI_ALIAS(MPI_Waitall)
TORUS_MPI_ALIAS(MPI_Test)

}  // extern "C"
