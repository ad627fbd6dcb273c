/* Intercommunicators: MPI_Intercomm_create (two ways of splitting the job, the leaders at
 * either end of their groups), the local and remote groups, point-to-point across with
 * wildcards and isolation from the parent, every blocking collective with both roots and
 * checked against values computed here, the nonblocking ones and their vector forms (all in
 * flight at once), persistent ones, Intercomm_merge in each order, Comm_dup, Comm_idup,
 * Comm_compare, Comm_split and Comm_create of an intercommunicator, error classes, and
 * creating and freeing many in a row. Any size; one rank has no second group and only checks
 * what needs none. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int wrank, wsize;

/* One intercommunicator and what each side knows of both groups. */
struct inter {
  MPI_Comm comm;
  int in_a;              /* this process is in group A */
  int lrank, lsize;      /* in the local group */
  int rsize;             /* of the remote group */
  int *lworld, *rworld;  /* world ranks of the local and the remote group, in group order */
};

static int *members(int in_a, int (*is_a)(int), int *n) {
  int *w = malloc(sizeof(int) * (size_t)wsize), k = 0;
  CHECK(w != NULL);
  for (int r = 0; r < wsize; ++r)
    if (!!is_a(r) == !!in_a) w[k++] = r;
  *n = k;
  return w;
}

static int block_a(int r) { return r < wsize / 3 + 1; }
static int even_a(int r) { return r % 2 == 0; }

/* Groups A and B as is_a splits the world; the leaders are local rank `leader_last ? last :
 * 0` of each group, found in MPI_COMM_WORLD as the peer communicator. */
static struct inter make_inter(int (*is_a)(int), int leader_last, int tag) {
  struct inter x;
  x.in_a = is_a(wrank);
  MPI_Comm local;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, x.in_a, wrank, &local));
  x.lworld = members(x.in_a, is_a, &x.lsize);
  x.rworld = members(!x.in_a, is_a, &x.rsize);
  const int local_leader = leader_last ? x.lsize - 1 : 0;
  const int remote_leader = x.rworld[leader_last ? x.rsize - 1 : 0];
  CHECK_MPI(MPI_Intercomm_create(local, local_leader, MPI_COMM_WORLD, remote_leader, tag,
                                 &x.comm));
  CHECK_MPI(MPI_Comm_free(&local));
  CHECK_MPI(MPI_Comm_rank(x.comm, &x.lrank));
  int n = -1, flag = 0;
  CHECK_MPI(MPI_Comm_size(x.comm, &n));
  CHECK(n == x.lsize && x.lworld[x.lrank] == wrank);
  CHECK_MPI(MPI_Comm_remote_size(x.comm, &n));
  CHECK(n == x.rsize);
  CHECK_MPI(MPI_Comm_test_inter(x.comm, &flag));
  CHECK(flag == 1);
  return x;
}

static void free_inter(struct inter *x) {
  CHECK_MPI(MPI_Comm_free(&x->comm));
  CHECK(x->comm == MPI_COMM_NULL);
  free(x->lworld);
  free(x->rworld);
}

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

/* Every process sends one message to every remote one, received with wildcards; statuses
 * name remote ranks. Then a Sendrecv between partners named explicitly. */
static void p2p(const struct inter *x) {
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)x->rsize);
  int *out = malloc(sizeof(int) * (size_t)x->rsize);
  int *seen = calloc((size_t)x->rsize, sizeof(int));
  CHECK(reqs && out && seen);
  for (int j = 0; j < x->rsize; ++j) {
    out[j] = wrank * 1000 + j;
    CHECK_MPI(MPI_Isend(&out[j], 1, MPI_INT, j, 40 + x->lrank % 3, x->comm, &reqs[j]));
  }
  for (int k = 0; k < x->rsize; ++k) {
    int v = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, x->comm, &st));
    CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < x->rsize && !seen[st.MPI_SOURCE]);
    seen[st.MPI_SOURCE] = 1;
    CHECK(st.MPI_TAG == 40 + st.MPI_SOURCE % 3);
    CHECK(v == x->rworld[st.MPI_SOURCE] * 1000 + x->lrank);
  }
  CHECK_MPI(MPI_Waitall(x->rsize, reqs, MPI_STATUSES_IGNORE));
  /* Everyone has had all of those before the next messages leave. */
  CHECK_MPI(MPI_Barrier(x->comm));
  /* Partners: local rank i of A with remote rank i % rsize; B answers every A process that
   * picked it, so B's ranks receive from the A ranks i with i % L_B == own rank. */
  if (x->in_a) {
    const int peer = x->lrank % x->rsize;
    int mine = wrank, got = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, peer, 7, &got, 1, MPI_INT, peer, 8, x->comm, &st));
    CHECK(got == x->rworld[peer] + 10000 && st.MPI_SOURCE == peer && st.MPI_TAG == 8);
  } else {
    for (int i = x->lrank; i < x->rsize; i += x->lsize) {
      int got = -1, back = wrank + 10000;
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, i, 7, x->comm, MPI_STATUS_IGNORE));
      CHECK(got == x->rworld[i]);
      CHECK_MPI(MPI_Send(&back, 1, MPI_INT, i, 8, x->comm));
    }
  }
  free(reqs);
  free(out);
  free(seen);
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

