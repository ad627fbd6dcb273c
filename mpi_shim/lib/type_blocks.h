// The blocks of a vector collective (Gatherv, Scatterv, Allgatherv, Alltoallv) as the byte
// counts and offsets the algorithms move: block i is counts[i] elements of a datatype at
// buf + displs[i] * extent. A dense type is moved from the user's memory itself; any other
// through a staging area that holds the blocks packed one after the other in rank order.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/datatype.h"

namespace torus::mpi {

class TypeBlocks {
 public:
  // Returns an MPI error code: MPI_ERR_TYPE (invalid or uncommitted type), MPI_ERR_COUNT (a
  // negative count), MPI_ERR_ARG (a negative displacement), MPI_ERR_NO_MEM.
  int init(const void* buf, int n, const int* counts, const int* displs, MPI_Datatype type);
  // Base of the byte offsets: the user's buffer (dense type) or the staging area.
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
  std::byte* user_ = nullptr;
  TypeRef type_;
  std::vector<size_t> elements_;
  std::vector<MPI_Aint> displs_;
  std::vector<size_t> bytes_;
  std::vector<size_t> offsets_;
  std::byte* data_ = nullptr;
  std::unique_ptr<std::byte[]> staging_;
};

}  // namespace torus::mpi
