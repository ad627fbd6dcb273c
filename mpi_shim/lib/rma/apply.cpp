// Applying accumulates to window memory, wherever the caller runs: the target in its
// progress (an active message), or an origin that maps the target's memory. Both hold the
// target's accumulate lock, a word in the shared memory object next to the window, so the
// two never interleave within an element.
#include <sched.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/rma/win.h"

namespace torus::mpi {

AccLockGuard::AccLockGuard(std::atomic<uint32_t>* lock) : lock_(lock) {
  if (!lock_) return;
  unsigned spins = 0;
  while (lock_->exchange(1, std::memory_order_acquire) != 0) {
    // The holder may be a process descheduled on this core: let it run.
    while (lock_->load(std::memory_order_relaxed) != 0)
      if (++spins % 64 == 0) sched_yield();
  }
}

AccLockGuard::~AccLockGuard() {
  if (lock_) lock_->store(0, std::memory_order_release);
}

bool rma_op_valid(MPI_Op op, MPI_Datatype type) noexcept {
  if (op == MPI_REPLACE || op == MPI_NO_OP) return true;
  return !is_user_op(op) && op_valid(op, type);
}

int rma_apply(std::byte* at, size_t length, MPI_Op op, MPI_Datatype type,
              std::span<const std::byte> data, std::byte* old) {
  const TypeInfo* t = type_info(type);
  const size_t elem = t && t->committed.load(std::memory_order_acquire) ? t->size : 0;
  if (elem == 0 || length % elem != 0 || !rma_op_valid(op, type)) return MPI_ERR_ARG;
  if (old) std::memcpy(old, at, length);
  if (op == MPI_NO_OP) return MPI_SUCCESS;
  if (data.size() != length) return MPI_ERR_ARG;
  if (op == MPI_REPLACE) {
    std::memcpy(at, data.data(), length);
    return MPI_SUCCESS;
  }
  // The kernels read typed elements: operands aligned for the type go to them as they are
  // (a long at offset 8 of a window is as the compiler expects it); otherwise (a payload at
  // any offset in the transport's buffer, a target where the user put it) they get aligned
  // copies.
  const size_t align = t->align > 0 ? size_t(t->align) : alignof(std::max_align_t);
  const auto misaligned =
      (reinterpret_cast<uintptr_t>(at) | reinterpret_cast<uintptr_t>(data.data())) % align;
  if (misaligned == 0) {
    op_apply(op, type, data.data(), at, at, length / elem);
    return MPI_SUCCESS;
  }
  thread_local std::vector<std::max_align_t> scratch;
  const size_t words = (length + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
  scratch.resize(2 * words);
  auto* in = reinterpret_cast<std::byte*>(scratch.data());
  auto* inout = reinterpret_cast<std::byte*>(scratch.data() + words);
  std::memcpy(in, data.data(), length);
  std::memcpy(inout, at, length);
  op_apply(op, type, in, inout, inout, length / elem);
  std::memcpy(at, inout, length);
  return MPI_SUCCESS;
}

int rma_compare_and_swap(std::byte* at, size_t length, std::span<const std::byte> data,
                         std::byte* old) {
  if (data.size() != 2 * length) return MPI_ERR_ARG;
  std::memcpy(old, at, length);
  if (std::memcmp(old, data.data(), length) == 0) std::memcpy(at, data.data() + length, length);
  return MPI_SUCCESS;
}

}  // namespace torus::mpi
