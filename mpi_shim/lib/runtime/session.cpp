// MPI 4.0 sessions: MPI_Session_init/finalize, the process sets (mpi://WORLD, mpi://SELF),
// MPI_Group_from_session_pset, the session's info and its error handler.
//
// A session is a user of the one runtime (runtime_open): the first user starts it, the last
// to leave stops it, so a program may mix sessions with MPI_Init as the standard allows. Its
// error handler is a communicator error handler (MPI_Session and MPI_Comm are both ints, so
// the two function shapes agree), called with the session's handle.
#include <cstdio>
#include <cstring>
#include <mutex>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "mpi_shim/lib/comm/group.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

using namespace torus::mpi;

namespace {

// MPICH's layout of a directly allocated handle of the session kind.
constexpr unsigned kSessionKind = 0xb8000000u;
constexpr unsigned kMaxSessions = 1u << 16;
constexpr const char* kWorld = "mpi://WORLD";
constexpr const char* kSelf = "mpi://SELF";

struct Session {
  bool open = false;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
};

struct Table {
  std::mutex mutex;
  std::vector<Session> sessions;  // slots are not reused: a stale handle stays invalid
};

Table& table() {
  static Table t;
  return t;
}

// The slot of an open session's handle, or -1.
long slot_of(MPI_Session s) {
  const unsigned h = static_cast<unsigned>(s);
  if ((h & 0xfc000000u) != kSessionKind) return -1;
  const size_t idx = h & 0x03ffffffu;
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return idx < t.sessions.size() && t.sessions[idx].open ? long(idx) : -1;
}

MPI_Errhandler handler_of(long idx) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return t.sessions[size_t(idx)].errhandler;
}

// An error of a call on session `s` (idx < 0: not a session, MPI_ERRORS_ARE_FATAL applies as
// for a call without an object).
int raise_session(MPI_Session s, long idx, int code, const char* fn) {
  ErrorScope scope;
  if (idx >= 0) {
    scope.handler = handler_of(idx);
    scope.comm = s;
  }
  return raise_in_scope(scope, code, fn);
}

const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

// The level an info's "thread_level" key asks for (MPI 4.0 names the values as the
// constants), MPI_THREAD_SINGLE when there is none; -1 for a value that names no level.
int requested_level(MPI_Info info) {
  if (info == MPI_INFO_NULL) return MPI_THREAD_SINGLE;
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  if (PMPI_Info_get(info, "thread_level", MPI_MAX_INFO_VAL, value, &flag) != MPI_SUCCESS)
    return -1;
  if (!flag) return MPI_THREAD_SINGLE;
  for (int level : {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                    MPI_THREAD_MULTIPLE})
    if (std::strcmp(value, level_name(level)) == 0) return level;
  return -1;
}

// World ranks of a process set, or false for a name that is none.
bool pset_members(std::string_view name, std::vector<int>* members) {
  const Runtime* rt = runtime();
  if (name == kWorld) {
    members->resize(size_t(rt->world_size));
    std::iota(members->begin(), members->end(), 0);
    return true;
  }
  if (name == kSelf) {
    members->assign(1, rt->world_rank);
    return true;
  }
  return false;
}

// A new info object with one key; MPI_INFO_NULL and an MPI code on failure.
int info_with(const char* key, const std::string& value, MPI_Info* info) {
  *info = MPI_INFO_NULL;
  if (int e = PMPI_Info_create(info)) return e;
  if (int e = PMPI_Info_set(*info, key, value.c_str())) {
    (void)PMPI_Info_free(info);
    return e;
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  constexpr const char* fn = "MPI_Session_init";
  // Until the session exists, its own handler is the one to call for a bad argument.
  ErrorScope scope;
  if (errhandler_settable(errhandler)) scope.handler = errhandler;
  if (!session || !errhandler_settable(errhandler)) return raise_in_scope(scope, MPI_ERR_ARG, fn);
  *session = MPI_SESSION_NULL;
  const int level = requested_level(info);
  if (level < 0) return raise_in_scope(scope, MPI_ERR_INFO_VALUE, fn);
  if (int e = runtime_open(level)) return raise_in_scope(scope, e, fn);
  Table& t = table();
  std::lock_guard lock(t.mutex);
  if (t.sessions.size() >= kMaxSessions) {
    (void)runtime_close();
    return raise_in_scope(scope, MPI_ERR_INTERN, fn);
  }
  *session = static_cast<MPI_Session>(kSessionKind | unsigned(t.sessions.size()));
  t.sessions.push_back(Session{true, errhandler});
  return MPI_SUCCESS;
}

int PMPI_Session_finalize(MPI_Session* session) {
  constexpr const char* fn = "MPI_Session_finalize";
  const long idx = session ? slot_of(*session) : -1;
  if (idx < 0) return raise_session(MPI_SESSION_NULL, -1, MPI_ERR_SESSION, fn);
  {
    Table& t = table();
    std::lock_guard lock(t.mutex);
    t.sessions[size_t(idx)].open = false;
  }
  const MPI_Session s = *session;
  *session = MPI_SESSION_NULL;
  if (int e = runtime_close()) return raise_session(s, -1, e, fn);
  return MPI_SUCCESS;
}

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info /*info*/, int* npset_names) {
  const long idx = slot_of(session);
  if (idx < 0) return raise_session(session, idx, MPI_ERR_SESSION, "MPI_Session_get_num_psets");
  if (!npset_names) return raise_session(session, idx, MPI_ERR_ARG, "MPI_Session_get_num_psets");
  *npset_names = 2;
  return MPI_SUCCESS;
}

