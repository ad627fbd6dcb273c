// MPI_File_open/close/delete and a file's attributes: size, group, access mode, hints,
// atomicity, synchronization, error handlers.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/io/file.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {
namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_set<File*> open;
  std::vector<File*> fortran;  // MPI_File_c2f handle i + 1 is fortran[i] (nullptr: closed)
  MPI_Errhandler null_handler = MPI_ERRORS_RETURN;  // MPI_FILE_NULL's
};
Registry& registry() {
  static Registry r;
  return r;
}

MPI_File handle_of(File* f) { return reinterpret_cast<MPI_File>(f); }

// ROMIO accepts a file system prefix ("ufs:", "nfs:"): a name before ':' of two or more
// characters with no '/' in it. One file system here, so the prefix is dropped.
std::string strip_prefix(const char* name) {
  const char* colon = std::strchr(name, ':');
  if (!colon || colon - name < 2) return name;
  for (const char* p = name; p < colon; ++p)
    if (*p == '/') return name;
  return colon + 1;
}

int amode_check(int amode) {
  const int rw = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  if (rw != MPI_MODE_RDONLY && rw != MPI_MODE_WRONLY && rw != MPI_MODE_RDWR) return MPI_ERR_AMODE;
  if (rw == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL))) return MPI_ERR_AMODE;
  if (rw == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL)) return MPI_ERR_AMODE;
  constexpr int known = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                        MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
                        MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  return (amode & ~known) ? MPI_ERR_AMODE : MPI_SUCCESS;
}

int open_flags(int amode, bool creating) {
  int flags = O_CLOEXEC;
  if (amode & MPI_MODE_RDONLY)
    flags |= O_RDONLY;
  else if (amode & MPI_MODE_WRONLY)
    flags |= O_WRONLY;
  else
    flags |= O_RDWR;
  if (creating && (amode & MPI_MODE_CREATE)) flags |= O_CREAT;
  if (creating && (amode & MPI_MODE_EXCL)) flags |= O_EXCL;
  return flags;
}

// Every process's outcome, the worst (highest class) everywhere: one failure fails all.
int agree(MPI_Comm comm, int err) {
  int worst = err;
  if (PMPI_Allreduce(&err, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) return MPI_ERR_IO;
  return worst;
}

}  // namespace

File* file_get(MPI_File fh) noexcept {
  if (fh == MPI_FILE_NULL) return nullptr;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  File* f = reinterpret_cast<File*>(fh);
  return r.open.contains(f) ? f : nullptr;
}

int raise_file(File* f, int code, const char* fn) {
  ErrorScope scope;
  scope.is_file = true;
  scope.file = f ? handle_of(f) : MPI_FILE_NULL;
  if (f) {
    scope.handler = f->errhandler;
  } else {
    std::lock_guard lock(registry().mutex);
    scope.handler = registry().null_handler;
  }
  return raise_in_scope(scope, code, fn);
}

int file_errno_class(int err) noexcept {
  switch (err) {
    case ENOENT:
    case ENOTDIR: return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case ENAMETOOLONG:
    case EISDIR:
    case EINVAL: return MPI_ERR_BAD_FILE;
    case ETXTBSY:
    case EBUSY: return MPI_ERR_FILE_IN_USE;
    case ENOMEM: return MPI_ERR_NO_MEM;
    default: return MPI_ERR_IO;
  }
}

}  // namespace torus::mpi

using namespace torus::mpi;

extern "C" {

int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  constexpr const char* fn = "MPI_File_open";
  Comm* c = comm_get_intra(comm);
  if (!c) return raise_error(comm_get(comm), MPI_ERR_COMM, fn);
  if (!fh) return raise_file(nullptr, MPI_ERR_ARG, fn);
  *fh = MPI_FILE_NULL;
  if (!filename || !*filename) return raise_file(nullptr, MPI_ERR_BAD_FILE, fn);
  if (int e = amode_check(amode)) return raise_file(nullptr, e, fn);
  auto f = std::make_unique<File>();
  if (int e = PMPI_Comm_dup(comm, &f->comm)) return raise_file(nullptr, e, fn);
  PMPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(f->comm, &f->rank);
  PMPI_Comm_size(f->comm, &f->size);
  f->path = strip_prefix(filename);
  f->amode = amode;
  f->etype = type_hold(MPI_BYTE);
  f->filetype = type_hold(MPI_BYTE);
  // Rank 0 creates (and is the one an exclusive create may fail at); the rest open after.
  int err = MPI_SUCCESS;
  if (f->rank == 0) {
    f->fd = ::open(f->path.c_str(), open_flags(amode, true), 0666);
    if (f->fd < 0) err = file_errno_class(errno);
  }
  PMPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
  if (err == MPI_SUCCESS && f->rank != 0) {
    f->fd = ::open(f->path.c_str(), open_flags(amode, false));
    if (f->fd < 0) err = file_errno_class(errno);
  }
  err = agree(f->comm, err);
  MPI_Offset initial = 0;
  if (err == MPI_SUCCESS && (amode & MPI_MODE_APPEND)) {
    struct stat st {};
    if (::fstat(f->fd, &st) == 0)
      initial = st.st_size;
    else
      err = file_errno_class(errno);
  }
  if (err == MPI_SUCCESS) err = agree(f->comm, shared_open(*f, initial));
  if (err != MPI_SUCCESS) {
    shared_close(*f);
    if (f->fd >= 0) ::close(f->fd);
    PMPI_Comm_free(&f->comm);
    return raise_file(nullptr, err, fn);
  }
  f->position = initial;
  if (info != MPI_INFO_NULL) PMPI_Info_dup(info, &f->info);
  {
    std::lock_guard lock(registry().mutex);
    f->errhandler = registry().null_handler;
    registry().open.insert(f.get());
  }
  *fh = handle_of(f.release());
  return MPI_SUCCESS;
}

