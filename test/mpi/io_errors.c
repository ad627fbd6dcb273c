/* MPI-IO errors and error handlers. DELETE_ON_CLOSE; open errors on every rank: EXCL on an
 * existing file (MPI_ERR_FILE_EXISTS), a missing file (MPI_ERR_NO_SUCH_FILE), bad amodes
 * (MPI_ERR_AMODE); writes to a RDONLY file (MPI_ERR_READ_ONLY or MPI_ERR_ACCESS, the file
 * unchanged), reads of a WRONLY one (MPI_ERR_ACCESS); File_delete of a missing file
 * (MPI_ERR_NO_SUCH_FILE) and of an existing one. Error handlers: MPI_FILE_NULL's is
 * MPI_ERRORS_RETURN; a File_create_errhandler handler set on a file is called once per failing
 * call (negative offset MPI_ERR_ARG, count MPI_ERR_COUNT, MPI_DATATYPE_NULL MPI_ERR_TYPE, a
 * write to a RDONLY file) with the file and the code the call returns, and by
 * File_call_errhandler; it keeps working after Errhandler_free (of get_errhandler's reference
 * and the creator's); other and new files keep MPI_ERRORS_RETURN. Where Debian's MPICH 4.0.2
 * (ROMIO) departs from the standard (Error_string of an open error code made on another rank)
 * the check sits behind TORUS_MPI_H. Any size. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>

#include "io_files.h"

static int missing(const char* name) {
  char path[512];
  path_of(path, sizeof path, name);
  return access(path, F_OK) != 0 && errno == ENOENT;
}

static int open_class(const char* name, int amode) {
  char path[512];
  path_of(path, sizeof path, name);
  MPI_File fh = MPI_FILE_NULL;
  const int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
  if (rc == MPI_SUCCESS) close_file(&fh);
#ifdef TORUS_MPI_H
  return error_class_of(rc);
#else
  /* MPICH's ROMIO gives every rank the code one rank made, whose error-ring index means
   * nothing elsewhere (Error_string there prints "Invalid error code"): the class alone. */
  int c = -1;
  CHECK_MPI(MPI_Error_class(rc, &c));
  return c;
#endif
}

static int is_read_only_class(int c) { return c == MPI_ERR_READ_ONLY || c == MPI_ERR_ACCESS; }

