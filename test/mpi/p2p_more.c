/* The rest of point-to-point: persistent requests (ring of many rounds, Startall, inactive
 * Wait/Test, Request_free), buffered mode (queued Bsends, MPI_ERR_BUFFER, Detach waiting),
 * matched probe (Mprobe/Mrecv with ANY_SOURCE up to 1 MiB, Improbe, Imrecv, PROC_NULL, a
 * taken message invisible to other receives), Waitsome/Testsome, Sendrecv_replace,
 * Request_get_status, Cancel of a send and of a receive, Status_set_*. Any size. */
#include <string.h>
#include <unistd.h>

#include "check.h"

static int rank, size, left, right;

static unsigned char* xmalloc(size_t n) {
  unsigned char* p = malloc(n ? n : 1);
  CHECK(p != NULL);
  return p;
}

static int count_of(const MPI_Status* st) {
  int n = -1;
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &n));
  return n;
}

static int is_empty_status(const MPI_Status* st) {
  return st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && count_of(st) == 0;
}

/* Persistent send/receive around the ring: the same two requests started many times, the
 * data of every round checked (a stale buffer or a lost round shows). */
static void persistent_ring(size_t n, int rounds, int mode) {
  unsigned char* out = xmalloc(n);
  unsigned char* in = xmalloc(n + 1);
  MPI_Request reqs[2];
  CHECK_MPI(MPI_Recv_init(in, (int)n, MPI_BYTE, left, 7, MPI_COMM_WORLD, &reqs[0]));
  if (mode == 0)
    CHECK_MPI(MPI_Send_init(out, (int)n, MPI_BYTE, right, 7, MPI_COMM_WORLD, &reqs[1]));
  else if (mode == 1)
    CHECK_MPI(MPI_Ssend_init(out, (int)n, MPI_BYTE, right, 7, MPI_COMM_WORLD, &reqs[1]));
  else
    CHECK_MPI(MPI_Rsend_init(out, (int)n, MPI_BYTE, right, 7, MPI_COMM_WORLD, &reqs[1]));
  for (int r = 0; r < rounds; ++r) {
    fill(out, n, (unsigned)(rank * 7919 + r));
    memset(in, 0xee, n + 1);
    if (mode == 2) {
      /* Ready mode: every receive is posted before any send starts. */
      CHECK_MPI(MPI_Start(&reqs[0]));
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      CHECK_MPI(MPI_Start(&reqs[1]));
    } else {
      CHECK_MPI(MPI_Startall(2, reqs));
    }
    MPI_Status st[2];
    CHECK_MPI(MPI_Waitall(2, reqs, st));
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL); /* still valid */
    CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 7 && count_of(&st[0]) == (int)n);
    CHECK(verify(in, n, (unsigned)(left * 7919 + r)) == n);
    CHECK(in[n] == 0xee);
  }
  /* Inactive now: Wait and Test return at once with the empty status, Waitany finds none. */
  MPI_Status st;
  int flag = 0, index = 0;
  CHECK_MPI(MPI_Wait(&reqs[0], &st));
  CHECK(reqs[0] != MPI_REQUEST_NULL && is_empty_status(&st));
  CHECK_MPI(MPI_Test(&reqs[1], &flag, &st));
  CHECK(flag == 1 && reqs[1] != MPI_REQUEST_NULL && is_empty_status(&st));
  CHECK_MPI(MPI_Waitany(2, reqs, &index, &st));
  CHECK(index == MPI_UNDEFINED);
  CHECK_MPI(MPI_Request_get_status(reqs[0], &flag, &st));
  CHECK(flag == 1 && is_empty_status(&st));
  CHECK_MPI(MPI_Request_free(&reqs[0]));
  CHECK_MPI(MPI_Request_free(&reqs[1]));
  CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);
  free(out);
  free(in);
}

/* Handles that look like requests but were never handed out: one in a chunk of the table
 * not allocated yet, one past the table's end. Each is an error, not a crash. */
