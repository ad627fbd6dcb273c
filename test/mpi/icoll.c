/* Nonblocking collectives: Ibarrier, Ibcast, Ireduce, Iallreduce, Igather, Iscatter,
 * Iallgather, Ialltoall, each against a result computed locally at counts 0, 1, 1000 and
 * 262147 and every root (MPI_IN_PLACE too), completed by Wait, a Test loop or Waitany; eight
 * outstanding at once on the world and a duplicate, completed in an order that differs from
 * the start order and between ranks; overlapped with point-to-point traffic and blocking
 * collectives started after them; progress while a rank blocks in MPI_Recv; the barrier's
 * meaning (no rank leaves before the last one entered, checked by message order and by the
 * clock); a non-commutative user op; a communicator freed while its collectives are pending;
 * argument errors and a truncating transfer under MPI_ERRORS_RETURN. Up to 64 ranks. */
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int rank, size;
static const int kCounts[] = {0, 1, 1000, 262147};
enum { kNumCounts = sizeof(kCounts) / sizeof(kCounts[0]) };

/* Rank r's element i: small integers, so every sum is exact. */
static int value(int r, int i) { return (r * 7 + i * 3) % 11 - 3; }
static int sum_of(int i) {
  int s = 0;
  for (int r = 0; r < size; ++r) s += value(r, i);
  return s;
}
static double max_of(int i) {
  int m = value(0, i);
  for (int r = 1; r < size; ++r) m = value(r, i) > m ? value(r, i) : m;
  return (double)m;
}

