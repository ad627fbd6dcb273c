// MPI_T performance variables: counters of this process's MPI-layer traffic
// (counters.h), each a 64-bit MPI_T_PVAR_CLASS_COUNTER bound to no object.
//
// A handle is a view of one counter: value = accum + (started ? counter - base : 0). A
// non-continuous variable counts only while its handle is started and starts at 0; a
// continuous one is always started and reads the process's total until a reset or write
// moves its base. Writes and resets act on the handle, never on the shared counter, so two
// tools' sessions do not disturb each other.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/tool/counters.h"
#include "mpi_shim/lib/tool/tool.h"

struct torus_T_pvar_session_s;

struct torus_T_pvar_handle_s {
  torus_T_pvar_session_s* session = nullptr;
  int index = 0;
  bool started = false;
  uint64_t accum = 0;
  uint64_t base = 0;
};

struct torus_T_pvar_session_s {
  std::vector<std::unique_ptr<torus_T_pvar_handle_s>> handles;
};

namespace {

// Never dereferenced as a handle: only its address means "every handle of the session".
torus_T_pvar_handle_s all_handles_marker;

}  // namespace

extern "C" torus_T_pvar_handle_s* const MPI_T_PVAR_ALL_HANDLES = &all_handles_marker;

namespace torus::mpi::tool {
namespace {

struct PvarDecl {
  std::string_view name;
  std::string_view desc;
  bool continuous;
  std::atomic<uint64_t> ToolCounters::*counter;
};

constexpr PvarDecl kPvars[] = {
    {"torus_mpi_sent_messages",
     "tagged messages this process posted to other ranks or itself: point-to-point sends "
     "(buffered and persistent ones too) and the internal messages of blocking collectives "
     "and communicator creation; nonblocking collectives, partitioned and RMA traffic are "
     "not counted",
     false, &ToolCounters::sent_messages},
    {"torus_mpi_sent_bytes", "payload bytes of the messages torus_mpi_sent_messages counts",
     false, &ToolCounters::sent_bytes},
    {"torus_mpi_recvs_posted",
     "tagged receives this process posted: point-to-point receives and those of blocking "
     "collectives and communicator creation; matched-probe receives (MPI_Mrecv) and "
     "nonblocking collectives are not counted",
     true, &ToolCounters::recvs_posted},
};
constexpr int kNumPvars = static_cast<int>(std::size(kPvars));

uint64_t counter(int index) {
  return (tool_counters.*(kPvars[index].counter)).load(std::memory_order_relaxed);
}

uint64_t value(const torus_T_pvar_handle_s& h) {
  return h.accum + (h.started ? counter(h.index) - h.base : 0);
}

void set_value(torus_T_pvar_handle_s& h, uint64_t v) {
  h.accum = v;
  h.base = counter(h.index);
}

std::vector<std::unique_ptr<torus_T_pvar_session_s>>& sessions() {
  static std::vector<std::unique_ptr<torus_T_pvar_session_s>> s;
  return s;
}

bool valid_session(MPI_T_pvar_session s) {
  return std::any_of(sessions().begin(), sessions().end(),
                     [&](const auto& p) { return p.get() == s; });
}

bool valid_handle(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
  return std::any_of(s->handles.begin(), s->handles.end(),
                     [&](const auto& p) { return p.get() == h; });
}

// The checks every handle operation starts with; MPI_SUCCESS when session and handle (or
// MPI_T_PVAR_ALL_HANDLES, where allowed) are valid.
int check(MPI_T_pvar_session s, MPI_T_pvar_handle h, bool all_allowed) {
  if (!valid_session(s)) return MPI_T_ERR_INVALID_SESSION;
  if (h == MPI_T_PVAR_ALL_HANDLES) return all_allowed ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
  return valid_handle(s, h) ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

void start(torus_T_pvar_handle_s& h) {
  if (h.started) return;
  h.base = counter(h.index);
  h.started = true;
}

void stop(torus_T_pvar_handle_s& h) {
  if (!h.started) return;
  h.accum += counter(h.index) - h.base;
  h.started = false;
}

// Start and stop on one handle or all: continuous variables refuse one by one and are
// skipped in "all" (MPI 4.0 15.3.7).
int start_stop(MPI_T_pvar_session s, MPI_T_pvar_handle h, void (*op)(torus_T_pvar_handle_s&)) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (int rc = check(s, h, true); rc != MPI_SUCCESS) return rc;
  if (h != MPI_T_PVAR_ALL_HANDLES) {
    if (kPvars[h->index].continuous) return MPI_T_ERR_PVAR_NO_STARTSTOP;
    op(*h);
    return MPI_SUCCESS;
  }
  for (auto& p : s->handles)
    if (!kPvars[p->index].continuous) op(*p);
  return MPI_SUCCESS;
}

}  // namespace

int pvar_count() { return kNumPvars; }

void free_pvar_sessions() { sessions().clear(); }

}  // namespace torus::mpi::tool