static void bogus_requests(void) {
  const MPI_Request bogus[] = {(MPI_Request)0xac012345, (MPI_Request)0xacfffff0};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int i = 0; i < 2; ++i) {
    MPI_Request r = bogus[i];
    int flag = -1;
    CHECK(error_class_of(MPI_Wait(&r, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST);
    CHECK(error_class_of(MPI_Test(&r, &flag, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Request_free of an active persistent send: the send still completes. Starting an active
 * request again is MPI_ERR_REQUEST. */
static void persistent_free_active(void) {
  int out[64], in[64];
  for (int i = 0; i < 64; ++i) out[i] = rank * 1000 + i;
  MPI_Request sreq, rreq;
  CHECK_MPI(MPI_Send_init(out, 64, MPI_INT, right, 8, MPI_COMM_WORLD, &sreq));
  CHECK_MPI(MPI_Recv_init(in, 64, MPI_INT, left, 8, MPI_COMM_WORLD, &rreq));
  CHECK_MPI(MPI_Start(&rreq));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int err = MPI_Start(&rreq), cls = -1;
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_REQUEST);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK_MPI(MPI_Start(&sreq));
  CHECK_MPI(MPI_Request_free(&sreq));
  CHECK(sreq == MPI_REQUEST_NULL);
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&rreq, &st));
  CHECK(st.MPI_SOURCE == left && count_of(&st) == 64 * (int)sizeof(int));
  for (int i = 0; i < 64; ++i) CHECK(in[i] == left * 1000 + i);
  CHECK_MPI(MPI_Request_free(&rreq));
}

/* Several buffered messages (Bsend, Ibsend, Bsend_init) queued in the attached buffer before
 * the receiver posts; MPI_ERR_BUFFER for what does not fit; Detach hands the buffer back. */
static void buffered_queue(void) {
  static const size_t kMsg[] = {0, 1000, 5000, 100000, 3};
  enum { kN = sizeof(kMsg) / sizeof(kMsg[0]) };
  size_t total = 0;
  for (int i = 0; i < kN; ++i) total += kMsg[i] + MPI_BSEND_OVERHEAD;
  unsigned char* buffer = xmalloc(total);
  CHECK_MPI(MPI_Buffer_attach(buffer, (int)total));
  unsigned char* out[kN];
  for (int i = 0; i < kN; ++i) {
    out[i] = xmalloc(kMsg[i]);
    fill(out[i], kMsg[i], (unsigned)(rank * 31 + i));
  }
  MPI_Request ireq, preq;
  CHECK_MPI(MPI_Bsend(out[0], (int)kMsg[0], MPI_BYTE, right, 20, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Ibsend(out[1], (int)kMsg[1], MPI_BYTE, right, 21, MPI_COMM_WORLD, &ireq));
  CHECK_MPI(MPI_Bsend_init(out[2], (int)kMsg[2], MPI_BYTE, right, 22, MPI_COMM_WORLD, &preq));
  CHECK_MPI(MPI_Start(&preq));
  CHECK_MPI(MPI_Bsend(out[3], (int)kMsg[3], MPI_BYTE, right, 23, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Bsend(out[4], (int)kMsg[4], MPI_BYTE, right, 24, MPI_COMM_WORLD));
  /* The user's buffers are free as soon as the calls return. */
  for (int i = 0; i < kN; ++i) memset(out[i], 0, kMsg[i]);
  CHECK_MPI(MPI_Wait(&ireq, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&preq, MPI_STATUS_IGNORE));
  CHECK(preq != MPI_REQUEST_NULL);
  CHECK_MPI(MPI_Request_free(&preq));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every message was sent before any receive */
  for (int i = kN - 1; i >= 0; --i) { /* received in reverse order of sending */
    unsigned char* in = xmalloc(kMsg[i] + 1);
    MPI_Status st;
    CHECK_MPI(MPI_Recv(in, (int)kMsg[i] + 1, MPI_BYTE, left, 20 + i, MPI_COMM_WORLD, &st));
    CHECK(count_of(&st) == (int)kMsg[i]);
    CHECK(verify(in, kMsg[i], (unsigned)(left * 31 + i)) == kMsg[i]);
    free(in);
  }
  void* back = NULL;
  int back_size = -1;
  CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == buffer && back_size == (int)total);
  for (int i = 0; i < kN; ++i) free(out[i]);
  free(buffer);
}

static void buffered_errors(void) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  int cls = -1;
  char small[64];
  /* No buffer attached. */
  MPI_Error_class(MPI_Bsend(small, 1, MPI_BYTE, right, 1, c), &cls);
  CHECK(cls == MPI_ERR_BUFFER);
  const int cap = 4096 + MPI_BSEND_OVERHEAD;
  unsigned char* buffer = xmalloc((size_t)cap);
  unsigned char* big = xmalloc(8192);
  fill(big, 8192, (unsigned)rank);
  CHECK_MPI(MPI_Buffer_attach(buffer, cap));
  /* One byte more than the buffer holds. */
  MPI_Error_class(MPI_Bsend(big, 4097, MPI_BYTE, right, 1, c), &cls);
  CHECK(cls == MPI_ERR_BUFFER);
  MPI_Request r;
  MPI_Error_class(MPI_Ibsend(big, 8192, MPI_BYTE, right, 1, c, &r), &cls);
  CHECK(cls == MPI_ERR_BUFFER);
  /* Exactly full fits; a second buffer cannot be attached. */
  CHECK_MPI(MPI_Bsend(big, 4096, MPI_BYTE, right, 2, c));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Error_class(MPI_Buffer_attach(small, (int)sizeof small), &cls);
  CHECK(cls == MPI_ERR_BUFFER);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  unsigned char* in = xmalloc(4096);
  CHECK_MPI(MPI_Recv(in, 4096, MPI_BYTE, left, 2, c, MPI_STATUS_IGNORE));
  CHECK(verify(in, 4096, (unsigned)left) == 4096);
  void* back = NULL;
  int back_size = 0;
  CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == buffer && back_size == cap);
  /* Nothing attached: detach gives NULL and 0. */
  CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == NULL && back_size == 0);
  free(in);
  free(big);
  free(buffer);
  CHECK_MPI(MPI_Comm_free(&c));
}

/* A 1 MiB message goes by rendezvous: it stays in the attached buffer until the receiver
 * posts, which it does only after a "go" from the sender. Meanwhile a second 1 MiB message
 * does not fit (MPI_ERR_BUFFER) but a small one does, in the space left. Detach must wait
 * until the message left the buffer: the sender wipes the buffer as soon as Detach returns,
 * and the receiver posts late on purpose, so a Detach that did not wait would deliver zeros.
 * Pairs (0,1), (2,3), ...; an odd last rank sends to itself. */
static void buffered_in_flight(void) {
  const size_t n = 1 << 20;
  const int cap = (int)n + 2 * MPI_BSEND_OVERHEAD + 100;
  int partner = rank ^ 1;
  if (partner >= size) partner = rank;
  unsigned char* msg = xmalloc(n);
  unsigned char* in = xmalloc(n);
  unsigned char* buffer = xmalloc((size_t)cap);
  unsigned char small_out[100], small_in[100];
  if (rank <= partner) {
    fill(msg, n, (unsigned)(rank + 4242));
    fill(small_out, 100, (unsigned)(rank + 77));
    CHECK_MPI(MPI_Buffer_attach(buffer, cap));
    CHECK_MPI(MPI_Bsend(msg, (int)n, MPI_BYTE, partner, 30, MPI_COMM_WORLD));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls = -1;
    MPI_Error_class(MPI_Bsend(msg, (int)n, MPI_BYTE, partner, 31, MPI_COMM_WORLD), &cls);
    CHECK(cls == MPI_ERR_BUFFER);
    MPI_Error_class(MPI_Bsend(msg, 101, MPI_BYTE, partner, 31, MPI_COMM_WORLD), &cls);
    CHECK(cls == MPI_ERR_BUFFER);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_MPI(MPI_Bsend(small_out, 100, MPI_BYTE, partner, 32, MPI_COMM_WORLD));
    memset(msg, 0, n);
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (partner == rank) {
      CHECK_MPI(MPI_Irecv(in, (int)n, MPI_BYTE, rank, 30, MPI_COMM_WORLD, &r[0]));
      CHECK_MPI(MPI_Irecv(small_in, 100, MPI_BYTE, rank, 32, MPI_COMM_WORLD, &r[1]));
    } else {
      CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, partner, 33, MPI_COMM_WORLD)); /* go */
    }
    void* back = NULL;
    int back_size = 0;
    CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
    CHECK(back == buffer && back_size == cap);
    memset(buffer, 0, (size_t)cap);
    if (partner == rank) {
      CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
      CHECK(verify(in, n, (unsigned)(rank + 4242)) == n);
      CHECK(verify(small_in, 100, (unsigned)(rank + 77)) == 100);
    }
  } else {
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, partner, 33, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    usleep(30000); /* widens the window in which a Detach that did not wait would show */
    CHECK_MPI(MPI_Recv(in, (int)n, MPI_BYTE, partner, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(verify(in, n, (unsigned)(partner + 4242)) == n);
    CHECK_MPI(MPI_Recv(small_in, 100, MPI_BYTE, partner, 32, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    CHECK(verify(small_in, 100, (unsigned)(partner + 77)) == 100);
  }
  free(msg);
  free(in);
  free(buffer);
}

/* Every rank (rank 0 too) sends a small and a large message to rank 0, which takes them in
 * arrival order with Mprobe(ANY_SOURCE, ANY_TAG) and receives each into a buffer sized by
 * Get_count; every (source, tag) must come exactly once. */
static size_t mprobe_len(int src, int which) {
  return which == 0 ? (size_t)(src * 13 + 1) : (size_t)(1 << 20) + (size_t)src * 5;
}

static void mprobe_gather(void) {
  unsigned char* out[2];
  MPI_Request sreq[2];
  for (int w = 0; w < 2; ++w) {
    size_t n = mprobe_len(rank, w);
    out[w] = xmalloc(n);
    fill(out[w], n, (unsigned)(rank * 2 + w + 99));
    CHECK_MPI(MPI_Isend(out[w], (int)n, MPI_BYTE, 0, 40 + w, MPI_COMM_WORLD, &sreq[w]));
  }
  if (rank == 0) {
    char* seen = calloc((size_t)size * 2, 1);
    for (int i = 0; i < 2 * size; ++i) {
      MPI_Message m = MPI_MESSAGE_NULL;
      MPI_Status st;
      CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
      CHECK(m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC);
      int src = st.MPI_SOURCE, w = st.MPI_TAG - 40;
      CHECK(src >= 0 && src < size && (w == 0 || w == 1));
      CHECK(!seen[src * 2 + w]);
      seen[src * 2 + w] = 1;
      int n = count_of(&st);
      CHECK(n == (int)mprobe_len(src, w));
      unsigned char* in = xmalloc((size_t)n);
      MPI_Status rst;
      if (i % 2 == 0) {
        CHECK_MPI(MPI_Mrecv(in, n, MPI_BYTE, &m, &rst));
      } else {
        MPI_Request r;
        CHECK_MPI(MPI_Imrecv(in, n, MPI_BYTE, &m, &r));
        CHECK_MPI(MPI_Wait(&r, &rst));
      }
      CHECK(m == MPI_MESSAGE_NULL);
      CHECK(rst.MPI_SOURCE == src && rst.MPI_TAG == 40 + w && count_of(&rst) == n);
      CHECK(verify(in, (size_t)n, (unsigned)(src * 2 + w + 99)) == (size_t)n);
      free(in);
    }
    free(seen);
  }
  CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
  free(out[0]);
  free(out[1]);
}

/* A message taken by Mprobe is invisible to every later receive and probe: rank 0's wildcard
 * Recv gets the second message, not the taken first one. Improbe polling, PROC_NULL, and the
 * error classes of bad Mrecv calls. */
static void mprobe_details(void) {
  if (rank == 0) {
    int a = 111, b = 222, got = 0;
    CHECK_MPI(MPI_Send(&a, 1, MPI_INT, 0, 50, MPI_COMM_WORLD)); /* eager: to itself */
    CHECK_MPI(MPI_Send(&b, 1, MPI_INT, 0, 51, MPI_COMM_WORLD));
    MPI_Message m;
    MPI_Status st;
    CHECK_MPI(MPI_Mprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
    CHECK(st.MPI_TAG == 50);
    int flag = 1;
    CHECK_MPI(MPI_Iprobe(0, 50, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 0);
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_TAG == 51 && got == 222);
    /* Truncation and bad arguments: errors, and the message stays held until received. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls = -1;
    MPI_Error_class(MPI_Mrecv(&got, -1, MPI_INT, &m, &st), &cls);
    CHECK(cls == MPI_ERR_COUNT && m != MPI_MESSAGE_NULL);
    MPI_Message null_msg = MPI_MESSAGE_NULL;
    MPI_Error_class(MPI_Mrecv(&got, 1, MPI_INT, &null_msg, &st), &cls);
    CHECK(cls == MPI_ERR_REQUEST);
    char tiny[2];
    MPI_Error_class(MPI_Mrecv(tiny, 2, MPI_BYTE, &m, &st), &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && m == MPI_MESSAGE_NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
  /* Improbe polling: the last rank sends to rank 0 after a barrier. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == size - 1) {
    double v = 3.25;
    CHECK_MPI(MPI_Send(&v, 1, MPI_DOUBLE, 0, 52, MPI_COMM_WORLD));
  }
  if (rank == 0) {
    int flag = 0;
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status st;
    while (!flag) CHECK_MPI(MPI_Improbe(size - 1, 52, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(st.MPI_SOURCE == size - 1 && count_of(&st) == (int)sizeof(double));
    double v = 0;
    MPI_Request r;
    CHECK_MPI(MPI_Imrecv(&v, 1, MPI_DOUBLE, &m, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(v == 3.25 && st.MPI_TAG == 52);
    CHECK_MPI(MPI_Improbe(size - 1, 52, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(flag == 0);
  }
  /* PROC_NULL: the "no process" message, received at once with the empty status. */
  MPI_Message m = MPI_MESSAGE_NULL;
  MPI_Status st;
  CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &m, &st));
  CHECK(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL);
  int x = 77;
  CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &m, &st));
  CHECK(m == MPI_MESSAGE_NULL && is_empty_status(&st) && x == 77);
  int flag = 0;
  CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &flag, &m, &st));
  CHECK(flag == 1 && m == MPI_MESSAGE_NO_PROC);
  MPI_Request r;
  CHECK_MPI(MPI_Imrecv(&x, 1, MPI_INT, &m, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(is_empty_status(&st));
}

/* Every rank exchanges a message with every rank; Waitsome (odd rounds: Testsome) collects
 * all 2*size requests, each index exactly once, then reports MPI_UNDEFINED. */
static void some_completion(int use_test) {
  const int nreq = 2 * size;
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)nreq);
  MPI_Status* sts = malloc(sizeof(MPI_Status) * (size_t)nreq);
  int* idx = malloc(sizeof(int) * (size_t)nreq);
  char* seen = calloc((size_t)nreq, 1);
  int* in = malloc(sizeof(int) * (size_t)size * 100);
  int* out = malloc(sizeof(int) * (size_t)size * 100);
  for (int p = 0; p < size; ++p) {
    for (int i = 0; i < 100; ++i) out[p * 100 + i] = rank * 100000 + p * 100 + i;
    CHECK_MPI(MPI_Irecv(in + p * 100, 100, MPI_INT, p, 60, MPI_COMM_WORLD, &reqs[p]));
  }
  for (int p = 0; p < size; ++p)
    CHECK_MPI(MPI_Isend(out + p * 100, 100, MPI_INT, p, 60, MPI_COMM_WORLD, &reqs[size + p]));
  int done = 0;
  while (done < nreq) {
    int outcount = -1;
    if (use_test)
      CHECK_MPI(MPI_Testsome(nreq, reqs, &outcount, idx, sts));
    else
      CHECK_MPI(MPI_Waitsome(nreq, reqs, &outcount, idx, sts));
    CHECK(outcount >= 0 && outcount <= nreq - done);
    if (!use_test) CHECK(outcount > 0);
    for (int k = 0; k < outcount; ++k) {
      int i = idx[k];
      CHECK(i >= 0 && i < nreq && !seen[i] && reqs[i] == MPI_REQUEST_NULL);
      seen[i] = 1;
      if (i < size) CHECK(sts[k].MPI_SOURCE == i && count_of(&sts[k]) == 100 * (int)sizeof(int));
    }
    done += outcount;
  }
  int outcount = 0;
  CHECK_MPI(MPI_Waitsome(nreq, reqs, &outcount, idx, sts));
  CHECK(outcount == MPI_UNDEFINED);
  CHECK_MPI(MPI_Testsome(nreq, reqs, &outcount, idx, sts));
  CHECK(outcount == MPI_UNDEFINED);
  for (int p = 0; p < size; ++p)
    for (int i = 0; i < 100; ++i) CHECK(in[p * 100 + i] == p * 100000 + rank * 100 + i);
  free(reqs);
  free(sts);
  free(idx);
  free(seen);
  free(in);
  free(out);
}

