// The shared file pointer: 8 bytes in a side file next to the data file ("." + name +
// ".torus-shfp-" + a random suffix, made by rank 0 at open and removed at close), read and
// advanced under an exclusive open-file-description lock, so processes (and threads, each
// lock taken on the process's own descriptor under the file's mutex) take turns. The
// accesses through it: read/write_shared and their nonblocking forms, read/write_ordered.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <random>

#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/io/file.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {
namespace {

std::mutex g_shared_mutex;  // one thread of a process at a time holds any side-file lock

int lock_side(int fd, short type) {
  struct flock l {};
  l.l_type = type;
  l.l_whence = SEEK_SET;
  l.l_start = 0;
  l.l_len = 8;
  while (::fcntl(fd, F_OFD_SETLKW, &l) != 0)
    if (errno != EINTR) return file_errno_class(errno);
  return MPI_SUCCESS;
}

int read_value(int fd, MPI_Offset* v) {
  *v = 0;
  const ssize_t n = ::pread(fd, v, sizeof *v, 0);
  if (n < 0) return file_errno_class(errno);
  return n == 0 || n == sizeof *v ? MPI_SUCCESS : MPI_ERR_IO;  // 0: not written yet
}

int write_value(int fd, MPI_Offset v) {
  return ::pwrite(fd, &v, sizeof v, 0) == sizeof v ? MPI_SUCCESS : file_errno_class(errno);
}

std::string side_name(const std::string& path, uint64_t suffix) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(suffix));
  return dir + "." + base + ".torus-shfp-" + hex;
}

// Shared-pointer access of `count` of `type`: the pointer advanced by what it covers, then
// the data moved at the old value.
int access_shared(MPI_File fh, bool write, const void* buf, int count, MPI_Datatype type,
                  MPI_Status* status, const char* fn) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, fn);
  size_t bytes = 0;
  if (int e = type_bytes(type, count, &bytes)) return raise_file(f, e, fn);
  int err = MPI_SUCCESS;
  const MPI_Offset at = shared_fetch_add(*f, MPI_Offset(bytes / f->esize), &err);
  if (at < 0) return raise_file(f, err, fn);
  MPI_Offset moved = 0;
  return check_file(f, file_access(*f, write, at, buf, count, type, status, &moved), fn);
}

// Collective, in rank order: each process's data follows the lower ranks' at the shared
// pointer, which ends past all of it.
int access_ordered(MPI_File fh, bool write, const void* buf, int count, MPI_Datatype type,
                   MPI_Status* status, const char* fn) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, fn);
  size_t bytes = 0;
  int err = type_bytes(type, count, &bytes);
  MPI_Offset mine = err ? 0 : MPI_Offset(bytes / f->esize), before = 0, total = 0;
  if (int e = PMPI_Exscan(&mine, &before, 1, MPI_OFFSET, MPI_SUM, f->comm))
    return raise_file(f, e, fn);
  if (f->rank == 0) before = 0;  // Exscan leaves rank 0's result undefined
  if (int e = PMPI_Allreduce(&mine, &total, 1, MPI_OFFSET, MPI_SUM, f->comm))
    return raise_file(f, e, fn);
  MPI_Offset base = 0;
  int shared_err = MPI_SUCCESS;
  if (f->rank == 0) base = shared_fetch_add(*f, total, &shared_err);
  MPI_Offset msg[2] = {base, shared_err};
  if (int e = PMPI_Bcast(msg, 2, MPI_OFFSET, 0, f->comm)) return raise_file(f, e, fn);
  if (msg[0] < 0) return raise_file(f, int(msg[1]), fn);
  if (err) return raise_file(f, err, fn);
  MPI_Offset moved = 0;
  return check_file(f, file_access(*f, write, msg[0] + before, buf, count, type, status, &moved),
                    fn);
}

}  // namespace

int shared_open(File& f, MPI_Offset initial) {
  uint64_t suffix = 0;
  int err = MPI_SUCCESS;
  if (f.rank == 0) {
    suffix = std::random_device{}() | (uint64_t(std::random_device{}()) << 32);
    f.shared_path = side_name(f.path, suffix);
    f.shared_fd = ::open(f.shared_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (f.shared_fd < 0)
      err = file_errno_class(errno);
    else
      err = write_value(f.shared_fd, initial);
  }
  uint64_t msg[2] = {suffix, uint64_t(err)};
  if (PMPI_Bcast(msg, 2, MPI_UINT64_T, 0, f.comm) != MPI_SUCCESS) return MPI_ERR_IO;
  if (msg[1] != MPI_SUCCESS) return int(msg[1]);
  if (f.rank != 0) {
    f.shared_path = side_name(f.path, msg[0]);
    f.shared_fd = ::open(f.shared_path.c_str(), O_RDWR | O_CLOEXEC);
    if (f.shared_fd < 0) return file_errno_class(errno);
  }
  return MPI_SUCCESS;
}

void shared_close(File& f) {
  if (f.shared_fd >= 0) ::close(f.shared_fd);
  f.shared_fd = -1;
  PMPI_Barrier(f.comm);
  if (f.rank == 0 && !f.shared_path.empty()) ::unlink(f.shared_path.c_str());
}

MPI_Offset shared_fetch_add(File& f, MPI_Offset advance, int* err) {
  std::lock_guard guard(g_shared_mutex);
  if ((*err = lock_side(f.shared_fd, F_WRLCK))) return -1;
  MPI_Offset v = 0;
  *err = read_value(f.shared_fd, &v);
  if (*err == MPI_SUCCESS && advance != 0) *err = write_value(f.shared_fd, v + advance);
  (void)lock_side(f.shared_fd, F_UNLCK);
  return *err ? -1 : v;
}

int shared_store(File& f, MPI_Offset value) {
  std::lock_guard guard(g_shared_mutex);
  if (int e = lock_side(f.shared_fd, F_WRLCK)) return e;
  const int e = write_value(f.shared_fd, value);
  (void)lock_side(f.shared_fd, F_UNLCK);
  return e;
}

}  // namespace torus::mpi

using namespace torus::mpi;

extern "C" {

int PMPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                          MPI_Status* status) {
  return access_shared(fh, false, buf, count, datatype, status, "MPI_File_read_shared");
}

int PMPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                           MPI_Status* status) {
  return access_shared(fh, true, buf, count, datatype, status, "MPI_File_write_shared");
}

int PMPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                           MPI_Request* request) {
  return file_request(file_get(fh), request, false, "MPI_File_iread_shared", [&](MPI_Status* st) {
    return access_shared(fh, false, buf, count, datatype, st, "MPI_File_iread_shared");
  });
}

int PMPI_File_iwrite_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                            MPI_Request* request) {
  return file_request(file_get(fh), request, true, "MPI_File_iwrite_shared", [&](MPI_Status* st) {
    return access_shared(fh, true, buf, count, datatype, st, "MPI_File_iwrite_shared");
  });
}

int PMPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                           MPI_Status* status) {
  return access_ordered(fh, false, buf, count, datatype, status, "MPI_File_read_ordered");
}

int PMPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                            MPI_Status* status) {
  return access_ordered(fh, true, buf, count, datatype, status, "MPI_File_write_ordered");
}

TORUS_MPI_ALIAS(MPI_File_read_shared)
TORUS_MPI_ALIAS(MPI_File_write_shared)
TORUS_MPI_ALIAS(MPI_File_iread_shared)
TORUS_MPI_ALIAS(MPI_File_iwrite_shared)
TORUS_MPI_ALIAS(MPI_File_read_ordered)
TORUS_MPI_ALIAS(MPI_File_write_ordered)

}  // extern "C"
