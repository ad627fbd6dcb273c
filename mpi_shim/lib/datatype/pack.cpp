// Packing and unpacking by a type's flattened blocks (type_pack/type_unpack for the library),
// and MPI_Pack, MPI_Unpack, MPI_Pack_size and their large-count (_c) forms on top. The packed form is the data bytes in
// typemap order, nothing else, so packed bytes may travel as MPI_PACKED or MPI_BYTE.
#include <climits>
#include <cstdint>
#include <cstring>

#include "core/base/copy.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {
namespace {

// buf + offset by integer arithmetic: offsets may be negative, and with MPI_BOTTOM the buffer
// is null and the offsets are absolute addresses.
inline std::byte* at(const void* buf, MPI_Aint offset) {
  return reinterpret_cast<std::byte*>(reinterpret_cast<uintptr_t>(buf) +
                                      static_cast<uintptr_t>(offset));
}

}  // namespace

void type_pack(const void* inbuf, size_t count, const TypeInfo& type, void* out) noexcept {
  auto* dst = static_cast<std::byte*>(out);
  if (type.blocks.size() == 1) {
    const TypeBlock b = type.blocks[0];
    if (type.extent == b.length) {
      if (count > 0) copy_bytes(dst, at(inbuf, b.offset), count * static_cast<size_t>(b.length));
      return;
    }
    for (size_t i = 0; i < count; ++i, dst += b.length)
      copy_bytes(dst, at(inbuf, static_cast<MPI_Aint>(i) * type.extent + b.offset),
                  static_cast<size_t>(b.length));
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    const MPI_Aint base = static_cast<MPI_Aint>(i) * type.extent;
    for (const TypeBlock& b : type.blocks) {
      copy_bytes(dst, at(inbuf, base + b.offset), static_cast<size_t>(b.length));
      dst += b.length;
    }
  }
}

void type_pack(const void* inbuf, size_t count, MPI_Datatype type, void* out) noexcept {
  if (const TypeInfo* t = type_info(type)) type_pack(inbuf, count, *t, out);
}

size_t type_unpack(const void* in, size_t bytes, void* outbuf, size_t count,
                   const TypeInfo& type) noexcept {
  const size_t total = count * type.size;
  if (bytes > total) bytes = total;
  const auto* src = static_cast<const std::byte*>(in);
  if (type.blocks.size() == 1 && type.extent == type.blocks[0].length) {
    if (bytes > 0) copy_bytes(at(outbuf, type.blocks[0].offset), src, bytes);
    return bytes;
  }
  size_t left = bytes;
  for (size_t i = 0; i < count && left > 0; ++i) {
    const MPI_Aint base = static_cast<MPI_Aint>(i) * type.extent;
    for (const TypeBlock& b : type.blocks) {
      const size_t n = left < static_cast<size_t>(b.length) ? left : static_cast<size_t>(b.length);
      copy_bytes(at(outbuf, base + b.offset), src, n);
      src += n;
      left -= n;
      if (left == 0) break;
    }
  }
  return bytes;
}

size_t type_unpack(const void* in, size_t bytes, void* outbuf, size_t count,
                   MPI_Datatype type) noexcept {
  const TypeInfo* t = type_info(type);
  return t ? type_unpack(in, bytes, outbuf, count, *t) : 0;
}

}  // namespace torus::mpi

using namespace torus::mpi;