/* Completes one request by Wait (how 0), a Test loop (1) or Waitany (2). */
static void complete(MPI_Request* req, int how) {
  if (how % 3 == 0) {
    CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
  } else if (how % 3 == 1) {
    int flag = 0;
    for (;;) {
      CHECK_MPI(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
      if (flag) break;
      sched_yield(); /* 8 ranks share 2 cores */
    }
  } else {
    int index = -1;
    CHECK_MPI(MPI_Waitany(1, req, &index, MPI_STATUS_IGNORE));
    CHECK(index == 0);
  }
  CHECK(*req == MPI_REQUEST_NULL);
}

static void check_sum(const int* out, int n) {
  for (int i = 0; i < n; ++i) {
    if (out[i] != sum_of(i)) fprintf(stderr, "element %d: %d, want %d\n", i, out[i], sum_of(i));
    CHECK(out[i] == sum_of(i));
  }
}

/* Each collective alone, against the local reference. */
static void reference_checks(MPI_Comm comm) {
  for (int ci = 0; ci < kNumCounts; ++ci) {
    const int n = kCounts[ci];
    const size_t block = (size_t)n;
    int* in = malloc(sizeof(int) * (size_t)n + 1);
    int* out = malloc(sizeof(int) * (size_t)n + 1);
    double* d = malloc(sizeof(double) * (size_t)n + 1);
    unsigned char* buf = malloc(block + 1);
    unsigned char* all = malloc(block * (size_t)size + 1);
    unsigned char* all2 = malloc(block * (size_t)size + 1);
    MPI_Request req;
    for (int i = 0; i < n; ++i) in[i] = value(rank, i);

    /* Iallreduce: SUM on INT, then MAX on DOUBLE in place */
    memset(out, 0x55, sizeof(int) * (size_t)n);
    CHECK_MPI(MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, comm, &req));
    complete(&req, ci);
    check_sum(out, n);
    for (int i = 0; i < n; ++i) d[i] = value(rank, i);
    CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, d, n, MPI_DOUBLE, MPI_MAX, comm, &req));
    complete(&req, ci + 1);
    for (int i = 0; i < n; ++i) CHECK(d[i] == max_of(i));

    for (int root = 0; root < size; ++root) {
      const unsigned seed = (unsigned)(root * 13 + ci);
      /* Ibcast */
      if (rank == root) fill(buf, block, seed);
      else memset(buf, 0, block);
      CHECK_MPI(MPI_Ibcast(buf, n, MPI_BYTE, root, comm, &req));
      complete(&req, root + ci);
      CHECK(verify(buf, block, seed) == block);
      /* Ireduce, in place at the root every other time */
      const int in_place = rank == root && (root + ci) % 2;
      if (in_place) memcpy(out, in, sizeof(int) * (size_t)n);
      else memset(out, 0x55, sizeof(int) * (size_t)n);
      CHECK_MPI(MPI_Ireduce(in_place ? MPI_IN_PLACE : in, rank == root ? out : NULL, n, MPI_INT,
                            MPI_SUM, root, comm, &req));
      complete(&req, root + ci + 1);
      if (rank == root) check_sum(out, n);
      /* Igather: block r from rank r */
      fill(buf, block, (unsigned)(rank * 31 + ci));
      memset(all, 0, block * (size_t)size);
      const int gather_in_place = rank == root && root % 2;
      if (gather_in_place) memcpy(all + block * (size_t)root, buf, block);
      CHECK_MPI(MPI_Igather(gather_in_place ? MPI_IN_PLACE : buf, n, MPI_BYTE, all, n, MPI_BYTE,
                            root, comm, &req));
      complete(&req, root + ci + 2);
      if (rank == root)
        for (int r = 0; r < size; ++r)
          CHECK(verify(all + block * (size_t)r, block, (unsigned)(r * 31 + ci)) == block);
      /* Iscatter: the root's block r goes to rank r */
      if (rank == root)
        for (int r = 0; r < size; ++r)
          fill(all + block * (size_t)r, block, (unsigned)(r * 53 + root));
      memset(buf, 0, block);
      CHECK_MPI(MPI_Iscatter(all, n, MPI_BYTE, buf, n, MPI_BYTE, root, comm, &req));
      complete(&req, root + ci);
      CHECK(verify(buf, block, (unsigned)(rank * 53 + root)) == block);
    }

    /* Iallgather, and in place */
    fill(buf, block, (unsigned)(rank * 7 + ci));
    memset(all, 0, block * (size_t)size);
    CHECK_MPI(MPI_Iallgather(buf, n, MPI_BYTE, all, n, MPI_BYTE, comm, &req));
    complete(&req, ci);
    for (int r = 0; r < size; ++r)
      CHECK(verify(all + block * (size_t)r, block, (unsigned)(r * 7 + ci)) == block);
    memset(all, 0, block * (size_t)size);
    fill(all + block * (size_t)rank, block, (unsigned)(rank * 7 + ci));
    CHECK_MPI(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_BYTE, comm, &req));
    complete(&req, ci + 1);
    for (int r = 0; r < size; ++r)
      CHECK(verify(all + block * (size_t)r, block, (unsigned)(r * 7 + ci)) == block);

    /* Ialltoall: block d of rank s is pattern (s, d); then in place */
    for (int t = 0; t < size; ++t) fill(all2 + block * (size_t)t, block, (unsigned)(rank * 64 + t));
    memset(all, 0, block * (size_t)size);
    CHECK_MPI(MPI_Ialltoall(all2, n, MPI_BYTE, all, n, MPI_BYTE, comm, &req));
    complete(&req, ci + 2);
    for (int s = 0; s < size; ++s)
      CHECK(verify(all + block * (size_t)s, block, (unsigned)(s * 64 + rank)) == block);
    CHECK_MPI(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all2, n, MPI_BYTE, comm, &req));
    complete(&req, ci);
    for (int s = 0; s < size; ++s)
      CHECK(verify(all2 + block * (size_t)s, block, (unsigned)(s * 64 + rank)) == block);

    free(in);
    free(out);
    free(d);
    free(buf);
    free(all);
    free(all2);
  }
}

/* Eight collectives pending at once, alternating between two communicators; the buffers
 * and how to check them. */
enum { kBatch = 8, kBig = 65539, kBlock = 4099 };
struct Batch {
  MPI_Request req[kBatch];
  int *in, *sum, *red;
  unsigned char *bc, *gsrc, *gat, *sca, *sca_src, *allg, *a2a_out, *a2a_in;
  int bcast_root, reduce_root, gather_root;
};

