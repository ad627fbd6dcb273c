/* Nonblocking reductions on parts of the vector: Ireduce_scatter (per-rank counts, zeros
 * among them), Ireduce_scatter_block (small, and large enough for rendezvous), Iscan and
 * Iexscan; on MPI_INT with MPI_SUM, in place and not, on a strided type (the staged path,
 * whose gaps must stay untouched) and with a non-commutative user op (a wrong combine order
 * shows); every element against a local reference. Then all four pending at once on two
 * communicators, completed in reverse, and the argument errors. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;

#define MARK (-777) /* what every gap and every unwritten element holds */

static int count_of(int to) { return (to * 5 + 2) % 4; } /* 0..3 */
/* What rank `from` contributes to element i of rank `to`'s block. */
static int value(int from, int to, int i) { return 1000 * from + 10 * to + i + 1; }
static int sum_over_ranks(int to, int i) {
  int s = 0;
  for (int r = 0; r < size; ++r) s += value(r, to, i);
  return s;
}

static int* marked(int n) { return marked_ints(n, MARK); }

/* `stride` 1: MPI_INT; 2: each element every other int (the odd ints must stay MARK). */
static MPI_Datatype elem_type(int stride) { return stride == 1 ? MPI_INT : strided_int_type(); }

static void wait_one(MPI_Request* req) {
  CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
  CHECK(*req == MPI_REQUEST_NULL);
}

static void reduce_scatter(int stride, int in_place) {
  MPI_Datatype t = elem_type(stride);
  int counts[64], total = 0;
  for (int b = 0; b < size; ++b) total += counts[b] = count_of(b);
  int* in = marked(total * stride);
  int* out = marked(total * stride);
  for (int b = 0, at = 0; b < size; at += counts[b++])
    for (int i = 0; i < counts[b]; ++i) in[(at + i) * stride] = value(rank, b, i);
  if (in_place) memcpy(out, in, sizeof(int) * (size_t)(total * stride));
  MPI_Request req;
  CHECK_MPI(MPI_Ireduce_scatter(in_place ? MPI_IN_PLACE : in, out, counts, t, MPI_SUM,
                                MPI_COMM_WORLD, &req));
  wait_one(&req);
  const int mine = counts[rank];
  for (int i = 0; i < mine; ++i) CHECK(out[i * stride] == sum_over_ranks(rank, i));
  /* Beyond the result: the gaps, and (in place) the rest of the input as it was. */
  for (int k = 0; k < total * stride; ++k) {
    if (k < mine * stride && k % stride == 0) continue;
    CHECK(out[k] == (in_place ? in[k] : MARK));
  }
  free(in);
  free(out);
  if (stride > 1) CHECK_MPI(MPI_Type_free(&t));
}

static void reduce_scatter_block(int n, int in_place) {
  int* in = malloc(sizeof(int) * (size_t)n * (size_t)size);
  int* out = malloc(sizeof(int) * (size_t)n * (size_t)size);
  for (int b = 0; b < size; ++b)
    for (int i = 0; i < n; ++i) in[b * n + i] = value(rank, b, i);
  if (in_place) memcpy(out, in, sizeof(int) * (size_t)n * (size_t)size);
  MPI_Request req;
  CHECK_MPI(MPI_Ireduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM,
                                      MPI_COMM_WORLD, &req));
  wait_one(&req);
  for (int i = 0; i < n; ++i) CHECK(out[i] == sum_over_ranks(rank, i));
  free(in);
  free(out);
}

static void scans(int stride, int in_place) {
  enum { kN = 5 };
  MPI_Datatype t = elem_type(stride);
  int mine[kN * 2], inc[kN * 2], exc[kN * 2];
  for (int k = 0; k < kN * 2; ++k) mine[k] = inc[k] = exc[k] = MARK;
  for (int i = 0; i < kN; ++i) mine[i * stride] = value(rank, 0, i);
  if (in_place) {
    memcpy(inc, mine, sizeof mine);
    memcpy(exc, mine, sizeof mine);
  }
  MPI_Request req[2];
  CHECK_MPI(MPI_Iscan(in_place ? MPI_IN_PLACE : mine, inc, kN, t, MPI_SUM, MPI_COMM_WORLD,
                      &req[0]));
  CHECK_MPI(MPI_Iexscan(in_place ? MPI_IN_PLACE : mine, exc, kN, t, MPI_SUM, MPI_COMM_WORLD,
                        &req[1]));
  CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  for (int i = 0; i < kN; ++i) {
    int below = 0;
    for (int r = 0; r < rank; ++r) below += value(r, 0, i);
    CHECK(inc[i * stride] == below + value(rank, 0, i));
    /* Rank 0's Exscan result is undefined: its buffer must be left as it was. */
    CHECK(exc[i * stride] == (rank == 0 ? (in_place ? mine[i * stride] : MARK) : below));
  }
  for (int k = 0; k < kN * 2; ++k)
    if (k % stride != 0 || k >= kN * stride) CHECK(inc[k] == MARK && exc[k] == MARK);
  if (stride > 1) CHECK_MPI(MPI_Type_free(&t));
}