/* The root argument of a rooted collective whose root is local rank `r` of group A (a_root)
 * or of group B. */
static int root_arg(const struct inter *x, int a_root, int r) {
  if (x->in_a == a_root) return x->lrank == r ? MPI_ROOT : MPI_PROC_NULL;
  return r;
}
static int is_root(const struct inter *x, int a_root, int r) {
  return x->in_a == a_root && x->lrank == r;
}

static void rooted(const struct inter *x) {
  for (int a_root = 0; a_root < 2; ++a_root) {
    /* The root: the last rank of its group, so not the leader where the group has two. */
    const int gsize = x->in_a == a_root ? x->lsize : x->rsize;
    const int r = gsize - 1;
    const int root = root_arg(x, a_root, r);
    const int root_world = x->in_a == a_root ? x->lworld[r] : x->rworld[r];
    const int others = x->in_a == a_root ? x->rsize : x->lsize; /* the non-root group */
    const int *oworld = x->in_a == a_root ? x->rworld : x->lworld;

    /* Bcast of 5000 ints (beyond the eager sizes). */
    int *buf = malloc(sizeof(int) * 5000);
    CHECK(buf);
    for (int i = 0; i < 5000; ++i) buf[i] = is_root(x, a_root, r) ? root_world * 7 + i : -1;
    CHECK_MPI(MPI_Bcast(buf, 5000, MPI_INT, root, x->comm));
    if (root >= 0)
      for (int i = 0; i < 5000; ++i) CHECK(buf[i] == root_world * 7 + i);
    free(buf);

    /* Reduce: SUM and MAX of the other group's contributions. */
    long v[3] = {wrank + 1, 2L * wrank, -wrank}, got[3] = {0, 0, 0};
    CHECK_MPI(MPI_Reduce(v, got, 3, MPI_LONG, MPI_SUM, root, x->comm));
    if (root == MPI_ROOT) {
      long s0 = 0, s1 = 0, s2 = 0;
      for (int i = 0; i < others; ++i) {
        s0 += oworld[i] + 1;
        s1 += 2L * oworld[i];
        s2 -= oworld[i];
      }
      CHECK(got[0] == s0 && got[1] == s1 && got[2] == s2);
    }
    int mx = wrank, gmx = -1;
    CHECK_MPI(MPI_Reduce(&mx, &gmx, 1, MPI_INT, MPI_MAX, root, x->comm));
    if (root == MPI_ROOT) CHECK(gmx == oworld[others - 1]);

    /* Gather and Gatherv: the other group's (world rank, rank) pairs; Gatherv with j + 1
     * ints from rank j, placed back to front. */
    int pair[2] = {wrank, x->lrank};
    int *all = root == MPI_ROOT ? malloc(sizeof(int) * 2 * (size_t)others) : NULL;
    CHECK_MPI(MPI_Gather(pair, 2, MPI_INT, all, 2, MPI_INT, root, x->comm));
    if (root == MPI_ROOT) {
      for (int j = 0; j < others; ++j) CHECK(all[2 * j] == oworld[j] && all[2 * j + 1] == j);
      free(all);
    }
    int mine[64];
    const int nmine = x->lrank + 1;
    for (int i = 0; i < nmine; ++i) mine[i] = wrank * 100 + i;
    int *counts = NULL, *displs = NULL, *vbuf = NULL, total = 0;
    if (root == MPI_ROOT) {
      counts = malloc(sizeof(int) * (size_t)others);
      displs = malloc(sizeof(int) * (size_t)others);
      for (int j = others - 1; j >= 0; --j) {
        counts[j] = j + 1;
        displs[j] = total;
        total += j + 1;
      }
      vbuf = malloc(sizeof(int) * (size_t)(total ? total : 1));
    }
    CHECK_MPI(MPI_Gatherv(mine, nmine, MPI_INT, vbuf, counts, displs, MPI_INT, root, x->comm));
    if (root == MPI_ROOT)
      for (int j = 0; j < others; ++j)
        for (int i = 0; i <= j; ++i) CHECK(vbuf[displs[j] + i] == oworld[j] * 100 + i);

    /* Scatter and Scatterv, the reverse. */
    int *sbuf = NULL;
    if (root == MPI_ROOT) {
      sbuf = malloc(sizeof(int) * 2 * (size_t)others);
      for (int j = 0; j < others; ++j) {
        sbuf[2 * j] = oworld[j] + 500;
        sbuf[2 * j + 1] = j;
      }
    }
    int two[2] = {-1, -1};
    CHECK_MPI(MPI_Scatter(sbuf, 2, MPI_INT, two, 2, MPI_INT, root, x->comm));
    if (root >= 0) CHECK(two[0] == wrank + 500 && two[1] == x->lrank);
    free(sbuf);
    if (root == MPI_ROOT)
      for (int j = 0; j < others; ++j)
        for (int i = 0; i <= j; ++i) vbuf[displs[j] + i] = oworld[j] * 3 + i;
    int back[64];
    memset(back, 0xff, sizeof back);
    CHECK_MPI(MPI_Scatterv(vbuf, counts, displs, MPI_INT, back, nmine, MPI_INT, root, x->comm));
    if (root >= 0)
      for (int i = 0; i < nmine; ++i) CHECK(back[i] == wrank * 3 + i);
    free(counts);
    free(displs);
    free(vbuf);
  }
}

