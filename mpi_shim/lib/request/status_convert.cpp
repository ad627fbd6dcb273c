// MPI_Status between its C form and the Fortran ones (an MPI_Fint[MPI_F_STATUS_SIZE] array,
// the mpi_f08 MPI_F08_status struct), and the Fortran "ignore" objects MPICH exports. All
// three hold the same five 32-bit fields in the same order, so each conversion copies them.
#include <cstddef>
#include <cstring>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status));
static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint));
static_assert(offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint));
static_assert(offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint));
static_assert(offsetof(MPI_F08_status, MPI_ERROR) == offsetof(MPI_Status, MPI_ERROR));

namespace {

// Storage behind the ignore pointers: distinct addresses that no real status has.
MPI_Fint g_f_status_ignore[MPI_F_STATUS_SIZE];
MPI_Fint g_f_statuses_ignore[MPI_F_STATUS_SIZE];

// The C "ignore" values and Fortran's are requests to drop a status, not statuses: there is
// nothing to convert.
bool ignored(const void* p) {
  return !p || p == MPI_STATUS_IGNORE || p == MPI_F_STATUS_IGNORE ||
         p == MPI_F_STATUSES_IGNORE || p == MPI_F08_STATUS_IGNORE ||
         p == MPI_F08_STATUSES_IGNORE;
}

int copy(const void* from, void* to, const char* fn) {
  if (ignored(from) || ignored(to)) return raise_error(nullptr, MPI_ERR_ARG, fn);
  std::memcpy(to, from, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
MPI_Fint* MPI_F_STATUS_IGNORE = g_f_status_ignore;
MPI_Fint* MPI_F_STATUSES_IGNORE = g_f_statuses_ignore;
MPI_F08_status* MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status* MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;

int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  return copy(c_status, f_status, "MPI_Status_c2f");
}
int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  return copy(f_status, c_status, "MPI_Status_f2c");
}
int PMPI_Status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  return copy(c_status, f08_status, "MPI_Status_c2f08");
}
int PMPI_Status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  return copy(f08_status, c_status, "MPI_Status_f082c");
}
int PMPI_Status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  return copy(f_status, f08_status, "MPI_Status_f2f08");
}
int PMPI_Status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  return copy(f08_status, f_status, "MPI_Status_f082f");
}

TORUS_MPI_ALIAS(MPI_Status_c2f)
TORUS_MPI_ALIAS(MPI_Status_f2c)
TORUS_MPI_ALIAS(MPI_Status_c2f08)
TORUS_MPI_ALIAS(MPI_Status_f082c)
TORUS_MPI_ALIAS(MPI_Status_f2f08)
TORUS_MPI_ALIAS(MPI_Status_f082f)

}  // extern "C"
