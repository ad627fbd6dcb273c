// Reduction operations: the predefined ops on the datatypes they are defined for.
#pragma once

#include <cstddef>

#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

// Whether `op` is defined on `type` (MPI's "C integer", "floating point", "logical" and
// "byte" groups; MINLOC/MAXLOC and user ops are not supported yet).
bool op_valid(MPI_Op op, MPI_Datatype type) noexcept;
// out[i] = a[i] op b[i] for count elements; op_valid(op, type) must hold. out may be a or b
// (the three-operand form lets a collective combine straight into the user's buffer instead
// of copying the send buffer there first).
void op_apply(MPI_Op op, MPI_Datatype type, const void* a, const void* b, void* out,
              size_t count) noexcept;

}  // namespace torus::mpi
