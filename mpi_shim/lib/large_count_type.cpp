// MPI 4.0's large-count type constructors (MPI_Type_contiguous_c ... create_resized_c). They
// run the int constructors' bodies (type_create.h) with 64-bit arguments, so a count above
// INT_MAX builds the same layout an int count would, as long as it multiplies one dense block
// (more pieces than INT_MAX cannot be flattened: MPI_ERR_COUNT). Their arguments are kept as
// large counts, which only MPI_Type_get_envelope_c / get_contents_c report.
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/datatype/create.h"

using namespace torus::mpi;

extern "C" {

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  TypeContents c{MPI_COMBINER_CONTIGUOUS, {}, {}, {}, {count}};
  // One block of count copies.
  const int e = count < 0 ? MPI_ERR_COUNT
                          : type_make_vector(1, count, 0, false, oldtype, newtype, std::move(c));
  return check(nullptr, e, "MPI_Type_contiguous_c");
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype* newtype) {
  TypeContents c{MPI_COMBINER_VECTOR, {}, {}, {}, {count, blocklength, stride}};
  return check(nullptr, type_make_vector(count, blocklength, stride, true, oldtype, newtype,
                                         std::move(c)),
               "MPI_Type_vector_c");
}

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  TypeContents c{MPI_COMBINER_HVECTOR, {}, {}, {}, {count, blocklength, stride}};
  return check(nullptr, type_make_vector(count, blocklength, stride, false, oldtype, newtype,
                                         std::move(c)),
               "MPI_Type_create_hvector_c");
}

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0,
                      array_of_displacements, nullptr, oldtype, true};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_indexed_c");
}

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0,
                      array_of_displacements, nullptr, oldtype, true};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_create_hindexed_c");
}

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_INDEXED_BLOCK, count, {}, blocklength,
                      array_of_displacements, nullptr, oldtype, true};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_create_indexed_block_c");
}

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_HINDEXED_BLOCK, count, {}, blocklength,
                      array_of_displacements, nullptr, oldtype, true};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_create_hindexed_block_c");
}

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  const TypeBlockArgs in{MPI_COMBINER_STRUCT, count, array_of_blocklengths, 0,
                      array_of_displacements, array_of_types, MPI_DATATYPE_NULL, true};
  return check(nullptr, type_make_blocks(in, newtype), "MPI_Type_create_struct_c");
}

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order,
                                MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return check(nullptr,
               type_make_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                                  order, oldtype, newtype, true),
               "MPI_Type_create_subarray_c");
}

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
  return check(nullptr,
               type_make_darray(size, rank, ndims, array_of_gsizes, array_of_distribs,
                                array_of_dargs, array_of_psizes, order, oldtype, newtype, true),
               "MPI_Type_create_darray_c");
}

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype* newtype) {
  return check(nullptr, type_make_resized(oldtype, lb, extent, newtype, true),
               "MPI_Type_create_resized_c");
}

TORUS_MPI_ALIAS(MPI_Type_contiguous_c)
TORUS_MPI_ALIAS(MPI_Type_vector_c)
TORUS_MPI_ALIAS(MPI_Type_create_hvector_c)
TORUS_MPI_ALIAS(MPI_Type_indexed_c)
TORUS_MPI_ALIAS(MPI_Type_create_hindexed_c)
TORUS_MPI_ALIAS(MPI_Type_create_indexed_block_c)
TORUS_MPI_ALIAS(MPI_Type_create_hindexed_block_c)
TORUS_MPI_ALIAS(MPI_Type_create_struct_c)
TORUS_MPI_ALIAS(MPI_Type_create_subarray_c)
TORUS_MPI_ALIAS(MPI_Type_create_darray_c)
TORUS_MPI_ALIAS(MPI_Type_create_resized_c)

}  // extern "C"
