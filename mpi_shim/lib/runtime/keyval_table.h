// The keyval table of an object kind's attributes (datatypes, windows): MPICH's direct
// keyval handles, base | slot, each keyval with its callbacks and the standard's reference
// count (the user's handle plus one per attribute that uses it), freed when both are gone.
// find, ref and unref run with mutex() held; the caller's attribute lists use the same lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

template <class Callbacks>
class KeyvalTable {
 public:
  explicit KeyvalTable(uint32_t base) : base_(base) {}
  std::mutex& mutex() noexcept { return mutex_; }

  const Callbacks* find(int keyval) {
    Slot* s = slot(keyval);
    return s ? &s->callbacks : nullptr;
  }
  bool ref(int keyval) {
    Slot* s = slot(keyval);
    if (s) ++s->refs;
    return s != nullptr;
  }
  void unref(int keyval) {
    Slot* s = slot(keyval);
    if (s && --s->refs == 0) slots_[static_cast<uint32_t>(keyval) & ~kMask].reset();
  }

  // Take the lock themselves. create: MPI_ERR_INTERN when every slot is taken; release
  // (MPI_*_free_keyval, the user's reference): MPI_ERR_KEYVAL for an unknown keyval.
  int create(const Callbacks& callbacks, int* keyval) {
    std::lock_guard lock(mutex_);
    size_t i = 0;
    while (i < slots_.size() && slots_[i]) ++i;
    if (i == kMaxKeyvals) return MPI_ERR_INTERN;
    if (i == slots_.size()) slots_.emplace_back();
    slots_[i] = Slot{callbacks, 1};
    *keyval = static_cast<int>(base_ | static_cast<uint32_t>(i));
    return MPI_SUCCESS;
  }
  int release(int keyval) {
    std::lock_guard lock(mutex_);
    if (!slot(keyval)) return MPI_ERR_KEYVAL;
    unref(keyval);
    return MPI_SUCCESS;
  }

 private:
  static constexpr uint32_t kMask = 0xffc00000u;
  static constexpr size_t kMaxKeyvals = 0x400000;  // the slot bits of the handle
  struct Slot {
    Callbacks callbacks;
    int refs;
  };
  Slot* slot(int keyval) {
    const uint32_t h = static_cast<uint32_t>(keyval);
    if ((h & kMask) != base_) return nullptr;
    const size_t i = h & ~kMask;
    return i < slots_.size() && slots_[i] ? &*slots_[i] : nullptr;
  }

  const uint32_t base_;
  std::mutex mutex_;
  std::vector<std::optional<Slot>> slots_;
};

}  // namespace torus::mpi
