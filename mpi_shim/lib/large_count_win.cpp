// MPI 4.0's window calls with an MPI_Aint displacement unit (Win_create_c, Win_allocate_c,
// Win_allocate_shared_c, Win_shared_query_c). Windows keep their unit as an int (it travels
// in the creation exchange as 32 bits), so a unit above INT_MAX is MPI_ERR_DISP, checked
// before anything collective starts, like the int calls' check of a unit below 1.
#include <climits>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/rma/win.h"

using namespace torus::mpi;

namespace {

bool unit_fits(MPI_Aint disp_unit) { return disp_unit <= INT_MAX; }

}  // namespace

extern "C" {

int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                      MPI_Comm comm, MPI_Win* win) {
  if (!unit_fits(disp_unit)) return raise_error(comm_get(comm), MPI_ERR_DISP, "MPI_Win_create_c");
  return PMPI_Win_create(base, size, int(disp_unit), info, comm, win);
}

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void* baseptr, MPI_Win* win) {
  if (!unit_fits(disp_unit))
    return raise_error(comm_get(comm), MPI_ERR_DISP, "MPI_Win_allocate_c");
  return PMPI_Win_allocate(size, int(disp_unit), info, comm, baseptr, win);
}

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void* baseptr, MPI_Win* win) {
  if (!unit_fits(disp_unit))
    return raise_error(comm_get(comm), MPI_ERR_DISP, "MPI_Win_allocate_shared_c");
  return PMPI_Win_allocate_shared(size, int(disp_unit), info, comm, baseptr, win);
}

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit,
                            void* baseptr) {
  if (!disp_unit) return raise_win(win_get(win), MPI_ERR_ARG, "MPI_Win_shared_query_c");
  int unit = 0;
  const int e = PMPI_Win_shared_query(win, rank, size, &unit, baseptr);
  if (e == MPI_SUCCESS) *disp_unit = unit;
  return e;
}

TORUS_MPI_ALIAS(MPI_Win_create_c)
TORUS_MPI_ALIAS(MPI_Win_allocate_c)
TORUS_MPI_ALIAS(MPI_Win_allocate_shared_c)
TORUS_MPI_ALIAS(MPI_Win_shared_query_c)

}  // extern "C"