static void unrooted(const struct inter *x) {
  CHECK_MPI(MPI_Barrier(x->comm));

  /* Allreduce: each group gets the other group's sums, at a small and a large count. */
  for (int count = 1; count <= 40000; count *= 200) {
    int *in = malloc(sizeof(int) * (size_t)count), *out = malloc(sizeof(int) * (size_t)count);
    CHECK(in && out);
    for (int i = 0; i < count; ++i) in[i] = wrank + i;
    CHECK_MPI(MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, x->comm));
    long base = 0;
    for (int j = 0; j < x->rsize; ++j) base += x->rworld[j];
    for (int i = 0; i < count; ++i) CHECK(out[i] == base + (long)x->rsize * i);
    free(in);
    free(out);
  }

  /* Allgather: the remote group's (world rank, rank); Allgatherv: j + 1 ints of rank j. */
  int pair[2] = {wrank, x->lrank};
  int *all = malloc(sizeof(int) * 2 * (size_t)x->rsize);
  CHECK(all);
  CHECK_MPI(MPI_Allgather(pair, 2, MPI_INT, all, 2, MPI_INT, x->comm));
  for (int j = 0; j < x->rsize; ++j) CHECK(all[2 * j] == x->rworld[j] && all[2 * j + 1] == j);
  free(all);
  int mine[64];
  for (int i = 0; i <= x->lrank; ++i) mine[i] = wrank * 100 + i;
  int *counts = malloc(sizeof(int) * (size_t)x->rsize);
  int *displs = malloc(sizeof(int) * (size_t)x->rsize);
  int total = 0;
  for (int j = 0; j < x->rsize; ++j) {
    counts[j] = j + 1;
    displs[j] = total;
    total += j + 1;
  }
  int *v = malloc(sizeof(int) * (size_t)total);
  CHECK(counts && displs && v);
  CHECK_MPI(MPI_Allgatherv(mine, x->lrank + 1, MPI_INT, v, counts, displs, MPI_INT, x->comm));
  for (int j = 0; j < x->rsize; ++j)
    for (int i = 0; i <= j; ++i) CHECK(v[displs[j] + i] == x->rworld[j] * 100 + i);
  free(v);

  /* Alltoall: block j goes to remote rank j. Alltoallv: to remote j, (lrank + j) % 3 ints. */
  int *s = malloc(sizeof(int) * 3 * (size_t)x->rsize);
  int *r = malloc(sizeof(int) * 3 * (size_t)x->rsize);
  CHECK(s && r);
  for (int j = 0; j < x->rsize; ++j) s[j] = wrank * 1000 + j;
  CHECK_MPI(MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, x->comm));
  for (int j = 0; j < x->rsize; ++j) CHECK(r[j] == x->rworld[j] * 1000 + x->lrank);
  int *sc = malloc(sizeof(int) * (size_t)x->rsize), *sd = malloc(sizeof(int) * (size_t)x->rsize);
  int *rc = malloc(sizeof(int) * (size_t)x->rsize), *rd = malloc(sizeof(int) * (size_t)x->rsize);
  CHECK(sc && sd && rc && rd);
  for (int j = 0; j < x->rsize; ++j) {
    sc[j] = (x->lrank + j) % 3;
    sd[j] = 3 * j;
    rc[j] = (j + x->lrank) % 3;
    rd[j] = 3 * (x->rsize - 1 - j);
    for (int i = 0; i < sc[j]; ++i) s[sd[j] + i] = wrank * 10 + i;
  }
  for (int i = 0; i < 3 * x->rsize; ++i) r[i] = -1;
  CHECK_MPI(MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, x->comm));
  for (int j = 0; j < x->rsize; ++j)
    for (int i = 0; i < rc[j]; ++i) CHECK(r[rd[j] + i] == x->rworld[j] * 10 + i);
  free(s);
  free(r);
  free(sc);
  free(sd);
  free(rc);
  free(rd);

  /* Reduce_scatter_block and Reduce_scatter: each group's vectors have T = L_A * L_B
   * elements; the other group's sum is scattered here, rsize elements per rank (block), or
   * all of it to the last rank (counts). */
  const int t = x->lsize * x->rsize;
  int *in = malloc(sizeof(int) * (size_t)t), *out = malloc(sizeof(int) * (size_t)t);
  CHECK(in && out);
  for (int i = 0; i < t; ++i) in[i] = wrank * 3 + i;
  long base = 0;
  for (int j = 0; j < x->rsize; ++j) base += x->rworld[j] * 3;
  CHECK_MPI(MPI_Reduce_scatter_block(in, out, x->rsize, MPI_INT, MPI_SUM, x->comm));
  for (int i = 0; i < x->rsize; ++i)
    CHECK(out[i] == base + (long)x->rsize * (x->lrank * x->rsize + i));
  int *rcounts = malloc(sizeof(int) * (size_t)x->lsize);
  CHECK(rcounts);
  for (int i = 0; i < x->lsize; ++i) rcounts[i] = i == x->lsize - 1 ? t : 0;
  for (int i = 0; i < t; ++i) out[i] = -1;
  CHECK_MPI(MPI_Reduce_scatter(in, out, rcounts, MPI_INT, MPI_SUM, x->comm));
  if (x->lrank == x->lsize - 1)
    for (int i = 0; i < t; ++i) CHECK(out[i] == base + (long)x->rsize * i);
  free(rcounts);
  free(in);
  free(out);
  free(counts);
  free(displs);
}

