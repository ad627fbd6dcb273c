// MPI_T control variables: the TORUS_* configuration registry, one variable per entry of
// core/base/config_vars.cpp, in its order. torus reads its configuration once, when MPI
// starts, so every variable is MPI_T_SCOPE_CONSTANT and writes fail with
// MPI_T_ERR_CVAR_SET_NEVER. Enum variables come with an MPI_T_enum of their choices.
#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/tool/tool.h"

struct torus_T_enum_s {
  std::string name;
  std::vector<std::string> items;
};

struct torus_T_cvar_handle_s {
  int index;
  int count;
};

namespace torus::mpi::tool {
namespace {

using config::Type;
using config::VarDecl;

// How a variable's value reaches the tool. A variable that may be "auto" is read as its
// text: the number torus computes for it is not known until a transport or protocol needs it.
enum class Kind { Int, Size, Seconds, Enum, Text };

Kind kind_of(const VarDecl& d) {
  switch (d.type) {
    case Type::Bool: return Kind::Int;
    case Type::Int: return d.allow_auto ? Kind::Text : Kind::Int;
    case Type::Size: return d.allow_auto ? Kind::Text : Kind::Size;
    case Type::Duration: return d.allow_auto ? Kind::Text : Kind::Seconds;
    case Type::Enum: return Kind::Enum;
    case Type::String: return Kind::Text;
  }
  return Kind::Text;
}

MPI_Datatype datatype_of(Kind k) {
  switch (k) {
    case Kind::Int: case Kind::Enum: return MPI_INT;
    case Kind::Size: return MPI_UNSIGNED_LONG_LONG;
    case Kind::Seconds: return MPI_DOUBLE;
    case Kind::Text: return MPI_CHAR;
  }
  return MPI_CHAR;
}

// The job key is a secret: a tool learns whether it is set, not its value.
constexpr std::string_view kSecretVar = "TORUS_JOB_KEY";

// One MPI_T_enum per Enum variable, built once; their addresses are the handles.
struct Enums {
  std::vector<torus_T_enum_s> all;
  std::vector<int> of_var;  // index into all, -1 for a variable that is not an Enum
};

const Enums& enums() {
  static const Enums e = [] {
    Enums out;
    for (const VarDecl& d : config::all_vars()) {
      if (d.type != Type::Enum) {
        out.of_var.push_back(-1);
        continue;
      }
      torus_T_enum_s en{std::string(d.name), {}};
      std::string_view rest = d.choices;
      size_t bar;
      while ((bar = rest.find('|')) != std::string_view::npos) {
        en.items.emplace_back(rest.substr(0, bar));
        rest.remove_prefix(bar + 1);
      }
      en.items.emplace_back(rest);
      out.of_var.push_back(static_cast<int>(out.all.size()));
      out.all.push_back(std::move(en));
    }
    return out;
  }();
  return e;
}

const torus_T_enum_s* find_enum(MPI_T_enum e) {
  for (const torus_T_enum_s& en : enums().all)
    if (&en == e) return &en;
  return nullptr;
}

std::vector<std::unique_ptr<torus_T_cvar_handle_s>>& handles() {
  static std::vector<std::unique_ptr<torus_T_cvar_handle_s>> h;
  return h;
}

bool valid_handle(MPI_T_cvar_handle h) {
  for (const auto& p : handles())
    if (p.get() == h) return true;
  return false;
}

int var_count() { return static_cast<int>(config::all_vars().size()); }

std::string text_of(const VarDecl& d) {
  const std::string shown = current_config().show(d.name);
  if (d.name == kSecretVar && !shown.empty()) return "(set)";
  return shown;
}

std::string description_of(const VarDecl& d, Kind k) {
  std::string desc(d.doc);
  if (d.name == kSecretVar) desc += " (reads as \"(set)\" when set, never the key itself)";
  if (k == Kind::Size) desc += " (bytes; inf reads as the largest value)";
  if (k == Kind::Seconds) desc += " (seconds; inf reads as infinity)";
  if (k == Kind::Text && d.allow_auto) desc += " (as given: auto, or a value in " +
                                               std::string(d.unit) + ")";
  return desc;
}

int count_of(const VarDecl& d, Kind k) {
  return k == Kind::Text ? static_cast<int>(text_of(d).size()) + 1 : 1;
}

void read_value(const VarDecl& d, Kind k, int count, void* buf) {
  const config::Config& cfg = current_config();
  switch (k) {
    case Kind::Int: {
      int64_t v = d.type == Type::Bool ? cfg.get_bool(d.name) : cfg.get_int(d.name);
      const int out = static_cast<int>(std::clamp<int64_t>(v, INT_MIN, INT_MAX));
      std::memcpy(buf, &out, sizeof out);
      return;
    }
    case Kind::Size: {
      const unsigned long long out = cfg.get_size(d.name);
      std::memcpy(buf, &out, sizeof out);
      return;
    }
    case Kind::Seconds: {
      const double out = cfg.get_duration(d.name);
      std::memcpy(buf, &out, sizeof out);
      return;
    }
    case Kind::Enum: {
      const auto& items = enums().all[enums().of_var[&d - config::all_vars().data()]].items;
      const std::string& value = cfg.get_string(d.name);
      int out = 0;
      while (out < static_cast<int>(items.size()) && items[out] != value) ++out;
      std::memcpy(buf, &out, sizeof out);
      return;
    }
    case Kind::Text: {
      int len = count;
      copy_string(text_of(d), static_cast<char*>(buf), &len);
      return;
    }
  }
}

}  // namespace

void free_cvar_handles() { handles().clear(); }

}  // namespace torus::mpi::tool

