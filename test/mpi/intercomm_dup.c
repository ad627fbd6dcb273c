/* Traffic across an intercommunicator, then again on its duplicates: every process to every
 * remote one with wildcard receives (statuses name remote ranks) and explicit Sendrecv
 * partners; Barrier, Allreduce (1 and 40000 ints), Allgather(v), Alltoall(v),
 * Reduce_scatter_block and Reduce_scatter against values computed here; the nonblocking
 * vector forms (Ialltoallw into a strided type) and reduce-scatters in flight at once with a
 * blocking Allreduce between. Comm_dup (congruent, works, apart from the original) and two
 * Comm_idup in flight with an Iallreduce between them, Comm_compare. Any size; one rank has
 * no second group and only checks what needs none. */
#include "intercomm_setup.h"

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

static void exercise(const struct inter *x) {
  p2p(x);
  unrooted(x);
  nonblocking_v(x);
  dup_compare(x);
}

int main(int argc, char **argv) {
  intercomm_init(&argc, &argv);
  on_each_inter(exercise);
  return intercomm_finish("intercomm_dup");
}
