// The large-count vector collectives (large_count_vec*.cpp): counts and displacements as the
// int call's arrays when every one fits an int (the common case), otherwise as per-peer
// types, each block at displacement 0 with its byte displacement inside its type, which
// go to a w-form or, for the calls that have none, to the int calls' own algorithms
// (large_count_vec_blocks.cpp): either way a process on this path meets processes that took
// the int call.
#pragma once

#include <vector>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/large_count.h"

namespace torus::mpi {

// n blocks: counts[i] elements of a type at displs[i] (elements of the type for a v-form,
// bytes for a w-form). Owns the types it makes.
class PeerBlocks {
 public:
  PeerBlocks() = default;
  PeerBlocks(const PeerBlocks&) = delete;
  PeerBlocks& operator=(const PeerBlocks&) = delete;
  ~PeerBlocks();

  // The error classes the int calls give: MPI_ERR_ARG for a missing array or a negative
  // displacement, MPI_ERR_COUNT for a negative count. A v-form's blocks, all of `type`:
  int init(int n, const MPI_Count* counts, const MPI_Aint* displs, MPI_Datatype type);
  // A w-form's, of types[i]; `int_displs` when the int call takes its displacements as ints
  // (MPI_Alltoallw; the neighborhood w-form takes MPI_Aint ones as they are).
  int init_w(int n, const MPI_Count* counts, const MPI_Aint* displs, const MPI_Datatype* types,
             bool int_displs);

  // Every count (and displacement the int call takes as an int) fits an int: counts() and
  // displs() are the int call's arrays.
  bool fits() const { return fits_; }
  // Otherwise the per-peer types: counts() and types() become the blocks (a count above
  // INT_MAX as one element of large_count.h's type), displs() and aint_displs() zeros.
  // MPI_ERR_TYPE for an invalid or uncommitted type under a non-zero count.
  int make_types();

  int size() const { return n_; }
  const int* counts() const { return icounts_.data(); }
  const int* displs() const { return idispls_.data(); }
  const MPI_Aint* aint_displs() const { return adispls_.data(); }
  const MPI_Datatype* types() const { return types_.data(); }

 private:
  int check(int n, const MPI_Count* counts, const MPI_Aint* displs, bool int_displs);

  int n_ = 0;
  const MPI_Count* counts_in_ = nullptr;
  const MPI_Aint* displs_in_ = nullptr;
  const MPI_Datatype* types_in_ = nullptr;  // one per block, or &one_ (one_type_)
  MPI_Datatype one_ = MPI_DATATYPE_NULL;
  bool one_type_ = false;
  bool fits_ = true;
  std::vector<int> icounts_, idispls_;
  std::vector<MPI_Aint> adispls_;
  std::vector<MPI_Datatype> types_;
  std::vector<MPI_Datatype> owned_;
};

// Counts of a reduce-scatter: MPI_ERR_ARG for a missing array, MPI_ERR_COUNT for a negative
// count; *fits and the int copies (small) when every one fits an int.
int reduce_scatter_counts(int n, const MPI_Count* counts, std::vector<int>* small, bool* fits);

// The calls without a w-form, on per-peer blocks (`b` after make_types()): their int
// twins' algorithms, blocking (request == nullptr) or behind a new request, errors raised as
// `fn`. Gatherv and Scatterv at the root only (the others' side is the int call's).
int gatherv_root(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, const PeerBlocks& b, int root, MPI_Request* request,
                 const char* fn);
int scatterv_root(Comm* c, const PeerBlocks& b, const void* sendbuf, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Request* request,
                  const char* fn);
int allgatherv_blocks(Comm* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                      void* recvbuf, const PeerBlocks& b, MPI_Request* request, const char* fn);
// counts: elements per local rank, some above INT_MAX.
int reduce_scatter_sizes(Comm* c, const void* sendbuf, void* recvbuf, const MPI_Count* counts,
                         MPI_Datatype type, MPI_Op op, MPI_Request* request, const char* fn);

}  // namespace torus::mpi
