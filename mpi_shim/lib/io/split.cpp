// Split collective data access (MPI_File_*_begin / *_end): the access runs in the begin call,
// as the blocking collective form does, and the end call hands back its status. One split
// access per file at a time, as the standard has it.
#include "mpi_shim/lib/io/file.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

template <typename Access>
int begin(MPI_File fh, const char* fn, Access&& access) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, fn);
  if (f->split_active) return raise_file(f, MPI_ERR_OTHER, fn);
  f->split_active = true;
  // The handler runs at the end call, which reports the outcome; here it is only kept.
  const MPI_Errhandler kept = f->errhandler;
  f->errhandler = MPI_ERRORS_RETURN;
  f->split_error = access(&f->split_status);
  f->errhandler = kept;
  return MPI_SUCCESS;
}

int end(MPI_File fh, MPI_Status* status, const char* fn) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, fn);
  if (!f->split_active) return raise_file(f, MPI_ERR_OTHER, fn);
  f->split_active = false;
  if (status != MPI_STATUS_IGNORE) *status = f->split_status;
  return check_file(f, f->split_error, fn);
}

}  // namespace

extern "C" {

int PMPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return begin(fh, "MPI_File_read_all_begin", [&](MPI_Status* st) {
    return PMPI_File_read_all(fh, buf, count, datatype, st);
  });
}

int PMPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return begin(fh, "MPI_File_write_all_begin", [&](MPI_Status* st) {
    return PMPI_File_write_all(fh, buf, count, datatype, st);
  });
}

int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                MPI_Datatype datatype) {
  return begin(fh, "MPI_File_read_at_all_begin", [&](MPI_Status* st) {
    return PMPI_File_read_at_all(fh, offset, buf, count, datatype, st);
  });
}

int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                 MPI_Datatype datatype) {
  return begin(fh, "MPI_File_write_at_all_begin", [&](MPI_Status* st) {
    return PMPI_File_write_at_all(fh, offset, buf, count, datatype, st);
  });
}

int PMPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return begin(fh, "MPI_File_read_ordered_begin", [&](MPI_Status* st) {
    return PMPI_File_read_ordered(fh, buf, count, datatype, st);
  });
}

int PMPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count,
                                  MPI_Datatype datatype) {
  return begin(fh, "MPI_File_write_ordered_begin", [&](MPI_Status* st) {
    return PMPI_File_write_ordered(fh, buf, count, datatype, st);
  });
}

int PMPI_File_read_all_end(MPI_File fh, void* /*buf*/, MPI_Status* status) {
  return end(fh, status, "MPI_File_read_all_end");
}
int PMPI_File_write_all_end(MPI_File fh, const void* /*buf*/, MPI_Status* status) {
  return end(fh, status, "MPI_File_write_all_end");
}
int PMPI_File_read_at_all_end(MPI_File fh, void* /*buf*/, MPI_Status* status) {
  return end(fh, status, "MPI_File_read_at_all_end");
}
int PMPI_File_write_at_all_end(MPI_File fh, const void* /*buf*/, MPI_Status* status) {
  return end(fh, status, "MPI_File_write_at_all_end");
}
int PMPI_File_read_ordered_end(MPI_File fh, void* /*buf*/, MPI_Status* status) {
  return end(fh, status, "MPI_File_read_ordered_end");
}
int PMPI_File_write_ordered_end(MPI_File fh, const void* /*buf*/, MPI_Status* status) {
  return end(fh, status, "MPI_File_write_ordered_end");
}

TORUS_MPI_ALIAS(MPI_File_read_all_begin)
TORUS_MPI_ALIAS(MPI_File_write_all_begin)
TORUS_MPI_ALIAS(MPI_File_read_at_all_begin)
TORUS_MPI_ALIAS(MPI_File_write_at_all_begin)
TORUS_MPI_ALIAS(MPI_File_read_ordered_begin)
TORUS_MPI_ALIAS(MPI_File_write_ordered_begin)
TORUS_MPI_ALIAS(MPI_File_read_all_end)
TORUS_MPI_ALIAS(MPI_File_write_all_end)
TORUS_MPI_ALIAS(MPI_File_read_at_all_end)
TORUS_MPI_ALIAS(MPI_File_write_at_all_end)
TORUS_MPI_ALIAS(MPI_File_read_ordered_end)
TORUS_MPI_ALIAS(MPI_File_write_ordered_end)

}  // extern "C"
