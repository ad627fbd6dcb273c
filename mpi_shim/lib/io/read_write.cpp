// Data access with explicit offsets and through the individual file pointer: the memory side
// packed (or staged) by the type views, the file side cut into the view's runs and moved with
// pread/pwrite. The collective forms (_all) are the same accesses: each process moves its own
// data, which the standard's semantics allow; nothing is aggregated between processes.
// Nonblocking forms complete at once (local I/O) and hand back a completed request.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/io/file.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {
namespace {

// Atomic mode: a lock over the bytes the access spans, shared for reads, so that
// overlapping accesses of different processes do not interleave.
class RangeLock {
 public:
  RangeLock(const File& f, bool write, const std::vector<FileRun>& runs)
      : fd_(f.atomic ? f.fd : -1) {
    if (fd_ < 0 || runs.empty()) return;
    l_.l_type = write ? F_WRLCK : F_RDLCK;
    l_.l_whence = SEEK_SET;
    l_.l_start = runs.front().off;
    l_.l_len = runs.back().off + MPI_Offset(runs.back().len) - runs.front().off;
    while (::fcntl(fd_, F_OFD_SETLKW, &l_) != 0 && errno == EINTR) {
    }
    held_ = true;
  }
  ~RangeLock() {
    if (!held_) return;
    l_.l_type = F_UNLCK;
    (void)::fcntl(fd_, F_OFD_SETLK, &l_);
  }
  RangeLock(const RangeLock&) = delete;
  RangeLock& operator=(const RangeLock&) = delete;

 private:
  int fd_;
  struct flock l_ {};
  bool held_ = false;
};

// Moves one run; returns the bytes moved (short only at the end of file on a read).
long long move_run(int fd, bool write, std::byte* data, const FileRun& run, int* err) {
  size_t done = 0;
  while (done < run.len) {
    const ssize_t n = write ? ::pwrite(fd, data + done, run.len - done, run.off + MPI_Offset(done))
                            : ::pread(fd, data + done, run.len - done, run.off + MPI_Offset(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      *err = file_errno_class(errno);
      return -1;
    }
    if (n == 0) break;  // end of file
    done += size_t(n);
  }
  return static_cast<long long>(done);
}

int access_mode_error(const File& f, bool write) {
  if (write && (f.amode & MPI_MODE_RDONLY)) return MPI_ERR_READ_ONLY;
  if (!write && (f.amode & MPI_MODE_WRONLY)) return MPI_ERR_ACCESS;
  return MPI_SUCCESS;
}

int access_at(MPI_File fh, bool write, MPI_Offset offset, const void* buf, int count,
              MPI_Datatype type, MPI_Status* status, const char* fn) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, fn);
  if (offset < 0) return raise_file(f, MPI_ERR_ARG, fn);
  if (f->amode & MPI_MODE_SEQUENTIAL) return raise_file(f, MPI_ERR_UNSUPPORTED_OPERATION, fn);
  MPI_Offset moved = 0;
  return check_file(f, file_access(*f, write, offset, buf, count, type, status, &moved), fn);
}

// Through the individual pointer, which advances by the etypes moved.
int access_individual(MPI_File fh, bool write, const void* buf, int count, MPI_Datatype type,
                      MPI_Status* status, const char* fn) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, fn);
  if (f->amode & MPI_MODE_SEQUENTIAL) return raise_file(f, MPI_ERR_UNSUPPORTED_OPERATION, fn);
  std::lock_guard lock(f->mutex);
  MPI_Offset moved = 0;
  const int e = file_access(*f, write, f->position, buf, count, type, status, &moved);
  f->position += moved;
  return check_file(f, e, fn);
}

}  // namespace

long long file_transfer(File& f, bool write, MPI_Offset pos, void* data, size_t bytes, int* err) {
  const std::vector<FileRun> runs = view_runs(f, pos * MPI_Offset(f.esize), bytes);
  RangeLock lock(f, write, runs);
  auto* p = static_cast<std::byte*>(data);
  long long total = 0;
  for (const FileRun& run : runs) {
    const long long n = move_run(f.fd, write, p + total, run, err);
    if (n < 0) return -1;
    total += n;
    if (size_t(n) < run.len) break;  // end of file
  }
  return total;
}

int file_access(File& f, bool write, MPI_Offset pos, const void* buf, int count, MPI_Datatype type,
                MPI_Status* status, MPI_Offset* moved) {
  *moved = 0;
  if (int e = access_mode_error(f, write)) return e;
  long long n = 0;
  int err = MPI_SUCCESS;
  if (write) {
    SendView v;
    if (int e = v.init(buf, count, type)) return e;
    n = file_transfer(f, true, pos, const_cast<void*>(v.data()), v.bytes(), &err);
  } else {
    RecvView v;
    if (int e = v.init(const_cast<void*>(buf), count, type)) return e;
    n = file_transfer(f, false, pos, v.data(), v.bytes(), &err);
    if (n > 0) v.finish(size_t(n));
  }
  if (n < 0) return err;
  *moved = MPI_Offset(n) / MPI_Offset(f.esize);
  status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, size_t(n), MPI_SUCCESS);
  return MPI_SUCCESS;
}

}  // namespace torus::mpi

