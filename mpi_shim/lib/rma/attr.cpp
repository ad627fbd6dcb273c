// Window attributes: the predefined ones (MPI_WIN_BASE, SIZE, DISP_UNIT, CREATE_FLAVOR,
// MODEL) and user keyvals (MPI_Win_create_keyval ... Win_delete_attr), whose delete
// callbacks run on replacement, on Win_delete_attr and on Win_free. Windows are never
// duplicated, so copy callbacks are never called. Keyval handles are MPICH's direct
// window-keyval handles, 0xa4800000 | slot (runtime/keyval_table.h). Callbacks run without the
// lock held.
#include <algorithm>
#include <mutex>
#include <vector>

#include "mpi_shim/lib/rma/setup.h"
#include "mpi_shim/lib/rma/win.h"
#include "mpi_shim/lib/runtime/keyval_table.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus;
using namespace torus::mpi;

namespace {

struct Callbacks {
  MPI_Win_delete_attr_function* del;
  void* extra_state;
};

KeyvalTable<Callbacks>& table() {
  static KeyvalTable<Callbacks> t(0xa4800000u);
  return t;
}

auto find_attr(Win& w, int keyval) {
  return std::find_if(w.attrs.begin(), w.attrs.end(), [&](auto& e) { return e.first == keyval; });
}

int run_delete(Win& w, int keyval, void* value) {
  Callbacks cb{};
  {
    std::lock_guard lock(table().mutex());
    if (const Callbacks* k = table().find(keyval)) cb = *k;
  }
  return cb.del ? cb.del(w.handle, keyval, value, cb.extra_state) : MPI_SUCCESS;
}

void drop(Win& w, int keyval) {
  std::lock_guard lock(table().mutex());
  auto it = find_attr(w, keyval);
  if (it == w.attrs.end()) return;
  w.attrs.erase(it);
  table().unref(keyval);
}

// The predefined attributes hand out pointers to values the window holds (MPI_WIN_BASE the
// base itself), as the standard says.
bool predefined(Win& w, int keyval, void* out) {
  static const int kModel = MPI_WIN_UNIFIED;
  void** slot = static_cast<void**>(out);
  switch (keyval) {
    case MPI_WIN_BASE: *slot = w.base; return true;
    case MPI_WIN_SIZE: *slot = &w.bytes; return true;
    case MPI_WIN_DISP_UNIT: *slot = &w.disp_unit; return true;
    case MPI_WIN_CREATE_FLAVOR: *slot = &w.flavor; return true;
    case MPI_WIN_MODEL: *slot = const_cast<int*>(&kModel); return true;
    default: return false;
  }
}

}  // namespace

namespace torus::mpi {

int win_delete_attrs(Win& w) {
  while (true) {
    std::pair<int, void*> attr;
    {
      std::lock_guard lock(table().mutex());
      if (w.attrs.empty()) return MPI_SUCCESS;
      attr = w.attrs.back();
    }
    if (int e = run_delete(w, attr.first, attr.second)) return e;
    drop(w, attr.first);
  }
}

}  // namespace torus::mpi

extern "C" {

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function*, MPI_Win_delete_attr_function* del,
                           int* win_keyval, void* extra_state) {
  const char* fn = "MPI_Win_create_keyval";
  if (!win_keyval) return raise_error(nullptr, MPI_ERR_ARG, fn);
  if (int e = table().create({del, extra_state}, win_keyval)) return raise_error(nullptr, e, fn);
  return MPI_SUCCESS;
}

int PMPI_Win_free_keyval(int* win_keyval) {
  const char* fn = "MPI_Win_free_keyval";
  if (!win_keyval) return raise_error(nullptr, MPI_ERR_ARG, fn);
  if (int e = table().release(*win_keyval)) return raise_error(nullptr, e, fn);
  *win_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  const char* fn = "MPI_Win_set_attr";
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, fn);
  KeyvalTable<Callbacks>& t = table();
  void* old = nullptr;
  {
    std::unique_lock lock(t.mutex());
    if (!t.find(win_keyval)) {
      lock.unlock();
      return raise_win(w, MPI_ERR_KEYVAL, fn);
    }
    auto it = find_attr(*w, win_keyval);
    if (it == w->attrs.end()) {
      t.ref(win_keyval);
      w->attrs.emplace_back(win_keyval, attribute_val);
      return MPI_SUCCESS;
    }
    old = it->second;
  }
  // Replacing a value deletes the old one first; a failing callback keeps it.
  if (int e = run_delete(*w, win_keyval, old)) return raise_win(w, e, fn);
  std::lock_guard lock(t.mutex());
  auto it = find_attr(*w, win_keyval);
  if (it != w->attrs.end()) it->second = attribute_val;
  else if (t.ref(win_keyval)) w->attrs.emplace_back(win_keyval, attribute_val);
  return MPI_SUCCESS;
}

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  const char* fn = "MPI_Win_get_attr";
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, fn);
  if (!attribute_val || !flag) return raise_win(w, MPI_ERR_ARG, fn);
  if (predefined(*w, win_keyval, attribute_val)) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  std::unique_lock lock(table().mutex());
  if (!table().find(win_keyval)) {
    lock.unlock();
    return raise_win(w, MPI_ERR_KEYVAL, fn);
  }
  auto it = find_attr(*w, win_keyval);
  *flag = it != w->attrs.end();
  if (*flag) *static_cast<void**>(attribute_val) = it->second;
  return MPI_SUCCESS;
}

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  const char* fn = "MPI_Win_delete_attr";
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, fn);
  void* value = nullptr;
  {
    std::unique_lock lock(table().mutex());
    auto it = table().find(win_keyval) ? find_attr(*w, win_keyval) : w->attrs.end();
    if (it == w->attrs.end()) {
      lock.unlock();
      return raise_win(w, MPI_ERR_KEYVAL, fn);
    }
    value = it->second;
  }
  if (int e = run_delete(*w, win_keyval, value)) return raise_win(w, e, fn);
  drop(*w, win_keyval);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Win_create_keyval)
TORUS_MPI_ALIAS(MPI_Win_free_keyval)
TORUS_MPI_ALIAS(MPI_Win_set_attr)
TORUS_MPI_ALIAS(MPI_Win_get_attr)
TORUS_MPI_ALIAS(MPI_Win_delete_attr)

}  // extern "C"
