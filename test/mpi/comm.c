/* Communicators and the environment: Comm_dup isolation (a duplicate never sees the
 * parent's messages, even with MPI_ANY_TAG / MPI_ANY_SOURCE), MPI_COMM_SELF, Comm_free,
 * Comm_split (key order, MPI_UNDEFINED, collectives and p2p inside), Comm_compare,
 * Comm_get_attr(MPI_TAG_UB), the MPI-1 Attr and Keyval names, Alloc_mem/Free_mem, Pcontrol,
 * Is_thread_main,
 * error handlers (MPI_ERRORS_RETURN returns the right class for a bad rank, count, tag,
 * datatype, communicator, root and op), Error_string, Init_thread/Query_thread, Initialized,
 * Finalized, Get_processor_name, Get_version, Wtime/Wtick. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;

static void dup_isolation(void) {
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int r = -1, n = -1;
  CHECK_MPI(MPI_Comm_rank(dup, &r));
  CHECK_MPI(MPI_Comm_size(dup, &n));
  CHECK(r == rank && n == size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  /* Same tag on both communicators, the duplicate's message sent first: a wildcard receive
   * on the world must still get the world's message. */
  int on_dup = 100 + rank, on_world = 200 + rank, got = -1;
  MPI_Request reqs[2];
  CHECK_MPI(MPI_Isend(&on_dup, 1, MPI_INT, right, 5, dup, &reqs[0]));
  CHECK_MPI(MPI_Isend(&on_world, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &reqs[1]));
  MPI_Status st;
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  CHECK(got == 200 + left && st.MPI_SOURCE == left && st.MPI_TAG == 5);
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st));
  CHECK(got == 100 + left);
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));

  /* A duplicate of the duplicate, and collectives on each, interleaved. */
  MPI_Comm dup2;
  CHECK_MPI(MPI_Comm_dup(dup, &dup2));
  int a = rank, b = 2 * rank, sa = 0, sb = 0;
  CHECK_MPI(MPI_Allreduce(&a, &sa, 1, MPI_INT, MPI_SUM, dup2));
  CHECK_MPI(MPI_Allreduce(&b, &sb, 1, MPI_INT, MPI_SUM, dup));
  CHECK(sa == size * (size - 1) / 2 && sb == size * (size - 1));
  CHECK_MPI(MPI_Comm_free(&dup2));
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL);

  /* COMM_SELF: a one-rank communicator, messages to oneself. */
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &r));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &n));
  CHECK(r == 0 && n == 1);
  int x = 42, y = 0;
  CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, 0, 9, &y, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &st));
  CHECK(y == 42 && st.MPI_SOURCE == 0);
  MPI_Comm self_dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &self_dup));
  CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, self_dup));
  CHECK(y == 42);
  CHECK_MPI(MPI_Comm_free(&self_dup));
}

/* Split by parity with reversed keys: ranks are ordered by key, the groups are isolated
 * even though they share a context id, and collectives run on each group. */
static void split(void) {
  MPI_Comm half;
  int color = rank % 2;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half));
  int r = -1, n = -1;
  CHECK_MPI(MPI_Comm_rank(half, &r));
  CHECK_MPI(MPI_Comm_size(half, &n));
  int expect_n = (size - color + 1) / 2;
  CHECK(n == expect_n);
  CHECK(r == expect_n - 1 - rank / 2); /* highest world rank first */
  int sum = 0, want = 0;
  for (int w = color; w < size; w += 2) want += w;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
  CHECK(sum == want);
  /* A ring inside the group: the source in the status is the group rank. */
  int right = (r + 1) % n, left = (r + n - 1) % n, got = -1;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 4, &got, 1, MPI_INT, MPI_ANY_SOURCE, 4, half,
                         &st));
  CHECK(st.MPI_SOURCE == left);
  int left_world = (expect_n - 1 - left) * 2 + color; /* group rank -> world rank */
  CHECK(got == left_world);
  int cmp = -1;
  CHECK_MPI(MPI_Comm_compare(half, MPI_COMM_WORLD, &cmp));
  CHECK(cmp == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp));
  CHECK(cmp == MPI_IDENT);
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp));
  CHECK(cmp == MPI_CONGRUENT);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&half));

  /* MPI_UNDEFINED: rank 0 gets no communicator; the others get one without it. */
  MPI_Comm rest;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &rest));
  if (rank == 0) {
    CHECK(rest == MPI_COMM_NULL);
  } else {
    CHECK_MPI(MPI_Comm_rank(rest, &r));
    CHECK(r == rank - 1);
    CHECK_MPI(MPI_Barrier(rest));
    CHECK_MPI(MPI_Comm_free(&rest));
  }
}

