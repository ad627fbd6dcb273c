/* MPI-IO, every file in a directory rank 0 makes under /tmp and removes at the end (all ranks
 * on one host). File_open on the world (CREATE|RDWR, and WRONLY): get_amode, get_group (IDENT
 * with the world's), the default MPI_ERRORS_RETURN handler and nonatomic mode, an empty file,
 * Close giving MPI_FILE_NULL. Explicit offsets: every rank write_at a 1000-byte pattern block
 * at rank*1000, read_at of a neighbour's after sync + barrier + sync, Get_count of the bytes
 * moved (MPI_BYTE and MPI_INT), short reads across and past the end of file, get_size.
 * Non-contiguous memory: a vector of stride 2 written through the default view, read back
 * contiguous and strided (gaps untouched). Collectives: write_at_all/read_at_all,
 * write_all/read_all through individual pointers placed by File_seek (SEEK_SET, SEEK_CUR,
 * SEEK_END), get_position, get_byte_offset, reads at the end giving 0 (independent, and
 * collective). Views: displacement 16, etype MPI_INT and a filetype giving rank r every
 * size-th int (a subarray on even ranks, a resized struct of a two-int vector on odd ones),
 * write_all of 50 ints, get_position/get_byte_offset in etypes, get_view (displacement, etype,
 * the filetype's size and extent, "native"; derived types freed), read_all and read_at_all
 * through the view into a strided memory type (gaps untouched), a read past the end, then the
 * default view (both pointers reset to 0) and the whole file checked: 16 untouched zero bytes
 * and the interleaving. Nonblocking: iwrite_at/iread_at completed by Wait and a Test loop,
 * iwrite/iread (the pointer moves at initiation) completed by Waitall and Waits in reverse,
 * counts from the statuses, a 0-byte iread_at at the end. Shared pointer: write_shared of one
 * 8-byte record per rank (each exactly once, 8-byte aligned), get_position_shared,
 * seek_shared (SEEK_END, SEEK_CUR, SEEK_SET), write_ordered and read_ordered (rank r: r+1
 * ints, exact layout), read_shared of every record exactly once; queries of the shared
 * pointer and of the size sit between barriers (a collective need not synchronize).
 * set_size (grow, shrink, data kept, short read), preallocate (grows, never shrinks),
 * get_size; set/get_atomicity with overlapping atomic writes (one writer's bytes win whole,
 * the same for every rank); get_type_extent. DELETE_ON_CLOSE; open errors on every rank:
 * EXCL on an existing file (MPI_ERR_FILE_EXISTS), a missing file (MPI_ERR_NO_SUCH_FILE), bad
 * amodes (MPI_ERR_AMODE); writes to a RDONLY file (MPI_ERR_READ_ONLY or MPI_ERR_ACCESS, the
 * file unchanged), reads of a WRONLY one (MPI_ERR_ACCESS); File_delete of a missing file
 * (MPI_ERR_NO_SUCH_FILE) and of an existing one. Error handlers: MPI_FILE_NULL's is
 * MPI_ERRORS_RETURN; a File_create_errhandler handler set on a file is called once per failing
 * call (negative offset MPI_ERR_ARG, count MPI_ERR_COUNT, MPI_DATATYPE_NULL MPI_ERR_TYPE, a
 * write to a RDONLY file) with the file and the code the call returns, and by
 * File_call_errhandler; it keeps working after Errhandler_free (of get_errhandler's reference
 * and the creator's); other and new files keep MPI_ERRORS_RETURN. MPI_COMM_SELF: a file per
 * rank, written, read back by its owner and by a neighbour. Split collectives (begin/end, a
 * second begin refused) and iread_at_all/iwrite_all. Where Debian's MPICH 4.0.2 (ROMIO)
 * departs from the standard (counts of collective and noncontiguous reads at the end of file;
 * Error_string of an open error code made on another rank) the check sits behind
 * TORUS_MPI_H. Any size. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static int rank, size;
static char dir[256];

enum { kBlock = 1000 };

static void path_of(char* out, size_t n, const char* name) { snprintf(out, n, "%s/%s", dir, name); }

static MPI_File open_on(MPI_Comm comm, const char* name, int amode) {
  char path[512];
  path_of(path, sizeof path, name);
  MPI_File fh = MPI_FILE_NULL;
  CHECK_MPI(MPI_File_open(comm, path, amode, MPI_INFO_NULL, &fh));
  CHECK(fh != MPI_FILE_NULL);
  return fh;
}

static MPI_File open_world(const char* name, int amode) {
  return open_on(MPI_COMM_WORLD, name, amode);
}

static void close_file(MPI_File* fh) {
  CHECK_MPI(MPI_File_close(fh));
  CHECK(*fh == MPI_FILE_NULL);
}

/* The standard's rule for seeing another process's writes in nonatomic mode. */
static void sync_barrier(MPI_File fh) {
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_sync(fh));
}

