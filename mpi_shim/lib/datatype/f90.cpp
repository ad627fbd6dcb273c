// The Fortran-interop type queries MPICH exports: MPI_Type_create_f90_integer/real/complex
// (the smallest type with a decimal range r and precision p, as Fortran's SELECTED_*_KIND)
// and MPI_Type_match_size. Each answers one of our predefined C types, never a new handle,
// so the caller must not free it. The library has no complex types, so the complex forms
// find none: MPI_ERR_ARG, what the standard gives when no type fits.
#include <cstddef>
#include <iterator>

#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

// A candidate type and the largest decimal exponent range (and precision, for reals) that
// its values cover, smallest type first.
struct Kind {
  MPI_Datatype type;
  int range;
  int precision;
};

constexpr Kind kIntegers[] = {
    {MPI_INT8_T, 2, 0}, {MPI_INT16_T, 4, 0}, {MPI_INT32_T, 9, 0}, {MPI_INT64_T, 18, 0}};
// IEEE binary32, binary64 and x86's 80-bit extended long double.
constexpr Kind kReals[] = {
    {MPI_FLOAT, 37, 6}, {MPI_DOUBLE, 307, 15}, {MPI_LONG_DOUBLE, 4931, 18}};

// MPI_UNDEFINED leaves that requirement out.
template <size_t N>
MPI_Datatype smallest(const Kind (&kinds)[N], int p, int r) {
  for (const Kind& k : kinds)
    if ((r == MPI_UNDEFINED || r <= k.range) && (p == MPI_UNDEFINED || p <= k.precision))
      return k.type;
  return MPI_DATATYPE_NULL;
}

int answer(MPI_Datatype found, MPI_Datatype* newtype, const char* fn) {
  if (!newtype) return raise_error(nullptr, MPI_ERR_ARG, fn);
  if (found == MPI_DATATYPE_NULL) return raise_error(nullptr, MPI_ERR_ARG, fn);
  *newtype = found;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  const MPI_Datatype t = r == MPI_UNDEFINED ? MPI_DATATYPE_NULL : smallest(kIntegers, 0, r);
  return answer(t, newtype, "MPI_Type_create_f90_integer");
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  const bool none = p == MPI_UNDEFINED && r == MPI_UNDEFINED;  // one must be given
  return answer(none ? MPI_DATATYPE_NULL : smallest(kReals, p, r), newtype,
                "MPI_Type_create_f90_real");
}

int PMPI_Type_create_f90_complex(int /*p*/, int /*r*/, MPI_Datatype* newtype) {
  return answer(MPI_DATATYPE_NULL, newtype, "MPI_Type_create_f90_complex");
}

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  const char* fn = "MPI_Type_match_size";
  const Kind* kinds = nullptr;
  size_t n = 0;
  if (typeclass == MPI_TYPECLASS_INTEGER) {
    kinds = kIntegers;
    n = std::size(kIntegers);
  } else if (typeclass == MPI_TYPECLASS_REAL) {
    kinds = kReals;
    n = std::size(kReals);
  } else if (typeclass != MPI_TYPECLASS_COMPLEX) {
    return raise_error(nullptr, MPI_ERR_ARG, fn);
  }
  MPI_Datatype found = MPI_DATATYPE_NULL;
  for (size_t i = 0; i < n && found == MPI_DATATYPE_NULL; ++i) {
    const TypeInfo* t = type_info(kinds[i].type);
    if (t && t->size == static_cast<size_t>(size)) found = kinds[i].type;
  }
  return answer(found, datatype, fn);
}

TORUS_MPI_ALIAS(MPI_Type_create_f90_integer)
TORUS_MPI_ALIAS(MPI_Type_create_f90_real)
TORUS_MPI_ALIAS(MPI_Type_create_f90_complex)
TORUS_MPI_ALIAS(MPI_Type_match_size)

}  // extern "C"
