// MPI_MINLOC and MPI_MAXLOC on the value-index pair types: the extreme value and its index,
// the lower index when the values tie (so the result does not depend on the order in which
// an algorithm meets the ranks).
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi {
namespace {

// The C layout of each pair type: the struct MPI's C binding describes, padding included
// (datatype/datatype.cpp sizes them the same way).
template <typename V>
struct Pair {
  V value;
  int index;
};

template <typename V>
void loc(bool max, const void* pin, const void* pinout, void* pout, size_t n) {
  const Pair<V>* a = static_cast<const Pair<V>*>(pin);
  const Pair<V>* b = static_cast<const Pair<V>*>(pinout);
  Pair<V>* out = static_cast<Pair<V>*>(pout);
  for (size_t i = 0; i < n; ++i) {
    const Pair<V> x = a[i], y = b[i];
    Pair<V> r;
    if (x.value == y.value) {
      r.value = x.value;
      r.index = x.index < y.index ? x.index : y.index;
    } else {
      r = (max ? x.value > y.value : x.value < y.value) ? x : y;
    }
    out[i] = r;
  }
}

}  // namespace

bool loc_op_valid(MPI_Datatype type) noexcept {
  switch (type) {
    case MPI_2INT: case MPI_FLOAT_INT: case MPI_DOUBLE_INT: case MPI_LONG_INT:
    case MPI_SHORT_INT: case MPI_LONG_DOUBLE_INT:
      return true;
    default:
      return false;
  }
}

void loc_apply(bool max, MPI_Datatype type, const void* in, const void* inout, void* out,
               size_t n) noexcept {
  switch (type) {
    case MPI_2INT: loc<int>(max, in, inout, out, n); break;
    case MPI_FLOAT_INT: loc<float>(max, in, inout, out, n); break;
    case MPI_DOUBLE_INT: loc<double>(max, in, inout, out, n); break;
    case MPI_LONG_INT: loc<long>(max, in, inout, out, n); break;
    case MPI_SHORT_INT: loc<short>(max, in, inout, out, n); break;
    case MPI_LONG_DOUBLE_INT: loc<long double>(max, in, inout, out, n); break;
    default: break;
  }
}

}  // namespace torus::mpi
