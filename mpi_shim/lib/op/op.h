// Reduction operations: the predefined ops on the datatypes MPICH defines them for, and user
// ops (MPI_Op_create). Every reduction in the library goes through op_apply, so collectives
// need not know whether an op is predefined or which types it takes.
#pragma once

#include <cstddef>

#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

struct TypeInfo;

// MPI_SUCCESS when `op` may reduce `type`, MPI_ERR_OP otherwise (an unknown or freed handle,
// MPI_REPLACE/MPI_NO_OP outside RMA, or a predefined op on a type outside its groups).
// `type` must be a valid datatype (checked before, as MPI_ERR_TYPE).
int op_check(MPI_Op op, MPI_Datatype type) noexcept;
inline bool op_valid(MPI_Op op, MPI_Datatype type) noexcept {
  return op_check(op, type) == MPI_SUCCESS;
}
// Predefined ops are commutative; user ops are what MPI_Op_create was told.
bool op_commutative(MPI_Op op) noexcept;

// out[i] = in[i] op inout[i] for count elements, `in` holding the contribution of the lower
// ranks (the order a non-commutative op needs); op_check(op, type) must have passed. out may
// be in, inout or a third buffer (the three-operand form lets a collective combine straight
// into the user's buffer instead of copying the send buffer there first). The buffers hold
// the elements packed (type_pack's form, which is the type's own layout for a dense type):
// collectives move packed bytes. A user op on a non-dense type is called on copies unpacked
// into the type's layout, as the function expects. `layout`: the type's layout when the
// caller holds it (a pending request: the user may free the handle before it completes);
// nullptr to look the handle up.
void op_apply(MPI_Op op, MPI_Datatype type, const void* in, const void* inout, void* out,
              size_t count, const TypeInfo* layout = nullptr) noexcept;

// The predefined ops' kernels: the baseline build (SSE2 on x86-64) or a copy compiled for
// AVX2. The best the CPU has is in use from the start; MPI_Init applies TORUS_OP_SIMD.
enum class OpKernels { Generic, Avx2 };
bool op_kernels_available(OpKernels k) noexcept;
OpKernels op_kernels_best() noexcept;
// false (and nothing changes) when the CPU lacks them.
bool op_set_kernels(OpKernels k) noexcept;
OpKernels op_kernels() noexcept;

// What a predefined op computes on for `type`: the type itself when predefined, else the one
// basic type a derived type is built from (MPI_DATATYPE_NULL when mixed or invalid), with
// *per (when given) the basic elements per element. MPICH refuses predefined ops on derived
// types (MPI_ERR_OP); the standard allows them for MPI_Accumulate, and torus everywhere.
MPI_Datatype op_basic_type(MPI_Datatype type, size_t* per) noexcept;

// The predefined kernels and the user-op table behind op_check/op_apply (minloc_maxloc.cpp,
// user.cpp).
bool loc_op_valid(MPI_Datatype type) noexcept;
void loc_apply(bool max, MPI_Datatype type, const void* in, const void* inout, void* out,
               size_t count) noexcept;
bool is_user_op(MPI_Op op) noexcept;
// The function and commute flag of a live user op; false for an unknown or freed handle.
bool user_op_lookup(MPI_Op op, MPI_User_function** fn, bool* commute) noexcept;
// The function of a user op even after MPI_Op_free (an operation started before the free
// still runs with it); nullptr when the handle never named one.
MPI_User_function* user_op_function(MPI_Op op) noexcept;
void user_apply(MPI_User_function* fn, MPI_Datatype type, const TypeInfo* layout,
                const void* in, const void* inout, void* out, size_t count) noexcept;
// Whether count elements packed are the type's own layout at the same address (predefined
// and dense types with the data at offset 0), so a user function may run on them directly.
bool op_layout_is_packed(const TypeInfo& t) noexcept;
// A user op on packed elements of a type whose layout differs: unpacks in and inout into
// copies in the layout, calls the function there, packs the result into out (derived.cpp).
void user_apply_unpacked(MPI_User_function* fn, MPI_Datatype type, const TypeInfo& t,
                         const void* in, const void* inout, void* out, size_t count) noexcept;

}  // namespace torus::mpi
