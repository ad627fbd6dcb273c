// Reduction kernels: one template per operation, instantiated per C type through a switch
// on the datatype, so each loop is a plain typed loop the compiler vectorizes.
#include "mpi_shim/lib/op.h"

#include <cstdint>
#include <type_traits>

namespace torus::mpi {
namespace {

enum class Group { None, Integer, Floating, Byte };

Group group_of(MPI_Datatype type) {
  switch (type) {
    case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG:
    case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG: case MPI_SHORT:
    case MPI_UNSIGNED_SHORT: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_INT8_T:
    case MPI_INT16_T: case MPI_INT32_T: case MPI_INT64_T: case MPI_UINT8_T: case MPI_UINT16_T:
    case MPI_UINT32_T: case MPI_UINT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT:
      return Group::Integer;
    case MPI_FLOAT: case MPI_DOUBLE: case MPI_LONG_DOUBLE:
      return Group::Floating;
    case MPI_BYTE:
      return Group::Byte;
    default:
      return Group::None;
  }
}

template <typename T, typename F>
void loop(const void* pa, const void* pb, void* pout, size_t n, F f) {
  const T* a = static_cast<const T*>(pa);
  const T* b = static_cast<const T*>(pb);
  T* out = static_cast<T*>(pout);
  for (size_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}

template <typename T>
void apply_typed(MPI_Op op, const void* in, const void* inout, void* out, size_t n) {
  switch (op) {
    case MPI_SUM: loop<T>(in, inout, out, n, [](T a, T b) { return T(a + b); }); break;
    case MPI_PROD: loop<T>(in, inout, out, n, [](T a, T b) { return T(a * b); }); break;
    case MPI_MAX: loop<T>(in, inout, out, n, [](T a, T b) { return a > b ? a : b; }); break;
    case MPI_MIN: loop<T>(in, inout, out, n, [](T a, T b) { return a < b ? a : b; }); break;
    case MPI_LAND: loop<T>(in, inout, out, n, [](T a, T b) { return T(a && b); }); break;
    case MPI_LOR: loop<T>(in, inout, out, n, [](T a, T b) { return T(a || b); }); break;
    case MPI_LXOR: loop<T>(in, inout, out, n, [](T a, T b) { return T(!a != !b); }); break;
    default:
      if constexpr (std::is_integral_v<T>) {
        switch (op) {
          case MPI_BAND: loop<T>(in, inout, out, n, [](T a, T b) { return T(a & b); }); break;
          case MPI_BOR: loop<T>(in, inout, out, n, [](T a, T b) { return T(a | b); }); break;
          case MPI_BXOR: loop<T>(in, inout, out, n, [](T a, T b) { return T(a ^ b); }); break;
          default: break;
        }
      }
  }
}

}  // namespace

bool op_valid(MPI_Op op, MPI_Datatype type) noexcept {
  switch (group_of(type)) {
    case Group::Integer:
      return op >= MPI_MAX && op <= MPI_BXOR;
    case Group::Floating:
      return op == MPI_MAX || op == MPI_MIN || op == MPI_SUM || op == MPI_PROD;
    case Group::Byte:
      return op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
    case Group::None:
      return false;
  }
  return false;
}

void op_apply(MPI_Op op, MPI_Datatype type, const void* in, const void* inout, void* out,
              size_t n) noexcept {
  switch (type) {
    case MPI_INT: case MPI_INT32_T: apply_typed<int32_t>(op, in, inout, out, n); break;
    case MPI_UNSIGNED: case MPI_UINT32_T: apply_typed<uint32_t>(op, in, inout, out, n); break;
    case MPI_LONG: case MPI_LONG_LONG_INT: case MPI_INT64_T: case MPI_AINT: case MPI_OFFSET:
    case MPI_COUNT:
      apply_typed<int64_t>(op, in, inout, out, n);
      break;
    case MPI_UNSIGNED_LONG: case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T:
      apply_typed<uint64_t>(op, in, inout, out, n);
      break;
    case MPI_SHORT: case MPI_INT16_T: apply_typed<int16_t>(op, in, inout, out, n); break;
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: apply_typed<uint16_t>(op, in, inout, out, n); break;
    case MPI_SIGNED_CHAR: case MPI_INT8_T: apply_typed<int8_t>(op, in, inout, out, n); break;
    case MPI_UNSIGNED_CHAR: case MPI_UINT8_T: case MPI_BYTE:
      apply_typed<uint8_t>(op, in, inout, out, n);
      break;
    case MPI_FLOAT: apply_typed<float>(op, in, inout, out, n); break;
    case MPI_DOUBLE: apply_typed<double>(op, in, inout, out, n); break;
    case MPI_LONG_DOUBLE: apply_typed<long double>(op, in, inout, out, n); break;
    default: break;
  }
}

}  // namespace torus::mpi
