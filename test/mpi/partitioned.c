/* Partitioned point-to-point (MPI_Psend_init, Precv_init, Pready*, Parrived) over a ring:
 * each rank sends to the next and receives from the previous one (to itself at one rank).
 * Data arrives byte for byte over several Start rounds of one request pair with partitions
 * made ready in reverse, shuffled, by range and by list; Parrived is true for exactly the
 * partitions sent so far (the sender holds one back until the receiver says it saw the
 * others); the sides may cut the bytes into different partition counts, also with a
 * non-contiguous datatype; an MPI_ANY_TAG receive on the same communicator never gets
 * partitioned traffic. Any size. */
#include <string.h>

#include "check.h"

static int rank, size, next, prev;

static int value(int sender, int round, int i) { return sender * 1000003 + round * 7919 + i; }

/* Sender cuts n ints into sp partitions, receiver into rp; `type` is MPI_INT or the strided
 * int type (one int every other int: buffers then hold 2n ints). */
static void exchange(int n, int sp, int rp, MPI_Datatype type, int stride, int tag, int rounds) {
  int* sbuf = malloc(sizeof(int) * (size_t)(n * stride));
  int* rbuf = malloc(sizeof(int) * (size_t)(n * stride));
  CHECK(sbuf && rbuf);
  MPI_Request req[2];
  CHECK_MPI(MPI_Psend_init(sbuf, sp, n / sp, type, next, tag, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &req[0]));
  CHECK_MPI(MPI_Precv_init(rbuf, rp, n / rp, type, prev, tag, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &req[1]));
  for (int round = 0; round < rounds; ++round) {
    for (int i = 0; i < n * stride; ++i) {
      sbuf[i] = i % stride ? -7 : value(rank, round, i / stride);
      rbuf[i] = -1;
    }
    CHECK_MPI(MPI_Startall(2, req));
    switch (round % 4) {
      case 0:
        for (int p = sp - 1; p >= 0; --p) CHECK_MPI(MPI_Pready(p, req[0]));
        break;
      case 1:
        for (int k = 0; k < sp; ++k) CHECK_MPI(MPI_Pready((k * 5 + 3) % sp, req[0]));
        break;
      case 2:
        CHECK_MPI(MPI_Pready_range(0, sp - 1, req[0]));
        break;
      default: {
        int* list = malloc(sizeof(int) * (size_t)sp);
        for (int k = 0; k < sp; ++k) list[k] = sp - 1 - k;
        CHECK_MPI(MPI_Pready_list(sp, list, req[0]));
        free(list);
      }
    }
    MPI_Status st[2];
    CHECK_MPI(MPI_Waitall(2, req, st));
    CHECK(st[1].MPI_SOURCE == prev && st[1].MPI_TAG == tag);
    int got = -1;
    CHECK_MPI(MPI_Get_count(&st[1], type, &got));
    CHECK(got == n);
    for (int i = 0; i < n * stride; ++i)
      CHECK(rbuf[i] == (i % stride ? -1 : value(prev, round, i / stride)));
#ifdef TORUS_MPI_H
    /* An inactive request (the standard: flag true; MPICH 4.0.2 reports an error). */
    int flag = 0;
    for (int p = 0; p < rp; ++p) {
      CHECK_MPI(MPI_Parrived(req[1], p, &flag));
      CHECK(flag);
    }
#endif
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
  free(sbuf);
  free(rbuf);
}

/* The sender readies all partitions but the last; the receiver sees exactly those arrive,
 * then lets the sender go on with an ordinary message. Debian's MPICH 4.0.2 moves no
 * partition before all are ready, so there the receiver would wait forever. */
#ifdef TORUS_MPI_H
static void held_back(void) {
  enum { kParts = 6, kPer = 50 };
  int sbuf[kParts * kPer] = {0}, rbuf[kParts * kPer] = {0};
  MPI_Request sreq, rreq;
  CHECK_MPI(MPI_Psend_init(sbuf, kParts, kPer, MPI_INT, next, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &sreq));
  CHECK_MPI(MPI_Precv_init(rbuf, kParts, kPer, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &rreq));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < kParts * kPer; ++i) {
      sbuf[i] = value(rank, round + 10, i);
      rbuf[i] = -1;
    }
    CHECK_MPI(MPI_Start(&rreq));
    CHECK_MPI(MPI_Start(&sreq));
    int flag = 1;
    for (int p = 0; p < kParts - 1; ++p) CHECK_MPI(MPI_Pready(p, sreq));
    for (int p = 0; p < kParts - 1; ++p) {
      do {
        CHECK_MPI(MPI_Parrived(rreq, p, &flag));
      } while (!flag);
      for (int i = p * kPer; i < (p + 1) * kPer; ++i) CHECK(rbuf[i] == value(prev, round + 10, i));
    }
    CHECK_MPI(MPI_Parrived(rreq, kParts - 1, &flag));
    CHECK(!flag);
    CHECK_MPI(MPI_Test(&rreq, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag);
    int go = 1, got = 0;
    MPI_Request goreq;
    CHECK_MPI(MPI_Isend(&go, 1, MPI_INT, prev, 4, MPI_COMM_WORLD, &goreq));
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, next, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&goreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Pready(kParts - 1, sreq));
    do {
      CHECK_MPI(MPI_Parrived(rreq, kParts - 1, &flag));
    } while (!flag);
    CHECK_MPI(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    for (int i = 0; i < kParts * kPer; ++i) CHECK(rbuf[i] == value(prev, round + 10, i));
  }
  /* Misuse: Pready on an inactive request or out of range, Parrived on a send request. */
  CHECK(error_class_of(MPI_Pready(0, sreq)) == MPI_ERR_REQUEST);
  int flag;
  CHECK(error_class_of(MPI_Parrived(sreq, 0, &flag)) == MPI_ERR_REQUEST);
  CHECK(error_class_of(MPI_Parrived(rreq, kParts, &flag)) == MPI_ERR_ARG);
  CHECK_MPI(MPI_Start(&sreq));
  CHECK(error_class_of(MPI_Pready(kParts, sreq)) == MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Pready(-1, sreq)) == MPI_ERR_ARG);
  CHECK_MPI(MPI_Start(&rreq));
  CHECK_MPI(MPI_Pready_range(0, kParts - 1, sreq));
  CHECK(error_class_of(MPI_Pready(0, sreq)) == MPI_ERR_ARG);  /* twice in one round */
  CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Request_free(&sreq));
  CHECK_MPI(MPI_Request_free(&rreq));
}
#endif

