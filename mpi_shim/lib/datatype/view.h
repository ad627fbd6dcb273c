// A user buffer of `count` elements of a datatype, seen as the contiguous bytes that travel:
// the user's memory itself when the type is dense (predefined types, contiguous derived
// ones), else a packed copy (sending) or a staging area unpacked once the data is in
// (receiving). Point-to-point and collectives move bytes; this is where types become bytes.
#pragma once

#include <cstddef>
#include <memory>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/datatype/datatype.h"

namespace torus::mpi {

// Bytes of `count` elements, or an MPI error class: MPI_ERR_TYPE for an invalid or
// uncommitted type, MPI_ERR_COUNT for a negative count.
int type_bytes(MPI_Datatype type, int count, size_t* bytes) noexcept;
// Data bytes per element of a committed type (what one element occupies in packed form, the
// unit the collective algorithms split and combine); 0 for an invalid or uncommitted one.
size_t type_packed_size(MPI_Datatype type) noexcept;

class SendView {
 public:
  // Packs when the type is not dense. Returns an MPI error code.
  int init(const void* buf, int count, MPI_Datatype type);
  // The same for a count already checked to be >= 0 (collectives: n blocks of count).
  int init_elements(const void* buf, size_t count, MPI_Datatype type);
  // For a type already resolved (and committed); what persistent requests keep.
  int init_typed(const void* buf, size_t count, const TypeInfo& type);
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
  int init_elements(void* buf, size_t count, MPI_Datatype type);
  // For a type already held (and committed), whether or not its handle was freed since.
  int init_held(void* buf, size_t count, TypeRef type);
  // init_elements for a type already looked up (and checked committed): `t` is type's.
  int init_resolved(void* buf, size_t count, MPI_Datatype type, const TypeInfo& t);
  void* data() const noexcept { return data_; }
  size_t bytes() const noexcept { return bytes_; }
  bool staged() const noexcept { return staging_ != nullptr; }
  // The receive brought `received` bytes (at most bytes()): unpacks them into the user's
  // buffer when staged. Call once.
  void finish(size_t received) noexcept;
  // Copies elements [first, first + count) of the user's buffer into their place in the
  // staging area (a collective's MPI_IN_PLACE: the data already there takes part). Nothing
  // to do when not staged.
  void pack_user(size_t first, size_t count) noexcept;

 private:
  void* user_ = nullptr;
  size_t count_ = 0;
  TypeRef type_;
  void* data_ = nullptr;
  size_t bytes_ = 0;
  std::unique_ptr<std::byte[]> staging_;
};

}  // namespace torus::mpi
