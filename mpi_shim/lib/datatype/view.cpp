// Datatype buffers as bytes: dense types pass through, others are packed into (or unpacked
// from) a staging buffer of count * size bytes.
#include "mpi_shim/lib/datatype/view.h"

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

size_t type_packed_size(MPI_Datatype type) noexcept {
  const TypeInfo* t = type_info(type);
  return t && t->committed.load(std::memory_order_acquire) ? t->size : 0;
}

// One type lookup per message (the type_bytes + init_elements pair looked it up twice).
int SendView::init(const void* buf, int count, MPI_Datatype type) {
  const TypeInfo* t = type_info(type);
  if (t == nullptr || !t->committed.load(std::memory_order_acquire)) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  return init_typed(buf, static_cast<size_t>(count), *t);
}

int SendView::init_elements(const void* buf, size_t count, MPI_Datatype type) {
  const TypeInfo* t = type_info(type);
  if (t == nullptr || !t->committed.load(std::memory_order_acquire)) return MPI_ERR_TYPE;
  return init_typed(buf, count, *t);
}

int SendView::init_typed(const void* buf, size_t count, const TypeInfo& t) {
  bytes_ = t.size * count;
  if (dense(t) || bytes_ == 0) {
    data_ = static_cast<const std::byte*>(buf) + t.true_lb;
    return MPI_SUCCESS;
  }
  staging_ = staging(bytes_);
  if (!staging_) return MPI_ERR_NO_MEM;
  type_pack(buf, count, t, staging_.get());
  data_ = staging_.get();
  return MPI_SUCCESS;
}

int RecvView::init(void* buf, int count, MPI_Datatype type) {
  const TypeInfo* t = type_info(type);
  if (t == nullptr || !t->committed.load(std::memory_order_acquire)) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  return init_resolved(buf, static_cast<size_t>(count), type, *t);
}

int RecvView::init_elements(void* buf, size_t count, MPI_Datatype type) {
  const TypeInfo* t = type_info(type);
  if (t == nullptr || !t->committed.load(std::memory_order_acquire)) return MPI_ERR_TYPE;
  return init_resolved(buf, count, type, *t);
}

int RecvView::init_resolved(void* buf, size_t count, MPI_Datatype type, const TypeInfo& t) {
  if (dense(t) || t.size * count == 0) {  // no reference to take
    bytes_ = t.size * count;
    data_ = static_cast<std::byte*>(buf) + t.true_lb;
    return MPI_SUCCESS;
  }
  return init_held(buf, count, type_hold(type));
}

int RecvView::init_held(void* buf, size_t count, TypeRef type) {
  const TypeInfo& t = *type;
  bytes_ = t.size * count;
  if (dense(t) || bytes_ == 0) {
    data_ = static_cast<std::byte*>(buf) + t.true_lb;
    return MPI_SUCCESS;
  }
  staging_ = staging(bytes_);
  if (!staging_) return MPI_ERR_NO_MEM;
  type_ = std::move(type);
  user_ = buf;
  count_ = count;
  data_ = staging_.get();
  return MPI_SUCCESS;
}

void RecvView::finish(size_t received) noexcept {
  if (!staging_ || !type_) return;
  (void)type_unpack(staging_.get(), received < bytes_ ? received : bytes_, user_, count_, *type_);
  type_.reset();
}

void RecvView::pack_user(size_t first, size_t count) noexcept {
  if (!staging_ || !type_ || count == 0) return;
  const std::byte* from = static_cast<const std::byte*>(user_) +
                          static_cast<MPI_Aint>(first) * type_->extent;
  type_pack(from, count, *type_, staging_.get() + first * type_->size);
}

}  // namespace torus::mpi
