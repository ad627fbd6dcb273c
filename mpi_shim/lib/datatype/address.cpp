// Addresses for building types from a C struct or absolute (MPI_BOTTOM) layouts:
// MPI_Get_address (and the MPI-1 MPI_Address), MPI_Aint_add, MPI_Aint_diff.
#include <cstdint>

#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

extern "C" {

int PMPI_Get_address(const void* location, MPI_Aint* address) {
  if (!address) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Get_address");
  *address = static_cast<MPI_Aint>(reinterpret_cast<uintptr_t>(location));
  return MPI_SUCCESS;
}

int PMPI_Address(void* location, MPI_Aint* address) {
  return PMPI_Get_address(location, address);
}

// Integer arithmetic on addresses, which is what they are on this ABI.
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(base) + static_cast<uintptr_t>(disp));
}

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(addr1) - static_cast<uintptr_t>(addr2));
}

TORUS_MPI_ALIAS(MPI_Get_address)
TORUS_MPI_ALIAS(MPI_Address)
TORUS_MPI_ALIAS(MPI_Aint_add)
TORUS_MPI_ALIAS(MPI_Aint_diff)

}  // extern "C"
