/* MPI-IO basics. File_open on the world (CREATE|RDWR): get_amode, get_group (IDENT with the
 * world's), the default MPI_ERRORS_RETURN handler and nonatomic mode, an empty file, Close
 * giving MPI_FILE_NULL. Explicit offsets: every rank write_at a 1000-byte pattern block at
 * rank*1000, read_at of a neighbour's after sync + barrier + sync, Get_count of the bytes
 * moved (MPI_BYTE and MPI_INT), short reads across and past the end of file, get_size.
 * Non-contiguous memory: a vector of stride 2 written through the default view, read back
 * contiguous and strided (gaps untouched). Collectives: write_at_all/read_at_all,
 * write_all/read_all through individual pointers placed by File_seek (SEEK_SET, SEEK_CUR,
 * SEEK_END), get_position, get_byte_offset, reads at the end giving 0 (independent, and
 * collective). MPI_COMM_SELF: a file per rank, written, read back by its owner and by a
 * neighbour. Where Debian's MPICH 4.0.2 (ROMIO) departs from the standard (counts of
 * collective reads at the end of file) the check sits behind TORUS_MPI_H. Any size. */
#define _POSIX_C_SOURCE 200809L
#include "io_files.h"

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

int main(int argc, char** argv) {
  io_init(&argc, &argv);
  basics();
  MPI_File fh = explicit_offsets();
  memory_types(fh);
  collectives();
  self_files();
  return io_finish("io_basic");
}
