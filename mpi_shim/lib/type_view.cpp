// Datatype buffers as bytes: dense types pass through, others are packed into (or unpacked
// from) a staging buffer of count * size bytes.
#include "mpi_shim/lib/type_view.h"

#include <new>

namespace torus::mpi {
namespace {

// The dense case of a type: count elements are [buf + true_lb, + count * size).
bool dense(const TypeInfo& t) noexcept { return t.contiguous; }

std::unique_ptr<std::byte[]> staging(size_t bytes) {
  // Value-initialisation is not needed: every byte is written by pack before use, and a
  // receive overwrites what it unpacks.
  return std::unique_ptr<std::byte[]>(new (std::nothrow) std::byte[bytes ? bytes : 1]);
}

}  // namespace

int type_bytes(MPI_Datatype type, int count, size_t* bytes) noexcept {
  const TypeInfo* t = type_info(type);
  if (t == nullptr || !t->committed.load(std::memory_order_acquire)) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  *bytes = t->size * static_cast<size_t>(count);
  return MPI_SUCCESS;
}

int SendView::init(const void* buf, int count, MPI_Datatype type) {
  if (int e = type_bytes(type, count, &bytes_)) return e;
  const TypeInfo* t = type_info(type);
  if (dense(*t) || bytes_ == 0) {
    data_ = static_cast<const std::byte*>(buf) + t->true_lb;
    return MPI_SUCCESS;
  }
  staging_ = staging(bytes_);
  if (!staging_) return MPI_ERR_NO_MEM;
  type_pack(buf, static_cast<size_t>(count), *t, staging_.get());
  data_ = staging_.get();
  return MPI_SUCCESS;
}

int RecvView::init(void* buf, int count, MPI_Datatype type) {
  if (int e = type_bytes(type, count, &bytes_)) return e;
  const TypeInfo* t = type_info(type);
  if (dense(*t) || bytes_ == 0) {
    data_ = static_cast<std::byte*>(buf) + t->true_lb;
    return MPI_SUCCESS;
  }
  staging_ = staging(bytes_);
  if (!staging_) return MPI_ERR_NO_MEM;
  type_ = type_hold(type);
  user_ = buf;
  count_ = static_cast<size_t>(count);
  data_ = staging_.get();
  return MPI_SUCCESS;
}

void RecvView::finish(size_t received) noexcept {
  if (!staging_ || !type_) return;
  (void)type_unpack(staging_.get(), received < bytes_ ? received : bytes_, user_, count_, *type_);
  type_.reset();
}

}  // namespace torus::mpi
