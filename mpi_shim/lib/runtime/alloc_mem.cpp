// MPI_Alloc_mem and MPI_Free_mem: cache-line-aligned memory from the C heap. No info key
// changes the placement; torus registers memory when it moves it (the registration cache),
// so memory from here needs nothing special to be fast.
#include <cstdlib>

#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

extern "C" {

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info /*info*/, void* baseptr) {
  if (size < 0 || !baseptr) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Alloc_mem");
  void* p = nullptr;
  // A zero size still gets a pointer that MPI_Free_mem accepts.
  if (posix_memalign(&p, 64, size > 0 ? static_cast<size_t>(size) : 1) != 0)
    return raise_error(nullptr, MPI_ERR_NO_MEM, "MPI_Alloc_mem");
  *static_cast<void**>(baseptr) = p;
  return MPI_SUCCESS;
}

int PMPI_Free_mem(void* base) {
  std::free(base);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Alloc_mem)
TORUS_MPI_ALIAS(MPI_Free_mem)

}  // extern "C"
