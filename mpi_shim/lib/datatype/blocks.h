// The blocks of a vector collective (Gatherv, Scatterv, Allgatherv, Alltoallv, Alltoallw) as
// the byte counts and offsets the algorithms move: block i is counts[i] elements of a
// datatype at buf + displs[i] * extent (Alltoallw: of types[i] at buf + displs[i] bytes).
// When every block is of a dense type they are moved from the user's memory itself;
// otherwise through a staging area that holds the blocks packed one after the other in rank
// order.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/datatype/datatype.h"

namespace torus::mpi {

class TypeBlocks {
 public:
  // Return an MPI error code: MPI_ERR_TYPE (invalid or uncommitted type), MPI_ERR_COUNT (a
  // negative count), MPI_ERR_ARG (a negative displacement), MPI_ERR_NO_MEM.
  int init(const void* buf, int n, const int* counts, const int* displs, MPI_Datatype type);
  int init_w(const void* buf, int n, const int* counts, const MPI_Aint* byte_displs,
             const MPI_Datatype* types);
  // The same for MPI_Alltoallw's int displacements.
  int init_w(const void* buf, int n, const int* counts, const int* byte_displs,
             const MPI_Datatype* types);
  // The send side of an in-place Alltoallv/Alltoallw: a packed copy of the blocks `recv`
  // describes, taken now, before anything is received over them.
  int snapshot(const TypeBlocks& recv);
  // Base of the byte offsets: the user's buffer (dense types) or the staging area.
  std::byte* data() const noexcept { return data_; }
  const size_t* counts() const noexcept { return bytes_.data(); }
  const size_t* offsets() const noexcept { return offsets_.data(); }
  bool staged() const noexcept { return staging_ != nullptr; }
  // Staged only (no-ops otherwise): packs the user's block i into the staging area (a send
  // side, or the own block of MPI_IN_PLACE) / unpacks it into the user's buffer (a receive).
  void pack(int i) noexcept;
  void pack_all() noexcept;
  void unpack(int i) noexcept;
  void unpack_all() noexcept;

 private:
  struct Block {
    std::byte* addr = nullptr;  // where the user's elements start (element 0 at addr)
    size_t elements = 0;        // 0 for a block that needs no packing
    const TypeInfo* type = nullptr;
  };
  // Counts in bytes are set; places the blocks in the user's memory when every one of them
  // is dense there (offsets from `base`), otherwise packs them back to back in staging.
  int place(std::byte* base, const std::vector<MPI_Aint>& dense_offsets, bool dense);

  std::vector<Block> blocks_;
  std::vector<TypeRef> held_;  // the layouts blocks_ point to, alive while this lives
  std::vector<size_t> bytes_;
  std::vector<size_t> offsets_;
  std::byte* data_ = nullptr;
  std::unique_ptr<std::byte[]> staging_;
};

}  // namespace torus::mpi
