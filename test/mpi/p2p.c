/* Point-to-point: every size class from 0 to 4 MiB around a ring (Isend/Irecv/Waitall and
 * Send/Recv) with the bytes checked, Ssend, Sendrecv, MPI_ANY_SOURCE/MPI_ANY_TAG with the
 * status checked, Iprobe/Probe + Get_count, Test, MPI_PROC_NULL and truncation, Issend,
 * Rsend, Waitany, Testany, Testall, Cancel, Request_free. Any size. */
#include <string.h>

#include "check.h"

static const size_t kSizes[] = {0, 1, 8, 100, 4096, 65536, 1 << 20, 4 << 20};
enum { kClasses = sizeof(kSizes) / sizeof(kSizes[0]) };

static int rank, size;

static void ring_nonblocking(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char *in[kClasses], *out[kClasses];
  MPI_Request reqs[2 * kClasses];
  MPI_Status st[2 * kClasses];
  for (int c = 0; c < kClasses; ++c) {
    in[c] = malloc(kSizes[c] + 1);
    out[c] = malloc(kSizes[c] + 1);
    memset(in[c], 0xee, kSizes[c] + 1);
    fill(out[c], kSizes[c], (unsigned)(rank * 100 + c));
    CHECK_MPI(MPI_Irecv(in[c], (int)kSizes[c], MPI_BYTE, left, c, MPI_COMM_WORLD, &reqs[c]));
  }
  for (int c = 0; c < kClasses; ++c)
    CHECK_MPI(MPI_Isend(out[c], (int)kSizes[c], MPI_BYTE, right, c, MPI_COMM_WORLD,
                        &reqs[kClasses + c]));
  CHECK_MPI(MPI_Waitall(2 * kClasses, reqs, st));
  for (int c = 0; c < kClasses; ++c) {
    int count = -1;
    CHECK(reqs[c] == MPI_REQUEST_NULL);
    CHECK(st[c].MPI_SOURCE == left && st[c].MPI_TAG == c && st[c].MPI_ERROR == MPI_SUCCESS);
    CHECK_MPI(MPI_Get_count(&st[c], MPI_BYTE, &count));
    CHECK(count == (int)kSizes[c]);
    CHECK(verify(in[c], kSizes[c], (unsigned)(left * 100 + c)) == kSizes[c]);
    CHECK(in[c][kSizes[c]] == 0xee); /* nothing written past the message */
    free(in[c]);
    free(out[c]);
  }
}

/* Blocking: even ranks send first, odd ranks receive first (works for odd sizes too, since
 * the sends of these sizes may or may not buffer). Sendrecv avoids the question. */
static void ring_sendrecv(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int c = 0; c < kClasses; ++c) {
    size_t n = kSizes[c];
    unsigned char* out = malloc(n + 1);
    unsigned char* in = malloc(n + 1);
    fill(out, n, (unsigned)(rank * 1000 + c));
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(out, (int)n, MPI_BYTE, right, 50 + c, in, (int)n, MPI_BYTE, left,
                           50 + c, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 50 + c);
    CHECK(verify(in, n, (unsigned)(left * 1000 + c)) == n);
    free(out);
    free(in);
  }
}

/* Rank 0 receives one message from every other rank with wildcards, in whatever order they
 * arrive; the status says who sent which tag, and Get_count the length. */
static void wildcards(void) {
  if (rank != 0) {
    int payload[3] = {rank, rank * 2, rank * 3};
    CHECK_MPI(MPI_Ssend(payload, rank % 3 + 1, MPI_INT, 0, 1000 + rank, MPI_COMM_WORLD));
    return;
  }
  int seen = 0;
  for (int i = 1; i < size; ++i) {
    int payload[3] = {0, 0, 0};
    MPI_Status st;
    CHECK_MPI(MPI_Recv(payload, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    int src = st.MPI_SOURCE, count = -1;
    CHECK(src > 0 && src < size && !(seen & (1 << src)));
    seen |= 1 << src;
    CHECK(st.MPI_TAG == 1000 + src);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == src % 3 + 1);
    for (int k = 0; k < count; ++k) CHECK(payload[k] == src * (k + 1));
  }
}

/* Probe first, then receive exactly what the probe announced. */
static void probing(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int n = 1000 + rank * 37;
  double* out = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i) out[i] = rank + i * 0.5;
  MPI_Request req;
  CHECK_MPI(MPI_Isend(out, n, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &req));

  MPI_Status st;
  int flag = 0;
  double t0 = MPI_Wtime();
  while (!flag) {
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, &st));
    CHECK(MPI_Wtime() - t0 < 20.0);
  }
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7);
  MPI_Status st2;
  CHECK_MPI(MPI_Probe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &st2));
  int count = -1;
  CHECK_MPI(MPI_Get_count(&st2, MPI_DOUBLE, &count));
  int expect = 1000 + left * 37;
  CHECK(count == expect);
  double* in = malloc(sizeof(double) * (size_t)count);
  CHECK_MPI(MPI_Recv(in, count, MPI_DOUBLE, st2.MPI_SOURCE, st2.MPI_TAG, MPI_COMM_WORLD, &st));
  for (int i = 0; i < count; ++i) CHECK(in[i] == left + i * 0.5);
  /* Test until the send is done (it is: its receive was just matched, or it was eager). */
  flag = 0;
  t0 = MPI_Wtime();
  while (!flag) {
    CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    CHECK(MPI_Wtime() - t0 < 20.0);
  }
  CHECK(req == MPI_REQUEST_NULL);
  free(in);
  free(out);
}