static void batch_start(struct Batch* b, MPI_Comm c0, MPI_Comm c1, int salt) {
  const size_t blk = kBlock, all = blk * (size_t)size;
  b->in = malloc(sizeof(int) * kBig);
  b->sum = malloc(sizeof(int) * kBig);
  b->red = malloc(sizeof(int) * kBig);
  b->bc = malloc(kBig);
  b->gsrc = malloc(blk);
  b->gat = malloc(all);
  b->sca = malloc(blk);
  b->sca_src = malloc(all);
  b->allg = malloc(all);
  b->a2a_out = malloc(all);
  b->a2a_in = malloc(all);
  b->bcast_root = (size - 1 + salt) % size;
  b->reduce_root = salt % size;
  b->gather_root = (size / 2 + salt) % size;
  for (int i = 0; i < kBig; ++i) b->in[i] = value(rank, i);
  if (rank == b->bcast_root) fill(b->bc, kBig, (unsigned)(700 + salt));
  fill(b->sca, blk, 0);
  for (int r = 0; r < size; ++r) {
    fill(b->sca_src + blk * (size_t)r, blk, (unsigned)(r * 5 + salt));
    fill(b->a2a_out + blk * (size_t)r, blk, (unsigned)(rank * 64 + r + salt));
  }
  fill(b->allg + blk * (size_t)rank, blk, (unsigned)(rank * 3 + salt));
  fill(b->gsrc, blk, (unsigned)(rank * 3 + salt));
  CHECK_MPI(MPI_Ibcast(b->bc, kBig, MPI_BYTE, b->bcast_root, c0, &b->req[0]));
  CHECK_MPI(MPI_Iallreduce(b->in, b->sum, kBig, MPI_INT, MPI_SUM, c1, &b->req[1]));
  CHECK_MPI(MPI_Ibarrier(c0, &b->req[2]));
  CHECK_MPI(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_BYTE, b->allg, kBlock, MPI_BYTE, c1, &b->req[3]));
  CHECK_MPI(MPI_Ireduce(b->in, b->red, kBig, MPI_INT, MPI_SUM, b->reduce_root, c0, &b->req[4]));
  CHECK_MPI(MPI_Ialltoall(b->a2a_out, kBlock, MPI_BYTE, b->a2a_in, kBlock, MPI_BYTE, c1,
                          &b->req[5]));
  CHECK_MPI(MPI_Igather(b->gsrc, kBlock, MPI_BYTE, b->gat, kBlock, MPI_BYTE, b->gather_root, c0,
                        &b->req[6]));
  CHECK_MPI(MPI_Iscatter(b->sca_src, kBlock, MPI_BYTE, b->sca, kBlock, MPI_BYTE,
                         b->gather_root, c1, &b->req[7]));
}

static void batch_check(struct Batch* b, int salt) {
  const size_t blk = kBlock;
  for (int i = 0; i < kBatch; ++i) CHECK(b->req[i] == MPI_REQUEST_NULL);
  CHECK(verify(b->bc, kBig, (unsigned)(700 + salt)) == kBig);
  check_sum(b->sum, kBig);
  if (rank == b->reduce_root) check_sum(b->red, kBig);
  for (int r = 0; r < size; ++r) {
    CHECK(verify(b->allg + blk * (size_t)r, blk, (unsigned)(r * 3 + salt)) == blk);
    CHECK(verify(b->a2a_in + blk * (size_t)r, blk, (unsigned)(r * 64 + rank + salt)) == blk);
    if (rank == b->gather_root)
      CHECK(verify(b->gat + blk * (size_t)r, blk, (unsigned)(r * 3 + salt)) == blk);
  }
  CHECK(verify(b->sca, blk, (unsigned)(rank * 5 + salt)) == blk);
  free(b->in);
  free(b->sum);
  free(b->red);
  free(b->bc);
  free(b->gsrc);
  free(b->gat);
  free(b->sca);
  free(b->sca_src);
  free(b->allg);
  free(b->a2a_out);
  free(b->a2a_in);
}

