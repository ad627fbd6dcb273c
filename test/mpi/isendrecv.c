/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0) and MPI_Irsend: a ring exchange at
 * sizes from 0 to 1 MiB (eager and rendezvous), on ints and a staged strided type, the
 * status from the receive; MPI_PROC_NULL on either side; the replacing form sending the
 * buffer's old contents while the new ones land in it; several pending at once completed
 * in reverse; MPI_ERR_ARG, MPI_ERR_RANK, MPI_ERR_TRUNCATE. Any size. */
#include <string.h>

#include "check.h"

static int rank, size, left, right;

static int value(int from, int i) { return from * 1000003 + i; }

static void ring(int n, int stride, int replace) {
  MPI_Datatype t = stride == 1 ? MPI_INT : strided_int_type();
  int* out = marked_ints(n * stride, -1);
  int* in = marked_ints(n * stride, -2);
  for (int i = 0; i < n; ++i) out[i * stride] = value(rank, i);
  MPI_Request req;
  MPI_Status st;
  if (replace) {
    CHECK_MPI(MPI_Isendrecv_replace(out, n, t, right, 7, left, 7, MPI_COMM_WORLD, &req));
  } else {
    CHECK_MPI(MPI_Isendrecv(out, n, t, right, 7, in, n, t, left, 7, MPI_COMM_WORLD, &req));
  }
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL && st.MPI_SOURCE == left && st.MPI_TAG == 7);
  int count = -1;
  CHECK_MPI(MPI_Get_count(&st, t, &count));
  CHECK(count == n);
  const int* got = replace ? out : in;
  for (int k = 0; k < n * stride; ++k) {
    const int filler = replace ? -1 : -2;
    CHECK(got[k] == (k % stride == 0 ? value(left, k / stride) : filler));
  }
  if (!replace)
    for (int i = 0; i < n; ++i) CHECK(out[i * stride] == value(rank, i)); /* not touched */
  free(out);
  free(in);
  if (stride > 1) CHECK_MPI(MPI_Type_free(&t));
}

static void proc_null(void) {
  int x = value(rank, 0), y = -5;
  MPI_Request req;
  MPI_Status st;
  /* Nothing arrives from PROC_NULL: the status says so and the buffer stays. */
  CHECK_MPI(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, &y, 1, MPI_INT, MPI_PROC_NULL, 1,
                          MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(y == -5 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
  /* A send with nothing to receive, and a receive with nothing to send: paired up. */
  MPI_Request two[2];
  CHECK_MPI(MPI_Isendrecv(&x, 1, MPI_INT, right, 2, &y, 1, MPI_INT, MPI_PROC_NULL, 2,
                          MPI_COMM_WORLD, &two[0]));
  int z = -6;
  CHECK_MPI(MPI_Isendrecv_replace(&z, 1, MPI_INT, MPI_PROC_NULL, 2, left, 2, MPI_COMM_WORLD,
                                  &two[1]));
  CHECK_MPI(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
  CHECK(y == -5 && z == value(left, 0));
}

/* Ready-mode sends to receives already posted (a barrier orders them), and several
 * exchanges pending at once on distinct tags, completed in reverse. */
static void pending(void) {
  enum { kN = 4 };
  int rs_in = -1, rs_out = value(rank, 9);
  MPI_Request r;
  CHECK_MPI(MPI_Irecv(&rs_in, 1, MPI_INT, left, 50, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Request s;
  CHECK_MPI(MPI_Irsend(&rs_out, 1, MPI_INT, right, 50, MPI_COMM_WORLD, &s));
  CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(rs_in == value(left, 9));
  int out[kN], in[kN];
  MPI_Request req[kN];
  for (int k = 0; k < kN; ++k) {
    out[k] = value(rank, k);
    CHECK_MPI(MPI_Isendrecv(&out[k], 1, MPI_INT, right, 60 + k, &in[k], 1, MPI_INT, left,
                            60 + k, MPI_COMM_WORLD, &req[k]));
  }
  for (int k = kN - 1; k >= 0; --k) CHECK_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
  for (int k = 0; k < kN; ++k) CHECK(in[k] == value(left, k));
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x = 0, y[2];
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK(error_class_of(MPI_Isendrecv(&x, 1, MPI_INT, size, 0, &y, 1, MPI_INT, left, 0,
                                     MPI_COMM_WORLD, &req)) == MPI_ERR_RANK);
  CHECK(error_class_of(MPI_Isendrecv_replace(&x, -1, MPI_INT, right, 0, left, 0,
                                             MPI_COMM_WORLD, &req)) == MPI_ERR_COUNT);
  CHECK(error_class_of(MPI_Isendrecv(&x, 1, MPI_INT, right, 0, &y, 1, MPI_INT, left, 0,
                                     MPI_COMM_WORLD, NULL)) == MPI_ERR_ARG);
  CHECK(req == MPI_REQUEST_NULL);
  /* Two ints into room for one: the request reports the truncation. */
  int two[2] = {1, 2};
  CHECK_MPI(MPI_Isendrecv(two, 2, MPI_INT, right, 3, y, 1, MPI_INT, left, 3, MPI_COMM_WORLD,
                          &req));
  MPI_Status st;
  CHECK(error_class_of(MPI_Wait(&req, &st)) == MPI_ERR_TRUNCATE);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  const int counts[] = {0, 1, 1000, 262144};
  for (int c = 0; c < 4; ++c)
    for (int stride = 1; stride <= 2; ++stride)
      for (int replace = 0; replace <= 1; ++replace) ring(counts[c], stride, replace);
  proc_null();
  pending();
  errors();
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi isendrecv ok: %d ranks\n", size);
  return 0;
}
