// The constructors' bodies, shared by the int calls (create*.cpp) and their MPI_Count
// forms (large_count_type.cpp): both read their arrays through WideArray, and the caller says
// whether get_contents reports the counts as ints or as large counts (`large`).
// Each returns an MPI error class; the caller raises it under its own name.
#pragma once

#include <cstddef>

#include "mpi_shim/lib/datatype/datatype.h"

namespace torus::mpi {

// An argument array of int (the int calls) or of MPI_Count / MPI_Aint (the _c calls; both
// are long in our mpi.h).
class WideArray {
 public:
  WideArray() = default;
  // Implicit, so that the calls pass their arrays as they are.
  WideArray(const int* a) : narrow_(a) {}
  WideArray(const long* a) : wide_(a) {}
  MPI_Count operator[](size_t i) const { return narrow_ ? narrow_[i] : wide_[i]; }
  bool null() const { return !narrow_ && !wide_; }

 private:
  const int* narrow_ = nullptr;
  const long* wide_ = nullptr;
};

// count blocks of blocklength copies of oldtype, block i at i * stride (bytes, or old
// extents when stride_in_elements); `contents` is what get_contents reports.
int type_make_vector(MPI_Count count, MPI_Count blocklength, MPI_Aint stride,
                     bool stride_in_elements, MPI_Datatype oldtype, MPI_Datatype* newtype,
                     TypeContents contents);

// oldtype with the bounds lb and lb + extent; `large`: get_contents reports them as large
// counts (MPI_Type_create_resized_c), else as addresses.
int type_make_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                      MPI_Datatype* newtype, bool large);

// The indexed family and struct. Block i: blocklengths[i] (the *_BLOCK combiners:
// `blocklength`) copies of types[i] (STRUCT) or of oldtype at displs[i], in old extents
// (INDEXED, INDEXED_BLOCK) or in bytes. The combiner says which fields count.
struct TypeBlockArgs {
  int combiner;
  MPI_Count count;
  WideArray blocklengths;
  MPI_Count blocklength;
  WideArray displs;
  const MPI_Datatype* types;
  MPI_Datatype oldtype;
  bool large;  // a _c call: every count and displacement is a large count in get_contents
};
int type_make_blocks(const TypeBlockArgs& in, MPI_Datatype* newtype);

// MPI_Type_create_subarray and MPI_Type_create_darray with their sizes as MPI_Count.
int type_make_subarray(int ndims, WideArray sizes, WideArray subsizes, WideArray starts,
                       int order, MPI_Datatype oldtype, MPI_Datatype* newtype, bool large);
int type_make_darray(int size, int rank, int ndims, WideArray gsizes, const int distribs[],
                     const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                     MPI_Datatype* newtype, bool large);

}  // namespace torus::mpi
