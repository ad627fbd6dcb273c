// User reduction ops: MPI_Op_create/Op_free/Op_commutative, the table behind their handles,
// and MPI_Reduce_local. Handles are MPICH's direct op handles, 0x98000000 | index.
#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

#include "core/base/copy.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {
namespace {

constexpr unsigned kUserOpKind = 0x98000000u;
constexpr unsigned kKindMask = 0xfc000000u;
constexpr size_t kMaxUserOps = 1024;

// Lookups take no lock: a reduction in progress on another thread reads the entry while
// Op_create fills another one. A freed entry keeps its function until the slot is reused,
// and slots are reused oldest-freed first once all are taken, so an operation still running
// with a freed op (MPI allows freeing it early) computes with the right function.
struct Entry {
  std::atomic<MPI_User_function*> fn{nullptr};
  std::atomic<bool> commute{false};
  std::atomic<bool> live{false};
};

struct Table {
  std::array<Entry, kMaxUserOps> entries;
  std::mutex mutex;  // creation and release
  size_t next_unused = 0;
  std::deque<size_t> freed;
};

Table& table() {
  static Table t;
  return t;
}

// The entry of a user-op handle, whether or not it is live; nullptr for other handles.
Entry* entry_of(MPI_Op op) {
  const unsigned h = static_cast<unsigned>(op);
  if ((h & kKindMask) != kUserOpKind) return nullptr;
  const size_t index = h & ~kKindMask;
  return index < kMaxUserOps ? &table().entries[index] : nullptr;
}

void call(MPI_User_function* fn, MPI_Datatype type, size_t size, const void* in, void* inout,
          size_t n) {
  // The callback's count is an int: larger vectors go in pieces (it is elementwise).
  while (n > 0) {
    int len = static_cast<int>(std::min<size_t>(n, INT_MAX));
    MPI_Datatype t = type;
    fn(const_cast<void*>(in), inout, &len, &t);
    in = static_cast<const std::byte*>(in) + size * size_t(len);
    inout = static_cast<std::byte*>(inout) + size * size_t(len);
    n -= size_t(len);
  }
}

}  // namespace

bool is_user_op(MPI_Op op) noexcept {
  return (static_cast<unsigned>(op) & kKindMask) == kUserOpKind;
}

bool user_op_lookup(MPI_Op op, MPI_User_function** fn, bool* commute) noexcept {
  Entry* e = entry_of(op);
  if (!e || !e->live.load(std::memory_order_acquire)) return false;
  *fn = e->fn.load(std::memory_order_relaxed);
  *commute = e->commute.load(std::memory_order_relaxed);
  return true;
}

MPI_User_function* user_op_function(MPI_Op op) noexcept {
  Entry* e = entry_of(op);
  return e ? e->fn.load(std::memory_order_acquire) : nullptr;
}

void user_apply(MPI_User_function* fn, MPI_Datatype type, const TypeInfo* layout,
                const void* in, const void* inout, void* out, size_t n) noexcept {
  const TypeInfo* t = layout ? layout : type_info(type);
  if (t && !op_layout_is_packed(*t)) {
    user_apply_unpacked(fn, type, *t, in, inout, out, n);
    return;
  }
  const size_t size = t ? t->size : type_size(type);
  if (out == inout) {
    call(fn, type, size, in, out, n);
  } else if (out != in) {
    copy_bytes(out, inout, n * size);
    call(fn, type, size, in, out, n);
  } else {
    // The result replaces `in`, which the function only reads: go through a bounce buffer,
    // a piece at a time. Rare (collectives arrange for the other forms).
    const size_t piece = std::max<size_t>(1, (64u << 10) / std::max<size_t>(size, 1));
    std::vector<std::byte> bounce(std::min(n, piece) * size);
    for (size_t done = 0; done < n; done += piece) {
      const size_t k = std::min(piece, n - done);
      copy_bytes(bounce.data(), static_cast<const std::byte*>(inout) + done * size, k * size);
      call(fn, type, size, static_cast<const std::byte*>(in) + done * size, bounce.data(), k);
      copy_bytes(static_cast<std::byte*>(out) + done * size, bounce.data(), k * size);
    }
  }
}

}  // namespace torus::mpi