using namespace torus::mpi;
using namespace torus::mpi::tool;

extern "C" {

int PMPI_T_pvar_get_num(int* num_pvar) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!num_pvar) return MPI_T_ERR_INVALID;
  *num_pvar = kNumPvars;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity,
                         int* var_class, MPI_Datatype* datatype, MPI_T_enum* enumtype,
                         char* desc, int* desc_len, int* bind, int* readonly, int* continuous,
                         int* atomic) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (pvar_index < 0 || pvar_index >= kNumPvars) return MPI_T_ERR_INVALID_INDEX;
  const PvarDecl& p = kPvars[pvar_index];
  copy_string(p.name, name, name_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (var_class) *var_class = MPI_T_PVAR_CLASS_COUNTER;
  if (datatype) *datatype = MPI_UNSIGNED_LONG_LONG;
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  copy_string(p.desc, desc, desc_len);
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (readonly) *readonly = 0;
  if (continuous) *continuous = p.continuous;
  // The counter is read once per call under the interface's mutex.
  if (atomic) *atomic = 1;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!name || !pvar_index) return MPI_T_ERR_INVALID;
  for (int i = 0; i < kNumPvars; ++i) {
    if (kPvars[i].name == name && var_class == MPI_T_PVAR_CLASS_COUNTER) {
      *pvar_index = i;
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!session) return MPI_T_ERR_INVALID;
  sessions().push_back(std::make_unique<torus_T_pvar_session_s>());
  *session = sessions().back().get();
  return MPI_SUCCESS;
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!session || !valid_session(*session)) return MPI_T_ERR_INVALID_SESSION;
  std::erase_if(sessions(), [&](const auto& p) { return p.get() == *session; });
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* /*obj_handle*/,
                             MPI_T_pvar_handle* handle, int* count) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!valid_session(session)) return MPI_T_ERR_INVALID_SESSION;
  if (pvar_index < 0 || pvar_index >= kNumPvars) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_T_ERR_INVALID;
  auto h = std::make_unique<torus_T_pvar_handle_s>();
  h->session = session;
  h->index = pvar_index;
  h->started = kPvars[pvar_index].continuous;  // base 0: the process's total
  *handle = h.get();
  *count = 1;
  session->handles.push_back(std::move(h));
  return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!handle) return MPI_T_ERR_INVALID_HANDLE;
  if (int rc = check(session, *handle, false); rc != MPI_SUCCESS) return rc;
  std::erase_if(session->handles, [&](const auto& p) { return p.get() == *handle; });
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return start_stop(session, handle, start);
}

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return start_stop(session, handle, stop);
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (int rc = check(session, handle, false); rc != MPI_SUCCESS) return rc;
  if (!buf) return MPI_T_ERR_INVALID;
  const unsigned long long v = value(*handle);
  std::memcpy(buf, &v, sizeof v);
  return MPI_SUCCESS;
}

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (int rc = check(session, handle, false); rc != MPI_SUCCESS) return rc;
  if (!buf) return MPI_T_ERR_INVALID;
  unsigned long long v;
  std::memcpy(&v, buf, sizeof v);
  set_value(*handle, v);
  return MPI_SUCCESS;
}

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (int rc = check(session, handle, true); rc != MPI_SUCCESS) return rc;
  if (handle != MPI_T_PVAR_ALL_HANDLES) {
    set_value(*handle, 0);
    return MPI_SUCCESS;
  }
  for (auto& p : session->handles) set_value(*p, 0);
  return MPI_SUCCESS;
}

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (int rc = check(session, handle, false); rc != MPI_SUCCESS) return rc;
  if (!buf) return MPI_T_ERR_INVALID;
  // One load of the counter serves both, so no count falls between the read and the reset.
  const uint64_t now = counter(handle->index);
  const unsigned long long v = handle->accum + (handle->started ? now - handle->base : 0);
  std::memcpy(buf, &v, sizeof v);
  handle->accum = 0;
  handle->base = now;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_T_pvar_get_num)
TORUS_MPI_ALIAS(MPI_T_pvar_get_info)
TORUS_MPI_ALIAS(MPI_T_pvar_get_index)
TORUS_MPI_ALIAS(MPI_T_pvar_session_create)
TORUS_MPI_ALIAS(MPI_T_pvar_session_free)
TORUS_MPI_ALIAS(MPI_T_pvar_handle_alloc)
TORUS_MPI_ALIAS(MPI_T_pvar_handle_free)
TORUS_MPI_ALIAS(MPI_T_pvar_start)
TORUS_MPI_ALIAS(MPI_T_pvar_stop)
TORUS_MPI_ALIAS(MPI_T_pvar_read)
TORUS_MPI_ALIAS(MPI_T_pvar_write)
TORUS_MPI_ALIAS(MPI_T_pvar_reset)
TORUS_MPI_ALIAS(MPI_T_pvar_readreset)

}  // extern "C"