int PMPI_File_close(MPI_File* fh) {
  constexpr const char* fn = "MPI_File_close";
  File* f = fh ? file_get(*fh) : nullptr;
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, fn);
  {
    std::lock_guard lock(registry().mutex);
    registry().open.erase(f);
    if (f->fint) registry().fortran[size_t(f->fint - 1)] = nullptr;
  }
  std::unique_ptr<File> owned(f);
  int err = ::close(f->fd) == 0 ? MPI_SUCCESS : file_errno_class(errno);
  shared_close(*f);  // waits for every process: none uses the file after this
  if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->rank == 0 && ::unlink(f->path.c_str()) != 0)
    err = file_errno_class(errno);
  if (f->info != MPI_INFO_NULL) PMPI_Info_free(&f->info);
  PMPI_Comm_free(&f->comm);
  *fh = MPI_FILE_NULL;
  return err == MPI_SUCCESS ? err : raise_file(f, err, fn);
}

int PMPI_File_delete(const char* filename, MPI_Info /*info*/) {
  if (!filename || !*filename) return raise_file(nullptr, MPI_ERR_BAD_FILE, "MPI_File_delete");
  if (::unlink(strip_prefix(filename).c_str()) != 0)
    return raise_file(nullptr, file_errno_class(errno), "MPI_File_delete");
  return MPI_SUCCESS;
}

// Collective: rank 0 changes the size; nobody returns before it has.
static int resize(MPI_File fh, MPI_Offset size, bool only_grow, const char* fn) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, fn);
  if (size < 0) return raise_file(f, MPI_ERR_ARG, fn);
  if (f->amode & MPI_MODE_RDONLY) return raise_file(f, MPI_ERR_READ_ONLY, fn);
  int err = MPI_SUCCESS;
  if (f->rank == 0) {
    int rc = only_grow ? ::posix_fallocate(f->fd, 0, size) : (::ftruncate(f->fd, size) ? errno : 0);
    if (rc != 0) err = file_errno_class(rc);
  }
  PMPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
  return check_file(f, err, fn);
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  return resize(fh, size, false, "MPI_File_set_size");
}

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  return resize(fh, size, true, "MPI_File_preallocate");
}

int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_get_size");
  if (!size) return raise_file(f, MPI_ERR_ARG, "MPI_File_get_size");
  struct stat st {};
  if (::fstat(f->fd, &st) != 0) return raise_file(f, file_errno_class(errno), "MPI_File_get_size");
  *size = st.st_size;
  return MPI_SUCCESS;
}

int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_get_group");
  if (!group) return raise_file(f, MPI_ERR_ARG, "MPI_File_get_group");
  return check_file(f, PMPI_Comm_group(f->comm, group), "MPI_File_get_group");
}

int PMPI_File_get_amode(MPI_File fh, int* amode) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_get_amode");
  if (!amode) return raise_file(f, MPI_ERR_ARG, "MPI_File_get_amode");
  *amode = f->amode;
  return MPI_SUCCESS;
}

// Hints change nothing here; the file keeps what it was given so File_get_info reports it.
int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_set_info");
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  MPI_Info copy = MPI_INFO_NULL;
  if (int e = PMPI_Info_dup(info, &copy)) return raise_file(f, e, "MPI_File_set_info");
  std::lock_guard lock(f->mutex);
  if (f->info != MPI_INFO_NULL) PMPI_Info_free(&f->info);
  f->info = copy;
  return MPI_SUCCESS;
}

int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_get_info");
  if (!info_used) return raise_file(f, MPI_ERR_ARG, "MPI_File_get_info");
  std::lock_guard lock(f->mutex);
  int e =
      f->info != MPI_INFO_NULL ? PMPI_Info_dup(f->info, info_used) : PMPI_Info_create(info_used);
  return check_file(f, e, "MPI_File_get_info");
}