static void outstanding(MPI_Comm dup) {
  struct Batch b;
  /* Waitall over the requests in reverse order on odd ranks. */
  batch_start(&b, MPI_COMM_WORLD, dup, 1);
  if (rank % 2) {
    MPI_Request rev[kBatch];
    for (int i = 0; i < kBatch; ++i) rev[i] = b.req[kBatch - 1 - i];
    CHECK_MPI(MPI_Waitall(kBatch, rev, MPI_STATUSES_IGNORE));
    for (int i = 0; i < kBatch; ++i) b.req[i] = rev[i];
  } else {
    CHECK_MPI(MPI_Waitall(kBatch, b.req, MPI_STATUSES_IGNORE));
  }
  batch_check(&b, 1);
  /* Waitany until none is left: whatever finishes first. */
  batch_start(&b, dup, MPI_COMM_WORLD, 2);
  int seen[kBatch] = {0};
  for (int k = 0; k < kBatch; ++k) {
    int index = -1;
    CHECK_MPI(MPI_Waitany(kBatch, b.req, &index, MPI_STATUS_IGNORE));
    CHECK(index >= 0 && index < kBatch && !seen[index]);
    seen[index] = 1;
  }
  int index = 0;
  CHECK_MPI(MPI_Waitany(kBatch, b.req, &index, MPI_STATUS_IGNORE));
  CHECK(index == MPI_UNDEFINED);
  batch_check(&b, 2);
  /* Test loops, the last started first; then the others one by one, each rank starting at
   * another request. */
  batch_start(&b, MPI_COMM_WORLD, dup, 3);
  for (int k = 0; k < kBatch; ++k) complete(&b.req[(kBatch - 1 - k + rank) % kBatch], 1);
  batch_check(&b, 3);
}

/* Collectives pending while point-to-point messages and blocking collectives, started
 * after them, run on the same communicator. */
static void overlap(void) {
  enum { kMsg = 1 << 20 };
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int* in = malloc(sizeof(int) * kBig);
  int* sum = malloc(sizeof(int) * kBig);
  unsigned char* bc = malloc(kMsg);
  unsigned char* out = malloc(kMsg);
  unsigned char* got = malloc(kMsg);
  for (int i = 0; i < kBig; ++i) in[i] = value(rank, i);
  if (rank == 0) fill(bc, kMsg, 99);
  MPI_Request coll[3], p2p[2];
  CHECK_MPI(MPI_Iallreduce(in, sum, kBig, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &coll[0]));
  CHECK_MPI(MPI_Ibcast(bc, kMsg, MPI_BYTE, 0, MPI_COMM_WORLD, &coll[1]));
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &coll[2]));
  fill(out, kMsg, (unsigned)(rank + 400));
  CHECK_MPI(MPI_Irecv(got, kMsg, MPI_BYTE, left, 5, MPI_COMM_WORLD, &p2p[0]));
  CHECK_MPI(MPI_Isend(out, kMsg, MPI_BYTE, right, 5, MPI_COMM_WORLD, &p2p[1]));
  long mine = rank + 1, total = 0;
  CHECK_MPI(MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK(total == (long)size * (size + 1) / 2);
  int token = rank == size - 1 ? 1234 : -1;
  CHECK_MPI(MPI_Bcast(&token, 1, MPI_INT, size - 1, MPI_COMM_WORLD));
  CHECK(token == 1234);
  CHECK_MPI(MPI_Waitall(2, p2p, MPI_STATUSES_IGNORE));
  CHECK(verify(got, kMsg, (unsigned)(left + 400)) == kMsg);
  complete(&coll[2], 1);
  complete(&coll[1], 0);
  complete(&coll[0], 2);
  check_sum(sum, kBig);
  CHECK(verify(bc, kMsg, 99) == kMsg);
  free(in);
  free(sum);
  free(bc);
  free(out);
  free(got);
}