/* A wildcard receive posted before any partitioned traffic gets only the ordinary message. */
static void no_cross_match(void) {
  int in = -1;
  MPI_Request any;
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &any));
  exchange(64, 4, 4, MPI_INT, 1, 7, 2);
  int flag = 1;
  CHECK_MPI(MPI_Test(&any, &flag, MPI_STATUS_IGNORE));
  CHECK(!flag);
  /* Every partitioned message to this rank is in (the receive completed): none matched. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int out = value(rank, 99, 0);
  CHECK_MPI(MPI_Send(&out, 1, MPI_INT, next, 7, MPI_COMM_WORLD));
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&any, &st));
  CHECK(in == value(prev, 99, 0) && st.MPI_TAG == 7 && st.MPI_SOURCE == prev);
}

#ifdef TORUS_MPI_H
/* MPI_PROC_NULL on either side: the requests complete at once, the receive with the empty
 * status. */
static void proc_null(void) {
  int buf[8] = {0};
  MPI_Request req[2];
  CHECK_MPI(MPI_Psend_init(buf, 2, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &req[0]));
  CHECK_MPI(MPI_Precv_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &req[1]));
  for (int round = 0; round < 2; ++round) {
    CHECK_MPI(MPI_Startall(2, req));
    int flag = 0;
    CHECK_MPI(MPI_Parrived(req[1], 3, &flag));
    CHECK(flag);
    CHECK_MPI(MPI_Pready_range(0, 1, req[0]));
    MPI_Status st[2];
    CHECK_MPI(MPI_Waitall(2, req, st));
    CHECK(st[1].MPI_SOURCE == MPI_PROC_NULL && st[1].MPI_TAG == MPI_ANY_TAG);
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
}
#endif

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  /* Requests take their communicator's handler when made: the misuse checks need this. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  no_cross_match();
  exchange(8 * 1000, 8, 8, MPI_INT, 1, 1, 4);       /* equal, 4 rounds */
  exchange(120, 6, 4, MPI_INT, 1, 1, 2);            /* more send partitions */
  exchange(120, 2, 5, MPI_INT, 1, 2, 2);            /* fewer send partitions */
  exchange(1 << 16, 4, 4, MPI_INT, 1, 5, 2);        /* large partitions */
  MPI_Datatype strided = strided_int_type();
  exchange(100, 4, 5, strided, 2, 6, 3);            /* non-contiguous, unequal */
  exchange(60, 3, 3, strided, 2, 6, 2);             /* non-contiguous, equal */
  CHECK_MPI(MPI_Type_free(&strided));
#ifdef TORUS_MPI_H
  held_back();
  proc_null();
#endif

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("mpi partitioned ok: %d ranks\n", size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