/* Debian's MPICH 4.0.2 completes an intercommunicator MPI_Ibcast whose root is not its
 * group's leader without delivering the data (its MPI_Bcast is right; Open MPI's Ibcast
 * too): built against it, and only there, the test broadcasts blocking instead. */
static int ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                  MPI_Request *req) {
#if defined(MPICH_VERSION) && !defined(TORUS_MPI_H)
  *req = MPI_REQUEST_NULL;
  return MPI_Bcast(buf, count, type, root, comm);
#else
  return MPI_Ibcast(buf, count, type, root, comm, req);
#endif
}

/* inout = (in's first, inout's second): associative, not commutative, so the result shows
 * whether a group combined in rank order (its first rank's first, its last rank's second). */
static void first_last(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const int *a = in;
  int *b = inout;
  for (int i = 0; i < *len; ++i) b[2 * i] = a[2 * i];
}

/* The nonblocking collectives, all started before any completes (a blocking Allreduce in
 * between), with roots in either group, a derived type and a non-commutative user op. */
static void nonblocking(const struct inter *x) {
  enum { kBig = 5000, kReqs = 12 };
  MPI_Request req[kReqs];
  int n = 0;
  const int a_root = 1; /* roots: the last rank of group A */
  const int root = root_arg(x, a_root, (x->in_a ? x->lsize : x->rsize) - 1);
  const int root_world = x->in_a ? x->lworld[x->lsize - 1] : x->rworld[x->rsize - 1];
  const int *oworld = x->in_a ? x->rworld : x->lworld; /* group B, the non-root group */
  const int others = x->in_a ? x->rsize : x->lsize;
  CHECK_MPI(MPI_Ibarrier(x->comm, &req[n++]));

  int *big = malloc(sizeof(int) * kBig);
  CHECK(big);
  for (int i = 0; i < kBig; ++i) big[i] = root == MPI_ROOT ? root_world * 7 + i : -1;
  CHECK_MPI(ibcast(big, kBig, MPI_INT, root, x->comm, &req[n++]));

  /* Every other int of 2 * 100: a vector type, staged. */
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(100, 1, 2, MPI_INT, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  int sparse[200];
  for (int i = 0; i < 200; ++i) sparse[i] = root == MPI_ROOT || i % 2 ? 3 * i + 1 : -1;
  CHECK_MPI(ibcast(sparse, 1, strided, root, x->comm, &req[n++]));

  long v[3] = {wrank + 1, 2L * wrank, -wrank}, got[3] = {0, 0, 0};
  CHECK_MPI(MPI_Ireduce(v, got, 3, MPI_LONG, MPI_SUM, root, x->comm, &req[n++]));

  int *ar_in = malloc(sizeof(int) * kBig), *ar_out = malloc(sizeof(int) * kBig);
  CHECK(ar_in && ar_out);
  for (int i = 0; i < kBig; ++i) ar_in[i] = wrank + i;
  CHECK_MPI(MPI_Iallreduce(ar_in, ar_out, kBig, MPI_INT, MPI_SUM, x->comm, &req[n++]));

  MPI_Op fl;
  MPI_Datatype two_int;
  CHECK_MPI(MPI_Op_create(first_last, 0, &fl));
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &two_int));
  CHECK_MPI(MPI_Type_commit(&two_int));
  int ends[2] = {wrank, wrank}, ends_got[2] = {-1, -1};
  CHECK_MPI(MPI_Iallreduce(ends, ends_got, 1, two_int, fl, x->comm, &req[n++]));

  int pair[2] = {wrank, x->lrank};
  int *gathered = root == MPI_ROOT ? malloc(sizeof(int) * 2 * (size_t)others) : NULL;
  CHECK_MPI(MPI_Igather(pair, 2, MPI_INT, gathered, 2, MPI_INT, root, x->comm, &req[n++]));

  int *scat = NULL, two[2] = {-1, -1};
  if (root == MPI_ROOT) {
    scat = malloc(sizeof(int) * 2 * (size_t)others);
    CHECK(scat);
    for (int j = 0; j < others; ++j) {
      scat[2 * j] = oworld[j] + 500;
      scat[2 * j + 1] = j;
    }
  }
  CHECK_MPI(MPI_Iscatter(scat, 2, MPI_INT, two, 2, MPI_INT, root, x->comm, &req[n++]));

  int *all = malloc(sizeof(int) * 2 * (size_t)x->rsize);
  CHECK(all);
  CHECK_MPI(MPI_Iallgather(pair, 2, MPI_INT, all, 2, MPI_INT, x->comm, &req[n++]));

  int *s = malloc(sizeof(int) * (size_t)x->rsize), *r = malloc(sizeof(int) * (size_t)x->rsize);
  CHECK(s && r);
  for (int j = 0; j < x->rsize; ++j) s[j] = wrank * 1000 + j;
  CHECK_MPI(MPI_Ialltoall(s, 1, MPI_INT, r, 1, MPI_INT, x->comm, &req[n++]));

  /* A blocking collective while those are in flight: its messages are its own. */
  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, x->comm));
  CHECK(sum == x->rsize);
  CHECK_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));

  if (root >= 0)
    for (int i = 0; i < kBig; ++i) CHECK(big[i] == root_world * 7 + i);
  for (int i = 0; i < 200; ++i)
    CHECK(sparse[i] == (root == MPI_PROC_NULL && i % 2 == 0 ? -1 : 3 * i + 1));
  if (root == MPI_ROOT) {
    long s0 = 0, s1 = 0, s2 = 0;
    for (int j = 0; j < others; ++j) {
      s0 += oworld[j] + 1;
      s1 += 2L * oworld[j];
      s2 -= oworld[j];
    }
    CHECK(got[0] == s0 && got[1] == s1 && got[2] == s2);
    for (int j = 0; j < others; ++j)
      CHECK(gathered[2 * j] == oworld[j] && gathered[2 * j + 1] == j);
  }
  if (root >= 0) CHECK(two[0] == wrank + 500 && two[1] == x->lrank);
  long base = 0;
  for (int j = 0; j < x->rsize; ++j) base += x->rworld[j];
  for (int i = 0; i < kBig; ++i) CHECK(ar_out[i] == base + (long)x->rsize * i);
  CHECK(ends_got[0] == x->rworld[0] && ends_got[1] == x->rworld[x->rsize - 1]);
  for (int j = 0; j < x->rsize; ++j) CHECK(all[2 * j] == x->rworld[j] && all[2 * j + 1] == j);
  for (int j = 0; j < x->rsize; ++j) CHECK(r[j] == x->rworld[j] * 1000 + x->lrank);

  /* Requests of calls with nothing to move complete too (every process takes part). */
  CHECK_MPI(ibcast(big, 0, MPI_INT, root, x->comm, &req[0]));
  CHECK_MPI(MPI_Iallreduce(ar_in, ar_out, 0, MPI_INT, MPI_SUM, x->comm, &req[1]));
  CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));

  CHECK_MPI(MPI_Op_free(&fl));
  CHECK_MPI(MPI_Type_free(&two_int));
  CHECK_MPI(MPI_Type_free(&strided));
  free(big);
  free(ar_in);
  free(ar_out);
  free(gathered);
  free(scat);
  free(all);
  free(s);
  free(r);
}