int PMPI_File_sync(MPI_File fh) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_sync");
  if (f->amode & MPI_MODE_RDONLY) return raise_file(f, MPI_ERR_ACCESS, "MPI_File_sync");
  if (::fsync(f->fd) != 0) return raise_file(f, file_errno_class(errno), "MPI_File_sync");
  return MPI_SUCCESS;
}

int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_set_atomicity");
  f->atomic = flag != 0;
  return MPI_SUCCESS;
}

int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  File* f = file_get(fh);
  if (!f) return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_get_atomicity");
  if (!flag) return raise_file(f, MPI_ERR_ARG, "MPI_File_get_atomicity");
  *flag = f->atomic ? 1 : 0;
  return MPI_SUCCESS;
}

// File handlers share the communicators' table: only the handle type differs, and the
// raise path calls a file's with the file's shape (runtime/errors.cpp).
int PMPI_File_create_errhandler(MPI_File_errhandler_function* fn, MPI_Errhandler* errhandler) {
  return PMPI_Comm_create_errhandler(reinterpret_cast<MPI_Comm_errhandler_function*>(fn),
                                     errhandler);
}

int PMPI_File_set_errhandler(MPI_File fh, MPI_Errhandler errhandler) {
  File* f = file_get(fh);
  if (!f && fh != MPI_FILE_NULL)
    return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_set_errhandler");
  if (!errhandler_settable(errhandler))
    return raise_file(f, MPI_ERR_ARG, "MPI_File_set_errhandler");
  if (f) {
    f->errhandler = errhandler;
  } else {
    std::lock_guard lock(registry().mutex);
    registry().null_handler = errhandler;
  }
  return MPI_SUCCESS;
}

int PMPI_File_get_errhandler(MPI_File fh, MPI_Errhandler* errhandler) {
  File* f = file_get(fh);
  if (!f && fh != MPI_FILE_NULL)
    return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_get_errhandler");
  if (!errhandler) return raise_file(f, MPI_ERR_ARG, "MPI_File_get_errhandler");
  if (f) {
    *errhandler = f->errhandler;
  } else {
    std::lock_guard lock(registry().mutex);
    *errhandler = registry().null_handler;
  }
  errhandler_retain(*errhandler);
  return MPI_SUCCESS;
}

int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  File* f = file_get(fh);
  if (!f && fh != MPI_FILE_NULL)
    return raise_file(nullptr, MPI_ERR_FILE, "MPI_File_call_errhandler");
  (void)raise_file(f, errorcode, "MPI_File_call_errhandler");
  return MPI_SUCCESS;
}

// Fortran handles are small integers: a slot per file asked for one, kept until it closes.
MPI_Fint PMPI_File_c2f(MPI_File fh) {
  File* f = file_get(fh);
  if (!f) return 0;
  std::lock_guard lock(registry().mutex);
  if (!f->fint) {
    registry().fortran.push_back(f);
    f->fint = static_cast<MPI_Fint>(registry().fortran.size());
  }
  return f->fint;
}

MPI_File PMPI_File_f2c(MPI_Fint fh) {
  std::lock_guard lock(registry().mutex);
  if (fh <= 0 || size_t(fh) > registry().fortran.size()) return MPI_FILE_NULL;
  return handle_of(registry().fortran[size_t(fh - 1)]);
}

TORUS_MPI_ALIAS(MPI_File_c2f)
TORUS_MPI_ALIAS(MPI_File_f2c)
TORUS_MPI_ALIAS(MPI_File_open)
TORUS_MPI_ALIAS(MPI_File_close)
TORUS_MPI_ALIAS(MPI_File_delete)
TORUS_MPI_ALIAS(MPI_File_set_size)
TORUS_MPI_ALIAS(MPI_File_preallocate)
TORUS_MPI_ALIAS(MPI_File_get_size)
TORUS_MPI_ALIAS(MPI_File_get_group)
TORUS_MPI_ALIAS(MPI_File_get_amode)
TORUS_MPI_ALIAS(MPI_File_set_info)
TORUS_MPI_ALIAS(MPI_File_get_info)
TORUS_MPI_ALIAS(MPI_File_sync)
TORUS_MPI_ALIAS(MPI_File_set_atomicity)
TORUS_MPI_ALIAS(MPI_File_get_atomicity)
TORUS_MPI_ALIAS(MPI_File_create_errhandler)
TORUS_MPI_ALIAS(MPI_File_set_errhandler)
TORUS_MPI_ALIAS(MPI_File_get_errhandler)
TORUS_MPI_ALIAS(MPI_File_call_errhandler)

}  // extern "C"
