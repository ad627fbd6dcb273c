/* Generalized requests (MPI_Grequest_start / MPI_Grequest_complete): completed by another
 * thread while MPI_Wait waits, completed before the wait, through Test, Waitall (a failing
 * query_fn gives MPI_ERR_IN_STATUS), Waitany, Waitsome, Testall, Testany, Testsome,
 * Request_get_status and MPI_Request_free before and after completion; query_fn's status
 * fields reach the caller, free_fn runs exactly once, cancel_fn sees whether the request was
 * complete. Any size: each rank runs the same checks on its own. */
#include <pthread.h>
#include <string.h>

#include "check.h"

typedef struct {
  int query_calls, free_calls, cancel_calls, cancel_complete;
  int query_rc;  /* what query_fn returns */
  int tag;       /* what query_fn puts into MPI_TAG */
  MPI_Request req;
} State;

static int query_fn(void* extra, MPI_Status* status) {
  State* s = extra;
  ++s->query_calls;
  status->MPI_SOURCE = 1234;
  status->MPI_TAG = s->tag;
  MPI_Status_set_elements(status, MPI_BYTE, 40 + s->tag);
  MPI_Status_set_cancelled(status, 0);
  return s->query_rc;
}

static int free_fn(void* extra) {
  ++((State*)extra)->free_calls;
  return MPI_SUCCESS;
}

static int cancel_fn(void* extra, int complete) {
  State* s = extra;
  ++s->cancel_calls;
  s->cancel_complete = complete;
  return MPI_SUCCESS;
}

static void start(State* s, int tag) {
  memset(s, 0, sizeof *s);
  s->tag = tag;
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &s->req));
  CHECK(s->req != MPI_REQUEST_NULL);
}

static void* completer(void* arg) {
  State* s = arg;
  /* The main thread is in MPI_Wait (or about to be): a short pause makes the wait real. */
  double t0 = MPI_Wtime();
  while (MPI_Wtime() - t0 < 0.02) {
  }
  CHECK_MPI(MPI_Grequest_complete(s->req));
  return NULL;
}

static void check_status(const MPI_Status* st, int tag) {
  int n = -1;
  CHECK(st->MPI_SOURCE == 1234);
  CHECK(st->MPI_TAG == tag);
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &n));
  CHECK(n == 40 + tag);
}

int main(int argc, char** argv) {
  int provided, rank, size;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE);
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  State a, b, c;
  MPI_Status st;
  int flag;

  /* Completed from another thread while Wait waits. */
  start(&a, 1);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, completer, &a) == 0);
  CHECK_MPI(MPI_Wait(&a.req, &st));
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(a.req == MPI_REQUEST_NULL);
  check_status(&st, 1);
  CHECK(a.query_calls == 1 && a.free_calls == 1 && a.cancel_calls == 0);

  /* Completed before the wait; Test says no until then; Request_get_status queries without
   * freeing, the Wait afterwards queries again and frees once. */
  start(&a, 2);
  CHECK_MPI(MPI_Test(&a.req, &flag, &st));
  CHECK(!flag && a.query_calls == 0);
  CHECK_MPI(MPI_Request_get_status(a.req, &flag, &st));
  CHECK(!flag);
  CHECK_MPI(MPI_Grequest_complete(a.req));
  CHECK_MPI(MPI_Request_get_status(a.req, &flag, &st));
  CHECK(flag && a.query_calls == 1 && a.free_calls == 0 && a.req != MPI_REQUEST_NULL);
  check_status(&st, 2);
  CHECK_MPI(MPI_Test(&a.req, &flag, &st));
  CHECK(flag && a.req == MPI_REQUEST_NULL && a.free_calls == 1);
  check_status(&st, 2);

  /* query_fn's error: Wait returns it, Waitall reports MPI_ERR_IN_STATUS with each code. */
  start(&a, 3);
  a.query_rc = MPI_ERR_OTHER;
  CHECK_MPI(MPI_Grequest_complete(a.req));
  CHECK(error_class_of(MPI_Wait(&a.req, &st)) == MPI_ERR_OTHER);
  CHECK(a.free_calls == 1 && a.req == MPI_REQUEST_NULL);
  start(&a, 4);
  start(&b, 5);
  b.query_rc = MPI_ERR_ARG;
  CHECK_MPI(MPI_Grequest_complete(a.req));
  CHECK_MPI(MPI_Grequest_complete(b.req));
  MPI_Request reqs[3] = {a.req, b.req, MPI_REQUEST_NULL};
  MPI_Status sts[3];
  CHECK(MPI_Waitall(3, reqs, sts) == MPI_ERR_IN_STATUS);
  CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR != MPI_SUCCESS);
