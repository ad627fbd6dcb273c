// Packing and unpacking by a type's flattened blocks (type_pack/type_unpack for the library),
// and MPI_Pack, MPI_Unpack, MPI_Pack_size on top. The packed form is the data bytes in
// typemap order, nothing else, so packed bytes may travel as MPI_PACKED or MPI_BYTE.
#include <climits>
#include <cstdint>
#include <cstring>

#include "core/base/copy.h"
#include "mpi_shim/lib/comm.h"
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/pmpi.h"

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

// The checks MPI_Pack and MPI_Unpack share; sets *type and *bytes (count elements' data).
int check_pack(Comm* c, int count, MPI_Datatype datatype, const int* position, int size,
               const TypeInfo** type, size_t* bytes) {
  if (!c) return MPI_ERR_COMM;
  if (count < 0) return MPI_ERR_COUNT;
  const TypeInfo* t = type_info(datatype);
  if (!t || !t->committed) return MPI_ERR_TYPE;
  if (!position || *position < 0 || size < 0 || *position > size) return MPI_ERR_ARG;
  *type = t;
  *bytes = static_cast<size_t>(count) * t->size;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
              int* position, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  const TypeInfo* t = nullptr;
  size_t bytes = 0;
  if (int e = check_pack(c, incount, datatype, position, outsize, &t, &bytes))
    return raise_error(c, e, "MPI_Pack");
  // Not enough room in outbuf is MPI_ERR_ARG, as in MPICH.
  if (bytes > static_cast<size_t>(outsize - *position))
    return raise_error(c, MPI_ERR_ARG, "MPI_Pack");
  type_pack(inbuf, static_cast<size_t>(incount), *t, static_cast<std::byte*>(outbuf) + *position);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm) {
  Comm* c = comm_get(comm);
  const TypeInfo* t = nullptr;
  size_t bytes = 0;
  if (int e = check_pack(c, outcount, datatype, position, insize, &t, &bytes))
    return raise_error(c, e, "MPI_Unpack");
  // Fewer packed bytes than outcount elements need.
  if (bytes > static_cast<size_t>(insize - *position))
    return raise_error(c, MPI_ERR_TRUNCATE, "MPI_Unpack");
  type_unpack(static_cast<const std::byte*>(inbuf) + *position, bytes, outbuf,
              static_cast<size_t>(outcount), *t);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Pack_size");
  if (incount < 0) return raise_error(c, MPI_ERR_COUNT, "MPI_Pack_size");
  const TypeInfo* t = type_info(datatype);
  if (!t) return raise_error(c, MPI_ERR_TYPE, "MPI_Pack_size");
  if (!size) return raise_error(c, MPI_ERR_ARG, "MPI_Pack_size");
  const size_t bytes = static_cast<size_t>(incount) * t->size;
  if (bytes > INT_MAX) return raise_error(c, MPI_ERR_ARG, "MPI_Pack_size");
  *size = static_cast<int>(bytes);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Pack)
TORUS_MPI_ALIAS(MPI_Unpack)
TORUS_MPI_ALIAS(MPI_Pack_size)

}  // extern "C"
