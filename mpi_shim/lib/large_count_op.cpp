// MPI_Op_create_c: the user-op table (op_user.cpp) holds functions with an int count, so a
// function with an MPI_Count one is served by one of a fixed set of trampolines, which
// widens the count (the table calls with at most INT_MAX elements at a time) and calls it.
// A trampoline is taken again once the table entry of its op holds another function: the
// entry keeps its function after MPI_Op_free, for operations still running with it, until
// the table reuses it. Only when every trampoline is still so held is one of a freed op
// taken, as the table itself reuses freed entries once it is full.
#include <array>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <utility>

#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

constexpr size_t kTrampolines = 1024;  // as many as the table has entries

struct Slot {
  std::atomic<MPI_User_function_c*> fn{nullptr};
  MPI_Op op = MPI_OP_NULL;  // the op it serves (under g_mutex)
};

std::array<Slot, kTrampolines> g_slots;
std::mutex g_mutex;

template <size_t I>
void trampoline(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype) {
  MPI_Count n = *len;
  g_slots[I].fn.load(std::memory_order_acquire)(invec, inoutvec, &n, datatype);
}

template <size_t... I>
constexpr std::array<MPI_User_function*, sizeof...(I)> trampolines(std::index_sequence<I...>) {
  return {&trampoline<I>...};
}

constexpr std::array<MPI_User_function*, kTrampolines> kTable =
    trampolines(std::make_index_sequence<kTrampolines>{});

// A slot no running operation can reach (its op's entry holds another function, or there
// never was one), else one whose op was freed; kTrampolines when neither.
size_t free_slot() {
  for (size_t i = 0; i < kTrampolines; ++i)
    if (!g_slots[i].fn.load(std::memory_order_relaxed) ||
        user_op_function(g_slots[i].op) != kTable[i])
      return i;
  for (size_t i = 0; i < kTrampolines; ++i) {
    MPI_User_function* fn = nullptr;
    bool commute = false;
    if (!user_op_lookup(g_slots[i].op, &fn, &commute)) return i;
  }
  return kTrampolines;
}

}  // namespace

extern "C" {

int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  if (!user_fn || !op) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Op_create_c");
  std::lock_guard lock(g_mutex);
  const size_t i = free_slot();
  if (i == kTrampolines) return raise_error(nullptr, MPI_ERR_INTERN, "MPI_Op_create_c");
  g_slots[i].fn.store(user_fn, std::memory_order_release);
  const int e = PMPI_Op_create(kTable[i], commute, op);
  if (e == MPI_SUCCESS) g_slots[i].op = *op;
  return e;
}

TORUS_MPI_ALIAS(MPI_Op_create_c)

}  // extern "C"