static int count_of(const MPI_Status* st, MPI_Datatype type) {
  int n = -2;
  CHECK_MPI(MPI_Get_count(st, type, &n));
  return n;
}

static MPI_Offset position(MPI_File fh) {
  MPI_Offset p = -1;
  CHECK_MPI(MPI_File_get_position(fh, &p));
  return p;
}

static MPI_Offset shared_position(MPI_File fh) {
  MPI_Offset p = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &p));
  return p;
}

static MPI_Offset file_size(MPI_File fh) {
  MPI_Offset s = -1;
  CHECK_MPI(MPI_File_get_size(fh, &s));
  return s;
}

/* The size every rank sees, then a barrier before anyone changes it again. */
static void expect_size(MPI_File fh, MPI_Offset want) {
  CHECK(file_size(fh) == want);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static int missing(const char* name) {
  char path[512];
  path_of(path, sizeof path, name);
  return access(path, F_OK) != 0 && errno == ENOENT;
}

/* Types File_get_view returns are new handles unless predefined. */
static void free_if_derived(MPI_Datatype* t) {
  int ni = -1, na = -1, nd = -1, combiner = -1;
  CHECK_MPI(MPI_Type_get_envelope(*t, &ni, &na, &nd, &combiner));
  if (combiner != MPI_COMBINER_NAMED) CHECK_MPI(MPI_Type_free(t));
}

static void basics(void) {
  const int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
  MPI_File fh = open_world("basic", amode);
  int got = -1;
  CHECK_MPI(MPI_File_get_amode(fh, &got));
  CHECK(got == amode);
  MPI_Group fg, wg;
  int cmp = -1;
  CHECK_MPI(MPI_File_get_group(fh, &fg));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_compare(fg, wg, &cmp));
  CHECK(cmp == MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&fg));
  CHECK_MPI(MPI_Group_free(&wg));
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  CHECK_MPI(MPI_File_get_errhandler(fh, &eh));
  CHECK(eh == MPI_ERRORS_RETURN);
  int flag = -1;
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 0);
  CHECK(file_size(fh) == 0 && position(fh) == 0 && shared_position(fh) == 0);
  close_file(&fh);
}

