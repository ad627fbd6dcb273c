// Datatype attributes: MPI_Type_create_keyval / free_keyval, Type_set_attr / get_attr /
// delete_attr, the copy callbacks on MPI_Type_dup and the delete callbacks on MPI_Type_free.
// Attributes belong to a handle (as names do, name.cpp). Keyval handles are MPICH's
// direct type-keyval handles, 0xa4c00000 | slot (runtime/keyval_table.h). Callbacks run without
// the lock held, so they may call attribute functions themselves.
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/table.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/keyval_table.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

struct Callbacks {
  MPI_Type_copy_attr_function* copy;
  MPI_Type_delete_attr_function* del;
  void* extra_state;
};

using Attrs = std::vector<std::pair<int, void*>>;  // in the order they were set

// The keyval table's lock guards `attrs` too.
struct Table {
  KeyvalTable<Callbacks> keyvals{0xa4c00000u};
  std::map<MPI_Datatype, Attrs> attrs;
  std::mutex& mutex() { return keyvals.mutex(); }
};

Table& table() {
  static Table t;
  return t;
}

Attrs::iterator find_attr(Attrs& a, int keyval) {
  return std::find_if(a.begin(), a.end(), [&](auto& e) { return e.first == keyval; });
}

// Runs keyval's delete callback on `value` without the lock; MPI_SUCCESS when it has none.
int run_delete(MPI_Datatype type, int keyval, void* value) {
  Table& t = table();
  Callbacks cb{};
  {
    std::lock_guard lock(t.mutex());
    if (const Callbacks* k = t.keyvals.find(keyval)) cb = *k;
  }
  return cb.del ? cb.del(type, keyval, value, cb.extra_state) : MPI_SUCCESS;
}

// Removes one attribute (after its delete callback succeeded).
void drop(MPI_Datatype type, int keyval) {
  Table& t = table();
  std::lock_guard lock(t.mutex());
  auto a = t.attrs.find(type);
  if (a == t.attrs.end()) return;
  auto it = find_attr(a->second, keyval);
  if (it == a->second.end()) return;
  a->second.erase(it);
  if (a->second.empty()) t.attrs.erase(a);
  t.keyvals.unref(keyval);
}

}  // namespace

namespace torus::mpi {

int type_copy_attrs(MPI_Datatype from, MPI_Datatype to) {
  struct Item {
    int keyval;
    void* value;
    MPI_Type_copy_attr_function* copy;
    void* extra;
  };
  std::vector<Item> items;
  Table& t = table();
  {
    std::lock_guard lock(t.mutex());
    auto a = t.attrs.find(from);
    if (a == t.attrs.end()) return MPI_SUCCESS;
    for (auto& [keyval, value] : a->second)
      if (const Callbacks* k = t.keyvals.find(keyval); k && k->copy)
        items.push_back({keyval, value, k->copy, k->extra_state});
  }
  for (const Item& it : items) {
    void* out = nullptr;
    int flag = 0;
    if (int e = it.copy(from, it.keyval, it.extra, it.value, &out, &flag)) return e;
    if (!flag) continue;
    std::lock_guard lock(t.mutex());
    if (t.keyvals.ref(it.keyval)) t.attrs[to].emplace_back(it.keyval, out);
  }
  return MPI_SUCCESS;
}

int type_delete_attrs(MPI_Datatype type) {
  Table& t = table();
  // Last set first, as for communicators.
  while (true) {
    std::pair<int, void*> attr;
    {
      std::lock_guard lock(t.mutex());
      auto a = t.attrs.find(type);
      if (a == t.attrs.end() || a->second.empty()) return MPI_SUCCESS;
      attr = a->second.back();
    }
    if (int e = run_delete(type, attr.first, attr.second)) return e;
    drop(type, attr.first);
  }
}

}  // namespace torus::mpi

