// A user buffer of `count` elements of a datatype, seen as the contiguous bytes that travel:
// the user's memory itself when the type is dense (predefined types, contiguous derived
// ones), else a packed copy (sending) or a staging area unpacked once the data is in
// (receiving). Point-to-point and collectives move bytes; this is where types become bytes.
#pragma once

#include <cstddef>
#include <memory>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/datatype.h"

namespace torus::mpi {

// Bytes of `count` elements, or an MPI error class: MPI_ERR_TYPE for an invalid or
// uncommitted type, MPI_ERR_COUNT for a negative count.
int type_bytes(MPI_Datatype type, int count, size_t* bytes) noexcept;

class SendView {
 public:
  // Packs when the type is not dense. Returns an MPI error code.
  int init(const void* buf, int count, MPI_Datatype type);
  const void* data() const noexcept { return data_; }
  size_t bytes() const noexcept { return bytes_; }
  bool staged() const noexcept { return staging_ != nullptr; }

 private:
  const void* data_ = nullptr;
  size_t bytes_ = 0;
  std::unique_ptr<std::byte[]> staging_;
};

class RecvView {
 public:
  // Returns an MPI error code. The type is held until finish(), so MPI_Type_free while the
  // receive is pending is safe.
  int init(void* buf, int count, MPI_Datatype type);
  void* data() const noexcept { return data_; }
  size_t bytes() const noexcept { return bytes_; }
  bool staged() const noexcept { return staging_ != nullptr; }
  // The receive brought `received` bytes (at most bytes()): unpacks them into the user's
  // buffer when staged. Call once.
  void finish(size_t received) noexcept;

 private:
  void* user_ = nullptr;
  size_t count_ = 0;
  TypeRef type_;
  void* data_ = nullptr;
  size_t bytes_ = 0;
  std::unique_ptr<std::byte[]> staging_;
};

}  // namespace torus::mpi