/* Leaves the file open for memory_types. */
static MPI_File explicit_offsets(void) {
  MPI_File fh = open_world("explicit", MPI_MODE_CREATE | MPI_MODE_RDWR);
  unsigned char out[kBlock], in[kBlock];
  MPI_Status st;
  fill(out, kBlock, (unsigned)rank);
  CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * kBlock, out, kBlock, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == kBlock);
  CHECK_MPI(MPI_File_write_at(fh, 0, out, 0, MPI_BYTE, &st)); /* nothing */
  CHECK(count_of(&st, MPI_BYTE) == 0);
  sync_barrier(fh);

  const int peer = (rank + 1) % size;
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)peer * kBlock, in, kBlock, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == kBlock);
  CHECK(verify(in, kBlock, (unsigned)peer) == kBlock);
  /* The same block as 250 ints. */
  int ints[kBlock / 4];
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)peer * kBlock, ints, kBlock / 4, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == kBlock / 4 && count_of(&st, MPI_BYTE) == kBlock);
  CHECK(memcmp(ints, in, kBlock) == 0);

  /* Across the end: the last 300 bytes of the last block; as ints, 100 of 250. */
  const MPI_Offset end = (MPI_Offset)size * kBlock;
  memset(in, 0xee, sizeof in);
  CHECK_MPI(MPI_File_read_at(fh, end - 300, in, kBlock, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 300);
  for (int i = 0; i < 300; ++i)
    CHECK(in[i] == pattern_byte((unsigned)(size - 1), (size_t)(kBlock - 300 + i)));
  for (int i = 300; i < kBlock; ++i) CHECK(in[i] == 0xee);
  CHECK_MPI(MPI_File_read_at(fh, end - 400, ints, kBlock / 4, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == 100);
  /* Past the end: nothing. */
  CHECK_MPI(MPI_File_read_at(fh, end, in, 10, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 0);
  CHECK_MPI(MPI_File_read_at(fh, end + 12345, ints, 3, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == 0);
  CHECK(file_size(fh) == end);
  return fh;
}

static void collectives(void) {
  MPI_File fh = open_world("collective", MPI_MODE_CREATE | MPI_MODE_RDWR);
  unsigned char out[kBlock], in[kBlock];
  MPI_Status st;
  fill(out, kBlock, 100u + (unsigned)rank);
  CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)rank * kBlock, out, kBlock, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == kBlock);
  sync_barrier(fh);
  const int mirror = size - 1 - rank;
  CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)mirror * kBlock, in, kBlock, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == kBlock);
  CHECK(verify(in, kBlock, 100u + (unsigned)mirror) == kBlock);
  /* The explicit-offset calls leave the individual pointer alone. */
  CHECK(position(fh) == 0);

  /* Individual pointers: 512 bytes per rank after the blocks, written in two halves. */
  const MPI_Offset base = (MPI_Offset)size * kBlock, mine = base + 512 * (MPI_Offset)rank;
  fill(out, 512, 200u + (unsigned)rank);
  CHECK_MPI(MPI_File_seek(fh, mine, MPI_SEEK_SET));
  CHECK(position(fh) == mine);
  CHECK_MPI(MPI_File_write_all(fh, out, 256, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 256 && position(fh) == mine + 256);
  CHECK_MPI(MPI_File_write_all(fh, out + 256, 256, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 256 && position(fh) == mine + 512);
  MPI_Offset disp = -1;
  CHECK_MPI(MPI_File_get_byte_offset(fh, mine + 512, &disp));
  CHECK(disp == mine + 512); /* the default view: etypes are bytes */
  sync_barrier(fh);

  const int peer = (rank + 1) % size;
  const MPI_Offset theirs = base + 512 * (MPI_Offset)peer;
  unsigned char want[512];
  fill(want, 512, 200u + (unsigned)peer);
  CHECK_MPI(MPI_File_seek(fh, theirs, MPI_SEEK_SET));
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read_all(fh, in, 512, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 512 && position(fh) == theirs + 512);
  CHECK(memcmp(in, want, 512) == 0);
  CHECK_MPI(MPI_File_seek(fh, -512, MPI_SEEK_CUR));
  CHECK(position(fh) == theirs);
  CHECK_MPI(MPI_File_seek(fh, 256, MPI_SEEK_CUR));
  CHECK(position(fh) == theirs + 256);
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read_all(fh, in, 256, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 256 && memcmp(in, want + 256, 256) == 0);

  /* From the end: the last rank's 512 bytes, then nothing. */
  const MPI_Offset end = base + 512 * (MPI_Offset)size;
  CHECK(file_size(fh) == end);
  CHECK_MPI(MPI_File_seek(fh, -512, MPI_SEEK_END));
  CHECK(position(fh) == end - 512);
  fill(want, 512, 200u + (unsigned)(size - 1));
  CHECK_MPI(MPI_File_read_all(fh, in, 512, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 512 && memcmp(in, want, 512) == 0);
  CHECK(position(fh) == end);
  CHECK_MPI(MPI_File_read(fh, in, 100, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 0 && position(fh) == end);
  CHECK_MPI(MPI_File_read_all(fh, in, 100, MPI_BYTE, &st));
#ifdef TORUS_MPI_H
  /* ROMIO's collective reads at more than one rank report the count asked for (100) and move
   * the pointer by it, though nothing was read. */
  CHECK(count_of(&st, MPI_BYTE) == 0 && position(fh) == end);
#endif
  CHECK_MPI(MPI_File_read_at_all(fh, end, in, 100, MPI_BYTE, &st));
#ifdef TORUS_MPI_H
  CHECK(count_of(&st, MPI_BYTE) == 0); /* ROMIO at more than one rank: 100 */
#endif
  close_file(&fh);
}

enum { kViewInts = 50, kViewDisp = 16 };

static int view_value(int r, int k) { return r * 1000 + k + 1; }

/* Rank r's ints in the file: r, r + size, r + 2*size, ... (etype MPI_INT). Even ranks build
 * one int of a size-int subarray; odd ranks two ints a row apart (a vector), moved to column
 * r by a struct and resized to two rows. */
static MPI_Datatype strided_filetype(void) {
  MPI_Datatype t;
  if (rank % 2 == 0) {
    int sizes[1] = {size}, subsizes[1] = {1}, starts[1] = {rank};
    CHECK_MPI(MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t));
  } else {
    MPI_Datatype v, s;
    CHECK_MPI(MPI_Type_vector(2, 1, size, MPI_INT, &v));
    int one = 1;
    MPI_Aint at = (MPI_Aint)rank * (MPI_Aint)sizeof(int);
    CHECK_MPI(MPI_Type_create_struct(1, &one, &at, &v, &s));
    CHECK_MPI(MPI_Type_create_resized(s, 0, 2 * size * (MPI_Aint)sizeof(int), &t));
    CHECK_MPI(MPI_Type_free(&s));
    CHECK_MPI(MPI_Type_free(&v));
  }
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

static void views(void) {
  MPI_File fh = open_world("view", MPI_MODE_CREATE | MPI_MODE_RDWR);
  MPI_Datatype ftype = strided_filetype();
  CHECK_MPI(MPI_File_set_view(fh, kViewDisp, MPI_INT, ftype, "native", MPI_INFO_NULL));
  int vals[kViewInts];
  for (int k = 0; k < kViewInts; ++k) vals[k] = view_value(rank, k);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_all(fh, vals, kViewInts, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == kViewInts);
  CHECK(position(fh) == kViewInts); /* in etypes */
  MPI_Offset disp = -1;
  CHECK_MPI(MPI_File_get_byte_offset(fh, 0, &disp));
  CHECK(disp == kViewDisp + 4 * (MPI_Offset)rank);
  CHECK_MPI(MPI_File_get_byte_offset(fh, 11, &disp));
  CHECK(disp == kViewDisp + 4 * (MPI_Offset)(11 * size + rank));

  MPI_Offset gdisp = -1;
  MPI_Datatype etype = MPI_DATATYPE_NULL, gtype = MPI_DATATYPE_NULL;
  char rep[MPI_MAX_DATAREP_STRING];
  CHECK_MPI(MPI_File_get_view(fh, &gdisp, &etype, &gtype, rep));
  CHECK(gdisp == kViewDisp && strcmp(rep, "native") == 0 && etype == MPI_INT);
  int tsize = -1;
  MPI_Aint lb = -1, extent = -1;
  CHECK_MPI(MPI_Type_size(gtype, &tsize));
  CHECK_MPI(MPI_Type_get_extent(gtype, &lb, &extent));
  CHECK(tsize == (rank % 2 ? 8 : 4) && lb == 0);
  CHECK(extent == (rank % 2 ? 2 : 1) * size * (MPI_Aint)sizeof(int));
  free_if_derived(&etype);
  free_if_derived(&gtype);
  CHECK_MPI(MPI_Type_free(&ftype)); /* the view keeps its own */
  sync_barrier(fh);

  /* Back through the view into a strided memory type: the gaps stay. */
  MPI_Datatype strided = strided_int_type();
  int* m = marked_ints(2 * kViewInts, -7);
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_all(fh, m, kViewInts, strided, &st));
  CHECK(count_of(&st, strided) == kViewInts && count_of(&st, MPI_INT) == kViewInts);
  for (int k = 0; k < kViewInts; ++k) CHECK(m[2 * k] == vals[k] && m[2 * k + 1] == -7);
  int five[5] = {0};
  CHECK_MPI(MPI_File_read_at_all(fh, 10, five, 5, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == 5);
  for (int k = 0; k < 5; ++k) CHECK(five[k] == view_value(rank, 10 + k));
  CHECK_MPI(MPI_File_read_at(fh, kViewInts, five, 1, MPI_INT, &st)); /* past the end */
#ifdef TORUS_MPI_H
  /* ROMIO's reads through a noncontiguous view report the count asked for (1). */
  CHECK(count_of(&st, MPI_INT) == 0);
#endif
  free(m);
  CHECK_MPI(MPI_Type_free(&strided));

  /* The default view: the pointers go back to 0, and the whole file is seen as bytes. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  CHECK(position(fh) == 0 && shared_position(fh) == 0);
  CHECK_MPI(MPI_File_get_view(fh, &gdisp, &etype, &gtype, rep));
  CHECK(gdisp == 0 && etype == MPI_BYTE && gtype == MPI_BYTE && strcmp(rep, "native") == 0);
  free_if_derived(&etype);
  free_if_derived(&gtype);
  const int total = kViewInts * size;
  const MPI_Offset bytes = kViewDisp + 4 * (MPI_Offset)total;
  CHECK(file_size(fh) == bytes);
  unsigned char* whole = malloc((size_t)bytes);
  memset(whole, 0xee, (size_t)bytes);
  CHECK_MPI(MPI_File_read_at(fh, 0, whole, (int)bytes, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == (int)bytes);
  for (int i = 0; i < kViewDisp; ++i) CHECK(whole[i] == 0);
  for (int j = 0; j < total; ++j) {
    int v;
    memcpy(&v, whole + kViewDisp + 4 * j, sizeof v);
    CHECK(v == view_value(j % size, j / size));
  }
  free(whole);
  close_file(&fh);
}

/* A vector of stride 2 in memory through the default (contiguous) view, into the explicit
 * offsets' file after its blocks (once every rank is done with them). */
static void memory_types(MPI_File fh) {
  enum { n = 100 };
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  const MPI_Offset base = (MPI_Offset)size * kBlock;
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  int out[2 * n];
  for (int i = 0; i < n; ++i) {
    out[2 * i] = rank * 10000 + i;
    out[2 * i + 1] = -1; /* never written */
  }
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at(fh, base + (MPI_Offset)rank * n * 4, out, 1, vec, &st));
  CHECK(count_of(&st, vec) == 1 && count_of(&st, MPI_INT) == n);
  CHECK(count_of(&st, MPI_BYTE) == n * 4);
  sync_barrier(fh);
  CHECK(file_size(fh) == base + (MPI_Offset)size * n * 4);
  const int peer = (rank + size - 1) % size;
  int in[n];
  CHECK_MPI(MPI_File_read_at(fh, base + (MPI_Offset)peer * n * 4, in, n, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == n);
  for (int i = 0; i < n; ++i) CHECK(in[i] == peer * 10000 + i);
  /* And back into the strided layout, one element of two ints extent at a time. */
  MPI_Datatype strided = strided_int_type();
  int* m = marked_ints(2 * n, -7);
  CHECK_MPI(MPI_File_read_at(fh, base + (MPI_Offset)peer * n * 4, m, n, strided, &st));
  CHECK(count_of(&st, strided) == n);
  for (int i = 0; i < n; ++i) CHECK(m[2 * i] == peer * 10000 + i && m[2 * i + 1] == -7);
  free(m);
  CHECK_MPI(MPI_Type_free(&strided));
  CHECK_MPI(MPI_Type_free(&vec));
  close_file(&fh);
}

static void nonblocking(void) {
  MPI_File fh = open_world("nonblocking", MPI_MODE_CREATE | MPI_MODE_RDWR);
  unsigned char out[kBlock], in[kBlock];
  MPI_Request req;
  MPI_Status st;
  fill(out, kBlock, 300u + (unsigned)rank);
  CHECK_MPI(MPI_File_iwrite_at(fh, (MPI_Offset)rank * kBlock, out, kBlock, MPI_BYTE, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL && count_of(&st, MPI_BYTE) == kBlock);
  sync_barrier(fh);
  const int peer = (rank + 1) % size;
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_iread_at(fh, (MPI_Offset)peer * kBlock, in, kBlock, MPI_BYTE, &req));
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Test(&req, &flag, &st));
  CHECK(req == MPI_REQUEST_NULL && count_of(&st, MPI_BYTE) == kBlock);
  CHECK(verify(in, kBlock, 300u + (unsigned)peer) == kBlock);

  /* Individual pointers: two 100-byte pieces per rank after the blocks; the pointer moves
   * when an operation starts. */
  const MPI_Offset base = (MPI_Offset)size * kBlock, mine = base + 200 * (MPI_Offset)rank;
  fill(out, 200, 400u + (unsigned)rank);
  MPI_Request two[2];
  MPI_Status sts[2];
  CHECK_MPI(MPI_File_seek(fh, mine, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iwrite(fh, out, 100, MPI_BYTE, &two[0]));
  CHECK(position(fh) == mine + 100);
  CHECK_MPI(MPI_File_iwrite(fh, out + 100, 100, MPI_BYTE, &two[1]));
  CHECK(position(fh) == mine + 200);
  CHECK_MPI(MPI_Waitall(2, two, sts));
  CHECK(count_of(&sts[0], MPI_BYTE) == 100 && count_of(&sts[1], MPI_BYTE) == 100);
  sync_barrier(fh);
  const MPI_Offset theirs = base + 200 * (MPI_Offset)peer;
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_seek(fh, theirs, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iread(fh, in, 100, MPI_BYTE, &two[0]));
  CHECK_MPI(MPI_File_iread(fh, in + 100, 100, MPI_BYTE, &two[1]));
  CHECK(position(fh) == theirs + 200);
  CHECK_MPI(MPI_Wait(&two[1], &sts[1]));
  CHECK_MPI(MPI_Wait(&two[0], &sts[0]));
  CHECK(count_of(&sts[0], MPI_BYTE) == 100 && count_of(&sts[1], MPI_BYTE) == 100);
  CHECK(verify(in, 200, 400u + (unsigned)peer) == 200);
  /* At the end of the file: complete, nothing read. */
  CHECK_MPI(MPI_File_iread_at(fh, base + 200 * (MPI_Offset)size, in, 10, MPI_BYTE, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(count_of(&st, MPI_BYTE) == 0);
  close_file(&fh);
}

static void shared_pointer(void) {
  MPI_File fh = open_world("shared", MPI_MODE_CREATE | MPI_MODE_RDWR);
  MPI_Status st;
  CHECK(shared_position(fh) == 0);
  /* Each query of the shared pointer (and of the size) sits between barriers: a collective
   * call need not synchronize, so one rank may move the pointer while another still asks. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int rec[2] = {0x5ead0000 + rank, rank};
  CHECK_MPI(MPI_File_write_shared(fh, rec, 2, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == 2);
  CHECK(position(fh) == 0); /* the individual pointer stays */
  sync_barrier(fh);
  const MPI_Offset records = 8 * (MPI_Offset)size;
  CHECK(shared_position(fh) == records && file_size(fh) == records);
  if (rank == 0) {
    int* all = marked_ints(2 * size, -1);
    int* seen = marked_ints(size, 0);
    CHECK_MPI(MPI_File_read_at(fh, 0, all, 2 * size, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 2 * size);
    for (int i = 0; i < size; ++i) {
      const int r = all[2 * i + 1];
      CHECK(r >= 0 && r < size && all[2 * i] == 0x5ead0000 + r);
      ++seen[r];
    }
    for (int r = 0; r < size; ++r) CHECK(seen[r] == 1);
    free(all);
    free(seen);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Ordered records after them: rank r writes r + 1 ints r*100 + i. */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
  CHECK(shared_position(fh) == records);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  const int total = size * (size + 1) / 2;
  int* mine = marked_ints(rank + 1, 0);
  int* got = marked_ints(rank + 1, -1);
  for (int i = 0; i <= rank; ++i) mine[i] = rank * 100 + i;
  CHECK_MPI(MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == rank + 1);
  sync_barrier(fh);
  CHECK(shared_position(fh) == records + 4 * (MPI_Offset)total);
  int* layout = marked_ints(total, -1);
  CHECK_MPI(MPI_File_read_at(fh, records, layout, total, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == total);
  for (int q = 0; q < size; ++q)
    for (int i = 0; i <= q; ++i) CHECK(layout[q * (q + 1) / 2 + i] == q * 100 + i);
  free(layout);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_seek_shared(fh, -4 * (MPI_Offset)total, MPI_SEEK_CUR));
  CHECK(shared_position(fh) == records);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_read_ordered(fh, got, rank + 1, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == rank + 1);
  CHECK(memcmp(got, mine, sizeof(int) * (size_t)(rank + 1)) == 0);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(shared_position(fh) == records + 4 * (MPI_Offset)total);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  free(mine);
  free(got);

  /* read_shared from the start: together the ranks get every record once. */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  CHECK(shared_position(fh) == 0);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int one[2] = {-1, -1};
  CHECK_MPI(MPI_File_read_shared(fh, one, 2, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == 2);
  int* all = marked_ints(2 * size, -1);
  CHECK_MPI(MPI_Allgather(one, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
  int* seen = marked_ints(size, 0);
  for (int i = 0; i < size; ++i) {
    const int r = all[2 * i + 1];
    CHECK(r >= 0 && r < size && all[2 * i] == 0x5ead0000 + r);
    ++seen[r];
  }
  for (int r = 0; r < size; ++r) CHECK(seen[r] == 1);
  free(all);
  free(seen);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(shared_position(fh) == records);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  close_file(&fh);
}

static void sizes_and_atomicity(void) {
  MPI_File fh = open_world("sizes", MPI_MODE_CREATE | MPI_MODE_RDWR);
  unsigned char buf[4096];
  MPI_Status st;
  if (rank == 0) {
    fill(buf, kBlock, 600);
    CHECK_MPI(MPI_File_write_at(fh, 0, buf, kBlock, MPI_BYTE, &st));
  }
  sync_barrier(fh);
  expect_size(fh, kBlock);
  /* Each change (a write, as far as seeing it goes: sync + barrier + sync), then what every
   * rank reads, then the size and a barrier. */
  CHECK_MPI(MPI_File_set_size(fh, 4096));
  sync_barrier(fh);
  memset(buf, 0, sizeof buf);
  CHECK_MPI(MPI_File_read_at(fh, 0, buf, 4096, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 4096 && verify(buf, kBlock, 600) == kBlock);
  expect_size(fh, 4096);
  CHECK_MPI(MPI_File_set_size(fh, 500));
  sync_barrier(fh);
  memset(buf, 0, sizeof buf);
  CHECK_MPI(MPI_File_read_at(fh, 0, buf, kBlock, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 500 && verify(buf, 500, 600) == 500);
  expect_size(fh, 500);
  CHECK_MPI(MPI_File_preallocate(fh, 8192));
  sync_barrier(fh);
  expect_size(fh, 8192);
  CHECK_MPI(MPI_File_preallocate(fh, 100)); /* never shrinks */
  sync_barrier(fh);
  memset(buf, 0, sizeof buf);
  CHECK_MPI(MPI_File_read_at(fh, 0, buf, 500, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 500 && verify(buf, 500, 600) == 500);
  expect_size(fh, 8192);
  CHECK_MPI(MPI_File_set_size(fh, 0));
  sync_barrier(fh);
  expect_size(fh, 0);

  /* Atomic mode: overlapping writes of one 4096-byte region by every rank; one whole write
   * wins, the same for every rank, with no sync needed. */
  int flag = -1;
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 1);
  memset(buf, rank + 1, sizeof buf);
  CHECK_MPI(MPI_File_write_at(fh, 0, buf, 4096, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 4096);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  memset(buf, 0, sizeof buf);
  CHECK_MPI(MPI_File_read_at(fh, 0, buf, 4096, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 4096);
  const int winner = buf[0];
  CHECK(winner >= 1 && winner <= size);
  for (int i = 0; i < 4096; ++i) CHECK(buf[i] == winner);
  int lo = -1, hi = -1;
  CHECK_MPI(MPI_Allreduce(&winner, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(&winner, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(lo == winner && hi == winner);
  CHECK_MPI(MPI_File_set_atomicity(fh, 0));
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 0);

  MPI_Aint e = -1;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &e));
  CHECK(e == (MPI_Aint)sizeof(int));
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_DOUBLE, &e));
  CHECK(e == (MPI_Aint)sizeof(double));
  MPI_Datatype strided = strided_int_type();
  CHECK_MPI(MPI_File_get_type_extent(fh, strided, &e));
  CHECK(e == 2 * (MPI_Aint)sizeof(int));
  CHECK_MPI(MPI_Type_free(&strided));
  close_file(&fh);
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

/* MPI_COMM_SELF: a file per rank, read back by its owner and then by a neighbour. */
static void self_files(void) {
  enum { n = 3000 };
  char name[64];
  snprintf(name, sizeof name, "self-%d", rank);
  MPI_File fh = open_on(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR);
  MPI_Group fg, sg;
  int cmp = -1;
  CHECK_MPI(MPI_File_get_group(fh, &fg));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_SELF, &sg));
  CHECK_MPI(MPI_Group_compare(fg, sg, &cmp));
  CHECK(cmp == MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&fg));
  CHECK_MPI(MPI_Group_free(&sg));
  unsigned char out[n], in[n];
  MPI_Status st;
  fill(out, n, 700u + (unsigned)rank);
  CHECK_MPI(MPI_File_write(fh, out, 1000, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == 1000);
  CHECK_MPI(MPI_File_write_all(fh, out + 1000, n - 1000, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == n - 1000 && position(fh) == n && file_size(fh) == n);
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read(fh, in, n, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == n && verify(in, n, 700u + (unsigned)rank) == n);
  close_file(&fh);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  const int peer = (rank + 1) % size;
  snprintf(name, sizeof name, "self-%d", peer);
  fh = open_on(MPI_COMM_SELF, name, MPI_MODE_RDONLY);
  CHECK(file_size(fh) == n);
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, in, n, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == n && verify(in, n, 700u + (unsigned)peer) == n);
  close_file(&fh);
}

/* Split collectives (begin/end) and the nonblocking collectives: each rank's 64-int block
 * at rank*256 bytes written by write_at_all_begin/end, read back by iread_at_all; the
 * individual pointer moved by write_all_begin/end and iwrite_all; an ordered pair; a second
 * begin while one is active is an error (the file keeps the first). */
static void split_and_icoll(void) {
  MPI_File fh = open_world("split", MPI_MODE_CREATE | MPI_MODE_RDWR);
  int out[64], in[64], n = -1;
  for (int i = 0; i < 64; ++i) out[i] = rank * 1000 + i;
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at_all_begin(fh, (MPI_Offset)rank * 256, out, 64, MPI_INT));
  CHECK(MPI_File_write_at_all_begin(fh, 0, out, 1, MPI_INT) != MPI_SUCCESS);
  CHECK_MPI(MPI_File_write_at_all_end(fh, out, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == 64);
  sync_barrier(fh);
  MPI_Request req;
  const int peer = (rank + 1) % size;
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_iread_at_all(fh, (MPI_Offset)peer * 256, in, 64, MPI_INT, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == 64);
  for (int i = 0; i < 64; ++i) CHECK(in[i] == peer * 1000 + i);
  sync_barrier(fh);
  /* The individual pointer: past everyone's blocks, 16 ints by a split write, 16 by iwrite_all. */
  CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)size * 256 + rank * 128, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_write_all_begin(fh, out, 16, MPI_INT));
  CHECK_MPI(MPI_File_write_all_end(fh, out, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_File_iwrite_all(fh, out + 16, 16, MPI_INT, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == (MPI_Offset)size * 256 + rank * 128 + 128);
  sync_barrier(fh);
  CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)size * 256 + peer * 128, MPI_SEEK_SET));
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read_all_begin(fh, in, 32, MPI_INT));
  CHECK_MPI(MPI_File_read_all_end(fh, in, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == 32);
  for (int i = 0; i < 32; ++i) CHECK(in[i] == peer * 1000 + i);
  close_file(&fh);
}

static void make_dir(void) {
  if (rank == 0) {
    snprintf(dir, sizeof dir, "/tmp/torus-io-%d-XXXXXX", (int)getpid());
    CHECK(mkdtemp(dir) != NULL);
  }
  CHECK_MPI(MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD));
  struct stat sb;
  CHECK(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode));
}

/* Everything left in the directory (hidden files an implementation made too), then it. */
static void remove_dir(void) {
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

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  make_dir();
  basics();
  MPI_File fh = explicit_offsets();
  memory_types(fh);
  collectives();
  views();
  nonblocking();
  shared_pointer();
  sizes_and_atomicity();
  open_errors();
  error_handlers();
  self_files();
  split_and_icoll();
  remove_dir();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("mpi io ok: %d ranks\n", size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