#ifdef TORUS_MPI_H
  /* query_fn's own code (MPICH 4.0.2 reports one of class MPI_ERR_OTHER). */
  CHECK(error_class_of(sts[1].MPI_ERROR) == MPI_ERR_ARG);
#endif
  check_status(&sts[0], 4);
  check_status(&sts[1], 5);
  CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);
  CHECK(a.free_calls == 1 && b.free_calls == 1);

  /* Waitany, Testany, Waitsome, Testsome, Testall: only completed requests come back. */
  start(&a, 6);
  start(&b, 7);
  start(&c, 8);
  reqs[0] = a.req;
  reqs[1] = b.req;
  reqs[2] = c.req;
  int index = -1, outcount = -1, indices[3];
  CHECK_MPI(MPI_Testany(3, reqs, &index, &flag, &st));
  CHECK(!flag && index == MPI_UNDEFINED);
  CHECK_MPI(MPI_Testsome(3, reqs, &outcount, indices, sts));
  CHECK(outcount == 0);
  CHECK_MPI(MPI_Testall(3, reqs, &flag, sts));
  CHECK(!flag && a.query_calls == 0);
  CHECK_MPI(MPI_Grequest_complete(b.req));
  CHECK_MPI(MPI_Waitany(3, reqs, &index, &st));
  CHECK(index == 1 && reqs[1] == MPI_REQUEST_NULL && b.free_calls == 1);
  check_status(&st, 7);
  CHECK(pthread_create(&th, NULL, completer, &c) == 0);
  CHECK_MPI(MPI_Waitsome(3, reqs, &outcount, indices, sts));
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(outcount == 1 && indices[0] == 2 && c.free_calls == 1);
  check_status(&sts[0], 8);
  CHECK_MPI(MPI_Grequest_complete(a.req));
  CHECK_MPI(MPI_Testany(3, reqs, &index, &flag, &st));
  CHECK(flag && index == 0 && a.free_calls == 1 && a.query_calls == 1);
  check_status(&st, 6);

  /* Cancel: cancel_fn learns whether Grequest_complete came first. */
  start(&a, 9);
  CHECK_MPI(MPI_Cancel(&a.req));
  CHECK(a.cancel_calls == 1 && a.cancel_complete == 0);
  CHECK_MPI(MPI_Grequest_complete(a.req));
  CHECK_MPI(MPI_Cancel(&a.req));
  CHECK(a.cancel_calls == 2 && a.cancel_complete != 0);
  CHECK_MPI(MPI_Wait(&a.req, MPI_STATUS_IGNORE));
  CHECK(a.free_calls == 1 && a.query_calls == 1);

  /* Request_free before completion: free_fn runs at Grequest_complete (never query_fn);
   * after completion: at once. */
  start(&a, 10);
  MPI_Request keep = a.req;
  CHECK_MPI(MPI_Request_free(&a.req));
  CHECK(a.req == MPI_REQUEST_NULL);
#ifdef TORUS_MPI_H
  /* The standard runs free_fn at whichever of the two calls comes last; MPICH 4.0.2 runs it
   * at MPI_Request_free. */
  CHECK(a.free_calls == 0);
#endif
  CHECK_MPI(MPI_Grequest_complete(keep));
  CHECK(a.free_calls == 1 && a.query_calls == 0);
  start(&a, 11);
  CHECK_MPI(MPI_Grequest_complete(a.req));
  CHECK_MPI(MPI_Request_free(&a.req));
  CHECK(a.req == MPI_REQUEST_NULL && a.free_calls == 1);

  /* Testall with all complete returns the statuses. */
  start(&a, 12);
  start(&b, 13);
  CHECK_MPI(MPI_Grequest_complete(a.req));
  CHECK_MPI(MPI_Grequest_complete(b.req));
  reqs[0] = a.req;
  reqs[1] = b.req;
  CHECK_MPI(MPI_Testall(2, reqs, &flag, sts));
  CHECK(flag && reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);
  check_status(&sts[0], 12);
  check_status(&sts[1], 13);
  CHECK(a.free_calls == 1 && b.free_calls == 1);

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("mpi grequest ok: %d ranks\n", size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