// MPI 4.0's rule for this call's string: a *pset_len of 0 asks for the length (with the
// terminating NUL); otherwise at most *pset_len - 1 characters are copied, NUL-terminated.
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info /*info*/, int n, int* pset_len,
                              char* pset_name) {
  constexpr const char* fn = "MPI_Session_get_nth_pset";
  const long idx = slot_of(session);
  if (idx < 0) return raise_session(session, idx, MPI_ERR_SESSION, fn);
  if (!pset_len || *pset_len < 0) return raise_session(session, idx, MPI_ERR_ARG, fn);
  if (n < 0 || n > 1) return raise_session(session, idx, MPI_ERR_ARG, fn);
  const std::string_view name = n == 0 ? kWorld : kSelf;
  const int full = static_cast<int>(name.size()) + 1;
  if (*pset_len == 0) {
    *pset_len = full;
    return MPI_SUCCESS;
  }
  if (!pset_name) return raise_session(session, idx, MPI_ERR_ARG, fn);
  const size_t copy = std::min(name.size(), size_t(*pset_len - 1));
  std::memcpy(pset_name, name.data(), copy);
  pset_name[copy] = '\0';
  *pset_len = full;
  return MPI_SUCCESS;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  constexpr const char* fn = "MPI_Session_get_pset_info";
  const long idx = slot_of(session);
  if (idx < 0) return raise_session(session, idx, MPI_ERR_SESSION, fn);
  std::vector<int> members;
  if (!pset_name || !info || !pset_members(pset_name, &members))
    return raise_session(session, idx, MPI_ERR_ARG, fn);
  if (int e = info_with("mpi_size", std::to_string(members.size()), info))
    return raise_session(session, idx, e, fn);
  return MPI_SUCCESS;
}

int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  constexpr const char* fn = "MPI_Session_get_info";
  const long idx = slot_of(session);
  if (idx < 0) return raise_session(session, idx, MPI_ERR_SESSION, fn);
  if (!info_used) return raise_session(session, idx, MPI_ERR_ARG, fn);
  // The level the runtime has: the first user chose it, later ones share it.
  if (int e = info_with("thread_level", level_name(runtime()->thread_level), info_used))
    return raise_session(session, idx, e, fn);
  return MPI_SUCCESS;
}

int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name,
                                 MPI_Group* newgroup) {
  constexpr const char* fn = "MPI_Group_from_session_pset";
  const long idx = slot_of(session);
  if (idx < 0) return raise_session(session, idx, MPI_ERR_SESSION, fn);
  std::vector<int> members;
  if (!pset_name || !newgroup || !pset_members(pset_name, &members))
    return raise_session(session, idx, MPI_ERR_ARG, fn);
  if (int e = group_install(std::move(members), newgroup))
    return raise_session(session, idx, e, fn);
  return MPI_SUCCESS;
}

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* session_errhandler_fn,
                                   MPI_Errhandler* errhandler) {
  return PMPI_Comm_create_errhandler(
      reinterpret_cast<MPI_Comm_errhandler_function*>(session_errhandler_fn), errhandler);
}

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  const long idx = slot_of(session);
  if (idx < 0) return raise_session(session, idx, MPI_ERR_SESSION, "MPI_Session_set_errhandler");
  if (!errhandler_settable(errhandler))
    return raise_session(session, idx, MPI_ERR_ARG, "MPI_Session_set_errhandler");
  Table& t = table();
  std::lock_guard lock(t.mutex);
  t.sessions[size_t(idx)].errhandler = errhandler;
  return MPI_SUCCESS;
}

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  const long idx = slot_of(session);
  if (idx < 0) return raise_session(session, idx, MPI_ERR_SESSION, "MPI_Session_get_errhandler");
  if (!errhandler) return raise_session(session, idx, MPI_ERR_ARG, "MPI_Session_get_errhandler");
  *errhandler = handler_of(idx);
  errhandler_retain(*errhandler);  // the caller frees the handle it gets
  return MPI_SUCCESS;
}

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  const long idx = slot_of(session);
  if (idx < 0) return raise_session(session, idx, MPI_ERR_SESSION, "MPI_Session_call_errhandler");
  (void)raise_session(session, idx, errorcode, "MPI_Session_call_errhandler");
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Session_init)
TORUS_MPI_ALIAS(MPI_Session_finalize)
TORUS_MPI_ALIAS(MPI_Session_get_num_psets)
TORUS_MPI_ALIAS(MPI_Session_get_nth_pset)
TORUS_MPI_ALIAS(MPI_Session_get_pset_info)
TORUS_MPI_ALIAS(MPI_Session_get_info)
TORUS_MPI_ALIAS(MPI_Group_from_session_pset)
TORUS_MPI_ALIAS(MPI_Session_create_errhandler)
TORUS_MPI_ALIAS(MPI_Session_set_errhandler)
TORUS_MPI_ALIAS(MPI_Session_get_errhandler)
TORUS_MPI_ALIAS(MPI_Session_call_errhandler)

}  // extern "C"