static void sendrecv_replace_ring(void) {
  static const size_t kSizes[] = {0, 1, 1000, 4 << 20};
  for (int c = 0; c < 4; ++c) {
    size_t n = kSizes[c];
    unsigned char* buf = xmalloc(n + 1);
    fill(buf, n, (unsigned)(rank * 3 + c));
    buf[n] = 0xee;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv_replace(buf, (int)n, MPI_BYTE, right, 70 + c, left, 70 + c,
                                   MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 70 + c && count_of(&st) == (int)n);
    CHECK(verify(buf, n, (unsigned)(left * 3 + c)) == n);
    CHECK(buf[n] == 0xee);
    free(buf);
  }
  /* PROC_NULL on both sides: nothing moves, the buffer is untouched. */
  int v = 5;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv_replace(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1,
                                 MPI_COMM_WORLD, &st));
  CHECK(v == 5 && is_empty_status(&st));
}

/* Request_get_status leaves the request to a later Wait, which reports the same status. */
static void get_status(void) {
  int out = rank + 500, in = -1;
  MPI_Request r, s;
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 80, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, right, 80, MPI_COMM_WORLD, &s));
  int flag = 0;
  MPI_Status st, st2;
  while (!flag) CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
  CHECK(r != MPI_REQUEST_NULL && st.MPI_SOURCE == left && st.MPI_TAG == 80);
  CHECK(in == left + 500);
  CHECK_MPI(MPI_Wait(&r, &st2));
  CHECK(r == MPI_REQUEST_NULL && st2.MPI_SOURCE == left && count_of(&st2) == (int)sizeof(int));
  CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
}

