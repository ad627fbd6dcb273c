/* MPI_Comm_idup: the duplicate is congruent and isolated from its parent; it keeps the
 * parent's error handler and copies attributes through their callbacks; several pending at
 * once, interleaved with blocking collectives and a Comm_dup on the parent and completed in
 * reverse, each get their own context (a message on one is never received on another);
 * the parent may be freed while one is pending; with more than 2048 communicators held the
 * agreement goes past its first window of ids. Any size. */
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* The same tag on every communicator, the messages sent in the given order: each receive
 * must get the message of its own communicator. */
static void isolated(const MPI_Comm* comms, int n) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[8], in[8];
  MPI_Request reqs[8];
  for (int i = 0; i < n; ++i) {
    out[i] = 1000 * i + rank;
    CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, right, 3, comms[i], &reqs[i]));
  }
  for (int i = n - 1; i >= 0; --i) {
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[i], &st));
    CHECK(in[i] == 1000 * i + left && st.MPI_SOURCE == left);
  }
  CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
}

static int copies;
static int copy_fn(MPI_Comm c, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)c, (void)keyval, (void)extra;
  ++copies;
  *(void**)out = (void*)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

static void basics(void) {
  MPI_Comm parent;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
  CHECK_MPI(MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN));
  int key;
  CHECK_MPI(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
  CHECK_MPI(MPI_Comm_set_attr(parent, key, (void*)(intptr_t)41));
  MPI_Comm d = MPI_COMM_NULL;
  MPI_Request req;
  CHECK_MPI(MPI_Comm_idup(parent, &d, &req));
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL && d != MPI_COMM_NULL);
  int result = -1, r = -1, n = -1, flag = 0;
  CHECK_MPI(MPI_Comm_compare(parent, d, &result));
  CHECK(result == MPI_CONGRUENT);
  CHECK_MPI(MPI_Comm_rank(d, &r));
  CHECK_MPI(MPI_Comm_size(d, &n));
  CHECK(r == rank && n == size);
  void* v = NULL;
  CHECK_MPI(MPI_Comm_get_attr(d, key, &v, &flag));
  CHECK(flag && (intptr_t)v == 42 && copies == 1);
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_get_errhandler(d, &eh));
  CHECK(eh == MPI_ERRORS_RETURN);
  const MPI_Comm both[2] = {parent, d};
  isolated(both, 2);
  int sum = 0, one = 1;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d));
  CHECK(sum == size);
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK_MPI(MPI_Comm_free_keyval(&key));
  /* The _with_info form, completed by a Test loop. */
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Comm_idup_with_info(parent, info, &d, &req));
  for (flag = 0; !flag;) CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Comm_compare(parent, d, &result));
  CHECK(result == MPI_CONGRUENT);
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK_MPI(MPI_Comm_free(&parent));
}

/* Three idups pending around blocking collectives and a Comm_dup on the world, the parent
 * of one freed before it completes. */
static void interleaved(void) {
  MPI_Comm temp, d[3], blocking;
  MPI_Request req[3];
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &temp));
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &req[0]));
  int x = rank, y = 0;
  CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(y == size - 1);
  CHECK_MPI(MPI_Comm_idup(temp, &d[1], &req[1]));
  CHECK_MPI(MPI_Comm_free(&temp));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &blocking));
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d[2], &req[2]));
  CHECK_MPI(MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(x == 0);
  for (int i = 2; i >= 0; --i) CHECK_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
  const MPI_Comm all[5] = {MPI_COMM_WORLD, d[0], d[1], d[2], blocking};
  isolated(all, 5);
  for (int i = 0; i < 3; ++i) CHECK_MPI(MPI_Comm_free(&d[i]));
  CHECK_MPI(MPI_Comm_free(&blocking));
}

/* Past the first window: 2100 communicators held, so the lowest pairs every member has free
 * lie beyond the first 2048. */
static void second_window(void) {
  enum { kHeld = 2100 };
  MPI_Comm* held = malloc(sizeof(MPI_Comm) * kHeld);
  for (int i = 0; i < kHeld; ++i) CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &held[i]));
  MPI_Comm d;
  MPI_Request req;
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  const MPI_Comm both[2] = {MPI_COMM_WORLD, d};
  isolated(both, 2);
  CHECK_MPI(MPI_Comm_free(&d));
  for (int i = 0; i < kHeld; ++i) CHECK_MPI(MPI_Comm_free(&held[i]));
  free(held);
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm d;
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK(error_class_of(MPI_Comm_idup(MPI_COMM_NULL, &d, &req)) == MPI_ERR_COMM);
  CHECK(error_class_of(MPI_Comm_idup(MPI_COMM_WORLD, NULL, &req)) == MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Comm_idup(MPI_COMM_WORLD, &d, NULL)) == MPI_ERR_ARG);
  CHECK(req == MPI_REQUEST_NULL);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  basics();
  interleaved();
  second_window();
  errors();
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi comm_idup ok: %d ranks\n", size);
  return 0;
}
