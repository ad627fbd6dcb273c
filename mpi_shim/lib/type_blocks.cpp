// Vector-collective blocks as bytes: dense types in place, others packed back to back.
#include "mpi_shim/lib/type_blocks.h"

#include <new>

namespace torus::mpi {

int TypeBlocks::init(const void* buf, int n, const int* counts, const int* displs,
                     MPI_Datatype type) {
  const TypeInfo* t = type_info(type);
  if (t == nullptr || !t->committed.load(std::memory_order_acquire)) return MPI_ERR_TYPE;
  const size_t nn = n > 0 ? size_t(n) : 0;
  bytes_.resize(nn);
  offsets_.resize(nn);
  size_t total = 0;
  for (size_t i = 0; i < nn; ++i) {
    if (counts[i] < 0) return MPI_ERR_COUNT;
    if (displs[i] < 0) return MPI_ERR_ARG;
    bytes_[i] = size_t(counts[i]) * t->size;
    total += bytes_[i];
  }
  user_ = static_cast<std::byte*>(const_cast<void*>(buf));
  if (t->contiguous || total == 0) {
    // Dense: extent == size, so the element offsets are byte offsets from the first data byte.
    data_ = user_ + t->true_lb;
    for (size_t i = 0; i < nn; ++i) offsets_[i] = size_t(displs[i]) * t->size;
    return MPI_SUCCESS;
  }
  staging_.reset(new (std::nothrow) std::byte[total]);
  if (!staging_) return MPI_ERR_NO_MEM;
  type_ = type_hold(type);
  elements_.resize(nn);
  displs_.resize(nn);
  for (size_t i = 0, at = 0; i < nn; ++i) {
    offsets_[i] = at;
    at += bytes_[i];
    elements_[i] = size_t(counts[i]);
    displs_[i] = MPI_Aint(displs[i]);
  }
  data_ = staging_.get();
  return MPI_SUCCESS;
}

void TypeBlocks::pack(int i) noexcept {
  const size_t k = size_t(i);
  if (!staging_ || elements_[k] == 0) return;
  type_pack(user_ + displs_[k] * type_->extent, elements_[k], *type_, data_ + offsets_[k]);
}

void TypeBlocks::unpack(int i) noexcept {
  const size_t k = size_t(i);
  if (!staging_ || elements_[k] == 0) return;
  (void)type_unpack(data_ + offsets_[k], bytes_[k], user_ + displs_[k] * type_->extent,
                    elements_[k], *type_);
}

void TypeBlocks::pack_all() noexcept {
  for (size_t i = 0; i < elements_.size(); ++i) pack(int(i));
}

void TypeBlocks::unpack_all() noexcept {
  for (size_t i = 0; i < elements_.size(); ++i) unpack(int(i));
}

}  // namespace torus::mpi
