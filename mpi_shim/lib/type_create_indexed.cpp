// The irregular type constructors: MPI_Type_indexed, create_hindexed, create_indexed_block,
// create_hindexed_block, create_struct (and the MPI-1 MPI_Type_hindexed and MPI_Type_struct).
// Blocks of length 0 add nothing, not even bounds.
#include <vector>

#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/pmpi.h"
#include "mpi_shim/lib/type_layout.h"
#include "mpi_shim/lib/type_table.h"

using namespace torus::mpi;

namespace {

// Block i: blocklengths[i] (the *_block constructors: `blocklength`) copies of types[i] (a
// struct) or of oldtype at displacement i, counted in the old type's extent (int_displs:
// indexed, indexed_block) or in bytes (aint_displs). The combiner says which fields count.
struct Blocks {
  int combiner;
  int count;
  const int* blocklengths;
  int blocklength;
  const int* int_displs;
  const MPI_Aint* aint_displs;
  const MPI_Datatype* types;
  MPI_Datatype oldtype;

  bool one_length() const {
    return combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
  }
  bool in_extents() const {
    return combiner == MPI_COMBINER_INDEXED || combiner == MPI_COMBINER_INDEXED_BLOCK;
  }
  bool is_struct() const { return combiner == MPI_COMBINER_STRUCT; }
  int length(int i) const { return one_length() ? blocklength : blocklengths[i]; }
};

// The argument checks, with MPICH's error classes; fills `types` (one per block for a struct, else
// the old type) holding them for the new type's contents.
int check_blocks(const Blocks& in, std::vector<TypeRef>& types) {
  if (in.count < 0) return MPI_ERR_COUNT;
  if (in.one_length() && in.blocklength < 0) return MPI_ERR_COUNT;  // negative lengths: as MPICH
  if (in.count > 0 && ((!in.one_length() && !in.blocklengths) ||
                       (in.in_extents() ? !in.int_displs : !in.aint_displs) ||
                       (in.is_struct() && !in.types)))
    return MPI_ERR_ARG;
  for (int i = 0; i < in.count; ++i)
    if (in.length(i) < 0) return MPI_ERR_COUNT;
  const int n = in.is_struct() ? in.count : 1;
  for (int i = 0; i < n; ++i) {
    types.push_back(type_hold(in.is_struct() ? in.types[i] : in.oldtype));
    if (!types.back()) return MPI_ERR_TYPE;
  }
  return MPI_SUCCESS;
}

int make_indexed(const Blocks& in, MPI_Datatype* newtype) {
  return type_guarded([&] {
    std::vector<TypeRef> types;
    if (int e = check_blocks(in, types)) return e;
    if (!newtype) return MPI_ERR_ARG;
    LayoutBuilder b;
    for (int i = 0; i < in.count; ++i) {
      const TypeInfo& t = *types[in.is_struct() ? i : 0];
      const MPI_Aint disp = in.in_extents() ? in.int_displs[i] * t.extent : in.aint_displs[i];
      b.add(t, disp, static_cast<size_t>(in.length(i)));
    }
    // get_contents: count, the block length(s), the integer displacements; the byte ones in
    // the addresses; the old type, or every type of a struct.
    TypeContents c;
    c.combiner = in.combiner;
    c.ints.push_back(in.count);
    if (in.one_length()) c.ints.push_back(in.blocklength);
    else c.ints.insert(c.ints.end(), in.blocklengths, in.blocklengths + in.count);
    if (in.in_extents()) c.ints.insert(c.ints.end(), in.int_displs, in.int_displs + in.count);
    else c.aints.assign(in.aint_displs, in.aint_displs + in.count);
    c.types = std::move(types);
    return type_create(b.finish(in.is_struct()), std::move(c), false, newtype);
  });
}

}  // namespace

extern "C" {

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  const Blocks in{MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0,
                  array_of_displacements, nullptr, nullptr, oldtype};
  return check(nullptr, make_indexed(in, newtype), "MPI_Type_indexed");
}

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
  const Blocks in{MPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0, nullptr,
                  array_of_displacements, nullptr, oldtype};
  return check(nullptr, make_indexed(in, newtype), "MPI_Type_create_hindexed");
}

int PMPI_Type_hindexed(int count, int array_of_blocklengths[],
                       MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  const Blocks in{MPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0, nullptr,
                  array_of_displacements, nullptr, oldtype};
  return check(nullptr, make_indexed(in, newtype), "MPI_Type_hindexed");
}

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  const Blocks in{MPI_COMBINER_INDEXED_BLOCK, count, nullptr, blocklength,
                  array_of_displacements, nullptr, nullptr, oldtype};
  return check(nullptr, make_indexed(in, newtype), "MPI_Type_create_indexed_block");
}

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const Blocks in{MPI_COMBINER_HINDEXED_BLOCK, count, nullptr, blocklength, nullptr,
                  array_of_displacements, nullptr, oldtype};
  return check(nullptr, make_indexed(in, newtype), "MPI_Type_create_hindexed_block");
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  const Blocks in{MPI_COMBINER_STRUCT, count, array_of_blocklengths, 0, nullptr,
                  array_of_displacements, array_of_types, MPI_DATATYPE_NULL};
  return check(nullptr, make_indexed(in, newtype), "MPI_Type_create_struct");
}

int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  const Blocks in{MPI_COMBINER_STRUCT, count, array_of_blocklengths, 0, nullptr,
                  array_of_displacements, array_of_types, MPI_DATATYPE_NULL};
  return check(nullptr, make_indexed(in, newtype), "MPI_Type_struct");
}

TORUS_MPI_ALIAS(MPI_Type_indexed)
TORUS_MPI_ALIAS(MPI_Type_create_hindexed)
TORUS_MPI_ALIAS(MPI_Type_hindexed)
TORUS_MPI_ALIAS(MPI_Type_create_indexed_block)
TORUS_MPI_ALIAS(MPI_Type_create_hindexed_block)
TORUS_MPI_ALIAS(MPI_Type_create_struct)
TORUS_MPI_ALIAS(MPI_Type_struct)

}  // extern "C"
