// Communicator attributes: the keyval table (MPI_Comm_create_keyval / free_keyval), user
// attributes (set / get / delete) with their copy callbacks on Comm_dup and delete callbacks
// on Comm_free, and the predefined attributes (MPI_TAG_UB, ...), the same on every
// communicator as in MPICH.
//
// Keyval handles are MPICH's direct comm-keyval handles, 0xa4400000 | slot. A keyval lives
// until the user freed it and no attribute uses it any more (the standard's reference
// count). Callbacks run without the table's lock held, so they may call attribute functions.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/error_codes.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi {
namespace {

constexpr uint32_t kKeyvalBase = 0xa4400000u;
constexpr uint32_t kKeyvalMask = 0xffc00000u;
constexpr size_t kMaxKeyvals = 0x400000;  // the slot bits of the handle

struct Keyval {
  MPI_Comm_copy_attr_function* copy = nullptr;
  MPI_Comm_delete_attr_function* del = nullptr;
  void* extra_state = nullptr;
  int refs = 1;  // the user's handle plus one per attribute
};

struct KeyvalTable {
  std::mutex mutex;  // guards the slots and every communicator's `attrs`
  std::vector<std::optional<Keyval>> slots;
};
KeyvalTable g_keyvals;

// Called with the lock held: the keyval behind a handle, or nullptr.
Keyval* find(int keyval) {
  const uint32_t h = static_cast<uint32_t>(keyval);
  if ((h & kKeyvalMask) != kKeyvalBase) return nullptr;
  const size_t slot = h & ~kKeyvalMask;
  if (slot >= g_keyvals.slots.size() || !g_keyvals.slots[slot]) return nullptr;
  return &*g_keyvals.slots[slot];
}

// Called with the lock held.
void unref(int keyval) {
  Keyval* k = find(keyval);
  if (k && --k->refs == 0) g_keyvals.slots[static_cast<uint32_t>(keyval) & ~kKeyvalMask].reset();
}

// MPICH's builtin comm keyvals (MPI_TAG_UB = 0x64400001, ...): the ones we do not hold
// (MPI_LASTUSEDCODE) read as unset rather than as an error, so MPICH programs asking for
// them carry on.
bool is_predefined(int keyval) {
  return (static_cast<uint32_t>(keyval) & kKeyvalMask) == 0x64400000u;
}

// Runs `keyval`'s delete callback (if any) on `value` of `c`; the lock is not held.
int run_delete(Comm& c, int keyval, void* value) {
  MPI_Comm_delete_attr_function* del = nullptr;
  void* extra = nullptr;
  {
    std::lock_guard lock(g_keyvals.mutex);
    if (Keyval* k = find(keyval)) {
      del = k->del;
      extra = k->extra_state;
    }
  }
  return del ? del(c.handle, keyval, value, extra) : MPI_SUCCESS;
}

}  // namespace

int comm_copy_attrs(Comm& from, Comm& to) {
  struct Item {
    int keyval;
    void* value;
    MPI_Comm_copy_attr_function* copy;
    void* extra;
  };
  std::vector<Item> items;
  {
    std::lock_guard lock(g_keyvals.mutex);
    for (auto& [keyval, value] : from.attrs) {
      Keyval* k = find(keyval);
      if (k && k->copy) items.push_back({keyval, value, k->copy, k->extra_state});
    }
  }
  for (const Item& it : items) {
    void* out = nullptr;
    int flag = 0;
    int e = it.copy(from.handle, it.keyval, it.extra, it.value, &out, &flag);
    if (e != MPI_SUCCESS) return e;
    if (!flag) continue;
    std::lock_guard lock(g_keyvals.mutex);
    if (Keyval* k = find(it.keyval)) {
      ++k->refs;
      to.attrs.emplace_back(it.keyval, out);
    }
  }
  return MPI_SUCCESS;
}

int comm_delete_attrs(Comm& c) {
  // Last set first: MPI_Finalize must delete MPI_COMM_SELF's in that order, and one order
  // for every communicator is simplest.
  while (true) {
    std::pair<int, void*> attr;
    {
      std::lock_guard lock(g_keyvals.mutex);
      if (c.attrs.empty()) return MPI_SUCCESS;
      attr = c.attrs.back();
    }
    if (int e = run_delete(c, attr.first, attr.second)) return e;
    std::lock_guard lock(g_keyvals.mutex);
    auto it = std::find(c.attrs.begin(), c.attrs.end(), attr);
    if (it != c.attrs.end()) {
      c.attrs.erase(it);
      unref(attr.first);
    }
  }
}

}  // namespace torus::mpi

using namespace torus::mpi;

