// File views (MPI_File_set_view/get_view) and the individual file pointer (seek, position,
// byte offset): where a process's data stream lies in the file.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "mpi_shim/lib/datatype/table.h"
#include "mpi_shim/lib/io/file.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {
namespace {

bool dense(const TypeInfo& t) {
  return t.blocks.size() <= 1 && t.extent == MPI_Aint(t.size) &&
         (t.blocks.empty() || t.blocks[0].offset == 0);
}

// A filetype the standard allows: committed, made of whole etypes, its blocks at
// non-negative, non-decreasing displacements (each byte of the file seen at most once).
int filetype_check(const TypeInfo& etype, const TypeInfo& ft) {
  if (!ft.committed || !etype.committed) return MPI_ERR_TYPE;
  if (etype.size == 0 || ft.size == 0 || ft.size % etype.size != 0 || ft.extent <= 0)
    return MPI_ERR_TYPE;
  MPI_Aint end = 0;
  for (const TypeBlock& b : ft.blocks) {
    if (b.offset < end) return MPI_ERR_TYPE;
    end = b.offset + b.length;
  }
  return end <= ft.extent ? MPI_SUCCESS : MPI_ERR_TYPE;
}

// A handle for a type the view holds: predefined ones as they are, derived ones as a new
// duplicate the caller frees (the program may have freed its own handle since).
int handle_for(const TypeRef& t, MPI_Datatype held, MPI_Datatype* out) {
  if (t->predefined != MPI_DATATYPE_NULL) {
    *out = held;
    return MPI_SUCCESS;
  }
  TypeLayout layout = *t;
  return type_create(std::move(layout), TypeContents{MPI_COMBINER_DUP, {}, {}, {t}}, true, out);
}

int position_of(File& f, MPI_Offset offset, int whence, MPI_Offset current, MPI_Offset* out) {
  MPI_Offset base = 0;
  if (whence == MPI_SEEK_CUR) {
    base = current;
  } else if (whence == MPI_SEEK_END) {
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) return file_errno_class(errno);
    base = view_end(f, st.st_size);
  } else if (whence != MPI_SEEK_SET) {
    return MPI_ERR_ARG;
  }
  if (base + offset < 0) return MPI_ERR_ARG;
  *out = base + offset;
  return MPI_SUCCESS;
}

}  // namespace

std::vector<FileRun> view_runs(const File& f, MPI_Offset pos, size_t bytes) {
  std::vector<FileRun> runs;
  const TypeInfo& ft = *f.filetype;
  auto add = [&runs](MPI_Offset off, size_t len) {
    if (len == 0) return;
    if (!runs.empty() && runs.back().off + MPI_Offset(runs.back().len) == off)
      runs.back().len += len;
    else
      runs.push_back({off, len});
  };
  if (dense(ft)) {
    add(f.disp + pos, bytes);
    return runs;
  }
  const MPI_Offset size = MPI_Offset(ft.size);
  MPI_Offset element = pos / size, skip = pos % size;
  while (bytes > 0) {
    const MPI_Offset base = f.disp + element * ft.extent;
    for (const TypeBlock& b : ft.blocks) {
      if (bytes == 0) break;
      if (skip >= b.length) {
        skip -= b.length;
        continue;
      }
      const size_t len = std::min(size_t(b.length - skip), bytes);
      add(base + b.offset + skip, len);
      bytes -= len;
      skip = 0;
    }
    ++element;
  }
  return runs;
}

MPI_Offset view_end(const File& f, MPI_Offset file_size) {
  if (file_size <= f.disp) return 0;
  const TypeInfo& ft = *f.filetype;
  const MPI_Offset span = file_size - f.disp;
  MPI_Offset data = 0;
  if (dense(ft)) {
    data = span;
  } else {
    data = (span / ft.extent) * MPI_Offset(ft.size);
    const MPI_Offset rest = span % ft.extent;
    for (const TypeBlock& b : ft.blocks)
      data += std::clamp<MPI_Offset>(rest - b.offset, 0, b.length);
  }
  return data / MPI_Offset(f.esize);
}

}  // namespace torus::mpi

using namespace torus::mpi;