/* A send cannot be recalled: its cancel fails, it completes and is received. An unmatched
 * receive is cancelled. */
static void cancel(void) {
  int out = rank * 9, in = -1, flag = -1;
  MPI_Request s, r;
  MPI_Status st;
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, right, 90, MPI_COMM_WORLD, &s));
  CHECK_MPI(MPI_Cancel(&s));
  CHECK_MPI(MPI_Wait(&s, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, left, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(in == left * 9);
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 91, MPI_COMM_WORLD, &r)); /* nobody sends 91 */
  CHECK_MPI(MPI_Cancel(&r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 1);
}

/* Receives of non-contiguous data are staged (received into a buffer, unpacked after): a
 * plain one and an instance of a persistent one are cancelled as well, leave the user's
 * buffer untouched, and the persistent request can be started again and then matches. */
static void cancel_staged(void) {
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  int in[8], flag = -1;
  for (int i = 0; i < 8; ++i) in[i] = -1;
  MPI_Request r;
  MPI_Status st;
  CHECK_MPI(MPI_Irecv(in, 1, every_other, left, 92, MPI_COMM_WORLD, &r)); /* nobody sends 92 */
  CHECK_MPI(MPI_Cancel(&r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 1);
  CHECK_MPI(MPI_Recv_init(in, 1, every_other, left, 93, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Start(&r));
  CHECK_MPI(MPI_Cancel(&r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 1);
  for (int i = 0; i < 8; ++i) CHECK(in[i] == -1);
  /* Restarted, the same persistent receive gets the message sent after the barrier (a
   * cancelled instance must not have taken it). */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int out[4] = {rank, rank + 1, rank + 2, rank + 3};
  CHECK_MPI(MPI_Start(&r));
  CHECK_MPI(MPI_Send(out, 4, MPI_INT, right, 93, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 0);
  for (int i = 0; i < 4; ++i) CHECK(in[2 * i] == left + i && in[2 * i + 1] == -1);
  CHECK_MPI(MPI_Request_free(&r));
  CHECK_MPI(MPI_Type_free(&every_other));
}

static void status_setters(void) {
  MPI_Status st;
  memset(&st, 0, sizeof st);
  int flag = -1, n = -1;
  CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
  CHECK_MPI(MPI_Status_set_elements(&st, MPI_INT, 12));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 1);
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == 12);
  CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_DOUBLE, (MPI_Count)3 << 30));
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
  CHECK(n == MPI_UNDEFINED); /* 24 GiB: more bytes than an int holds */
  CHECK_MPI(MPI_Status_set_cancelled(&st, 0));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &n));
  CHECK(n == MPI_UNDEFINED);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;

  persistent_ring(64, 200, 0);
  persistent_ring(300000, 10, 0);
  persistent_ring(1000, 20, 1);
  persistent_ring(100, 10, 2);
  persistent_free_active();
  bogus_requests();
  buffered_queue();
  buffered_errors();
  buffered_in_flight();
  mprobe_gather();
  mprobe_details();
  some_completion(0);
  some_completion(1);
  sendrecv_replace_ring();
  get_status();
  cancel();
  cancel_staged();
  status_setters();

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("mpi p2p_more ok: %d ranks\n", size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
