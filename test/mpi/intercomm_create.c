/* Intercommunicators and what is made from them: MPI_Intercomm_create (two ways of splitting
 * the job, the leaders at either end of their groups), the local and remote groups translated
 * to the world, Comm_test_inter, isolation of its messages from the parent's wildcards;
 * Intercomm_merge in each order; Comm_split and Comm_create of an intercommunicator; error
 * classes; creating and freeing many in a row. Any size; one rank has no second group and
 * only checks what needs none. */
#include "intercomm_setup.h"

/* Both groups, as world ranks through MPI_Group_translate_ranks. */
static void groups(const struct inter *x) {
  MPI_Group world, g;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  for (int remote = 0; remote < 2; ++remote) {
    const int n = remote ? x->rsize : x->lsize;
    const int *expect = remote ? x->rworld : x->lworld;
    if (remote) CHECK_MPI(MPI_Comm_remote_group(x->comm, &g));
    else CHECK_MPI(MPI_Comm_group(x->comm, &g));
    int gn = -1;
    CHECK_MPI(MPI_Group_size(g, &gn));
    CHECK(gn == n);
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    CHECK(in && out);
    for (int i = 0; i < n; ++i) in[i] = i;
    CHECK_MPI(MPI_Group_translate_ranks(g, n, in, world, out));
    for (int i = 0; i < n; ++i) CHECK(out[i] == expect[i]);
    free(in);
    free(out);
    CHECK_MPI(MPI_Group_free(&g));
  }
  CHECK_MPI(MPI_Group_free(&world));
}

/* A message on the intercommunicator never matches a wildcard receive on the world. */
static void isolation(const struct inter *x) {
  if (x->lrank != 0) return;
  const int peer_world = x->rworld[0];
  int on_inter = 1, on_world = 2, got = 0;
  MPI_Request reqs[2];
  CHECK_MPI(MPI_Isend(&on_inter, 1, MPI_INT, 0, 3, x->comm, &reqs[0]));
  CHECK_MPI(MPI_Isend(&on_world, 1, MPI_INT, peer_world, 3, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE));
  CHECK(got == 2);
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, x->comm, MPI_STATUS_IGNORE));
  CHECK(got == 1);
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
}

/* The merged communicator's world ranks, in its rank order. */
static int merged_is(MPI_Comm m, const int *first, int nfirst, const int *second, int nsecond) {
  int n = -1;
  CHECK_MPI(MPI_Comm_size(m, &n));
  CHECK(n == nfirst + nsecond);
  int *w = malloc(sizeof(int) * (size_t)n);
  CHECK(w);
  CHECK_MPI(MPI_Allgather(&wrank, 1, MPI_INT, w, 1, MPI_INT, m));
  int same = 1;
  for (int i = 0; i < n; ++i) same &= w[i] == (i < nfirst ? first[i] : second[i - nfirst]);
  free(w);
  return same;
}

static void merge(const struct inter *x) {
  const int *aw = x->in_a ? x->lworld : x->rworld, *bw = x->in_a ? x->rworld : x->lworld;
  const int na = x->in_a ? x->lsize : x->rsize, nb = x->in_a ? x->rsize : x->lsize;
  MPI_Comm m;
  /* A low, B high: A first. */
  CHECK_MPI(MPI_Intercomm_merge(x->comm, !x->in_a, &m));
  int flag = 1, r = -1;
  CHECK_MPI(MPI_Comm_test_inter(m, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Comm_rank(m, &r));
  CHECK(r == (x->in_a ? x->lrank : na + x->lrank));
  CHECK(merged_is(m, aw, na, bw, nb));
  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m));
  CHECK(sum == wsize);
  CHECK_MPI(MPI_Comm_free(&m));
  /* A high, B low: B first. */
  CHECK_MPI(MPI_Intercomm_merge(x->comm, x->in_a, &m));
  CHECK(merged_is(m, bw, nb, aw, na));
  CHECK_MPI(MPI_Comm_free(&m));
  /* Both the same: either order, the same everywhere. */
  CHECK_MPI(MPI_Intercomm_merge(x->comm, 1, &m));
  int a_first = merged_is(m, aw, na, bw, nb), b_first = merged_is(m, bw, nb, aw, na);
  CHECK(a_first || b_first);
  int agreed = 0;
  CHECK_MPI(MPI_Allreduce(&a_first, &agreed, 1, MPI_INT, MPI_SUM, m));
  CHECK(agreed == 0 || agreed == wsize);
  CHECK_MPI(MPI_Comm_free(&m));
}

