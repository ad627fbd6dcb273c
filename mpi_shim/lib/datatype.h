// Datatypes: the predefined ones only, all contiguous, so a message is count * size bytes.
#pragma once

#include <cstddef>

#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

// Size in bytes of a predefined datatype, or 0 for an unknown handle.
size_t type_size(MPI_Datatype type) noexcept;

}  // namespace torus::mpi
