// Vector-collective blocks as bytes: dense types in place, others packed back to back.
#include "mpi_shim/lib/datatype/blocks.h"

#include <new>

#include "core/base/copy.h"

namespace torus::mpi {
namespace {

const TypeInfo* committed(MPI_Datatype type) {
  const TypeInfo* t = type_info(type);
  if (t == nullptr || !t->committed.load(std::memory_order_acquire)) return nullptr;
  return t;
}

}  // namespace

int TypeBlocks::init(const void* buf, int n, const int* counts, const int* displs,
                     MPI_Datatype type) {
  if (committed(type) == nullptr) return MPI_ERR_TYPE;
  held_.push_back(type_hold(type));
  const TypeInfo* t = held_.back().get();
  const size_t nn = n > 0 ? size_t(n) : 0;
  auto* user = static_cast<std::byte*>(const_cast<void*>(buf));
  blocks_.assign(nn, Block{});
  bytes_.assign(nn, 0);
  std::vector<MPI_Aint> dense(nn);
  for (size_t i = 0; i < nn; ++i) {
    if (counts[i] < 0) return MPI_ERR_COUNT;
    if (displs[i] < 0) return MPI_ERR_ARG;
    blocks_[i] = Block{user + MPI_Aint(displs[i]) * t->extent, size_t(counts[i]), t};
    bytes_[i] = size_t(counts[i]) * t->size;
    // Dense: extent == size, so the element offsets are byte offsets from the first data byte.
    dense[i] = MPI_Aint(displs[i]) * MPI_Aint(t->size);
  }
  return place(user + t->true_lb, dense, t->contiguous);
}

int TypeBlocks::init_w(const void* buf, int n, const int* counts, const int* byte_displs,
                       const MPI_Datatype* types) {
  std::vector<MPI_Aint> wide(byte_displs, byte_displs + (n > 0 && byte_displs ? n : 0));
  return init_w(buf, n, counts, wide.data(), types);
}

int TypeBlocks::init_w(const void* buf, int n, const int* counts, const MPI_Aint* byte_displs,
                       const MPI_Datatype* types) {
  const size_t nn = n > 0 ? size_t(n) : 0;
  auto* user = static_cast<std::byte*>(const_cast<void*>(buf));
  blocks_.assign(nn, Block{});
  bytes_.assign(nn, 0);
  std::vector<MPI_Aint> dense(nn);
  bool all_dense = true;
  for (size_t i = 0; i < nn; ++i) {
    if (committed(types[i]) == nullptr) return MPI_ERR_TYPE;
    if (i == 0 || types[i] != types[i - 1]) held_.push_back(type_hold(types[i]));
    const TypeInfo* t = held_.back().get();
    if (counts[i] < 0) return MPI_ERR_COUNT;
    if (byte_displs[i] < 0) return MPI_ERR_ARG;
    blocks_[i] = Block{user + byte_displs[i], size_t(counts[i]), t};
    bytes_[i] = size_t(counts[i]) * t->size;
    dense[i] = byte_displs[i] + t->true_lb;
    if (!t->contiguous || (dense[i] < 0 && bytes_[i])) all_dense = false;
  }
  return place(user, dense, all_dense);
}

int TypeBlocks::place(std::byte* base, const std::vector<MPI_Aint>& dense_offsets,
                      bool dense) {
  const size_t nn = blocks_.size();
  offsets_.assign(nn, 0);
  size_t total = 0;
  for (size_t b : bytes_) total += b;
  if (dense || total == 0) {
    data_ = base;
    for (size_t i = 0; i < nn; ++i) {
      offsets_[i] = bytes_[i] ? size_t(dense_offsets[i]) : 0;
      blocks_[i].elements = 0;  // nothing to pack
    }
    return MPI_SUCCESS;
  }
  staging_.reset(new (std::nothrow) std::byte[total]);
  if (!staging_) return MPI_ERR_NO_MEM;
  for (size_t i = 0, at = 0; i < nn; ++i) {
    offsets_[i] = at;
    at += bytes_[i];
  }
  data_ = staging_.get();
  return MPI_SUCCESS;
}

int TypeBlocks::snapshot(const TypeBlocks& recv) {
  const size_t nn = recv.blocks_.size();
  blocks_.assign(nn, Block{});  // the copy is the data: nothing to pack later
  bytes_ = recv.bytes_;
  offsets_.assign(nn, 0);
  size_t total = 0;
  for (size_t i = 0; i < nn; ++i) {
    offsets_[i] = total;
    total += bytes_[i];
  }
  staging_.reset(new (std::nothrow) std::byte[total > 0 ? total : 1]);
  if (!staging_) return MPI_ERR_NO_MEM;
  data_ = staging_.get();
  for (size_t i = 0; i < nn; ++i) {
    if (bytes_[i] == 0) continue;
    const Block& b = recv.blocks_[i];
    if (b.elements) type_pack(b.addr, b.elements, *b.type, data_ + offsets_[i]);
    else copy_bytes(data_ + offsets_[i], recv.data_ + recv.offsets_[i], bytes_[i]);
  }
  return MPI_SUCCESS;
}

void TypeBlocks::pack(int i) noexcept {
  const Block& b = blocks_[size_t(i)];
  if (!staging_ || b.elements == 0) return;
  type_pack(b.addr, b.elements, *b.type, data_ + offsets_[size_t(i)]);
}

void TypeBlocks::unpack(int i) noexcept {
  const Block& b = blocks_[size_t(i)];
  if (!staging_ || b.elements == 0) return;
  (void)type_unpack(data_ + offsets_[size_t(i)], bytes_[size_t(i)], b.addr, b.elements,
                    *b.type);
}

void TypeBlocks::pack_all() noexcept {
  for (size_t i = 0; i < blocks_.size(); ++i) pack(int(i));
}

void TypeBlocks::unpack_all() noexcept {
  for (size_t i = 0; i < blocks_.size(); ++i) unpack(int(i));
}

}  // namespace torus::mpi