/* Comm_split by local rank parity with keys reversing the order: processes of one parity
 * on both sides join, in descending world order; a parity missing on one side (a group of
 * one) gives MPI_COMM_NULL. Comm_create with each side's even local ranks, the same. */
static void split_create(const struct inter *x) {
  for (int create = 0; create < 2; ++create) {
    const int color = x->lrank % 2;
    MPI_Comm s;
    if (create) {
      MPI_Group lg, evens;
      CHECK_MPI(MPI_Comm_group(x->comm, &lg));
      int range[1][3] = {{0, x->lsize - 1, 2}};
      CHECK_MPI(MPI_Group_range_incl(lg, 1, range, &evens));
      CHECK_MPI(MPI_Comm_create(x->comm, evens, &s));
      CHECK_MPI(MPI_Group_free(&evens));
      CHECK_MPI(MPI_Group_free(&lg));
    } else {
      CHECK_MPI(MPI_Comm_split(x->comm, color, -wrank, &s));
    }
    /* Who should be in it, in order: same parity on each side (create: evens only, in
     * rank order; split: by key, descending world rank). */
    int nl = 0, nr = 0, el[64], er[64];
    for (int pass = 0; pass < 2; ++pass) {
      const int n = pass ? x->rsize : x->lsize;
      const int *w = pass ? x->rworld : x->lworld;
      int *out = pass ? er : el, *k = pass ? &nr : &nl;
      for (int i = 0; i < n; ++i) {
        const int j = create ? i : n - 1 - i;
        if (j % 2 == (create ? 0 : color)) out[(*k)++] = w[j];
      }
    }
    const int in = create ? color == 0 : 1;
    if (!in || nr == 0) {
      CHECK(s == MPI_COMM_NULL);
      continue;
    }
    CHECK(s != MPI_COMM_NULL);
    int flag = 0, r = -1, n = -1, rn = -1;
    CHECK_MPI(MPI_Comm_test_inter(s, &flag));
    CHECK_MPI(MPI_Comm_rank(s, &r));
    CHECK_MPI(MPI_Comm_size(s, &n));
    CHECK_MPI(MPI_Comm_remote_size(s, &rn));
    CHECK(flag == 1 && n == nl && rn == nr && el[r] == wrank);
    /* The remote side's world ranks, in its order, through an Allgather across. */
    int *got = malloc(sizeof(int) * (size_t)nr);
    CHECK(got);
    CHECK_MPI(MPI_Allgather(&wrank, 1, MPI_INT, got, 1, MPI_INT, s));
    for (int i = 0; i < nr; ++i) CHECK(got[i] == er[i]);
    free(got);
    CHECK_MPI(MPI_Comm_free(&s));
  }
}

static void errors(const struct inter *x) {
  CHECK_MPI(MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_RETURN));
  int v = 0;
  CHECK(error_class_of(MPI_Send(&v, 1, MPI_INT, x->rsize, 0, x->comm)) == MPI_ERR_RANK);
  CHECK(error_class_of(MPI_Bcast(&v, 1, MPI_INT, x->rsize, x->comm)) == MPI_ERR_ROOT);
#ifdef TORUS_MPI_H
  /* Scans are defined on intracommunicators only (MPICH asserts instead). */
  int out = 0;
  CHECK(error_class_of(MPI_Scan(&v, &out, 1, MPI_INT, MPI_SUM, x->comm)) == MPI_ERR_COMM);
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK(error_class_of(MPI_Iscan(&v, &out, 1, MPI_INT, MPI_SUM, x->comm, &req)) ==
        MPI_ERR_COMM);
  /* No MPI_IN_PLACE on an intercommunicator, nonblocking either. */
  CHECK(error_class_of(MPI_Ireduce_scatter_block(MPI_IN_PLACE, &out, 1, MPI_INT, MPI_SUM,
                                                 x->comm, &req)) == MPI_ERR_BUFFER);
  CHECK(req == MPI_REQUEST_NULL);
  /* The remote size of an intracommunicator (MPICH answers its size). */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int n = 0;
  CHECK(error_class_of(MPI_Comm_remote_size(MPI_COMM_WORLD, &n)) == MPI_ERR_COMM);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
#endif
}

static void exercise(const struct inter *x) {
  groups(x);
  isolation(x);
  merge(x);
  split_create(x);
  errors(x);
}

int main(int argc, char **argv) {
  intercomm_init(&argc, &argv);
  on_each_inter(exercise);
  if (wsize >= 2) {
    /* Created and freed in a row: their context ids come back. */
    for (int i = 0; i < 40; ++i) {
      struct inter x = make_inter(block_a, i % 2, 100 + i);
      free_inter(&x);
    }
  }
  return intercomm_finish("intercomm_create");
}
