// MPI 4.0's large-count packing and buffered-mode calls: Pack_c, Unpack_c, Pack_size_c, the
// external32 ones, Buffer_attach_c, Buffer_detach_c. Pack_c and Unpack_c take the int call
// when count, size and position fit an int, else pack by the type's layout themselves with
// its checks (type_pack.cpp); Pack_size_c computes the size, which may not fit an int even
// when the count does. The external32 calls take MPI_Aint sizes already: only their count
// is converted (large_count.h).
#include <climits>
#include <mutex>

#include "mpi_shim/lib/comm.h"
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/large_count.h"
#include "mpi_shim/lib/pmpi.h"

using namespace torus::mpi;

namespace {

bool in_int(MPI_Count v) { return v >= 0 && v <= INT_MAX; }

// type_pack.cpp's checks on MPI_Count sizes; sets *t and *bytes (count elements' data).
int check_pack(Comm* c, MPI_Count count, MPI_Datatype datatype, const MPI_Count* position,
               MPI_Count size, const TypeInfo** t, size_t* bytes) {
  if (!c) return MPI_ERR_COMM;
  if (count < 0) return MPI_ERR_COUNT;
  *t = type_info(datatype);
  if (!*t || !(*t)->committed) return MPI_ERR_TYPE;
  if (!position || *position < 0 || size < 0 || *position > size) return MPI_ERR_ARG;
  *bytes = size_t(count) * (*t)->size;
  return MPI_SUCCESS;
}

// bsend.cpp keeps the attached size as an int: a larger buffer is attached as its first
// INT_MAX bytes, and Buffer_detach_c hands back the size the user gave.
struct Attached {
  std::mutex mutex;
  void* base = nullptr;
  MPI_Count size = 0;
};
Attached g_attached;

}  // namespace

extern "C" {

int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  if (position && in_int(incount) && in_int(outsize) && in_int(*position)) {
    int at = int(*position);
    const int e = PMPI_Pack(inbuf, int(incount), datatype, outbuf, int(outsize), &at, comm);
    if (e == MPI_SUCCESS) *position = at;
    return e;
  }
  Comm* c = comm_get(comm);
  const TypeInfo* t = nullptr;
  size_t bytes = 0;
  if (int e = check_pack(c, incount, datatype, position, outsize, &t, &bytes))
    return raise_error(c, e, "MPI_Pack_c");
  if (bytes > size_t(outsize - *position)) return raise_error(c, MPI_ERR_ARG, "MPI_Pack_c");
  type_pack(inbuf, size_t(incount), *t, static_cast<std::byte*>(outbuf) + *position);
  *position += MPI_Count(bytes);
  return MPI_SUCCESS;
}

int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  if (position && in_int(insize) && in_int(outcount) && in_int(*position)) {
    int at = int(*position);
    const int e = PMPI_Unpack(inbuf, int(insize), &at, outbuf, int(outcount), datatype, comm);
    if (e == MPI_SUCCESS) *position = at;
    return e;
  }
  Comm* c = comm_get(comm);
  const TypeInfo* t = nullptr;
  size_t bytes = 0;
  if (int e = check_pack(c, outcount, datatype, position, insize, &t, &bytes))
    return raise_error(c, e, "MPI_Unpack_c");
  if (bytes > size_t(insize - *position)) return raise_error(c, MPI_ERR_TRUNCATE, "MPI_Unpack_c");
  type_unpack(static_cast<const std::byte*>(inbuf) + *position, bytes, outbuf, size_t(outcount),
              *t);
  *position += MPI_Count(bytes);
  return MPI_SUCCESS;
}

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Pack_size_c");
  if (incount < 0) return raise_error(c, MPI_ERR_COUNT, "MPI_Pack_size_c");
  const TypeInfo* t = type_info(datatype);
  if (!t) return raise_error(c, MPI_ERR_TYPE, "MPI_Pack_size_c");
  if (!size) return raise_error(c, MPI_ERR_ARG, "MPI_Pack_size_c");
  MPI_Count bytes = 0;
  if (__builtin_mul_overflow(incount, MPI_Count(t->size), &bytes))
    return raise_error(c, MPI_ERR_ARG, "MPI_Pack_size_c");
  *size = bytes;
  return MPI_SUCCESS;
}

// MPI_Count and MPI_Aint are the same type (long), so sizes and positions pass as they are.
int PMPI_Pack_external_c(const char* datarep, const void* inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                         MPI_Count* position) {
  BigCount a;
  if (int e = a.init(incount, datatype)) return raise_error(nullptr, e, "MPI_Pack_external_c");
  return PMPI_Pack_external(datarep, inbuf, a.count(), a.type(), outbuf, outsize, position);
}

int PMPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize,
                           MPI_Count* position, void* outbuf, MPI_Count outcount,
                           MPI_Datatype datatype) {
  BigCount a;
  if (int e = a.init(outcount, datatype))
    return raise_error(nullptr, e, "MPI_Unpack_external_c");
  return PMPI_Unpack_external(datarep, inbuf, insize, position, outbuf, a.count(), a.type());
}

int PMPI_Pack_external_size_c(const char* datarep, MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count* size) {
  BigCount a;
  if (int e = a.init(incount, datatype))
    return raise_error(nullptr, e, "MPI_Pack_external_size_c");
  return PMPI_Pack_external_size(datarep, a.count(), a.type(), size);
}

int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  if (size < 0) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Buffer_attach_c");
  std::lock_guard lock(g_attached.mutex);
  const int e = PMPI_Buffer_attach(buffer, size > INT_MAX ? INT_MAX : int(size));
  if (e == MPI_SUCCESS) {
    g_attached.base = buffer;
    g_attached.size = size;
  }
  return e;
}

int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  if (!buffer_addr || !size) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Buffer_detach_c");
  std::lock_guard lock(g_attached.mutex);
  int attached = 0;
  const int e = PMPI_Buffer_detach(buffer_addr, &attached);
  if (e != MPI_SUCCESS) return e;
  void* base = *static_cast<void**>(buffer_addr);
  // Attached here, not by MPI_Buffer_attach since: the size given then.
  *size = base && base == g_attached.base && attached == INT_MAX ? g_attached.size : attached;
  g_attached.base = nullptr;
  g_attached.size = 0;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Pack_c)
TORUS_MPI_ALIAS(MPI_Unpack_c)
TORUS_MPI_ALIAS(MPI_Pack_size_c)
TORUS_MPI_ALIAS(MPI_Pack_external_c)
TORUS_MPI_ALIAS(MPI_Unpack_external_c)
TORUS_MPI_ALIAS(MPI_Pack_external_size_c)
TORUS_MPI_ALIAS(MPI_Buffer_attach_c)
TORUS_MPI_ALIAS(MPI_Buffer_detach_c)

}  // extern "C"