extern "C" {

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                            MPI_Type_delete_attr_function* type_delete_attr_fn,
                            int* type_keyval, void* extra_state) {
  const char* fn = "MPI_Type_create_keyval";
  if (!type_keyval) return raise_error(nullptr, MPI_ERR_ARG, fn);
  if (int e = table().keyvals.create({type_copy_attr_fn, type_delete_attr_fn, extra_state},
                                     type_keyval))
    return raise_error(nullptr, e, fn);
  return MPI_SUCCESS;
}

int PMPI_Type_free_keyval(int* type_keyval) {
  const char* fn = "MPI_Type_free_keyval";
  if (!type_keyval) return raise_error(nullptr, MPI_ERR_ARG, fn);
  if (int e = table().keyvals.release(*type_keyval)) return raise_error(nullptr, e, fn);
  *type_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  const char* fn = "MPI_Type_set_attr";
  if (!type_info(datatype)) return raise_error(nullptr, MPI_ERR_TYPE, fn);
  Table& t = table();
  void* old = nullptr;
  {
    std::unique_lock lock(t.mutex());
    if (!t.keyvals.find(type_keyval)) {
      lock.unlock();
      return raise_error(nullptr, MPI_ERR_KEYVAL, fn);
    }
    Attrs& a = t.attrs[datatype];
    auto it = find_attr(a, type_keyval);
    if (it == a.end()) {
      t.keyvals.ref(type_keyval);
      a.emplace_back(type_keyval, attribute_val);
      return MPI_SUCCESS;
    }
    old = it->second;
  }
  // Replacing a value deletes the old one first; a failing callback keeps it.
  if (int e = run_delete(datatype, type_keyval, old)) return raise_error(nullptr, e, fn);
  std::lock_guard lock(t.mutex());
  Attrs& a = t.attrs[datatype];
  auto it = find_attr(a, type_keyval);
  if (it != a.end()) it->second = attribute_val;
  else if (t.keyvals.ref(type_keyval)) a.emplace_back(type_keyval, attribute_val);  // deleted by the callback itself
  return MPI_SUCCESS;
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  const char* fn = "MPI_Type_get_attr";
  if (!type_info(datatype)) return raise_error(nullptr, MPI_ERR_TYPE, fn);
  if (!attribute_val || !flag) return raise_error(nullptr, MPI_ERR_ARG, fn);
  Table& t = table();
  std::unique_lock lock(t.mutex());
  if (!t.keyvals.find(type_keyval)) {
    lock.unlock();
    return raise_error(nullptr, MPI_ERR_KEYVAL, fn);
  }
  *flag = 0;
  auto a = t.attrs.find(datatype);
  if (a == t.attrs.end()) return MPI_SUCCESS;
  auto it = find_attr(a->second, type_keyval);
  if (it == a->second.end()) return MPI_SUCCESS;
  *static_cast<void**>(attribute_val) = it->second;
  *flag = 1;
  return MPI_SUCCESS;
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  const char* fn = "MPI_Type_delete_attr";
  if (!type_info(datatype)) return raise_error(nullptr, MPI_ERR_TYPE, fn);
  Table& t = table();
  void* value = nullptr;
  {
    std::unique_lock lock(t.mutex());
    bool known = t.keyvals.find(type_keyval) != nullptr, present = false;
    if (known) {
      auto a = t.attrs.find(datatype);
      if (a != t.attrs.end()) {
        auto it = find_attr(a->second, type_keyval);
        if ((present = it != a->second.end())) value = it->second;
      }
    }
    if (!known || !present) {
      lock.unlock();
      return raise_error(nullptr, MPI_ERR_KEYVAL, fn);
    }
  }
  if (int e = run_delete(datatype, type_keyval, value)) return raise_error(nullptr, e, fn);
  drop(datatype, type_keyval);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Type_create_keyval)
TORUS_MPI_ALIAS(MPI_Type_free_keyval)
TORUS_MPI_ALIAS(MPI_Type_set_attr)
TORUS_MPI_ALIAS(MPI_Type_get_attr)
TORUS_MPI_ALIAS(MPI_Type_delete_attr)

}  // extern "C"
