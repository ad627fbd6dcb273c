// Predefined datatypes: sizes, MPI_Type_size and MPI_Get_count.
#include "mpi_shim/lib/datatype.h"

#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/pmpi.h"
#include "mpi_shim/lib/status.h"

namespace torus::mpi {

namespace {
// The layout of the value-index pair types (MPI_FLOAT_INT, ...): a struct, with padding.
template <typename V>
struct Pair {
  V value;
  int index;
};
}  // namespace

size_t type_size(MPI_Datatype type) noexcept {
  switch (type) {
    // The basic types encode their size in bits 8-15 of the handle (MPICH's scheme); the
    // switch lists them so that an unknown handle is refused rather than sized.
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_BYTE:
    case MPI_WCHAR: case MPI_SHORT: case MPI_UNSIGNED_SHORT: case MPI_INT: case MPI_UNSIGNED:
    case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_LONG_LONG_INT:
    case MPI_UNSIGNED_LONG_LONG: case MPI_FLOAT: case MPI_DOUBLE: case MPI_LONG_DOUBLE:
    case MPI_PACKED: case MPI_INT8_T: case MPI_INT16_T: case MPI_INT32_T: case MPI_INT64_T:
    case MPI_UINT8_T: case MPI_UINT16_T: case MPI_UINT32_T: case MPI_UINT64_T: case MPI_C_BOOL:
    case MPI_AINT: case MPI_OFFSET: case MPI_COUNT: case MPI_2INT:
      return (static_cast<unsigned>(type) >> 8) & 0xffu;
    // The pair types are structs whose size includes padding.
    case MPI_FLOAT_INT: return sizeof(Pair<float>);
    case MPI_DOUBLE_INT: return sizeof(Pair<double>);
    case MPI_LONG_INT: return sizeof(Pair<long>);
    case MPI_SHORT_INT: return sizeof(Pair<short>);
    case MPI_LONG_DOUBLE_INT: return sizeof(Pair<long double>);
    default: return 0;
  }
}

}  // namespace torus::mpi

using namespace torus::mpi;

extern "C" {

int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  size_t s = type_size(datatype);
  if (s == 0) return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_size");
  *size = static_cast<int>(s);
  return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  size_t s = type_size(datatype);
  if (s == 0) return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Get_count");
  const size_t bytes = status_bytes(*status);
  *count = (bytes % s == 0 && bytes / s <= 0x7fffffffu) ? static_cast<int>(bytes / s)
                                                          : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Type_size)
TORUS_MPI_ALIAS(MPI_Get_count)

}  // extern "C"
