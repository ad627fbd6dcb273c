// MPI-IO files (io/*.cpp, io_large_count.cpp): a POSIX file descriptor per process, a view mapping
// each process's data stream onto file offsets, an individual file pointer, and a shared one kept
// in a small side file that every process locks (fcntl open-file-description locks) to
// read and advance. Collective calls are correct without collective buffering: each process
// moves its own data with pread/pwrite, and the calls that must agree (open, close,
// set_size, ordered access, seek_shared) talk over a private duplicate of the opening
// communicator.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"

namespace torus::mpi {

struct File {
  MPI_Comm comm = MPI_COMM_NULL;  // our duplicate of the communicator it was opened on
  int rank = 0, size = 1;
  int fd = -1;
  std::string path;
  int amode = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_RETURN;
  MPI_Info info = MPI_INFO_NULL;
  bool atomic = false;
  // The view: the file from `disp` on is filetype after filetype; positions count etypes of
  // the data that the filetypes' blocks select.
  MPI_Offset disp = 0;
  TypeRef etype, filetype;
  MPI_Datatype etype_handle = MPI_BYTE, filetype_handle = MPI_BYTE;
  size_t esize = 1;  // bytes per etype
  std::mutex mutex;  // the individual pointer, for MPI_THREAD_MULTIPLE
  MPI_Offset position = 0;  // individual file pointer, in etypes
  int shared_fd = -1;       // the side file holding the shared pointer (8 bytes, in etypes)
  std::string shared_path;
  // A split collective access begun and not yet ended: its outcome, for the _end call.
  bool split_active = false;
  int split_error = MPI_SUCCESS;
  MPI_Status split_status{};
  int fint = 0;  // MPI_File_c2f's handle, 0 until asked
};

// The file behind a handle (nullptr: not an open file of ours).
File* file_get(MPI_File fh) noexcept;
// Passes an error to the file's handler (nullptr: MPI_FILE_NULL's, which new files inherit;
// MPI_ERRORS_RETURN unless the program set one).
int raise_file(File* f, int code, const char* fn);
inline int check_file(File* f, int code, const char* fn) {
  return code == MPI_SUCCESS ? code : raise_file(f, code, fn);
}
// The MPI error class for an errno of a file system call.
int file_errno_class(int err) noexcept;

// One piece of a data access: `len` bytes at file offset `off`.
struct FileRun {
  MPI_Offset off;
  size_t len;
};
// The file runs (in order, adjacent ones merged) that `bytes` bytes of the view's data
// stream cover from data byte `pos` on (view.cpp).
std::vector<FileRun> view_runs(const File& f, MPI_Offset pos, size_t bytes);
// The position (in etypes) just past the last etype the view has before the end of the file.
MPI_Offset view_end(const File& f, MPI_Offset file_size);

// Moves `bytes` between `data` and the file at view position `pos` (etypes), honouring the
// file's atomicity; returns the bytes moved (a read may stop short at the end of file) or
// -1 with *err set (an MPI error class) (read_write.cpp).
long long file_transfer(File& f, bool write, MPI_Offset pos, void* data, size_t bytes, int* err);
// A data access as the MPI calls give it: `count` of `type` at `buf`, at view position
// `pos`; fills *status; returns an MPI error code (not yet raised) and the etypes moved.
int file_access(File& f, bool write, MPI_Offset pos, const void* buf, int count,
                MPI_Datatype type, MPI_Status* status, MPI_Offset* moved);

// The side file of the shared pointer (shared_pointer.cpp), made by rank 0 next to the file with
// `initial` in it and opened by the others: collective over f.comm; an MPI error code.
int shared_open(File& f, MPI_Offset initial);
// Closes it; rank 0 removes it once every process has closed (collective).
void shared_close(File& f);
// The shared pointer: read it and advance it by `advance` etypes under the
// side file's lock; returns the value before, or -1 with *err set.
MPI_Offset shared_fetch_add(File& f, MPI_Offset advance, int* err);
// Sets it (under the lock); an MPI error code.
int shared_store(File& f, MPI_Offset value);

// A nonblocking access: local I/O, done now by `access(MPI_Status*)` (an MPI error code, raised
// already), its status kept in a completed request.
template <typename Access>
int file_request(File* f, MPI_Request* request, bool write, const char* fn, Access&& access) {
  if (!request) return raise_file(f, MPI_ERR_ARG, fn);
  MPI_Status st;
  status_set(&st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
  if (int e = access(&st)) return e;
  *request = request_create(nullptr, !write, ErrorScope{}, st);
  return MPI_SUCCESS;
}

}  // namespace torus::mpi