/* Rank 0 blocks in MPI_Recv for a message the last rank sends only once its Ibarrier and
 * Iallgather completed, and those need rank 0's later rounds (the dissemination barrier's
 * second round, the ring forwarding): they must advance inside the Recv. */
static void progress_in_recv(void) {
  if (size < 2) return;
  enum { kB = 1000 };
  unsigned char* all = malloc((size_t)kB * (size_t)size);
  fill(all + (size_t)kB * (size_t)rank, kB, (unsigned)(rank + 900));
  MPI_Request req[2];
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_BYTE, all, kB, MPI_BYTE, MPI_COMM_WORLD, &req[1]));
  int token = 0;
  if (rank == 0) {
    CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, size - 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(token == 4321);
  }
  CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  if (rank == size - 1) {
    token = 4321;
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 77, MPI_COMM_WORLD));
  }
  for (int r = 0; r < size; ++r)
    CHECK(verify(all + (size_t)kB * (size_t)r, kB, (unsigned)(r + 900)) == kB);
  free(all);
}

/* No rank leaves the barrier before every rank entered it. */
static void barrier_semantics(void) {
  MPI_Request req;
  /* By message order: the last rank enters only after rank 0 saw its Ibarrier incomplete
   * many times and told it to go. */
  if (size > 1) {
    int go = 1;
    if (rank == 0) {
      CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
      for (int k = 0; k < 200; ++k) {
        int flag = 1;
        CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag);
      }
      CHECK_MPI(MPI_Send(&go, 1, MPI_INT, size - 1, 3, MPI_COMM_WORLD));
      complete(&req, 1);
    } else if (rank == size - 1) {
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
      complete(&req, 0);
    } else {
      CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
      complete(&req, 2);
    }
  }
  /* By the clock (CLOCK_MONOTONIC, shared by the processes of one host): rank r enters
   * r * 10 ms late; each rank leaves after the latest entry. */
  usleep((useconds_t)(rank * 10000));
  double entered = MPI_Wtime();
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
  complete(&req, rank);
  double left = MPI_Wtime();
  double* all = malloc(sizeof(double) * (size_t)size);
  CHECK_MPI(MPI_Allgather(&entered, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r) {
    if (!(left >= all[r]))
      fprintf(stderr, "left at %.6f before rank %d entered at %.6f\n", left, r, all[r]);
    CHECK(left >= all[r]);
  }
  free(all);
}

static void user_op(void) {
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(interval_join, 0, &op));
  enum { kN = 3 };
  int mine[2 * kN], out[2 * kN];
  for (int root = 0; root < size; ++root) {
    for (int i = 0; i < kN; ++i) mine[2 * i] = mine[2 * i + 1] = rank;
    MPI_Request req[2];
    int out2[2 * kN];
    CHECK_MPI(MPI_Ireduce(mine, out, kN, MPI_2INT, op, root, MPI_COMM_WORLD, &req[0]));
    CHECK_MPI(MPI_Iallreduce(mine, out2, kN, MPI_2INT, op, MPI_COMM_WORLD, &req[1]));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < kN; ++i) {
      CHECK(out2[2 * i] == 0 && out2[2 * i + 1] == size - 1);
      if (rank == root) CHECK(out[2 * i] == 0 && out[2 * i + 1] == size - 1);
    }
  }
  CHECK_MPI(MPI_Op_free(&op));
}

/* MPI_Comm_free with collectives pending: they complete normally. */
static void free_while_pending(void) {
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int in = rank + 1, sum = 0;
  MPI_Request req[2];
  CHECK_MPI(MPI_Ibarrier(dup, &req[0]));
  CHECK_MPI(MPI_Iallreduce(&in, &sum, 1, MPI_INT, MPI_SUM, dup, &req[1]));
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  CHECK(sum == size * (size + 1) / 2);
}

static int error_class(int code) {
  int cls = -1;
  CHECK_MPI(MPI_Error_class(code, &cls));
  return cls;
}

