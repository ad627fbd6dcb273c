// A large (MPI_Count) count as the int count of a type the int calls take (large_count.cpp,
// io_large_count.cpp): the count itself when it fits, else one element of a derived type of
// 2^30-element chunks and the rest, which every path moves as any other type.
#pragma once

#include <climits>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {

constexpr MPI_Count kChunk = MPI_Count{1} << 30;

// A conversion's error class `e`, raised by `fn` through the communicator's handler.
inline int comm_error(MPI_Comm comm, int e, const char* fn) {
  return raise_error(comm_get(comm), e, fn);
}

// `count` elements of `type` as (count(), type()) for an int call; owns the type it made.
class BigCount {
 public:
  BigCount() = default;
  BigCount(const BigCount&) = delete;
  BigCount& operator=(const BigCount&) = delete;
  ~BigCount() {
    if (owned_) PMPI_Type_free(&type_);
  }

  // An MPI error class: MPI_ERR_COUNT for a negative count, and for a count above INT_MAX
  // of a type that is not dense (its flattened layout would hold a block per element);
  // MPI_ERR_TYPE for an invalid type.
  int init(MPI_Count count, MPI_Datatype type) {
    type_ = type;
    if (count < 0) return MPI_ERR_COUNT;
    if (count <= INT_MAX) {
      count_ = static_cast<int>(count);
      return MPI_SUCCESS;
    }
    const TypeInfo* t = type_info(type);
    if (!t || !t->committed) return MPI_ERR_TYPE;
    if (!t->contiguous || count / kChunk > INT_MAX) return MPI_ERR_COUNT;
    MPI_Datatype chunk = MPI_DATATYPE_NULL, bulk = MPI_DATATYPE_NULL, tail = MPI_DATATYPE_NULL;
    const MPI_Count n = count / kChunk, rest = count % kChunk;
    int e = PMPI_Type_contiguous(int(kChunk), type, &chunk);
    if (!e) e = PMPI_Type_contiguous(int(n), chunk, &bulk);
    if (!e && rest) e = PMPI_Type_contiguous(int(rest), type, &tail);
    MPI_Datatype whole = MPI_DATATYPE_NULL;
    if (!e && rest) {
      const int lengths[2] = {1, 1};
      const MPI_Aint displs[2] = {0, MPI_Aint(n * kChunk) * t->extent};
      const MPI_Datatype types[2] = {bulk, tail};
      e = PMPI_Type_create_struct(2, lengths, displs, types, &whole);
    } else if (!e) {
      e = PMPI_Type_dup(bulk, &whole);
    }
    if (!e) e = PMPI_Type_commit(&whole);
    for (MPI_Datatype* p : {&chunk, &bulk, &tail})
      if (*p != MPI_DATATYPE_NULL) PMPI_Type_free(p);
    if (e) return e;
    type_ = whole;
    owned_ = true;
    count_ = 1;
    return MPI_SUCCESS;
  }
  int count() const { return count_; }
  MPI_Datatype type() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  int count_ = 0;
  bool owned_ = false;
};

}  // namespace torus::mpi