static void error_handlers(void) {
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x = 0;
  CHECK(error_class_of(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD)) == MPI_ERR_RANK);
  CHECK(error_class_of(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
  CHECK(error_class_of(MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD)) == MPI_ERR_TAG);
  CHECK(error_class_of(MPI_Send(&x, 1, (MPI_Datatype)0x4c00ff77, 0, 0, MPI_COMM_WORLD)) ==
        MPI_ERR_TYPE);
  CHECK(error_class_of(MPI_Send(&x, 1, MPI_INT, 0, 0, (MPI_Comm)0x44001234)) == MPI_ERR_COMM);
  CHECK(error_class_of(MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD)) == MPI_ERR_ROOT);
  CHECK(error_class_of(MPI_Allreduce(&x, &x, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD)) ==
        MPI_ERR_OP);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(MPI_ERR_RANK, text, &len));
  CHECK(len > 0 && (int)strlen(text) == len);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void environment(void) {
  int flag = 0, provided = -1, v = 0, sv = -1, len = 0;
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(flag == 1);
  CHECK_MPI(MPI_Finalized(&flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Query_thread(&provided));
  CHECK(provided == MPI_THREAD_MULTIPLE);
  CHECK_MPI(MPI_Get_version(&v, &sv));
  CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION);
  char name[MPI_MAX_PROCESSOR_NAME];
  CHECK_MPI(MPI_Get_processor_name(name, &len));
  CHECK(len > 0 && (int)strlen(name) == len);
  CHECK_MPI(MPI_Is_thread_main(&flag));
  CHECK(flag == 1);
  int* tag_ub = NULL;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag == 1 && tag_ub && *tag_ub >= 32767);
  /* The MPI-1 attribute calls: the same keys and callbacks. */
  tag_ub = NULL;
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag == 1 && tag_ub && *tag_ub >= 32767);
  int key = MPI_KEYVAL_INVALID, value = 5;
  CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &key, NULL));
  CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, key, &value));
  int* got = NULL;
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, key, &got, &flag));
  CHECK(flag == 1 && got == &value);
  CHECK_MPI(MPI_Attr_delete(MPI_COMM_WORLD, key));
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, key, &got, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Keyval_free(&key));
  CHECK(key == MPI_KEYVAL_INVALID);
  /* Alloc_mem: aligned, writable, freed by Free_mem; zero bytes too. */
  double* mem = NULL;
  CHECK_MPI(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem));
  CHECK(mem && ((size_t)mem & 63) == 0);
  for (int i = 0; i < (1 << 20) / (int)sizeof(double); ++i) mem[i] = i;
  CHECK(mem[1000] == 1000.0);
  CHECK_MPI(MPI_Free_mem(mem));
  CHECK_MPI(MPI_Alloc_mem(0, MPI_INFO_NULL, &mem));
  CHECK_MPI(MPI_Free_mem(mem));
  CHECK_MPI(MPI_Pcontrol(1));
  CHECK_MPI(MPI_Pcontrol(0, "ignored"));
  double t0 = MPI_Wtime(), t1 = MPI_Wtime();
  CHECK(t1 >= t0 && MPI_Wtick() > 0.0 && MPI_Wtick() < 1e-3);
}

int main(int argc, char** argv) {
  int flag = 1, provided = -1;
  CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 0);
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE);
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  environment();
  dup_isolation();
  split();
  error_handlers();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("mpi comm ok: %d ranks\n", size);
  CHECK_MPI(MPI_Finalize());
  CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 1);
  return 0;
}