static void proc_null_and_truncation(void) {
  int x = 5;
  MPI_Status st;
  CHECK_MPI(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && x == 5);
  int count = -1;
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 0);

  /* A message longer than the receive buffer: MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN. */
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int big[4] = {1, 2, 3, 4}, small[2] = {0, 0};
  MPI_Request req;
  CHECK_MPI(MPI_Isend(big, 4, MPI_INT, right, 3, c, &req));
  int rc = MPI_Recv(small, 2, MPI_INT, left, 3, c, &st);
  int cls = -1;
  CHECK_MPI(MPI_Error_class(rc, &cls));
  CHECK(cls == MPI_ERR_TRUNCATE);
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK(c == MPI_COMM_NULL);
}

/* Issend/Rsend, Waitany, Testany, Testall, Request_free and Cancel of an unmatched receive. */
static void request_calls(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[4] = {rank, rank + 1, rank + 2, rank + 3}, in[4] = {-1, -1, -1, -1};
  MPI_Request reqs[4];
  CHECK_MPI(MPI_Irecv(&in[0], 1, MPI_INT, left, 20, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Irecv(&in[1], 1, MPI_INT, left, 21, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Issend(&out[0], 1, MPI_INT, right, 20, MPI_COMM_WORLD, &reqs[2]));
  reqs[3] = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every receive is posted: ready mode is legal */
  CHECK_MPI(MPI_Rsend(&out[1], 1, MPI_INT, right, 21, MPI_COMM_WORLD));
  int done = 0, seen = 0;
  while (done < 3) {
    int index = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Waitany(4, reqs, &index, &st));
    CHECK(index >= 0 && index < 3 && !(seen & (1 << index)) && reqs[index] == MPI_REQUEST_NULL);
    if (index < 2) CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 20 + index);
    seen |= 1 << index;
    ++done;
  }
  int index = 0;
  MPI_Status st;
  CHECK_MPI(MPI_Waitany(4, reqs, &index, &st)); /* nothing active */
  CHECK(index == MPI_UNDEFINED);
  CHECK(in[0] == left && in[1] == left + 1);

  /* Testall: all or nothing. */
  CHECK_MPI(MPI_Irecv(&in[2], 1, MPI_INT, left, 22, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Isend(&out[2], 1, MPI_INT, right, 22, MPI_COMM_WORLD, &reqs[1]));
  int flag = 0;
  double t0 = MPI_Wtime();
  while (!flag) {
    CHECK_MPI(MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag || reqs[0] != MPI_REQUEST_NULL);
    CHECK(MPI_Wtime() - t0 < 20.0);
  }
  CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL && in[2] == left + 2);

  /* Testany until the one receive arrives. */
  CHECK_MPI(MPI_Irecv(&in[3], 1, MPI_INT, left, 23, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Send(&out[3], 1, MPI_INT, right, 23, MPI_COMM_WORLD));
  flag = 0;
  t0 = MPI_Wtime();
  while (!flag) {
    CHECK_MPI(MPI_Testany(1, reqs, &index, &flag, &st));
    CHECK(MPI_Wtime() - t0 < 20.0);
  }
  CHECK(index == 0 && in[3] == left + 3 && st.MPI_TAG == 23);

  /* Cancel a receive nobody matches: it completes, canceled. */
  int never = 0;
  CHECK_MPI(MPI_Irecv(&never, 1, MPI_INT, left, 999, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Cancel(&reqs[0]));
  CHECK_MPI(MPI_Wait(&reqs[0], &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 1 && never == 0);

  /* Request_free on a send: the message still goes. */
  CHECK_MPI(MPI_Isend(&out[0], 1, MPI_INT, right, 24, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Request_free(&reqs[0]));
  CHECK(reqs[0] == MPI_REQUEST_NULL);
  CHECK_MPI(MPI_Recv(&in[0], 1, MPI_INT, left, 24, MPI_COMM_WORLD, &st));
  CHECK(in[0] == left);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  ring_nonblocking();
  ring_sendrecv();
  wildcards();
  /* Rank 0's wildcard receives would also match the next phase's messages. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  probing();
  proc_null_and_truncation();
  request_calls();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("mpi p2p ok: %d ranks\n", size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
