// The regular type constructors: MPI_Type_contiguous, vector, create_hvector (and the MPI-1
// MPI_Type_hvector), create_resized and dup. Each flattens its pieces with LayoutBuilder and
// remembers its arguments for MPI_Type_get_contents.
#include <climits>

#include "mpi_shim/lib/datatype/create.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/layout.h"
#include "mpi_shim/lib/datatype/table.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace torus::mpi {

int type_make_vector(MPI_Count count, MPI_Count blocklength, MPI_Aint stride,
                     bool stride_in_elements, MPI_Datatype oldtype, MPI_Datatype* newtype,
                     TypeContents contents) {
  if (count < 0) return MPI_ERR_COUNT;
  if (blocklength < 0) return MPI_ERR_COUNT;  // as MPICH
  return type_guarded([&] {
    TypeRef old = type_hold(oldtype);
    if (!old) return MPI_ERR_TYPE;
    if (!newtype) return MPI_ERR_ARG;
    const MPI_Aint step = stride_in_elements ? stride * old->extent : stride;
    LayoutBuilder b;
    // Blocks of a dense type that touch are one piece: the same layout, built in O(1), which
    // is what lets a count above INT_MAX work.
    const bool dense = old->blocks.size() == 1 && old->blocks[0].length == old->extent;
    if (count > 1 && blocklength > 0 && dense && step == blocklength * old->extent) {
      b.add(*old, 0, static_cast<size_t>(count * blocklength));
    } else {
      if (count > INT_MAX) return MPI_ERR_COUNT;  // a block each: too many to flatten
      for (MPI_Count i = 0; i < count; ++i)
        b.add(*old, static_cast<MPI_Aint>(i) * step, static_cast<size_t>(blocklength));
    }
    contents.types = {std::move(old)};
    return type_create(b.finish(false), std::move(contents), false, newtype);
  });
}

int type_make_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                      MPI_Datatype* newtype, bool large) {
  return type_guarded([&] {
    TypeRef old = type_hold(oldtype);
    if (!old) return MPI_ERR_TYPE;
    if (!newtype) return MPI_ERR_ARG;
    TypeLayout layout = layout_resized(*old, lb, extent);
    TypeContents c{MPI_COMBINER_RESIZED, {}, {}, {std::move(old)}};
    if (large) c.counts = {lb, extent};
    else c.aints = {lb, extent};
    return type_create(std::move(layout), std::move(c), false, newtype);
  });
}

}  // namespace torus::mpi

extern "C" {

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  TypeContents c{MPI_COMBINER_CONTIGUOUS, {count}, {}, {}};
  // One block of count copies.
  const int e = count < 0 ? MPI_ERR_COUNT
                          : type_make_vector(1, count, 0, false, oldtype, newtype, std::move(c));
  return check(nullptr, e, "MPI_Type_contiguous");
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
  TypeContents c{MPI_COMBINER_VECTOR, {count, blocklength, stride}, {}, {}};
  return check(nullptr, type_make_vector(count, blocklength, stride, true, oldtype, newtype,
                                    std::move(c)),
               "MPI_Type_vector");
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  TypeContents c{MPI_COMBINER_HVECTOR, {count, blocklength}, {stride}, {}};
  return check(nullptr, type_make_vector(count, blocklength, stride, false, oldtype, newtype,
                                    std::move(c)),
               "MPI_Type_create_hvector");
}

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  TypeContents c{MPI_COMBINER_HVECTOR, {count, blocklength}, {stride}, {}};
  return check(nullptr, type_make_vector(count, blocklength, stride, false, oldtype, newtype,
                                    std::move(c)),
               "MPI_Type_hvector");
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype* newtype) {
  return check(nullptr, type_make_resized(oldtype, lb, extent, newtype, false),
               "MPI_Type_create_resized");
}

// The duplicate shares nothing mutable with the original but starts as committed as it.
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const int e = type_guarded([&] {
    TypeRef old = type_hold(oldtype);
    if (!old) return MPI_ERR_TYPE;
    if (!newtype) return MPI_ERR_ARG;
    TypeLayout layout = *old;
    const bool committed = old->committed;
    TypeContents c{MPI_COMBINER_DUP, {}, {}, {std::move(old)}};
    return type_create(std::move(layout), std::move(c), committed, newtype);
  });
  if (e != MPI_SUCCESS) return raise_error(nullptr, e, "MPI_Type_dup");
  // The attributes' copy callbacks; a failing one fails the call and takes the new type back.
  if (int ce = type_copy_attrs(oldtype, *newtype)) {
    (void)type_delete_attrs(*newtype);
    (void)type_uninstall(*newtype);
    *newtype = MPI_DATATYPE_NULL;
    return raise_error(nullptr, ce, "MPI_Type_dup");
  }
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Type_contiguous)
TORUS_MPI_ALIAS(MPI_Type_vector)
TORUS_MPI_ALIAS(MPI_Type_create_hvector)
TORUS_MPI_ALIAS(MPI_Type_hvector)
TORUS_MPI_ALIAS(MPI_Type_create_resized)
TORUS_MPI_ALIAS(MPI_Type_dup)

}  // extern "C"
