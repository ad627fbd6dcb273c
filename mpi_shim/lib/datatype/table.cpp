// The derived datatype table: handle <-> TypeRef, under one mutex (creation and free are rare;
// predefined handles never come here). Freed indexes are reused last-freed-last, after a delay,
// so a stale handle is refused for a while instead of naming a new type at once.
#include "mpi_shim/lib/datatype/table.h"

#include <deque>
#include <mutex>

namespace torus::mpi {
namespace {

constexpr unsigned kMaxIndex = 0x03ffffffu;  // the index bits of a handle
constexpr size_t kReuseDelay = 64;           // free slots kept before one is reused

struct Table {
  std::mutex mutex;
  std::vector<TypeRef> slots;  // index - kFirstDerivedIndex
  std::deque<unsigned> free;   // indexes, oldest first
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

int type_install(TypeRef info, MPI_Datatype* handle) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  try {
    unsigned index;
    if (t.free.size() > kReuseDelay) {
      index = t.free.front();
      t.free.pop_front();
    } else {
      if (t.slots.size() + kFirstDerivedIndex > kMaxIndex) return MPI_ERR_INTERN;
      t.slots.emplace_back();
      index = static_cast<unsigned>(t.slots.size() - 1) + kFirstDerivedIndex;
    }
    t.slots[index - kFirstDerivedIndex] = std::move(info);
    *handle = static_cast<MPI_Datatype>(kDerivedTypeKind | index);
    return MPI_SUCCESS;
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  }
}

int type_create(TypeLayout layout, TypeContents contents, bool committed,
                MPI_Datatype* handle) {
  return type_guarded([&] {
    auto info = std::make_shared<TypeInfo>();
    static_cast<TypeLayout&>(*info) = std::move(layout);
    info->contents = std::move(contents);
    info->committed = committed;
    return type_install(std::move(info), handle);
  });
}

namespace {
// The slot of a handle, or nullptr; call with the mutex held.
TypeRef* slot(Table& t, MPI_Datatype handle) {
  if (!is_derived_kind(handle)) return nullptr;
  const unsigned index = static_cast<unsigned>(handle) & kMaxIndex;
  if (index < kFirstDerivedIndex || index - kFirstDerivedIndex >= t.slots.size()) return nullptr;
  TypeRef& s = t.slots[index - kFirstDerivedIndex];
  return s ? &s : nullptr;
}
}  // namespace

TypeRef type_lookup(MPI_Datatype handle) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  TypeRef* s = slot(t, handle);
  return s ? *s : TypeRef();
}

const TypeInfo* type_lookup_raw(MPI_Datatype handle) noexcept {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  TypeRef* s = slot(t, handle);
  return s ? s->get() : nullptr;
}

bool type_uninstall(MPI_Datatype handle) {
  TypeRef dropped;  // released after the lock: it may free a chain of inner types
  Table& t = table();
  std::lock_guard lock(t.mutex);
  TypeRef* s = slot(t, handle);
  if (!s) return false;
  dropped = std::move(*s);
  s->reset();
  t.free.push_back(static_cast<unsigned>(handle) & kMaxIndex);
  return true;
}

}  // namespace torus::mpi