static void user_op(void) {
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(interval_join, 0, &op));
  enum { kN = 2 };
  int in[2 * kN * 64], out[2 * kN * 64], inc[2 * kN], exc[2 * kN] = {MARK, MARK, MARK, MARK};
  for (int k = 0; k < kN * size; ++k) in[2 * k] = in[2 * k + 1] = rank;
  MPI_Request req[3];
  CHECK_MPI(MPI_Ireduce_scatter_block(in, out, kN, MPI_2INT, op, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Iscan(in, inc, kN, MPI_2INT, op, MPI_COMM_WORLD, &req[1]));
  CHECK_MPI(MPI_Iexscan(in, exc, kN, MPI_2INT, op, MPI_COMM_WORLD, &req[2]));
  CHECK_MPI(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
  for (int i = 0; i < kN; ++i) {
    CHECK(out[2 * i] == 0 && out[2 * i + 1] == size - 1);
    CHECK(inc[2 * i] == 0 && inc[2 * i + 1] == rank);
    if (rank == 0) CHECK(exc[2 * i] == MARK && exc[2 * i + 1] == MARK);
    else CHECK(exc[2 * i] == 0 && exc[2 * i + 1] == rank - 1);
  }
  CHECK_MPI(MPI_Op_free(&op));
}

/* All four pending at once, on the world and a duplicate, completed in reverse order. */
static void together(MPI_Comm dup) {
  int counts[64], total = 0;
  for (int b = 0; b < size; ++b) total += counts[b] = count_of(b);
  int* in = malloc(sizeof(int) * (size_t)(total + size));
  for (int b = 0, at = 0; b < size; at += counts[b++])
    for (int i = 0; i < counts[b]; ++i) in[at + i] = value(rank, b, i);
  int* blk_in = malloc(sizeof(int) * (size_t)size);
  for (int b = 0; b < size; ++b) blk_in[b] = value(rank, b, 0);
  int rs[4], blk = 0, sc = 0, ex = MARK, one = rank + 1;
  MPI_Request req[4];
  CHECK_MPI(MPI_Ireduce_scatter(in, rs, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Ireduce_scatter_block(blk_in, &blk, 1, MPI_INT, MPI_SUM, dup, &req[1]));
  CHECK_MPI(MPI_Iscan(&one, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[2]));
  CHECK_MPI(MPI_Iexscan(&one, &ex, 1, MPI_INT, MPI_SUM, dup, &req[3]));
  for (int k = 3; k >= 0; --k) wait_one(&req[k]);
  for (int i = 0; i < counts[rank]; ++i) CHECK(rs[i] == sum_over_ranks(rank, i));
  CHECK(blk == sum_over_ranks(rank, 0));
  CHECK(sc == (rank + 1) * (rank + 2) / 2);
  CHECK(ex == (rank == 0 ? MARK : rank * (rank + 1) / 2));
  free(in);
  free(blk_in);
}

static void errors(void) {
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  MPI_Request req = MPI_REQUEST_NULL;
  int x[64] = {0}, y[64] = {0}, counts[64] = {0};
  CHECK(error_class_of(MPI_Ireduce_scatter_block(x, y, -1, MPI_INT, MPI_SUM, comm, &req)) ==
        MPI_ERR_COUNT);
  counts[size - 1] = -1;
  CHECK(error_class_of(MPI_Ireduce_scatter(x, y, counts, MPI_INT, MPI_SUM, comm, &req)) ==
        MPI_ERR_COUNT);
  counts[size - 1] = 1;
  CHECK(error_class_of(MPI_Ireduce_scatter(x, y, NULL, MPI_INT, MPI_SUM, comm, &req)) ==
        MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Ireduce_scatter(x, y, counts, MPI_BYTE, MPI_SUM, comm, &req)) ==
        MPI_ERR_OP);
  CHECK(error_class_of(MPI_Iscan(x, y, 1, MPI_INT, MPI_OP_NULL, comm, &req)) == MPI_ERR_OP);
  CHECK(error_class_of(MPI_Iexscan(x, y, -3, MPI_INT, MPI_SUM, comm, &req)) == MPI_ERR_COUNT);
  CHECK(error_class_of(MPI_Iscan(x, y, 1, MPI_DATATYPE_NULL, MPI_SUM, comm, &req)) ==
        MPI_ERR_TYPE);
  CHECK(error_class_of(MPI_Iscan(x, y, 1, MPI_INT, MPI_SUM, comm, NULL)) == MPI_ERR_ARG);
  CHECK(req == MPI_REQUEST_NULL); /* no call above made a request */
  /* An invalid communicator goes to MPI_COMM_WORLD's handler. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(error_class_of(MPI_Iexscan(x, y, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &req)) ==
        MPI_ERR_COMM);
  CHECK(error_class_of(MPI_Ireduce_scatter_block(x, y, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL,
                                                 &req)) == MPI_ERR_COMM);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  /* Nothing to reduce: a request that is complete already. */
  CHECK_MPI(MPI_Iscan(x, y, 0, MPI_INT, MPI_SUM, comm, &req));
  CHECK(req != MPI_REQUEST_NULL);
  wait_one(&req);
  CHECK_MPI(MPI_Comm_free(&comm));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64);
  for (int stride = 1; stride <= 2; ++stride)
    for (int in_place = 0; in_place <= 1; ++in_place) {
      reduce_scatter(stride, in_place);
      scans(stride, in_place);
    }
  reduce_scatter_block(3, 0);
  reduce_scatter_block(3, 1);
  reduce_scatter_block(40000, 0); /* 160 KB blocks: rendezvous */
  user_op();
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  together(dup);
  CHECK_MPI(MPI_Comm_free(&dup));
  errors();
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi icoll_red ok: %d ranks\n", size);
  return 0;
}
