// MPI_Info objects: ordered (key, value) string pairs, in a handle table of their own, and
// the communicator hint calls on them. torus reads no hints, so Comm_set_info keeps nothing
// and Comm_get_info returns an empty object; programs that pass hints along still work.
// MPI_INFO_ENV is a predefined, read-only object holding what the standard suggests a
// launcher can tell: "command" (argv[0] when known) and "maxprocs".
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

using namespace torus::mpi;

namespace {

using Info = std::vector<std::pair<std::string, std::string>>;

// MPICH's handle layout for info objects: kind "direct" (0x8) with object type 0x7.
constexpr uint32_t kInfoBase = 0x9c000000u;
constexpr uint32_t kInfoMask = 0xffff0000u;

struct InfoTable {
  std::mutex mutex;
  std::vector<std::unique_ptr<Info>> slots;
  Info env;  // MPI_INFO_ENV, filled on first use
  bool env_filled = false;
};

InfoTable& table() {
  static InfoTable t;
  return t;
}

// The object behind a handle (the caller holds the table's mutex), or nullptr.
Info* lookup(InfoTable& t, MPI_Info info, bool for_write) {
  if (info == MPI_INFO_ENV) {
    if (for_write) return nullptr;
    if (!t.env_filled) {
      t.env_filled = true;
      if (Runtime* rt = runtime()) t.env.emplace_back("maxprocs", std::to_string(rt->world_size));
      std::string cmd;
      if (FILE* f = std::fopen("/proc/self/cmdline", "r")) {
        for (int ch; (ch = std::fgetc(f)) != EOF && ch != '\0';) cmd += static_cast<char>(ch);
        std::fclose(f);
      }
      if (!cmd.empty()) t.env.emplace_back("command", cmd);
    }
    return &t.env;
  }
  const auto h = static_cast<uint32_t>(info);
  if ((h & kInfoMask) != kInfoBase) return nullptr;
  const uint32_t slot = h & ~kInfoMask;
  return slot < t.slots.size() ? t.slots[slot].get() : nullptr;
}

int install(InfoTable& t, std::unique_ptr<Info> obj, MPI_Info* out) {
  for (size_t i = 0; i < t.slots.size(); ++i)
    if (!t.slots[i]) {
      t.slots[i] = std::move(obj);
      *out = static_cast<MPI_Info>(kInfoBase | i);
      return MPI_SUCCESS;
    }
  if (t.slots.size() > ~kInfoMask) return MPI_ERR_NO_MEM;
  t.slots.push_back(std::move(obj));
  *out = static_cast<MPI_Info>(kInfoBase | (t.slots.size() - 1));
  return MPI_SUCCESS;
}

// A key as the standard limits it: 1..MPI_MAX_INFO_KEY-1 characters.
bool key_ok(const char* key) {
  if (!key) return false;
  const size_t n = std::strlen(key);
  return n > 0 && n < MPI_MAX_INFO_KEY;
}

const std::string* find(const Info& i, const char* key) {
  for (const auto& [k, v] : i)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace

extern "C" {

int PMPI_Info_create(MPI_Info* info) {
  if (!info) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Info_create");
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  return check(nullptr, install(t, std::make_unique<Info>(), info), "MPI_Info_create");
}

int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  const Info* i = lookup(t, info, false);
  if (!i) return raise_error(nullptr, MPI_ERR_INFO, "MPI_Info_dup");
  if (!newinfo) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Info_dup");
  return check(nullptr, install(t, std::make_unique<Info>(*i), newinfo), "MPI_Info_dup");
}

int PMPI_Info_free(MPI_Info* info) {
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  if (!info || !lookup(t, *info, true)) return raise_error(nullptr, MPI_ERR_INFO, "MPI_Info_free");
  t.slots[static_cast<uint32_t>(*info) & ~kInfoMask].reset();
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  Info* i = lookup(t, info, true);
  if (!i) return raise_error(nullptr, MPI_ERR_INFO, "MPI_Info_set");
  if (!key_ok(key)) return raise_error(nullptr, MPI_ERR_INFO_KEY, "MPI_Info_set");
  if (!value || std::strlen(value) >= MPI_MAX_INFO_VAL)
    return raise_error(nullptr, MPI_ERR_INFO_VALUE, "MPI_Info_set");
  for (auto& [k, v] : *i)
    if (k == key) {
      v = value;
      return MPI_SUCCESS;
    }
  i->emplace_back(key, value);
  return MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char* key) {
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  Info* i = lookup(t, info, true);
  if (!i) return raise_error(nullptr, MPI_ERR_INFO, "MPI_Info_delete");
  if (!key_ok(key)) return raise_error(nullptr, MPI_ERR_INFO_KEY, "MPI_Info_delete");
  for (auto it = i->begin(); it != i->end(); ++it)
    if (it->first == key) {
      i->erase(it);
      return MPI_SUCCESS;
    }
  return raise_error(nullptr, MPI_ERR_INFO_NOKEY, "MPI_Info_delete");
}

// At most valuelen characters of the value, then a NUL (the buffer holds valuelen + 1).
int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  const Info* i = lookup(t, info, false);
  if (!i) return raise_error(nullptr, MPI_ERR_INFO, "MPI_Info_get");
  if (!key_ok(key)) return raise_error(nullptr, MPI_ERR_INFO_KEY, "MPI_Info_get");
  if (!flag || valuelen < 0 || !value) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Info_get");
  const std::string* v = find(*i, key);
  *flag = v != nullptr;
  if (v) {
    const size_t n = std::min(v->size(), static_cast<size_t>(valuelen));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  }
  return MPI_SUCCESS;
}

int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  const Info* i = lookup(t, info, false);
  if (!i) return raise_error(nullptr, MPI_ERR_INFO, "MPI_Info_get_valuelen");
  if (!key_ok(key)) return raise_error(nullptr, MPI_ERR_INFO_KEY, "MPI_Info_get_valuelen");
  if (!flag || !valuelen) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Info_get_valuelen");
  const std::string* v = find(*i, key);
  *flag = v != nullptr;
  if (v) *valuelen = static_cast<int>(v->size());
  return MPI_SUCCESS;
}