using namespace torus::mpi;

extern "C" {

int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                      MPI_Status* status) {
  return access_at(fh, false, offset, buf, count, datatype, status, "MPI_File_read_at");
}

int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                       MPI_Datatype datatype, MPI_Status* status) {
  return access_at(fh, true, offset, buf, count, datatype, status, "MPI_File_write_at");
}

int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                          MPI_Datatype datatype, MPI_Status* status) {
  return access_at(fh, false, offset, buf, count, datatype, status, "MPI_File_read_at_all");
}

int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                           MPI_Datatype datatype, MPI_Status* status) {
  return access_at(fh, true, offset, buf, count, datatype, status, "MPI_File_write_at_all");
}

int PMPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return access_individual(fh, false, buf, count, datatype, status, "MPI_File_read");
}

int PMPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                    MPI_Status* status) {
  return access_individual(fh, true, buf, count, datatype, status, "MPI_File_write");
}

int PMPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                       MPI_Status* status) {
  return access_individual(fh, false, buf, count, datatype, status, "MPI_File_read_all");
}

int PMPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                        MPI_Status* status) {
  return access_individual(fh, true, buf, count, datatype, status, "MPI_File_write_all");
}

int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                       MPI_Request* request) {
  return file_request(file_get(fh), request, false, "MPI_File_iread_at", [&](MPI_Status* st) {
    return access_at(fh, false, offset, buf, count, datatype, st, "MPI_File_iread_at");
  });
}

int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                        MPI_Datatype datatype, MPI_Request* request) {
  return file_request(file_get(fh), request, true, "MPI_File_iwrite_at", [&](MPI_Status* st) {
    return access_at(fh, true, offset, buf, count, datatype, st, "MPI_File_iwrite_at");
  });
}

int PMPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                    MPI_Request* request) {
  return file_request(file_get(fh), request, false, "MPI_File_iread", [&](MPI_Status* st) {
    return access_individual(fh, false, buf, count, datatype, st, "MPI_File_iread");
  });
}

int PMPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                     MPI_Request* request) {
  return file_request(file_get(fh), request, true, "MPI_File_iwrite", [&](MPI_Status* st) {
    return access_individual(fh, true, buf, count, datatype, st, "MPI_File_iwrite");
  });
}

int PMPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                        MPI_Request* request) {
  return file_request(file_get(fh), request, false, "MPI_File_iread_all", [&](MPI_Status* st) {
    return access_individual(fh, false, buf, count, datatype, st, "MPI_File_iread_all");
  });
}

int PMPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                         MPI_Request* request) {
  return file_request(file_get(fh), request, true, "MPI_File_iwrite_all", [&](MPI_Status* st) {
    return access_individual(fh, true, buf, count, datatype, st, "MPI_File_iwrite_all");
  });
}

int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                           MPI_Datatype datatype, MPI_Request* request) {
  return file_request(file_get(fh), request, false, "MPI_File_iread_at_all", [&](MPI_Status* st) {
    return access_at(fh, false, offset, buf, count, datatype, st, "MPI_File_iread_at_all");
  });
}

int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                            MPI_Datatype datatype, MPI_Request* request) {
  return file_request(file_get(fh), request, true, "MPI_File_iwrite_at_all", [&](MPI_Status* st) {
    return access_at(fh, true, offset, buf, count, datatype, st, "MPI_File_iwrite_at_all");
  });
}

TORUS_MPI_ALIAS(MPI_File_iread_all)
TORUS_MPI_ALIAS(MPI_File_iwrite_all)
TORUS_MPI_ALIAS(MPI_File_iread_at_all)
TORUS_MPI_ALIAS(MPI_File_iwrite_at_all)
TORUS_MPI_ALIAS(MPI_File_read_at)
TORUS_MPI_ALIAS(MPI_File_write_at)
TORUS_MPI_ALIAS(MPI_File_read_at_all)
TORUS_MPI_ALIAS(MPI_File_write_at_all)
TORUS_MPI_ALIAS(MPI_File_read)
TORUS_MPI_ALIAS(MPI_File_write)
TORUS_MPI_ALIAS(MPI_File_read_all)
TORUS_MPI_ALIAS(MPI_File_write_all)
TORUS_MPI_ALIAS(MPI_File_iread_at)
TORUS_MPI_ALIAS(MPI_File_iwrite_at)
TORUS_MPI_ALIAS(MPI_File_iread)
TORUS_MPI_ALIAS(MPI_File_iwrite)

}  // extern "C"