static void errors(void) {
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  MPI_Request req = MPI_REQUEST_NULL;
  int x = 0, y = 0;
  CHECK(error_class(MPI_Ibcast(&x, 1, MPI_INT, size, comm, &req)) == MPI_ERR_ROOT);
  CHECK(error_class(MPI_Ibcast(&x, 1, MPI_INT, -1, comm, &req)) == MPI_ERR_ROOT);
  CHECK(error_class(MPI_Ibcast(&x, -1, MPI_INT, 0, comm, &req)) == MPI_ERR_COUNT);
  CHECK(error_class(MPI_Iallreduce(&x, &y, -1, MPI_INT, MPI_SUM, comm, &req)) == MPI_ERR_COUNT);
  CHECK(error_class(MPI_Iallreduce(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, comm, &req)) ==
        MPI_ERR_TYPE);
  CHECK(error_class(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, comm, &req)) == MPI_ERR_OP);
  CHECK(error_class(MPI_Ireduce(&x, &y, 1, MPI_BYTE, MPI_SUM, 0, comm, &req)) == MPI_ERR_OP);
  CHECK(error_class(MPI_Ireduce(&x, &y, 1, MPI_INT, MPI_SUM, size, comm, &req)) == MPI_ERR_ROOT);
  if (size > 1 && rank != 0)
    CHECK(error_class(MPI_Ireduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, 0, comm, &req)) ==
          MPI_ERR_BUFFER);
  CHECK(error_class(MPI_Igather(&x, 1, MPI_INT, &y, 1, MPI_INT, size, comm, &req)) ==
        MPI_ERR_ROOT);
  CHECK(error_class(MPI_Iscatter(&x, -1, MPI_INT, &y, -1, MPI_INT, 0, comm, &req)) ==
        MPI_ERR_COUNT);
  CHECK(req == MPI_REQUEST_NULL); /* no call above made a request */
  CHECK(error_class(MPI_Iallgather(&x, 1, MPI_INT, &y, 1, MPI_DATATYPE_NULL, comm, &req)) ==
        MPI_ERR_TYPE);
  CHECK(error_class(MPI_Ialltoall(&x, 1, MPI_INT, &y, -2, MPI_INT, comm, &req)) ==
        MPI_ERR_COUNT);
  CHECK(error_class(MPI_Ibarrier(comm, NULL)) == MPI_ERR_ARG);
  /* An invalid communicator goes to MPI_COMM_WORLD's handler. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(error_class(MPI_Ibarrier(MPI_COMM_NULL, &req)) == MPI_ERR_COMM);
  CHECK(error_class(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &req)) ==
        MPI_ERR_COMM);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_Comm_free(&comm);
}

/* A transfer that fails ends the operation with its error: the root of an Igather gets
 * longer blocks than it expects (MPI_ERR_TRUNCATE from Wait); the communicator still works
 * afterwards. */
static void transfer_error(void) {
  if (size < 2) return;
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  int mine[4] = {rank, rank, rank, rank}, all[4 * 64];
  MPI_Request req;
  MPI_Status st;
  if (rank == 0) {
    CHECK_MPI(MPI_Igather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, comm, &req));
    int code = MPI_Wait(&req, &st);
    CHECK(error_class(code) == MPI_ERR_TRUNCATE);
    CHECK(req == MPI_REQUEST_NULL);
  } else {
    CHECK_MPI(MPI_Igather(mine, 4, MPI_INT, NULL, 0, MPI_INT, 0, comm, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
  }
  int one = 1, n = 0;
  CHECK_MPI(MPI_Iallreduce(&one, &n, 1, MPI_INT, MPI_SUM, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(n == size);
  MPI_Comm_free(&comm);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64);
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  reference_checks(MPI_COMM_WORLD);
  outstanding(dup);
  overlap();
  progress_in_recv();
  barrier_semantics();
  user_op();
  free_while_pending();
  errors();
  transfer_error();
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi icoll ok: %d ranks\n", size);
  return 0;
}
