/* MPI 4.0's large-count (_c) calls: every one with small counts against its int twin's
 * result (Send/Recv, Isend/Irecv, Ssend, Sendrecv(_replace), persistent, matched receives,
 * Bcast, Reduce, Allreduce, Gather, Scatter, Allgather, Alltoall, Get_count/Get_elements,
 * Type_size/extent/contiguous; the file calls on a per-rank file), a negative count
 * (MPI_ERR_COUNT), and at exactly 2 ranks one message of 2^31 + 17 bytes (above INT_MAX)
 * sent by Send_c and Isend_c, checked byte for byte with Get_count_c, and Type_contiguous_c
 * of that many bytes. Any size. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int rank, size;

static void p2p_small(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[100], in[100];
  for (int i = 0; i < 100; ++i) out[i] = rank * 1000 + i;
  MPI_Status st;
  MPI_Request reqs[2];
  MPI_Count n = -1;
  CHECK_MPI(MPI_Irecv_c(in, 100, MPI_INT, left, 1, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Isend_c(out, 100, MPI_INT, right, 1, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Wait(&reqs[0], &st));
  CHECK_MPI(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &n));
  CHECK(n == 100);
  for (int i = 0; i < 100; ++i) CHECK(in[i] == left * 1000 + i);
  CHECK_MPI(MPI_Get_elements_c(&st, MPI_INT, &n));
  CHECK(n == 100);
  CHECK_MPI(MPI_Get_count_c(&st, MPI_DOUBLE, &n));
  CHECK(n == 50);
  /* Sendrecv_c, Sendrecv_replace_c. */
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_Sendrecv_c(out, 7, MPI_INT, right, 2, in, 100, MPI_INT, left, 2, MPI_COMM_WORLD,
                           &st));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &n));
  CHECK(n == 7 && in[6] == left * 1000 + 6);
  int buf[3] = {rank, rank, rank};
  CHECK_MPI(MPI_Sendrecv_replace_c(buf, 3, MPI_INT, right, 3, left, 3, MPI_COMM_WORLD, &st));
  CHECK(buf[0] == left && buf[2] == left);
  /* Ssend_c / Recv_c around the ring, even ranks first (odd sizes: rank 0 last). */
  if (size > 1) {
    if (rank % 2 == 0 && rank != size - 1) {
      CHECK_MPI(MPI_Ssend_c(out, 5, MPI_INT, right, 4, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv_c(in, 5, MPI_INT, left, 4, MPI_COMM_WORLD, &st));
    } else {
      CHECK_MPI(MPI_Recv_c(in, 5, MPI_INT, left, 4, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Ssend_c(out, 5, MPI_INT, right, 4, MPI_COMM_WORLD));
    }
    CHECK(in[4] == left * 1000 + 4);
  }
  /* Persistent, twice. */
  MPI_Request p[2];
  CHECK_MPI(MPI_Recv_init_c(in, 10, MPI_INT, left, 5, MPI_COMM_WORLD, &p[0]));
  CHECK_MPI(MPI_Send_init_c(out, 10, MPI_INT, right, 5, MPI_COMM_WORLD, &p[1]));
  for (int round = 0; round < 2; ++round) {
    memset(in, 0, sizeof in);
    CHECK_MPI(MPI_Startall(2, p));
    CHECK_MPI(MPI_Waitall(2, p, MPI_STATUSES_IGNORE));
    CHECK(in[9] == left * 1000 + 9);
  }
  CHECK_MPI(MPI_Request_free(&p[0]));
  CHECK_MPI(MPI_Request_free(&p[1]));
  /* A matched probe, received by Mrecv_c and by Imrecv_c. */
  for (int k = 0; k < 2; ++k) {
    CHECK_MPI(MPI_Isend_c(out, 3, MPI_INT, right, 6, MPI_COMM_WORLD, &reqs[1]));
    MPI_Message msg;
    CHECK_MPI(MPI_Mprobe(left, 6, MPI_COMM_WORLD, &msg, &st));
    memset(in, 0, sizeof in);
    if (k == 0) {
      CHECK_MPI(MPI_Mrecv_c(in, 3, MPI_INT, &msg, &st));
    } else {
      CHECK_MPI(MPI_Imrecv_c(in, 3, MPI_INT, &msg, &reqs[0]));
      CHECK_MPI(MPI_Wait(&reqs[0], &st));
    }
    CHECK(in[2] == left * 1000 + 2);
    CHECK_MPI(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
  }
}

static void collectives_small(void) {
  long v[4] = {rank, 2L * rank, 3, -rank}, sum[4] = {0}, expect_sum = (long)size * (size - 1) / 2;
  CHECK_MPI(MPI_Allreduce_c(v, sum, 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum[0] == expect_sum && sum[1] == 2 * expect_sum && sum[2] == 3L * size &&
        sum[3] == -expect_sum);
  memset(sum, 0, sizeof sum);
  CHECK_MPI(MPI_Reduce_c(v, sum, 4, MPI_LONG, MPI_MAX, size - 1, MPI_COMM_WORLD));
  if (rank == size - 1) CHECK(sum[0] == size - 1 && sum[3] == 0);
  int b[6] = {0};
  if (rank == 0)
    for (int i = 0; i < 6; ++i) b[i] = 40 + i;
  CHECK_MPI(MPI_Bcast_c(b, 6, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(b[5] == 45);
  int pair[2] = {rank, -rank}, *all = malloc(sizeof(int) * 2 * (size_t)size);
  int *back = malloc(sizeof(int) * 2 * (size_t)size);
  CHECK(all && back);
  CHECK_MPI(MPI_Allgather_c(pair, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
  for (int j = 0; j < size; ++j) CHECK(all[2 * j] == j && all[2 * j + 1] == -j);
  memset(all, 0, sizeof(int) * 2 * (size_t)size);
  CHECK_MPI(MPI_Gather_c(pair, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD));
  if (rank == 0)
    for (int j = 0; j < size; ++j) CHECK(all[2 * j] == j && all[2 * j + 1] == -j);
  int mine[2] = {0, 0};
  CHECK_MPI(MPI_Scatter_c(all, 2, MPI_INT, mine, 2, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(mine[0] == rank && mine[1] == -rank);
  for (int j = 0; j < size; ++j) {
    all[2 * j] = rank * 100 + j;
    all[2 * j + 1] = j;
  }
  CHECK_MPI(MPI_Alltoall_c(all, 2, MPI_INT, back, 2, MPI_INT, MPI_COMM_WORLD));
  for (int j = 0; j < size; ++j) CHECK(back[2 * j] == j * 100 + rank && back[2 * j + 1] == rank);
  free(all);
  free(back);
}

/* The file calls' _c forms on a file of this rank's own (MPI_COMM_SELF). */
static void files_small(void) {
  char path[128];
  snprintf(path, sizeof path, "/tmp/torus-large-count-%ld-%d", (long)getpid(), rank);
  MPI_File fh;
  const int amode = MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE;
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, amode, MPI_INFO_NULL, &fh));
  int out[8], in[8];
  for (int i = 0; i < 8; ++i) out[i] = rank * 10 + i;
  MPI_Status st;
  MPI_Count n = 0;
  CHECK_MPI(MPI_File_write_at_c(fh, 0, out, 4, MPI_INT, &st));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &n));
  CHECK(n == 4);
  CHECK_MPI(MPI_File_seek(fh, 16, MPI_SEEK_SET));
  MPI_Request r;
  CHECK_MPI(MPI_File_iwrite_c(fh, out + 4, 4, MPI_INT, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read_at_all_c(fh, 0, in, 8, MPI_INT, &st));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &n));
  CHECK(n == 8);
  for (int i = 0; i < 8; ++i) CHECK(in[i] == rank * 10 + i);
  MPI_Count ext = 0;
  CHECK_MPI(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &ext));
  CHECK(ext == sizeof(double));
  CHECK(error_class_of(MPI_File_read_c(fh, in, -1, MPI_INT, &st)) == MPI_ERR_COUNT);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(access(path, F_OK) != 0);
}

static void types_and_errors(void) {
  MPI_Count sz = -1, lb = -1, ext = -1;
  CHECK_MPI(MPI_Type_size_c(MPI_DOUBLE, &sz));
  CHECK(sz == sizeof(double));
  CHECK_MPI(MPI_Type_get_extent_c(MPI_INT, &lb, &ext));
  CHECK(lb == 0 && ext == sizeof(int));
  CHECK_MPI(MPI_Type_get_true_extent_c(MPI_INT, &lb, &ext));
  CHECK(lb == 0 && ext == sizeof(int));
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_contiguous_c(12, MPI_SHORT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  CHECK_MPI(MPI_Type_size_c(t, &sz));
  CHECK(sz == 12 * (MPI_Count)sizeof(short));
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x = 0;
  CHECK(error_class_of(MPI_Send_c(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* 2 GiB filled fast even unoptimized: one 4 KiB pattern copied page after page, each page
 * stamped with its index and the round, so a page out of place or from the wrong round is
 * caught along with any damaged byte. */
static unsigned char page[4096];

static void stamp(unsigned char* p, size_t len, size_t index, int round) {
  memcpy(p, page, len);
  const uint64_t tag = ((uint64_t)index << 8) | (uint64_t)round;
  memcpy(p, &tag, len < sizeof tag ? len : sizeof tag);
}

static void big_fill(unsigned char* buf, size_t n, int round) {
  for (size_t at = 0; at < n; at += sizeof page)
    stamp(buf + at, n - at < sizeof page ? n - at : sizeof page, at / sizeof page, round);
}

static int big_check(const unsigned char* buf, size_t n, int round) {
  unsigned char want[sizeof page];
  for (size_t at = 0; at < n; at += sizeof page) {
    const size_t len = n - at < sizeof page ? n - at : sizeof page;
    stamp(want, len, at / sizeof page, round);
    if (memcmp(buf + at, want, len) != 0) return 0;
  }
  return 1;
}

/* One message above INT_MAX elements, sent by Send_c and by Isend_c. */
static void above_int_max(void) {
  const MPI_Count n = (MPI_Count)INT_MAX + 18; /* 2^31 + 17 */
  for (size_t i = 0; i < sizeof page; ++i) page[i] = pattern_byte(5, i);
  unsigned char* buf = malloc((size_t)n);
  CHECK(buf != NULL);
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_contiguous_c(n, MPI_BYTE, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  MPI_Count sz = 0;
  CHECK_MPI(MPI_Type_size_c(t, &sz));
  CHECK(sz == n);
  CHECK_MPI(MPI_Type_free(&t));
  for (int way = 0; way < 2; ++way) {
    if (rank == 0) {
      big_fill(buf, (size_t)n, way);
      if (way == 0) {
        CHECK_MPI(MPI_Send_c(buf, n, MPI_BYTE, 1, 9, MPI_COMM_WORLD));
      } else {
        MPI_Request r;
        CHECK_MPI(MPI_Isend_c(buf, n, MPI_BYTE, 1, 9, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
      }
    } else {
      MPI_Status st;
      MPI_Count got = 0;
      CHECK_MPI(MPI_Recv_c(buf, n, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &got));
      CHECK(got == n);
      CHECK(big_check(buf, (size_t)n, way));
    }
  }
  free(buf);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  p2p_small();
  collectives_small();
  types_and_errors();
  files_small();
  if (size == 2) above_int_max();
  if (rank == 0) printf("mpi large_count ok: %d ranks\n", size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
