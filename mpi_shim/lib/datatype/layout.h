// Flattening a type constructor into a TypeLayout: every constructor is a list of pieces, each
// `copies` consecutive copies of an old type (spaced by its extent) at a byte displacement.
#pragma once

#include "mpi_shim/lib/datatype/datatype.h"

namespace torus::mpi {

// Thrown by LayoutBuilder::add for more than INT_MAX copies of a type that is not one dense
// block of one basic type: they would flatten to a block or run per copy. type_guarded
// answers MPI_ERR_COUNT.
struct LayoutTooLarge {};

class LayoutBuilder final {
 public:
  // Appends, in typemap order, `copies` copies of `old` from byte displacement `disp`.
  void add(const TypeLayout& old, MPI_Aint disp, size_t copies);
  // The layout. `struct_padding` rounds the extent up to the largest alignment of the pieces,
  // as a C compiler pads a struct; MPICH does it for MPI_Type_create_struct, even when a
  // piece was resized, and so do we (same extents as MPICH for the same constructors).
  TypeLayout finish(bool struct_padding);

 private:
  void add_block(MPI_Aint offset, MPI_Aint length);
  void add_run(MPI_Datatype type, size_t count);

  TypeLayout out_;
  MPI_Aint ub_ = 0;
  MPI_Aint true_ub_ = 0;
  bool any_piece_ = false;   // bounds come from pieces with copies > 0
  bool any_block_ = false;   // true bounds come from data bytes
  bool basic_set_ = false;
  bool mixed_ = false;
  MPI_Datatype empty_basic_ = MPI_DATATYPE_NULL;  // the basic type of a type without data
};

// `old` with its bounds replaced (MPI_Type_create_resized).
TypeLayout layout_resized(const TypeLayout& old, MPI_Aint lb, MPI_Aint extent);

// Whether count elements are one dense byte range (see TypeLayout::contiguous).
bool layout_is_contiguous(const TypeLayout& l) noexcept;

}  // namespace torus::mpi