extern "C" {

// MPI_COMM_DUP_FN (MPICH's name for it, so that MPICH-built programs find it): the copy is
// the same value.
int MPIR_Dup_fn(MPI_Comm /*oldcomm*/, int /*keyval*/, void* /*extra_state*/,
                void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                            void* extra_state) {
  if (!comm_keyval) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Comm_create_keyval");
  std::lock_guard lock(g_keyvals.mutex);
  auto& slots = g_keyvals.slots;
  auto it = std::find_if(slots.begin(), slots.end(), [](auto& s) { return !s.has_value(); });
  if (it == slots.end()) {
    if (slots.size() == kMaxKeyvals)
      return raise_error(nullptr, MPI_ERR_INTERN, "MPI_Comm_create_keyval");
    it = slots.emplace(slots.end());
  }
  *it = Keyval{comm_copy_attr_fn, comm_delete_attr_fn, extra_state, 1};
  *comm_keyval = static_cast<int>(kKeyvalBase | static_cast<uint32_t>(it - slots.begin()));
  return MPI_SUCCESS;
}

// The keyval stays alive for the attributes that still use it; the handle is invalidated.
int PMPI_Comm_free_keyval(int* comm_keyval) {
  if (!comm_keyval) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Comm_free_keyval");
  std::lock_guard lock(g_keyvals.mutex);
  if (!find(*comm_keyval)) return raise_error(nullptr, MPI_ERR_KEYVAL, "MPI_Comm_free_keyval");
  unref(*comm_keyval);
  *comm_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_set_attr");
  void* old = nullptr;
  {
    std::lock_guard lock(g_keyvals.mutex);
    if (!find(comm_keyval)) return raise_error(c, MPI_ERR_KEYVAL, "MPI_Comm_set_attr");
    auto it = std::find_if(c->attrs.begin(), c->attrs.end(),
                           [&](auto& a) { return a.first == comm_keyval; });
    if (it == c->attrs.end()) {
      ++find(comm_keyval)->refs;
      c->attrs.emplace_back(comm_keyval, attribute_val);
      return MPI_SUCCESS;
    }
    old = it->second;
  }
  // Replacing a value deletes the old one first; a failing callback keeps it.
  if (int e = run_delete(*c, comm_keyval, old)) return raise_error(c, e, "MPI_Comm_set_attr");
  std::lock_guard lock(g_keyvals.mutex);
  auto it = std::find_if(c->attrs.begin(), c->attrs.end(),
                         [&](auto& a) { return a.first == comm_keyval; });
  if (it != c->attrs.end()) {
    it->second = attribute_val;
  } else if (Keyval* k = find(comm_keyval)) {  // deleted by the callback itself
    ++k->refs;
    c->attrs.emplace_back(comm_keyval, attribute_val);
  }
  return MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_get_attr");
  if (!attribute_val || !flag) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_get_attr");
  if (is_predefined(comm_keyval)) {
    auto& a = runtime()->attrs;
    int* value = nullptr;
    switch (comm_keyval) {
      case MPI_TAG_UB: value = &a.tag_ub; break;
      case MPI_HOST: value = &a.host; break;
      case MPI_IO: value = &a.io; break;
      case MPI_WTIME_IS_GLOBAL: value = &a.wtime_is_global; break;
      case MPI_APPNUM: value = &a.appnum; break;
      case MPI_UNIVERSE_SIZE: value = &a.universe_size; break;
      case MPI_LASTUSEDCODE: value = last_used_code(); break;
      default: break;
    }
    // For predefined keys the standard hands out a pointer to the value.
    if (value) *static_cast<int**>(attribute_val) = value;
    *flag = value != nullptr;
    return MPI_SUCCESS;
  }
  std::lock_guard lock(g_keyvals.mutex);
  if (!find(comm_keyval)) return raise_error(c, MPI_ERR_KEYVAL, "MPI_Comm_get_attr");
  auto it = std::find_if(c->attrs.begin(), c->attrs.end(),
                         [&](auto& a) { return a.first == comm_keyval; });
  *flag = it != c->attrs.end();
  if (*flag) *static_cast<void**>(attribute_val) = it->second;
  return MPI_SUCCESS;
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_delete_attr");
  void* value = nullptr;
  {
    std::lock_guard lock(g_keyvals.mutex);
    if (!find(comm_keyval)) return raise_error(c, MPI_ERR_KEYVAL, "MPI_Comm_delete_attr");
    auto it = std::find_if(c->attrs.begin(), c->attrs.end(),
                           [&](auto& a) { return a.first == comm_keyval; });
    // Deleting an attribute that is not set is not an error in MPICH; the standard is silent.
    if (it == c->attrs.end()) return MPI_SUCCESS;
    value = it->second;
  }
  if (int e = run_delete(*c, comm_keyval, value)) return raise_error(c, e, "MPI_Comm_delete_attr");
  std::lock_guard lock(g_keyvals.mutex);
  auto it = std::find_if(c->attrs.begin(), c->attrs.end(),
                         [&](auto& a) { return a.first == comm_keyval; });
  if (it != c->attrs.end()) {
    c->attrs.erase(it);
    unref(comm_keyval);
  }
  return MPI_SUCCESS;
}

// The MPI-1 names (removed from the standard in MPI 3.0, still exported by MPICH): the
// same calls, whose callback types have the same signatures.
int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                       void* extra_state) {
  return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}
int PMPI_Keyval_free(int* keyval) { return PMPI_Comm_free_keyval(keyval); }
int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}
int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return PMPI_Comm_delete_attr(comm, keyval); }

TORUS_MPI_ALIAS(MPI_Comm_create_keyval)
TORUS_MPI_ALIAS(MPI_Comm_free_keyval)
TORUS_MPI_ALIAS(MPI_Comm_set_attr)
TORUS_MPI_ALIAS(MPI_Comm_get_attr)
TORUS_MPI_ALIAS(MPI_Comm_delete_attr)

TORUS_MPI_ALIAS(MPI_Keyval_create)
TORUS_MPI_ALIAS(MPI_Keyval_free)
TORUS_MPI_ALIAS(MPI_Attr_put)
TORUS_MPI_ALIAS(MPI_Attr_get)
TORUS_MPI_ALIAS(MPI_Attr_delete)

}  // extern "C"
