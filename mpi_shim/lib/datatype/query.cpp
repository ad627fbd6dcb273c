// What a datatype says about itself and about a received message: MPI_Type_size, extents,
// true extents (with their _x and deprecated forms), MPI_Get_count and MPI_Get_elements.
// Queries work on uncommitted types too, as the standard allows.
#include <climits>

#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

constexpr size_t kUndefined = ~size_t(0);

// Basic elements in `bytes` of a message of `t`: whole elements, then the whole basic
// elements of the runs of a partial one. As in MPICH, a predefined type's partial element
// gives kUndefined, while a derived type's partial basic element at the end is not counted.
size_t elements_in(const TypeInfo& t, size_t bytes) {
  if (t.size == 0) return 0;
  size_t n = bytes / t.size * t.elements;
  size_t rem = bytes % t.size;
  if (t.predefined != MPI_DATATYPE_NULL) return rem == 0 ? n : kUndefined;
  for (const TypeRun& r : t.runs) {
    const TypeInfo* basic = type_info(r.type);
    const size_t whole = rem / basic->size < r.count ? rem / basic->size : r.count;
    n += whole * basic->elements;
    rem -= whole * basic->size;
    if (whole < r.count) break;
  }
  return n;
}

// The common start of the queries: the type, or an error code in *err.
const TypeInfo* query_type(MPI_Datatype datatype, const void* out, int* err) {
  const TypeInfo* t = type_info(datatype);
  *err = !t ? MPI_ERR_TYPE : !out ? MPI_ERR_ARG : MPI_SUCCESS;
  return *err ? nullptr : t;
}

int to_int(size_t v) { return v <= INT_MAX ? static_cast<int>(v) : MPI_UNDEFINED; }

int count_args(const MPI_Status* status, MPI_Datatype datatype, const void* out,
               const TypeInfo** t) {
  int err = MPI_SUCCESS;
  *t = query_type(datatype, out, &err);
  if (err == MPI_SUCCESS && (!status || status == MPI_STATUS_IGNORE)) err = MPI_ERR_ARG;
  return err;
}

}  // namespace

extern "C" {

int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  int err;
  const TypeInfo* t = query_type(datatype, size, &err);
  if (!t) return raise_error(nullptr, err, "MPI_Type_size");
  *size = to_int(t->size);
  return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  int err;
  const TypeInfo* t = query_type(datatype, size, &err);
  if (!t) return raise_error(nullptr, err, "MPI_Type_size_x");
  *size = static_cast<MPI_Count>(t->size);
  return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  int err;
  const TypeInfo* t = query_type(datatype, lb && extent ? lb : nullptr, &err);
  if (!t) return raise_error(nullptr, err, "MPI_Type_get_extent");
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  int err;
  const TypeInfo* t = query_type(datatype, lb && extent ? lb : nullptr, &err);
  if (!t) return raise_error(nullptr, err, "MPI_Type_get_extent_x");
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  int err;
  const TypeInfo* t = query_type(datatype, true_lb && true_extent ? true_lb : nullptr, &err);
  if (!t) return raise_error(nullptr, err, "MPI_Type_get_true_extent");
  *true_lb = t->true_lb;
  *true_extent = t->true_extent;
  return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                                MPI_Count* true_extent) {
  int err;
  const TypeInfo* t = query_type(datatype, true_lb && true_extent ? true_lb : nullptr, &err);
  if (!t) return raise_error(nullptr, err, "MPI_Type_get_true_extent_x");
  *true_lb = t->true_lb;
  *true_extent = t->true_extent;
  return MPI_SUCCESS;
}

// MPI-1 forms, removed in MPI-3 but still declared by MPICH.
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  int err;
  const TypeInfo* t = query_type(datatype, extent, &err);
  if (!t) return raise_error(nullptr, err, "MPI_Type_extent");
  *extent = t->extent;
  return MPI_SUCCESS;
}

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  int err;
  const TypeInfo* t = query_type(datatype, displacement, &err);
  if (!t) return raise_error(nullptr, err, "MPI_Type_lb");
  *displacement = t->lb;
  return MPI_SUCCESS;
}

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  int err;
  const TypeInfo* t = query_type(datatype, displacement, &err);
  if (!t) return raise_error(nullptr, err, "MPI_Type_ub");
  *displacement = t->lb + t->extent;
  return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const TypeInfo* t = nullptr;
  if (int e = count_args(status, datatype, count, &t))
    return raise_error(nullptr, e, "MPI_Get_count");
  const size_t bytes = status_bytes(*status);
  // A type without data: zero elements, whatever arrived (as MPICH).
  if (t->size == 0) *count = 0;
  else *count = bytes % t->size == 0 ? to_int(bytes / t->size) : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const TypeInfo* t = nullptr;
  if (int e = count_args(status, datatype, count, &t))
    return raise_error(nullptr, e, "MPI_Get_elements");
  const size_t n = elements_in(*t, status_bytes(*status));
  *count = n == kUndefined ? MPI_UNDEFINED : to_int(n);
  return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  const TypeInfo* t = nullptr;
  if (int e = count_args(status, datatype, count, &t))
    return raise_error(nullptr, e, "MPI_Get_elements_x");
  const size_t n = elements_in(*t, status_bytes(*status));
  *count = n == kUndefined ? MPI_UNDEFINED : static_cast<MPI_Count>(n);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Type_size)
TORUS_MPI_ALIAS(MPI_Type_size_x)
TORUS_MPI_ALIAS(MPI_Type_get_extent)
TORUS_MPI_ALIAS(MPI_Type_get_extent_x)
TORUS_MPI_ALIAS(MPI_Type_get_true_extent)
TORUS_MPI_ALIAS(MPI_Type_get_true_extent_x)
TORUS_MPI_ALIAS(MPI_Type_extent)
TORUS_MPI_ALIAS(MPI_Type_lb)
TORUS_MPI_ALIAS(MPI_Type_ub)
TORUS_MPI_ALIAS(MPI_Get_count)
TORUS_MPI_ALIAS(MPI_Get_elements)
TORUS_MPI_ALIAS(MPI_Get_elements_x)

}  // extern "C"
