// The handles of derived datatypes: MPICH's "direct" datatype handles, 0x8c000000 | index.
// Indexes below kFirstDerivedIndex are the predefined pair types (MPI_FLOAT_INT ...).
#pragma once

#include <new>
#include <utility>

#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/layout.h"

namespace torus::mpi {

inline constexpr unsigned kDerivedTypeKind = 0x8c000000u;
inline constexpr unsigned kFirstDerivedIndex = 8;

inline bool is_derived_kind(MPI_Datatype h) noexcept {
  return (static_cast<unsigned>(h) & 0xfc000000u) == kDerivedTypeKind;
}

// Gives `info` a new handle (MPI_ERR_INTERN when the table is full, MPI_ERR_NO_MEM).
int type_install(TypeRef info, MPI_Datatype* handle);
// A new derived type from a layout and how it was built; returns an MPI error code.
int type_create(TypeLayout layout, TypeContents contents, bool committed,
                MPI_Datatype* handle);
// The derived type behind a handle; empty when there is none.
TypeRef type_lookup(MPI_Datatype handle);
const TypeInfo* type_lookup_raw(MPI_Datatype handle) noexcept;
// Drops a derived handle; false when it names no derived type. Pending users keep their
// TypeRef, so the layout lives on until they finish.
bool type_uninstall(MPI_Datatype handle);
// Drops the name MPI_Type_set_name gave a handle (name.cpp), when the handle is freed.
void type_name_forget(MPI_Datatype handle);
// Attributes (attr.cpp): MPI_Type_dup runs `from`'s copy callbacks onto `to`;
// MPI_Type_free runs the delete callbacks (last set first). Both return the first failing
// callback's code.
int type_copy_attrs(MPI_Datatype from, MPI_Datatype to);
int type_delete_attrs(MPI_Datatype handle);

// Runs a constructor's body (returning an MPI error code), turning an allocation failure of a
// huge flattened layout into MPI_ERR_NO_MEM, and a count it cannot flatten into MPI_ERR_COUNT.
template <typename F>
int type_guarded(F&& body) {
  try {
    return std::forward<F>(body)();
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  } catch (const LayoutTooLarge&) {
    return MPI_ERR_COUNT;
  }
}

}  // namespace torus::mpi