// MPI 4.0: *buflen in is the buffer's size; out, the value's size with its NUL.
int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value,
                         int* flag) {
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  const Info* i = lookup(t, info, false);
  if (!i) return raise_error(nullptr, MPI_ERR_INFO, "MPI_Info_get_string");
  if (!key_ok(key)) return raise_error(nullptr, MPI_ERR_INFO_KEY, "MPI_Info_get_string");
  if (!flag || !buflen || *buflen < 0 || (*buflen > 0 && !value))
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Info_get_string");
  const std::string* v = find(*i, key);
  *flag = v != nullptr;
  if (!v) return MPI_SUCCESS;
  if (*buflen > 0) {
    const size_t n = std::min(v->size(), static_cast<size_t>(*buflen - 1));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  }
  *buflen = static_cast<int>(v->size() + 1);
  return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  const Info* i = lookup(t, info, false);
  if (!i) return raise_error(nullptr, MPI_ERR_INFO, "MPI_Info_get_nkeys");
  if (!nkeys) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Info_get_nkeys");
  *nkeys = static_cast<int>(i->size());
  return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  const Info* i = lookup(t, info, false);
  if (!i) return raise_error(nullptr, MPI_ERR_INFO, "MPI_Info_get_nthkey");
  if (!key || n < 0 || static_cast<size_t>(n) >= i->size())
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Info_get_nthkey");
  const std::string& k = (*i)[static_cast<size_t>(n)].first;
  std::memcpy(key, k.c_str(), k.size() + 1);
  return MPI_SUCCESS;
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_set_info");
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  if (!lookup(t, info, false)) return raise_error(c, MPI_ERR_INFO, "MPI_Comm_set_info");
  return MPI_SUCCESS;
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_get_info");
  if (!info_used) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_get_info");
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  return check(c, install(t, std::make_unique<Info>(), info_used), "MPI_Comm_get_info");
}

// MPI 4.0: a new object with what MPI_INFO_ENV holds (argc/argv add nothing: the command
// line is read from the process itself). May be called before MPI_Init.
int PMPI_Info_create_env(int /*argc*/, char* /*argv*/[], MPI_Info* info) {
  return PMPI_Info_dup(MPI_INFO_ENV, info);
}

TORUS_MPI_ALIAS(MPI_Info_create)
TORUS_MPI_ALIAS(MPI_Info_dup)
TORUS_MPI_ALIAS(MPI_Info_free)
TORUS_MPI_ALIAS(MPI_Info_set)
TORUS_MPI_ALIAS(MPI_Info_delete)
TORUS_MPI_ALIAS(MPI_Info_get)
TORUS_MPI_ALIAS(MPI_Info_get_valuelen)
TORUS_MPI_ALIAS(MPI_Info_get_string)
TORUS_MPI_ALIAS(MPI_Info_get_nkeys)
TORUS_MPI_ALIAS(MPI_Info_get_nthkey)
TORUS_MPI_ALIAS(MPI_Comm_set_info)
TORUS_MPI_ALIAS(MPI_Comm_get_info)

TORUS_MPI_ALIAS(MPI_Info_create_env)

}  // extern "C"