/* The nonblocking vector forms and reduce-scatters, all in flight at once (a blocking
 * Allreduce in between), the root in group A; the counts differ by rank and a receive side
 * of Ialltoallw is a strided type, so it is staged. */
static void nonblocking_v(const struct inter *x) {
  enum { kReqs = 7 };
  MPI_Request req[kReqs];
  int n = 0;
  const int root = root_arg(x, 1, (x->in_a ? x->lsize : x->rsize) - 1);
  const int *oworld = x->in_a ? x->rworld : x->lworld; /* group B, the non-root group */
  const int others = x->in_a ? x->rsize : x->lsize;
  const int rs = x->rsize;

  /* Igatherv: j + 1 ints from remote rank j, placed back to front. Iscatterv: j + 2 back. */
  int mine[64], back[64];
  for (int i = 0; i <= x->lrank; ++i) mine[i] = wrank * 100 + i;
  memset(back, 0xff, sizeof back);
  int *gc = NULL, *gd = NULL, *gv = NULL, *sc = NULL, *sd = NULL, *sv = NULL;
  if (root == MPI_ROOT) {
    gc = malloc(sizeof(int) * (size_t)others);
    gd = malloc(sizeof(int) * (size_t)others);
    sc = malloc(sizeof(int) * (size_t)others);
    sd = malloc(sizeof(int) * (size_t)others);
    int gt = 0, st = 0;
    for (int j = others - 1; j >= 0; --j) {
      gc[j] = j + 1;
      gd[j] = gt;
      gt += j + 1;
      sc[j] = j + 2;
      sd[j] = st;
      st += j + 2;
    }
    gv = malloc(sizeof(int) * (size_t)gt);
    sv = malloc(sizeof(int) * (size_t)st);
    CHECK(gc && gd && sc && sd && gv && sv);
    for (int j = 0; j < others; ++j)
      for (int i = 0; i < sc[j]; ++i) sv[sd[j] + i] = oworld[j] * 3 + i;
  }
  CHECK_MPI(MPI_Igatherv(mine, x->lrank + 1, MPI_INT, gv, gc, gd, MPI_INT, root, x->comm,
                         &req[n++]));
  CHECK_MPI(MPI_Iscatterv(sv, sc, sd, MPI_INT, back, x->lrank + 2, MPI_INT, root, x->comm,
                          &req[n++]));

  /* Iallgatherv: j + 1 ints of remote rank j. */
  int *ac = malloc(sizeof(int) * (size_t)rs), *ad = malloc(sizeof(int) * (size_t)rs);
  CHECK(ac && ad);
  int at = 0;
  for (int j = 0; j < rs; ++j) {
    ac[j] = j + 1;
    ad[j] = at;
    at += j + 1;
  }
  int *av = malloc(sizeof(int) * (size_t)at);
  CHECK(av);
  CHECK_MPI(MPI_Iallgatherv(mine, x->lrank + 1, MPI_INT, av, ac, ad, MPI_INT, x->comm,
                            &req[n++]));

  /* Ialltoallv: to remote j, (lrank + j) % 3 ints, received back to front. */
  int *s = malloc(sizeof(int) * 3 * (size_t)rs), *r = malloc(sizeof(int) * 3 * (size_t)rs);
  int *vsc = malloc(sizeof(int) * (size_t)rs), *vsd = malloc(sizeof(int) * (size_t)rs);
  int *vrc = malloc(sizeof(int) * (size_t)rs), *vrd = malloc(sizeof(int) * (size_t)rs);
  CHECK(s && r && vsc && vsd && vrc && vrd);
  for (int j = 0; j < rs; ++j) {
    vsc[j] = (x->lrank + j) % 3;
    vsd[j] = 3 * j;
    vrc[j] = (j + x->lrank) % 3;
    vrd[j] = 3 * (rs - 1 - j);
    for (int i = 0; i < 3; ++i) s[3 * j + i] = wrank * 10 + i;
  }
  for (int i = 0; i < 3 * rs; ++i) r[i] = -1;
  CHECK_MPI(MPI_Ialltoallv(s, vsc, vsd, MPI_INT, r, vrc, vrd, MPI_INT, x->comm, &req[n++]));

  /* Ialltoallw: two ints to each remote rank, received as every other int of four (a vector
   * type) at byte displacements. */
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  int *ws = malloc(sizeof(int) * 2 * (size_t)rs), *wr = malloc(sizeof(int) * 4 * (size_t)rs);
  int *wsc = malloc(sizeof(int) * (size_t)rs), *wsd = malloc(sizeof(int) * (size_t)rs);
  int *wrc = malloc(sizeof(int) * (size_t)rs), *wrd = malloc(sizeof(int) * (size_t)rs);
  MPI_Datatype *wst = malloc(sizeof(MPI_Datatype) * (size_t)rs);
  MPI_Datatype *wrt = malloc(sizeof(MPI_Datatype) * (size_t)rs);
  CHECK(ws && wr && wsc && wsd && wrc && wrd && wst && wrt);
  for (int j = 0; j < rs; ++j) {
    ws[2 * j] = wrank * 1000 + j;
    ws[2 * j + 1] = -wrank;
    wsc[j] = 2;
    wsd[j] = (int)sizeof(int) * 2 * j;
    wst[j] = MPI_INT;
    wrc[j] = 1;
    wrd[j] = (int)sizeof(int) * 4 * j;
    wrt[j] = every_other;
  }
  for (int i = 0; i < 4 * rs; ++i) wr[i] = -7;
  CHECK_MPI(MPI_Ialltoallw(ws, wsc, wsd, wst, wr, wrc, wrd, wrt, x->comm, &req[n++]));

  /* Ireduce_scatter_block and Ireduce_scatter over vectors of T = L_A * L_B ints. */
  const int t = x->lsize * rs;
  int *in = malloc(sizeof(int) * (size_t)t), *blk = malloc(sizeof(int) * (size_t)rs);
  int *whole = malloc(sizeof(int) * (size_t)t), *rcounts = malloc(sizeof(int) * (size_t)x->lsize);
  CHECK(in && blk && whole && rcounts);
  for (int i = 0; i < t; ++i) {
    in[i] = wrank * 3 + i;
    whole[i] = -1;
  }
  for (int i = 0; i < x->lsize; ++i) rcounts[i] = i == 0 ? t : 0;
  CHECK_MPI(MPI_Ireduce_scatter_block(in, blk, rs, MPI_INT, MPI_SUM, x->comm, &req[n++]));
  CHECK_MPI(MPI_Ireduce_scatter(in, whole, rcounts, MPI_INT, MPI_SUM, x->comm, &req[n++]));

  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, x->comm));
  CHECK(sum == rs);
  CHECK(n == kReqs);
  CHECK_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));

  if (root == MPI_ROOT)
    for (int j = 0; j < others; ++j)
      for (int i = 0; i <= j; ++i) CHECK(gv[gd[j] + i] == oworld[j] * 100 + i);
  if (root >= 0)
    for (int i = 0; i < 64; ++i) CHECK(back[i] == (i < x->lrank + 2 ? wrank * 3 + i : -1));
  for (int j = 0; j < rs; ++j)
    for (int i = 0; i <= j; ++i) CHECK(av[ad[j] + i] == x->rworld[j] * 100 + i);
  for (int j = 0; j < rs; ++j)
    for (int i = 0; i < 3; ++i)
      CHECK(r[vrd[j] + i] == (i < vrc[j] ? x->rworld[j] * 10 + i : -1));
  for (int j = 0; j < rs; ++j) {
    CHECK(wr[4 * j] == x->rworld[j] * 1000 + x->lrank && wr[4 * j + 2] == -x->rworld[j]);
    CHECK(wr[4 * j + 1] == -7 && wr[4 * j + 3] == -7);
  }
  long base = 0;
  for (int j = 0; j < rs; ++j) base += x->rworld[j] * 3;
  for (int i = 0; i < rs; ++i) CHECK(blk[i] == base + (long)rs * (x->lrank * rs + i));
  for (int i = 0; i < t; ++i) CHECK(whole[i] == (x->lrank == 0 ? base + (long)rs * i : -1));

  CHECK_MPI(MPI_Type_free(&every_other));
  free(gc);
  free(gd);
  free(gv);
  free(sc);
  free(sd);
  free(sv);
  free(ac);
  free(ad);
  free(av);
  free(s);
  free(r);
  free(vsc);
  free(vsd);
  free(vrc);
  free(vrd);
  free(ws);
  free(wr);
  free(wsc);
  free(wsd);
  free(wrc);
  free(wrd);
  free(wst);
  free(wrt);
  free(in);
  free(blk);
  free(whole);
  free(rcounts);
}

