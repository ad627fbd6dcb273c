// The irregular type constructors: MPI_Type_indexed, create_hindexed, create_indexed_block,
// create_hindexed_block, create_struct (and the MPI-1 MPI_Type_hindexed and MPI_Type_struct).
// Blocks of length 0 add nothing, not even bounds.
#include <vector>

#include "mpi_shim/lib/datatype/create.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/layout.h"
#include "mpi_shim/lib/datatype/table.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace torus::mpi {
namespace {

bool one_length(const TypeBlockArgs& in) {
  return in.combiner == MPI_COMBINER_INDEXED_BLOCK || in.combiner == MPI_COMBINER_HINDEXED_BLOCK;
}
bool in_extents(const TypeBlockArgs& in) {
  return in.combiner == MPI_COMBINER_INDEXED || in.combiner == MPI_COMBINER_INDEXED_BLOCK;
}
bool is_struct(const TypeBlockArgs& in) { return in.combiner == MPI_COMBINER_STRUCT; }
MPI_Count length(const TypeBlockArgs& in, size_t i) {
  return one_length(in) ? in.blocklength : in.blocklengths[i];
}

// The argument checks, with MPICH's error classes; fills `types` (one per block for a struct,
// else the old type) holding them for the new type's contents.
int check_blocks(const TypeBlockArgs& in, std::vector<TypeRef>& types) {
  if (in.count < 0) return MPI_ERR_COUNT;
  if (one_length(in) && in.blocklength < 0) return MPI_ERR_COUNT;  // negative lengths: as MPICH
  if (in.count > 0 && ((!one_length(in) && in.blocklengths.null()) || in.displs.null() ||
                       (is_struct(in) && !in.types)))
    return MPI_ERR_ARG;
  const size_t count = static_cast<size_t>(in.count);
  for (size_t i = 0; i < count; ++i)
    if (length(in, i) < 0) return MPI_ERR_COUNT;
  const size_t n = is_struct(in) ? count : 1;
  for (size_t i = 0; i < n; ++i) {
    types.push_back(type_hold(is_struct(in) ? in.types[i] : in.oldtype));
    if (!types.back()) return MPI_ERR_TYPE;
  }
  return MPI_SUCCESS;
}

// get_contents' arrays: the count, the block length(s), the displacements, in argument
// order; an int call puts the integer displacements with the ints and the byte ones in the
// addresses, a _c call puts all of them in the large counts.
TypeContents blocks_contents(const TypeBlockArgs& in, std::vector<TypeRef> types) {
  TypeContents c;
  c.combiner = in.combiner;
  const size_t count = static_cast<size_t>(in.count);
  if (in.large) {
    c.counts.push_back(in.count);
    if (one_length(in)) c.counts.push_back(in.blocklength);
    else for (size_t i = 0; i < count; ++i) c.counts.push_back(in.blocklengths[i]);
    for (size_t i = 0; i < count; ++i) c.counts.push_back(in.displs[i]);
  } else {
    c.ints.push_back(static_cast<int>(in.count));
    if (one_length(in)) c.ints.push_back(static_cast<int>(in.blocklength));
    else for (size_t i = 0; i < count; ++i) c.ints.push_back(static_cast<int>(in.blocklengths[i]));
    for (size_t i = 0; i < count; ++i) {
      if (in_extents(in)) c.ints.push_back(static_cast<int>(in.displs[i]));
      else c.aints.push_back(in.displs[i]);
    }
  }
  c.types = std::move(types);
  return c;
}

}  // namespace

int type_make_blocks(const TypeBlockArgs& in, MPI_Datatype* newtype) {
  return type_guarded([&] {
    std::vector<TypeRef> types;
    if (int e = check_blocks(in, types)) return e;
    if (!newtype) return MPI_ERR_ARG;
    LayoutBuilder b;
    const size_t count = static_cast<size_t>(in.count);
    for (size_t i = 0; i < count; ++i) {
      const TypeInfo& t = *types[is_struct(in) ? i : 0];
      const MPI_Aint disp = in_extents(in) ? in.displs[i] * t.extent : in.displs[i];
      b.add(t, disp, static_cast<size_t>(length(in, i)));
    }
    TypeLayout layout = b.finish(is_struct(in));
    return type_create(std::move(layout), blocks_contents(in, std::move(types)), false, newtype);
  });
}

}  // namespace torus::mpi

extern "C" {

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0,
                      array_of_displacements, nullptr, oldtype, false};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_indexed");
}

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0,
                      array_of_displacements, nullptr, oldtype, false};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_create_hindexed");
}

int PMPI_Type_hindexed(int count, int array_of_blocklengths[],
                       MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0,
                      array_of_displacements, nullptr, oldtype, false};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_hindexed");
}

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_INDEXED_BLOCK, count, {}, blocklength,
                      array_of_displacements, nullptr, oldtype, false};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_create_indexed_block");
}

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_HINDEXED_BLOCK, count, {}, blocklength,
                      array_of_displacements, nullptr, oldtype, false};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_create_hindexed_block");
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_STRUCT, count, array_of_blocklengths, 0,
                      array_of_displacements, array_of_types, MPI_DATATYPE_NULL, false};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_create_struct");
}

int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_STRUCT, count, array_of_blocklengths, 0,
                      array_of_displacements, array_of_types, MPI_DATATYPE_NULL, false};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_struct");
}

TORUS_MPI_ALIAS(MPI_Type_indexed)
TORUS_MPI_ALIAS(MPI_Type_create_hindexed)
TORUS_MPI_ALIAS(MPI_Type_hindexed)
TORUS_MPI_ALIAS(MPI_Type_create_indexed_block)
TORUS_MPI_ALIAS(MPI_Type_create_hindexed_block)
TORUS_MPI_ALIAS(MPI_Type_create_struct)
TORUS_MPI_ALIAS(MPI_Type_struct)

}  // extern "C"