static void open_errors(void) {
  /* DELETE_ON_CLOSE: gone once every rank has closed it. */
  MPI_File fh = open_world("doomed", MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE);
  int x = rank;
  CHECK_MPI(MPI_File_write_at(fh, 4 * (MPI_Offset)rank, &x, 1, MPI_INT, MPI_STATUS_IGNORE));
  close_file(&fh);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK(missing("doomed"));

  /* An existing file: EXCL fails everywhere. */
  fh = open_world("exists", MPI_MODE_CREATE | MPI_MODE_WRONLY);
  CHECK_MPI(MPI_File_write_at(fh, 4 * (MPI_Offset)rank, &x, 1, MPI_INT, MPI_STATUS_IGNORE));
  close_file(&fh);
  CHECK(open_class("exists", MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR) ==
        MPI_ERR_FILE_EXISTS);
  CHECK(open_class("missing", MPI_MODE_RDWR) == MPI_ERR_NO_SUCH_FILE);
  /* Exactly one of RDONLY, RDWR, WRONLY; no CREATE or EXCL with RDONLY; no SEQUENTIAL
   * with RDWR. */
  CHECK(open_class("exists", MPI_MODE_RDONLY | MPI_MODE_CREATE) == MPI_ERR_AMODE);
  CHECK(open_class("exists", MPI_MODE_RDONLY | MPI_MODE_EXCL) == MPI_ERR_AMODE);
  CHECK(open_class("exists", MPI_MODE_RDONLY | MPI_MODE_RDWR) == MPI_ERR_AMODE);
  CHECK(open_class("exists", MPI_MODE_WRONLY | MPI_MODE_RDWR) == MPI_ERR_AMODE);
  CHECK(open_class("exists", MPI_MODE_CREATE) == MPI_ERR_AMODE);
  CHECK(open_class("exists", MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL) == MPI_ERR_AMODE);
  if (rank == 0) CHECK(missing("missing"));

  /* Writes to a RDONLY file fail (MPICH's ROMIO: MPI_ERR_READ_ONLY), and the file keeps its
   * contents; reads of a WRONLY file fail with MPI_ERR_ACCESS. */
  fh = open_world("exists", MPI_MODE_RDONLY);
  int y = -5;
  CHECK(is_read_only_class(
      error_class_of(MPI_File_write_at(fh, 0, &y, 1, MPI_INT, MPI_STATUS_IGNORE))));
  CHECK(is_read_only_class(error_class_of(MPI_File_write(fh, &y, 1, MPI_INT, MPI_STATUS_IGNORE))));
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK(is_read_only_class(error_class_of(MPI_File_iwrite_at(fh, 0, &y, 1, MPI_INT, &req))));
  const int peer = (rank + 1) % size;
  MPI_Status st;
  CHECK_MPI(MPI_File_read_at(fh, 4 * (MPI_Offset)peer, &y, 1, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == 1 && y == peer);
  CHECK(file_size(fh) == 4 * (MPI_Offset)size);
  close_file(&fh);
  fh = open_world("exists", MPI_MODE_WRONLY);
  int amode = -1;
  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  CHECK(amode == MPI_MODE_WRONLY);
  CHECK(error_class_of(MPI_File_read_at(fh, 0, &y, 1, MPI_INT, MPI_STATUS_IGNORE)) ==
        MPI_ERR_ACCESS);
  close_file(&fh);

  /* File_delete (not collective): a missing file, then the existing one. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    char path[512];
    path_of(path, sizeof path, "missing");
    CHECK(error_class_of(MPI_File_delete(path, MPI_INFO_NULL)) == MPI_ERR_NO_SUCH_FILE);
    path_of(path, sizeof path, "exists");
    CHECK(!missing("exists"));
    CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    CHECK(missing("exists"));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(open_class("exists", MPI_MODE_RDONLY) == MPI_ERR_NO_SUCH_FILE);
}

static int calls, last_code;
static MPI_File last_file;

static void record(MPI_File* fh, int* code, ...) {
  ++calls;
  last_file = *fh;
  last_code = *code;
}

static void error_handlers(void) {
  MPI_Errhandler got = MPI_ERRHANDLER_NULL;
  CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
  CHECK(got == MPI_ERRORS_RETURN);
  MPI_Errhandler eh;
  CHECK_MPI(MPI_File_create_errhandler(record, &eh));
  MPI_File fh = open_world("handled", MPI_MODE_CREATE | MPI_MODE_RDWR);
  CHECK_MPI(MPI_File_set_errhandler(fh, eh));
  CHECK_MPI(MPI_File_get_errhandler(fh, &got));
  CHECK(got == eh);
  CHECK_MPI(MPI_Errhandler_free(&got)); /* the reference get_errhandler handed out */
  CHECK(got == MPI_ERRHANDLER_NULL);

  unsigned char b[8] = {0};
  calls = 0;
  int code = MPI_File_read_at(fh, -1, b, 1, MPI_BYTE, MPI_STATUS_IGNORE);
  CHECK(calls == 1 && last_file == fh && last_code == code);
  CHECK(error_class_of(code) == MPI_ERR_ARG);
  CHECK_MPI(MPI_File_call_errhandler(fh, MPI_ERR_OTHER));
  CHECK(calls == 2 && last_file == fh && last_code == MPI_ERR_OTHER);
  /* Freed, still set on the file: it keeps being called. */
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK(eh == MPI_ERRHANDLER_NULL);
  code = MPI_File_write_at(fh, 0, b, -1, MPI_BYTE, MPI_STATUS_IGNORE);
  CHECK(calls == 3 && last_code == code && error_class_of(code) == MPI_ERR_COUNT);
  code = MPI_File_write_at(fh, 0, b, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE);
  CHECK(calls == 4 && last_code == code && error_class_of(code) == MPI_ERR_TYPE);
  CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank, b, 1, MPI_BYTE, MPI_STATUS_IGNORE));
  CHECK(calls == 4);
  /* Other files, and the default for new ones, keep MPI_ERRORS_RETURN. */
  CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
  CHECK(got == MPI_ERRORS_RETURN);
  MPI_File ro = open_world("handled", MPI_MODE_RDONLY);
  CHECK_MPI(MPI_File_get_errhandler(ro, &got));
  CHECK(got == MPI_ERRORS_RETURN);
  CHECK(is_read_only_class(
      error_class_of(MPI_File_write_at(ro, 0, b, 1, MPI_BYTE, MPI_STATUS_IGNORE))));
  CHECK(calls == 4);
  /* A handler on the read-only file sees its failed write. */
  CHECK_MPI(MPI_File_create_errhandler(record, &eh));
  CHECK_MPI(MPI_File_set_errhandler(ro, eh));
  CHECK_MPI(MPI_Errhandler_free(&eh));
  code = MPI_File_write_at(ro, 0, b, 1, MPI_BYTE, MPI_STATUS_IGNORE);
  CHECK(calls == 5 && last_file == ro && last_code == code);
  CHECK(is_read_only_class(error_class_of(code)));
  close_file(&ro);
  close_file(&fh);
  CHECK(calls == 5);
}

int main(int argc, char** argv) {
  io_init(&argc, &argv);
  open_errors();
  error_handlers();
  return io_finish("io_errors");
}