extern "C" {

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char* datarep, MPI_Info info) {
  constexpr const char* fn = "MPI_File_set_view";
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, fn);
  if (!datarep) return raise_file(f, MPI_ERR_ARG, fn);
  // Data is written as it is in memory: "native" only ("internal" is the same here).
  if (std::strcmp(datarep, "native") != 0 && std::strcmp(datarep, "internal") != 0)
    return raise_file(f, MPI_ERR_UNSUPPORTED_DATAREP, fn);
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    // Only with MPI_MODE_SEQUENTIAL; the view starts at the shared pointer's byte.
    if (!(f->amode & MPI_MODE_SEQUENTIAL)) return raise_file(f, MPI_ERR_ARG, fn);
    int err = MPI_SUCCESS;
    const MPI_Offset at = shared_fetch_add(*f, 0, &err);
    if (at < 0) return raise_file(f, err, fn);
    disp = view_runs(*f, at * MPI_Offset(f->esize), 1).front().off;
  }
  if (disp < 0) return raise_file(f, MPI_ERR_ARG, fn);
  TypeRef e = type_hold(etype), t = type_hold(filetype);
  if (!e || !t) return raise_file(f, MPI_ERR_TYPE, fn);
  if (int err = filetype_check(*e, *t)) return raise_file(f, err, fn);
  {
    std::lock_guard lock(f->mutex);
    f->disp = disp;
    f->etype = std::move(e);
    f->filetype = std::move(t);
    f->etype_handle = etype;
    f->filetype_handle = filetype;
    f->esize = f->etype->size;
    f->position = 0;
  }
  if (info != MPI_INFO_NULL) (void)PMPI_File_set_info(fh, info);
  // Collective: the shared pointer goes back to the view's start too, once everyone is here.
  if (int err = PMPI_Barrier(f->comm)) return raise_file(f, err, fn);
  int err = f->rank == 0 ? shared_store(*f, 0) : MPI_SUCCESS;
  PMPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
  return check_file(f, err, fn);
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype,
                       char* datarep) {
  constexpr const char* fn = "MPI_File_get_view";
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, fn);
  if (!disp || !etype || !filetype || !datarep) return raise_file(f, MPI_ERR_ARG, fn);
  std::lock_guard lock(f->mutex);
  *disp = f->disp;
  if (int e = handle_for(f->etype, f->etype_handle, etype)) return raise_file(f, e, fn);
  if (int e = handle_for(f->filetype, f->filetype_handle, filetype)) return raise_file(f, e, fn);
  std::strcpy(datarep, "native");
  return MPI_SUCCESS;
}

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_get_type_extent");
  const TypeInfo* t = type_info(datatype);
  if (!t) return raise_file(f, MPI_ERR_TYPE, "MPI_File_get_type_extent");
  if (!extent) return raise_file(f, MPI_ERR_ARG, "MPI_File_get_type_extent");
  *extent = t->extent;  // "native": as in memory
  return MPI_SUCCESS;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_seek");
  if (f->amode & MPI_MODE_SEQUENTIAL)
    return raise_file(f, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_seek");
  std::lock_guard lock(f->mutex);
  MPI_Offset to = 0;
  if (int e = position_of(*f, offset, whence, f->position, &to))
    return raise_file(f, e, "MPI_File_seek");
  f->position = to;
  return MPI_SUCCESS;
}

int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_get_position");
  if (!offset) return raise_file(f, MPI_ERR_ARG, "MPI_File_get_position");
  std::lock_guard lock(f->mutex);
  *offset = f->position;
  return MPI_SUCCESS;
}

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_get_byte_offset");
  if (offset < 0 || !disp) return raise_file(f, MPI_ERR_ARG, "MPI_File_get_byte_offset");
  std::lock_guard lock(f->mutex);
  *disp = view_runs(*f, offset * MPI_Offset(f->esize), 1).front().off;
  return MPI_SUCCESS;
}

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  constexpr const char* fn = "MPI_File_seek_shared";
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, fn);
  // Collective, every process with the same arguments: rank 0 moves the pointer, and no one
  // returns before it has.
  int err = MPI_SUCCESS;
  if (f->rank == 0) {
    MPI_Offset current = shared_fetch_add(*f, 0, &err);
    MPI_Offset to = 0;
    if (current >= 0) err = position_of(*f, offset, whence, current, &to);
    if (err == MPI_SUCCESS) err = shared_store(*f, to);
  }
  PMPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
  return check_file(f, err, fn);
}

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_get_position_shared");
  if (!offset) return raise_file(f, MPI_ERR_ARG, "MPI_File_get_position_shared");
  int err = MPI_SUCCESS;
  const MPI_Offset at = shared_fetch_add(*f, 0, &err);
  if (at < 0) return raise_file(f, err, "MPI_File_get_position_shared");
  *offset = at;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_File_set_view)
TORUS_MPI_ALIAS(MPI_File_get_view)
TORUS_MPI_ALIAS(MPI_File_get_type_extent)
TORUS_MPI_ALIAS(MPI_File_seek)
TORUS_MPI_ALIAS(MPI_File_get_position)
TORUS_MPI_ALIAS(MPI_File_get_byte_offset)
TORUS_MPI_ALIAS(MPI_File_seek_shared)
TORUS_MPI_ALIAS(MPI_File_get_position_shared)

}  // extern "C"
