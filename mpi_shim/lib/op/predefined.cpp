// The predefined arithmetic, logical and bitwise ops: which types each takes (MPICH's type
// groups, extras included) and the kernels, one template per operation instantiated per C
// type through a switch on the datatype, so each loop is a plain typed loop the compiler
// vectorizes. MINLOC/MAXLOC live in minloc_maxloc.cpp, user ops in user.cpp.
//
// The library builds for baseline x86-64, whose vectors are SSE2's 128 bits; a second copy of
// the kernels is compiled for AVX2 and chosen at run time where the CPU has it (measured on
// this project's Zen 4 VMs: 1.2-1.3x on an in-cache float SUM from 64 KiB up, 1.7x at 8 KiB).
// Element-wise ops give the same bits whatever the vector width.
#include "mpi_shim/lib/op/op.h"

#include <atomic>
#include <cstdint>
#include <type_traits>

namespace torus::mpi {
namespace {

// MPI's type groups as MPICH accepts them: "integer" is the C integer group plus MPI_CHAR
// and MPI_AINT/OFFSET/COUNT (MPICH's extras and Fortran integers).
enum class Group { None, Integer, Floating, Logical, Byte };

Group group_of(MPI_Datatype type) {
  switch (type) {
    case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG:
    case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG: case MPI_SHORT:
    case MPI_UNSIGNED_SHORT: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_CHAR:
    case MPI_INT8_T: case MPI_INT16_T: case MPI_INT32_T: case MPI_INT64_T: case MPI_UINT8_T:
    case MPI_UINT16_T: case MPI_UINT32_T: case MPI_UINT64_T: case MPI_AINT: case MPI_OFFSET:
    case MPI_COUNT:
      return Group::Integer;
    case MPI_FLOAT: case MPI_DOUBLE: case MPI_LONG_DOUBLE:
      return Group::Floating;
    case MPI_C_BOOL:
      return Group::Logical;
    case MPI_BYTE:
      return Group::Byte;
    default:
      return Group::None;
  }
}

bool predefined_valid(MPI_Op op, Group g) {
  switch (op) {
    case MPI_MAX: case MPI_MIN: case MPI_SUM: case MPI_PROD:
      return g == Group::Integer || g == Group::Floating;
    // MPICH also takes floating point for the logical ops.
    case MPI_LAND: case MPI_LOR: case MPI_LXOR:
      return g == Group::Integer || g == Group::Logical || g == Group::Floating;
    case MPI_BAND: case MPI_BOR: case MPI_BXOR:
      return g == Group::Integer || g == Group::Byte;
    default:
      return false;
  }
}

template <typename T, typename F>
void loop(const void* pa, const void* pb, void* pout, size_t n, F f) {
  const T* a = static_cast<const T*>(pa);
  const T* b = static_cast<const T*>(pb);
  T* out = static_cast<T*>(pout);
  for (size_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}

// Integer sums and products wrap (as MPICH's do in practice) instead of being undefined:
// they are computed in an unsigned type at least as wide as unsigned int, so that neither
// the operands' promotion to int nor the result can overflow.
template <typename T>
using Wrap = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
void arithmetic(MPI_Op op, const void* in, const void* inout, void* out, size_t n) {
  if constexpr (std::is_integral_v<T>) {
    using W = Wrap<T>;
    switch (op) {
      case MPI_SUM: loop<T>(in, inout, out, n, [](T a, T b) { return T(W(a) + W(b)); }); return;
      case MPI_PROD: loop<T>(in, inout, out, n, [](T a, T b) { return T(W(a) * W(b)); }); return;
      case MPI_BAND: loop<T>(in, inout, out, n, [](T a, T b) { return T(a & b); }); return;
      case MPI_BOR: loop<T>(in, inout, out, n, [](T a, T b) { return T(a | b); }); return;
      case MPI_BXOR: loop<T>(in, inout, out, n, [](T a, T b) { return T(a ^ b); }); return;
      default: break;
    }
  } else {
    switch (op) {
      case MPI_SUM: loop<T>(in, inout, out, n, [](T a, T b) { return T(a + b); }); return;
      case MPI_PROD: loop<T>(in, inout, out, n, [](T a, T b) { return T(a * b); }); return;
      default: break;
    }
  }
  switch (op) {
    case MPI_MAX: loop<T>(in, inout, out, n, [](T a, T b) { return a > b ? a : b; }); break;
    case MPI_MIN: loop<T>(in, inout, out, n, [](T a, T b) { return a < b ? a : b; }); break;
    case MPI_LAND: loop<T>(in, inout, out, n, [](T a, T b) { return T(a && b); }); break;
    case MPI_LOR: loop<T>(in, inout, out, n, [](T a, T b) { return T(a || b); }); break;
    case MPI_LXOR: loop<T>(in, inout, out, n, [](T a, T b) { return T(!a != !b); }); break;
    default: break;
  }
}

// C's _Bool takes the logical ops only.
void logical_bool(MPI_Op op, const void* in, const void* inout, void* out, size_t n) {
  switch (op) {
    case MPI_LAND: loop<bool>(in, inout, out, n, [](bool a, bool b) { return a && b; }); break;
    case MPI_LOR: loop<bool>(in, inout, out, n, [](bool a, bool b) { return a || b; }); break;
    case MPI_LXOR: loop<bool>(in, inout, out, n, [](bool a, bool b) { return a != b; }); break;
    default: break;
  }
}

void predefined_apply(MPI_Op op, MPI_Datatype type, const void* in, const void* inout,
                      void* out, size_t n) {
  switch (type) {
    case MPI_INT: case MPI_INT32_T: arithmetic<int32_t>(op, in, inout, out, n); break;
    case MPI_UNSIGNED: case MPI_UINT32_T: arithmetic<uint32_t>(op, in, inout, out, n); break;
    case MPI_LONG: case MPI_LONG_LONG_INT: case MPI_INT64_T: case MPI_AINT: case MPI_OFFSET:
    case MPI_COUNT:
      arithmetic<int64_t>(op, in, inout, out, n);
      break;
    case MPI_UNSIGNED_LONG: case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T:
      arithmetic<uint64_t>(op, in, inout, out, n);
      break;
    case MPI_SHORT: case MPI_INT16_T: arithmetic<int16_t>(op, in, inout, out, n); break;
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: arithmetic<uint16_t>(op, in, inout, out, n); break;
    // Plain char, signed or not as the C compiler has it.
    case MPI_CHAR: arithmetic<char>(op, in, inout, out, n); break;
    case MPI_SIGNED_CHAR: case MPI_INT8_T: arithmetic<int8_t>(op, in, inout, out, n); break;
    case MPI_UNSIGNED_CHAR: case MPI_UINT8_T: case MPI_BYTE:
      arithmetic<uint8_t>(op, in, inout, out, n);
      break;
    case MPI_FLOAT: arithmetic<float>(op, in, inout, out, n); break;
    case MPI_DOUBLE: arithmetic<double>(op, in, inout, out, n); break;
    case MPI_LONG_DOUBLE: arithmetic<long double>(op, in, inout, out, n); break;
    case MPI_C_BOOL: logical_bool(op, in, inout, out, n); break;
    default: break;
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TORUS_OP_AVX2 1
// flatten inlines every kernel into this one function, so the loops are vectorized under its
// target; the generic copy above stays as it is.
[[gnu::target("avx2"), gnu::flatten]] void predefined_apply_avx2(MPI_Op op, MPI_Datatype type,
                                                                 const void* in,
                                                                 const void* inout, void* out,
                                                                 size_t n) {
  predefined_apply(op, type, in, inout, out, n);
}
#endif

using Kernels = void (*)(MPI_Op, MPI_Datatype, const void*, const void*, void*, size_t);

Kernels kernels_for(OpKernels k) {
#ifdef TORUS_OP_AVX2
  if (k == OpKernels::Avx2) return predefined_apply_avx2;
#endif
  (void)k;
  return predefined_apply;
}

// Set before main and again by MPI_Init (TORUS_OP_SIMD); relaxed is enough, as MPI_Init
// happens before the application's threads reduce anything.
std::atomic<OpKernels> g_kernels{op_kernels_best()};

}  // namespace

bool op_kernels_available(OpKernels k) noexcept {
  if (k == OpKernels::Generic) return true;
#ifdef TORUS_OP_AVX2
  // This may run from a static constructor, before libgcc's own has filled in the CPU model.
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

OpKernels op_kernels_best() noexcept {
  return op_kernels_available(OpKernels::Avx2) ? OpKernels::Avx2 : OpKernels::Generic;
}

bool op_set_kernels(OpKernels k) noexcept {
  if (!op_kernels_available(k)) return false;
  g_kernels.store(k, std::memory_order_relaxed);
  return true;
}

OpKernels op_kernels() noexcept { return g_kernels.load(std::memory_order_relaxed); }

int op_check(MPI_Op op, MPI_Datatype type) noexcept {
  // A predefined op on a derived type applies to the one basic type it is built from.
  if (!is_user_op(op)) {
    type = op_basic_type(type, nullptr);
    if (type == MPI_DATATYPE_NULL) return MPI_ERR_OP;
  }
  if (op == MPI_MINLOC || op == MPI_MAXLOC) return loc_op_valid(type) ? MPI_SUCCESS : MPI_ERR_OP;
  if (is_user_op(op)) {
    MPI_User_function* fn = nullptr;
    bool commute = false;
    return user_op_lookup(op, &fn, &commute) ? MPI_SUCCESS : MPI_ERR_OP;
  }
  return predefined_valid(op, group_of(type)) ? MPI_SUCCESS : MPI_ERR_OP;
}

bool op_commutative(MPI_Op op) noexcept {
  MPI_User_function* fn = nullptr;
  bool commute = true;
  if (is_user_op(op)) (void)user_op_lookup(op, &fn, &commute);
  return commute;
}

void op_apply(MPI_Op op, MPI_Datatype type, const void* in, const void* inout, void* out,
              size_t n, const TypeInfo* layout) noexcept {
  if (n == 0) return;
  if (is_user_op(op)) {
    if (MPI_User_function* fn = user_op_function(op))
      user_apply(fn, type, layout, in, inout, out, n);
    return;
  }
  size_t per = 1;
  type = op_basic_type(type, &per);
  n *= per;
  if (op == MPI_MINLOC || op == MPI_MAXLOC) {
    loc_apply(op == MPI_MAXLOC, type, in, inout, out, n);
  } else {
    kernels_for(op_kernels())(op, type, in, inout, out, n);
  }
}

}  // namespace torus::mpi