using namespace torus::mpi;
using namespace torus::mpi::tool;
namespace config = torus::config;

extern "C" {

int PMPI_T_cvar_get_num(int* num_cvar) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!num_cvar) return MPI_T_ERR_INVALID;
  *num_cvar = var_count();
  return MPI_SUCCESS;
}

int PMPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity,
                         MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc,
                         int* desc_len, int* bind, int* scope) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (cvar_index < 0 || cvar_index >= var_count()) return MPI_T_ERR_INVALID_INDEX;
  const VarDecl& d = config::all_vars()[cvar_index];
  const Kind k = kind_of(d);
  copy_string(d.name, name, name_len);
  if (verbosity) *verbosity = cvar_verbosity(d.name);
  if (datatype) *datatype = datatype_of(k);
  if (enumtype) {
    const int e = enums().of_var[cvar_index];
    *enumtype = e < 0 ? MPI_T_ENUM_NULL : const_cast<torus_T_enum_s*>(&enums().all[e]);
  }
  copy_string(description_of(d, k), desc, desc_len);
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (scope) *scope = MPI_T_SCOPE_CONSTANT;
  return MPI_SUCCESS;
}

int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!name || !cvar_index) return MPI_T_ERR_INVALID;
  const VarDecl* d = config::find_var(name);
  if (!d) return MPI_T_ERR_INVALID_NAME;
  *cvar_index = static_cast<int>(d - config::all_vars().data());
  return MPI_SUCCESS;
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void* /*obj_handle*/, MPI_T_cvar_handle* handle,
                             int* count) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (cvar_index < 0 || cvar_index >= var_count()) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_T_ERR_INVALID;
  const VarDecl& d = config::all_vars()[cvar_index];
  auto h = std::make_unique<torus_T_cvar_handle_s>(
      torus_T_cvar_handle_s{cvar_index, count_of(d, kind_of(d))});
  *count = h->count;
  *handle = h.get();
  handles().push_back(std::move(h));
  return MPI_SUCCESS;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!handle || !valid_handle(*handle)) return MPI_T_ERR_INVALID_HANDLE;
  std::erase_if(handles(), [&](const auto& p) { return p.get() == *handle; });
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!valid_handle(handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_T_ERR_INVALID;
  const VarDecl& d = config::all_vars()[handle->index];
  read_value(d, kind_of(d), handle->count, buf);
  return MPI_SUCCESS;
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* /*buf*/) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!valid_handle(handle)) return MPI_T_ERR_INVALID_HANDLE;
  return MPI_T_ERR_CVAR_SET_NEVER;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  const torus_T_enum_s* e = find_enum(enumtype);
  if (!e) return MPI_T_ERR_INVALID_HANDLE;
  if (num) *num = static_cast<int>(e->items.size());
  copy_string(e->name, name, name_len);
  return MPI_SUCCESS;
}

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int* value, char* name,
                         int* name_len) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  const torus_T_enum_s* e = find_enum(enumtype);
  if (!e) return MPI_T_ERR_INVALID_HANDLE;
  if (indx < 0 || indx >= static_cast<int>(e->items.size())) return MPI_T_ERR_INVALID_INDEX;
  if (value) *value = indx;
  copy_string(e->items[indx], name, name_len);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_T_cvar_get_num)
TORUS_MPI_ALIAS(MPI_T_cvar_get_info)
TORUS_MPI_ALIAS(MPI_T_cvar_get_index)
TORUS_MPI_ALIAS(MPI_T_cvar_handle_alloc)
TORUS_MPI_ALIAS(MPI_T_cvar_handle_free)
TORUS_MPI_ALIAS(MPI_T_cvar_read)
TORUS_MPI_ALIAS(MPI_T_cvar_write)
TORUS_MPI_ALIAS(MPI_T_enum_get_info)
TORUS_MPI_ALIAS(MPI_T_enum_get_item)

}  // extern "C"