/* Persistent collectives, each started twice: Bcast from group A's leader, Allreduce, and
 * Gatherv to it with the blocks placed back to front (counts of the remote group's size). */
static void persistent(const struct inter *x) {
  const int root = root_arg(x, 1, 0);
  const int root_world = x->in_a ? x->lworld[0] : x->rworld[0];
  const int *oworld = x->in_a ? x->rworld : x->lworld;
  const int others = x->in_a ? x->rsize : x->lsize;
  int b = -1, v = 0, sum = 0, one = 0;
  int *gc = NULL, *gd = NULL, *gv = NULL;
  if (root == MPI_ROOT) {
    gc = malloc(sizeof(int) * (size_t)others);
    gd = malloc(sizeof(int) * (size_t)others);
    gv = malloc(sizeof(int) * (size_t)others);
    CHECK(gc && gd && gv);
    for (int j = 0; j < others; ++j) {
      gc[j] = 1;
      gd[j] = others - 1 - j;
    }
  }
  MPI_Request req[3];
  CHECK_MPI(MPI_Bcast_init(&b, 1, MPI_INT, root, x->comm, MPI_INFO_NULL, &req[0]));
  CHECK_MPI(MPI_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, x->comm, MPI_INFO_NULL, &req[1]));
  CHECK_MPI(MPI_Gatherv_init(&one, 1, MPI_INT, gv, gc, gd, MPI_INT, root, x->comm,
                             MPI_INFO_NULL, &req[2]));
  for (int it = 0; it < 2; ++it) {
    b = root == MPI_ROOT ? root_world * 10 + it : -1;
    v = wrank + it;
    one = wrank * 2 + it;
    CHECK_MPI(MPI_Startall(3, req));
    CHECK_MPI(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    if (root >= 0) CHECK(b == root_world * 10 + it);
    int expect = 0;
    for (int j = 0; j < x->rsize; ++j) expect += x->rworld[j] + it;
    CHECK(sum == expect);
    if (root == MPI_ROOT)
      for (int j = 0; j < others; ++j) CHECK(gv[others - 1 - j] == oworld[j] * 2 + it);
  }
  for (int i = 0; i < 3; ++i) CHECK_MPI(MPI_Request_free(&req[i]));
  free(gc);
  free(gd);
  free(gv);
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

static void dup_compare(const struct inter *x) {
  struct inter d = *x;
  CHECK_MPI(MPI_Comm_dup(x->comm, &d.comm));
  int res = -1, flag = 0;
  CHECK_MPI(MPI_Comm_test_inter(d.comm, &flag));
  CHECK(flag == 1);
  CHECK_MPI(MPI_Comm_compare(x->comm, d.comm, &res));
  CHECK(res == MPI_CONGRUENT);
  CHECK_MPI(MPI_Comm_compare(x->comm, x->comm, &res));
  CHECK(res == MPI_IDENT);
  CHECK_MPI(MPI_Comm_compare(x->comm, MPI_COMM_WORLD, &res));
  CHECK(res == MPI_UNEQUAL);
  /* The duplicate works and keeps its messages apart from the original's. */
  p2p(&d);
  unrooted(&d);
  CHECK_MPI(MPI_Comm_free(&d.comm));

  /* Comm_idup: two in flight at once with an Iallreduce on the original between them; each
   * is congruent, works, and is apart from the other and from the original. */
  struct inter e = *x;
  MPI_Request req[3];
  int one = 1, sum = 0;
  CHECK_MPI(MPI_Comm_idup(x->comm, &d.comm, &req[0]));
  CHECK_MPI(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, x->comm, &req[1]));
  CHECK_MPI(MPI_Comm_idup(x->comm, &e.comm, &req[2]));
  CHECK_MPI(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
  CHECK(sum == x->rsize);
  CHECK_MPI(MPI_Comm_compare(x->comm, d.comm, &res));
  CHECK(res == MPI_CONGRUENT);
  CHECK_MPI(MPI_Comm_compare(d.comm, e.comm, &res));
  CHECK(res == MPI_CONGRUENT);
  p2p(&e);
  nonblocking_v(&d);
  unrooted(&e);
  CHECK_MPI(MPI_Comm_free(&d.comm));
  CHECK_MPI(MPI_Comm_free(&e.comm));
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

static void exercise(int (*is_a)(int), int leader_last, int tag) {
  struct inter x = make_inter(is_a, leader_last, tag);
  groups(&x);
  p2p(&x);
  isolation(&x);
  rooted(&x);
  unrooted(&x);
  nonblocking(&x);
  nonblocking_v(&x);
  persistent(&x);
  merge(&x);
  dup_compare(&x);
  split_create(&x);
  errors(&x);
  free_inter(&x);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  int flag = 1;
  CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0);
  if (wsize >= 2) {
    exercise(block_a, 0, 11);
    exercise(even_a, 1, 12);
    /* Created and freed in a row: their context ids come back. */
    for (int i = 0; i < 40; ++i) {
      struct inter x = make_inter(block_a, i % 2, 100 + i);
      free_inter(&x);
    }
  }
  if (wrank == 0) printf("mpi intercomm ok: %d ranks\n", wsize);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