namespace {

// MPI_Pack and MPI_Pack_c (and the Unpack, Pack_size pairs) in one: sizes and positions as
// MPI_Count, which an int call's values widen to and its results fit back into (a packed
// size never passes the int buffer size that bounds it).
int pack(const void* inbuf, MPI_Count count, MPI_Datatype datatype, void* outbuf,
         MPI_Count outsize, MPI_Count* position, MPI_Comm comm, const char* fn) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, fn);
  if (count < 0) return raise_error(c, MPI_ERR_COUNT, fn);
  const TypeInfo* t = type_info(datatype);
  if (!t || !t->committed) return raise_error(c, MPI_ERR_TYPE, fn);
  if (!position || *position < 0 || outsize < 0 || *position > outsize)
    return raise_error(c, MPI_ERR_ARG, fn);
  const size_t bytes = static_cast<size_t>(count) * t->size;
  // Not enough room in outbuf is MPI_ERR_ARG, as in MPICH.
  if (bytes > static_cast<size_t>(outsize - *position)) return raise_error(c, MPI_ERR_ARG, fn);
  type_pack(inbuf, static_cast<size_t>(count), *t, static_cast<std::byte*>(outbuf) + *position);
  *position += static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}

int unpack(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
           MPI_Count count, MPI_Datatype datatype, MPI_Comm comm, const char* fn) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, fn);
  if (count < 0) return raise_error(c, MPI_ERR_COUNT, fn);
  const TypeInfo* t = type_info(datatype);
  if (!t || !t->committed) return raise_error(c, MPI_ERR_TYPE, fn);
  if (!position || *position < 0 || insize < 0 || *position > insize)
    return raise_error(c, MPI_ERR_ARG, fn);
  const size_t bytes = static_cast<size_t>(count) * t->size;
  // Fewer packed bytes than count elements need.
  if (bytes > static_cast<size_t>(insize - *position)) return raise_error(c, MPI_ERR_TRUNCATE, fn);
  type_unpack(static_cast<const std::byte*>(inbuf) + *position, bytes, outbuf,
              static_cast<size_t>(count), *t);
  *position += static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}

// `limit`: the largest size the call can return (INT_MAX for MPI_Pack_size).
int pack_size(MPI_Count count, MPI_Datatype datatype, MPI_Comm comm, MPI_Count limit,
              MPI_Count* size, const char* fn) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, fn);
  if (count < 0) return raise_error(c, MPI_ERR_COUNT, fn);
  const TypeInfo* t = type_info(datatype);
  if (!t) return raise_error(c, MPI_ERR_TYPE, fn);
  if (!size) return raise_error(c, MPI_ERR_ARG, fn);
  MPI_Count bytes = 0;
  if (__builtin_mul_overflow(count, static_cast<MPI_Count>(t->size), &bytes) || bytes > limit)
    return raise_error(c, MPI_ERR_ARG, fn);
  *size = bytes;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
              int* position, MPI_Comm comm) {
  MPI_Count at = position ? *position : 0;
  const int e = pack(inbuf, incount, datatype, outbuf, outsize, position ? &at : nullptr, comm,
                     "MPI_Pack");
  if (e == MPI_SUCCESS) *position = static_cast<int>(at);
  return e;
}

int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  return pack(inbuf, incount, datatype, outbuf, outsize, position, comm, "MPI_Pack_c");
}

int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm) {
  MPI_Count at = position ? *position : 0;
  const int e = unpack(inbuf, insize, position ? &at : nullptr, outbuf, outcount, datatype,
                       comm, "MPI_Unpack");
  if (e == MPI_SUCCESS) *position = static_cast<int>(at);
  return e;
}

int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  return unpack(inbuf, insize, position, outbuf, outcount, datatype, comm, "MPI_Unpack_c");
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  MPI_Count n = 0;
  const int e = pack_size(incount, datatype, comm, INT_MAX, size ? &n : nullptr, "MPI_Pack_size");
  if (e == MPI_SUCCESS) *size = static_cast<int>(n);
  return e;
}

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  return pack_size(incount, datatype, comm, INT64_MAX, size, "MPI_Pack_size_c");
}

TORUS_MPI_ALIAS(MPI_Pack)
TORUS_MPI_ALIAS(MPI_Pack_c)
TORUS_MPI_ALIAS(MPI_Unpack)
TORUS_MPI_ALIAS(MPI_Unpack_c)
TORUS_MPI_ALIAS(MPI_Pack_size)
TORUS_MPI_ALIAS(MPI_Pack_size_c)

}  // extern "C"