using namespace torus::mpi;

extern "C" {

int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  if (!user_fn || !op) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Op_create");
  Table& t = table();
  size_t index;
  {
    std::lock_guard lock(t.mutex);
    if (t.next_unused < kMaxUserOps) {
      index = t.next_unused++;
    } else if (!t.freed.empty()) {
      index = t.freed.front();
      t.freed.pop_front();
    } else {
      return raise_error(nullptr, MPI_ERR_INTERN, "MPI_Op_create");
    }
    Entry& e = t.entries[index];
    e.fn.store(user_fn, std::memory_order_relaxed);
    e.commute.store(commute != 0, std::memory_order_relaxed);
    e.live.store(true, std::memory_order_release);
  }
  *op = static_cast<MPI_Op>(kUserOpKind | static_cast<unsigned>(index));
  return MPI_SUCCESS;
}

int PMPI_Op_free(MPI_Op* op) {
  if (!op) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Op_free");
  Entry* e = entry_of(*op);  // predefined ops cannot be freed
  if (!e) return raise_error(nullptr, MPI_ERR_OP, "MPI_Op_free");
  Table& t = table();
  {
    std::lock_guard lock(t.mutex);
    if (!e->live.load(std::memory_order_relaxed))
      return raise_error(nullptr, MPI_ERR_OP, "MPI_Op_free");
    e->live.store(false, std::memory_order_release);
    t.freed.push_back(static_cast<size_t>(e - t.entries.data()));
  }
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int PMPI_Op_commutative(MPI_Op op, int* commute) {
  if (!commute) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Op_commutative");
  MPI_User_function* fn = nullptr;
  bool user_commute = false;
  if (is_user_op(op)) {
    if (!user_op_lookup(op, &fn, &user_commute))
      return raise_error(nullptr, MPI_ERR_OP, "MPI_Op_commutative");
    *commute = user_commute;
    return MPI_SUCCESS;
  }
  if (op < MPI_MAX || op > MPI_NO_OP) return raise_error(nullptr, MPI_ERR_OP, "MPI_Op_commutative");
  *commute = 1;
  return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op) {
  size_t bytes = 0;
  int err = type_bytes(datatype, count, &bytes);
  if (err == MPI_SUCCESS) err = op_check(op, datatype);
  if (err) return raise_error(nullptr, err, "MPI_Reduce_local");
  if (bytes == 0) return MPI_SUCCESS;
  const TypeInfo* t = type_info(datatype);
  if (is_user_op(op)) {
    // The function gets the user's buffers as they are, in the type's own layout.
    if (MPI_User_function* fn = user_op_function(op)) {
      MPI_Datatype h = datatype;
      fn(const_cast<void*>(inbuf), inoutbuf, &count, &h);
    }
    return MPI_SUCCESS;
  }
  if (op_layout_is_packed(*t)) {
    op_apply(op, datatype, inbuf, inoutbuf, inoutbuf, size_t(count));
    return MPI_SUCCESS;
  }
  // A predefined op on a non-dense type reduces the packed basic elements.
  SendView in;
  RecvView inout;
  err = in.init(inbuf, count, datatype);
  if (err == MPI_SUCCESS) err = inout.init(inoutbuf, count, datatype);
  if (err) return raise_error(nullptr, err, "MPI_Reduce_local");
  inout.pack_user(0, size_t(count));
  op_apply(op, datatype, in.data(), inout.data(), inout.data(), size_t(count));
  inout.finish(inout.bytes());
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Op_create)
TORUS_MPI_ALIAS(MPI_Op_free)
TORUS_MPI_ALIAS(MPI_Op_commutative)
TORUS_MPI_ALIAS(MPI_Reduce_local)

}  // extern "C"
