/* MPI-IO state the ranks share on one file. The shared pointer: write_shared of one 8-byte
 * record per rank (each exactly once, 8-byte aligned), get_position_shared, seek_shared
 * (SEEK_END, SEEK_CUR, SEEK_SET), write_ordered and read_ordered (rank r: r+1 ints, exact
 * layout), read_shared of every record exactly once; queries of the shared pointer and of the
 * size sit between barriers (a collective need not synchronize). set_size (grow, shrink, data
 * kept, short read), preallocate (grows, never shrinks), get_size; set/get_atomicity with
 * overlapping atomic writes (one writer's bytes win whole, the same for every rank);
 * get_type_extent. Any size. */
#define _POSIX_C_SOURCE 200809L
#include "io_files.h"

/* The size every rank sees, then a barrier before anyone changes it again. */
static void expect_size(MPI_File fh, MPI_Offset want) {
  CHECK(file_size(fh) == want);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
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

int main(int argc, char** argv) {
  io_init(&argc, &argv);
  shared_pointer();
  sizes_and_atomicity();
  return io_finish("io_shared");
}
