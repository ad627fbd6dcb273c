// MPI 4.0's large-count external32 packing and buffered-mode calls: Pack_external_c,
// Unpack_external_c, Pack_external_size_c, Buffer_attach_c, Buffer_detach_c (Pack_c,
// Unpack_c and Pack_size_c share type_pack.cpp's code with the int forms). The external32
// calls take MPI_Aint sizes already: only their count is converted (large_count.h).
#include <climits>
#include <mutex>

#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/large_count.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

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

TORUS_MPI_ALIAS(MPI_Pack_external_c)
TORUS_MPI_ALIAS(MPI_Unpack_external_c)
TORUS_MPI_ALIAS(MPI_Pack_external_size_c)
TORUS_MPI_ALIAS(MPI_Buffer_attach_c)
TORUS_MPI_ALIAS(MPI_Buffer_detach_c)

}  // extern "C"
