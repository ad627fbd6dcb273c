/* MPI-IO nonblocking and split accesses. iwrite_at/iread_at completed by Wait and a Test
 * loop, iwrite/iread (the pointer moves at initiation) completed by Waitall and Waits in
 * reverse, counts from the statuses, a 0-byte iread_at at the end. Split collectives
 * (begin/end, a second begin refused) and iread_at_all/iwrite_all. Any size. */
#define _POSIX_C_SOURCE 200809L
#include "io_files.h"

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

int main(int argc, char** argv) {
  io_init(&argc, &argv);
  nonblocking();
  split_and_icoll();
  return io_finish("io_nonblocking");
}
