/* Shared by the io_*.c programs: the directory rank 0 makes under /tmp for a job's files
 * (all ranks on one host) and removes at the end, opening and closing in it, and the queries
 * every part makes of a file. */
#ifndef TORUS_TEST_MPI_IO_FILES_H
#define TORUS_TEST_MPI_IO_FILES_H

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static int rank, size;
static char dir[256];

enum { kBlock = 1000 };

static inline void path_of(char* out, size_t n, const char* name) {
  snprintf(out, n, "%s/%s", dir, name);
}

static inline MPI_File open_on(MPI_Comm comm, const char* name, int amode) {
  char path[512];
  path_of(path, sizeof path, name);
  MPI_File fh = MPI_FILE_NULL;
  CHECK_MPI(MPI_File_open(comm, path, amode, MPI_INFO_NULL, &fh));
  CHECK(fh != MPI_FILE_NULL);
  return fh;
}

static inline MPI_File open_world(const char* name, int amode) {
  return open_on(MPI_COMM_WORLD, name, amode);
}

static inline void close_file(MPI_File* fh) {
  CHECK_MPI(MPI_File_close(fh));
  CHECK(*fh == MPI_FILE_NULL);
}

/* The standard's rule for seeing another process's writes in nonatomic mode. */
static inline void sync_barrier(MPI_File fh) {
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_sync(fh));
}

static inline int count_of(const MPI_Status* st, MPI_Datatype type) {
  int n = -2;
  CHECK_MPI(MPI_Get_count(st, type, &n));
  return n;
}

static inline MPI_Offset position(MPI_File fh) {
  MPI_Offset p = -1;
  CHECK_MPI(MPI_File_get_position(fh, &p));
  return p;
}

static inline MPI_Offset shared_position(MPI_File fh) {
  MPI_Offset p = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &p));
  return p;
}

static inline MPI_Offset file_size(MPI_File fh) {
  MPI_Offset s = -1;
  CHECK_MPI(MPI_File_get_size(fh, &s));
  return s;
}

static inline void make_dir(void) {
  if (rank == 0) {
    snprintf(dir, sizeof dir, "/tmp/torus-io-%d-XXXXXX", (int)getpid());
    CHECK(mkdtemp(dir) != NULL);
  }
  CHECK_MPI(MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD));
  struct stat sb;
  CHECK(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode));
}

/* Everything left in the directory (hidden files an implementation made too), then it. */
static inline void remove_dir(void) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank != 0) return;
  DIR* d = opendir(dir);
  CHECK(d != NULL);
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char path[512];
    path_of(path, sizeof path, e->d_name);
    CHECK(unlink(path) == 0 || rmdir(path) == 0);
  }
  closedir(d);
  CHECK(rmdir(dir) == 0);
}

static inline void io_init(int* argc, char*** argv) {
  CHECK_MPI(MPI_Init(argc, argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  make_dir();
}

/* `name` is the program's: the ABI test expects it in the line printed. */
static inline int io_finish(const char* name) {
  remove_dir();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("mpi %s ok: %d ranks\n", name, size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}

#endif
