/* Groups and the communicators made from them: every group operation against a locally
 * computed list of world ranks (empty groups, ranges with negative strides), translate_ranks
 * and compare; Comm_create with two disjoint groups in one call and with non-members,
 * Comm_create_group, Comm_split_type(SHARED / MPI_UNDEFINED), messages and Allreduce inside
 * them, isolated from the parent; context-id reuse (a dup/free loop longer than the id space);
 * attributes with counted copy and delete callbacks; names; error classes. Any size. */
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* The class of an error code (a code that Error_class does not know is its own class). */
static int cls(int rc) {
  int c = -1;
  return MPI_Error_class(rc, &c) == MPI_SUCCESS ? c : rc;
}

/* g must hold exactly the world ranks want[0..n) in that order, and Group_rank must say
 * where this process is in it. */
static void expect_group(MPI_Group g, const int* want, int n) {
  int gs = -1, gr = -2;
  CHECK_MPI(MPI_Group_size(g, &gs));
  CHECK(gs == n);
  MPI_Group world;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int* idx = malloc(sizeof(int) * (size_t)(n + 1));
  int* got = malloc(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; ++i) idx[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(g, n, idx, world, got));
  int my = MPI_UNDEFINED;
  for (int i = 0; i < n; ++i) {
    CHECK(got[i] == want[i]);
    if (want[i] == rank) my = i;
  }
  CHECK_MPI(MPI_Group_rank(g, &gr));
  CHECK(gr == my);
  free(idx);
  free(got);
  CHECK_MPI(MPI_Group_free(&world));
}

static int compare(MPI_Group a, MPI_Group b) {
  int r = -1;
  CHECK_MPI(MPI_Group_compare(a, b, &r));
  return r;
}

static void group_ops(void) {
  MPI_Group world, g, h;
  int* want = malloc(sizeof(int) * (size_t)size);
  int* list = malloc(sizeof(int) * (size_t)size);
  int n = 0;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  for (int i = 0; i < size; ++i) want[i] = i;
  expect_group(world, want, size);

  /* incl: the odd ranks, highest first. */
  n = 0;
  for (int r = size - 1; r >= 0; --r)
    if (r % 2) list[n++] = r;
  MPI_Group odd_rev;
  CHECK_MPI(MPI_Group_incl(world, n, list, &odd_rev));
  expect_group(odd_rev, list, n);
  /* incl of nothing: the empty group. */
  CHECK_MPI(MPI_Group_incl(world, 0, list, &g));
  expect_group(g, want, 0);
  CHECK(compare(g, MPI_GROUP_EMPTY) == MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK(g == MPI_GROUP_NULL);

  /* excl: every third rank out. */
  n = 0;
  for (int r = 0; r < size; r += 3) list[n++] = r;
  MPI_Group not3;
  CHECK_MPI(MPI_Group_excl(world, n, list, &not3));
  n = 0;
  for (int r = 0; r < size; ++r)
    if (r % 3) want[n++] = r;
  expect_group(not3, want, n);
  /* range_excl of the same ranks as a triplet gives the identical group. */
  int ranges[3][3] = {{0, size - 1, 3}};
  CHECK_MPI(MPI_Group_range_excl(world, 1, ranges, &g));
  CHECK(compare(g, not3) == MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&g));
  /* Excluding everyone leaves the empty group. */
  for (int r = 0; r < size; ++r) list[r] = r;
  CHECK_MPI(MPI_Group_excl(world, size, list, &g));
  CHECK(compare(g, MPI_GROUP_EMPTY) == MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&g));

  /* range_incl: from the top down by 2 (a negative stride), then the other parity upwards by
   * 2 ending past its last member, then a single rank. */
  const int p = (size - 1) % 2;
  int nr = 0;
  ranges[nr][0] = size - 1, ranges[nr][1] = 0, ranges[nr][2] = -2, ++nr;
  if (size >= 2) ranges[nr][0] = 1 - p, ranges[nr][1] = size - 1, ranges[nr][2] = 2, ++nr;
  n = 0;
  for (int r = size - 1; r >= 0; r -= 2) want[n++] = r;
  for (int r = 1 - p; size >= 2 && r <= size - 1; r += 2) want[n++] = r;
  CHECK(n == size);
  CHECK_MPI(MPI_Group_range_incl(world, nr, ranges, &g));
  expect_group(g, want, n);
  CHECK(compare(g, world) == (size == 1 ? MPI_IDENT : MPI_SIMILAR));
  CHECK_MPI(MPI_Group_free(&g));
  /* range_excl with a negative stride: drop the top half from the top down. */
  ranges[0][0] = size - 1, ranges[0][1] = size / 2, ranges[0][2] = -1;
  CHECK_MPI(MPI_Group_range_excl(world, 1, ranges, &g));
  for (int r = 0; r < size / 2; ++r) want[r] = r;
  expect_group(g, want, size / 2);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_range_incl(world, 0, ranges, &g));
  CHECK(compare(g, MPI_GROUP_EMPTY) == MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&g));

  /* Set operations keep the first group's order, then the second's. */
  MPI_Group evens;
  ranges[0][0] = 0, ranges[0][1] = size - 1, ranges[0][2] = 2;
  CHECK_MPI(MPI_Group_range_incl(world, 1, ranges, &evens));
  CHECK_MPI(MPI_Group_union(evens, odd_rev, &g));
  n = 0;
  for (int r = 0; r < size; r += 2) want[n++] = r;
  for (int r = size - 1; r >= 0; --r)
    if (r % 2) want[n++] = r;
  expect_group(g, want, n);
  CHECK_MPI(MPI_Group_union(g, world, &h)); /* nothing new: the same group */
  CHECK(compare(g, h) == MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&h));
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_intersection(world, odd_rev, &g)); /* world order */
  n = 0;
  for (int r = 1; r < size; r += 2) want[n++] = r;
  expect_group(g, want, n);
  CHECK(compare(g, odd_rev) == (n > 1 ? MPI_SIMILAR : MPI_IDENT));
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_difference(world, evens, &g));
  expect_group(g, want, n); /* the odd ranks again */
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_intersection(evens, odd_rev, &g));
  CHECK(compare(g, MPI_GROUP_EMPTY) == MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_difference(not3, world, &g));
  CHECK(compare(g, MPI_GROUP_EMPTY) == MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_union(MPI_GROUP_EMPTY, evens, &g));
  CHECK(compare(g, evens) == MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK(compare(evens, world) == (size == 1 ? MPI_IDENT : MPI_UNEQUAL));

  /* translate_ranks: odd_rev -> evens is all UNDEFINED; world -> odd_rev, PROC_NULL kept. */
  int* out = malloc(sizeof(int) * (size_t)(size + 1));
  for (int r = 0; r < size; ++r) list[r] = r;
  CHECK_MPI(MPI_Group_translate_ranks(world, size, list, odd_rev, out));
  const int n_odd = size / 2;
  for (int r = 0; r < size; ++r)
    CHECK(out[r] == (r % 2 ? n_odd - 1 - r / 2 : MPI_UNDEFINED));
  int probe[2] = {MPI_PROC_NULL, 0};
  CHECK_MPI(MPI_Group_translate_ranks(world, 2, probe, evens, out));
  CHECK(out[0] == MPI_PROC_NULL && out[1] == 0);
  for (int r = 0; r < n_odd; ++r) list[r] = r;
  CHECK_MPI(MPI_Group_translate_ranks(odd_rev, n_odd, list, evens, out));
  for (int r = 0; r < n_odd; ++r) CHECK(out[r] == MPI_UNDEFINED);
  CHECK_MPI(MPI_Group_translate_ranks(odd_rev, 0, list, evens, out));

  CHECK_MPI(MPI_Group_free(&evens));
  CHECK_MPI(MPI_Group_free(&odd_rev));
  CHECK_MPI(MPI_Group_free(&not3));
  CHECK_MPI(MPI_Group_free(&world));
  g = MPI_GROUP_EMPTY;
  CHECK_MPI(MPI_Group_free(&g)); /* allowed: operations hand it out */
  free(out);
  free(list);
  free(want);
}

/* p2p and Allreduce inside `c` (whose world ranks are members[0..n)), isolated from the
 * world: a message on `c` sent first never reaches a wildcard receive on the world. */
static void exercise(MPI_Comm c, const int* members, int n) {
  int r = -1, s = -1;
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK_MPI(MPI_Comm_size(c, &s));
  CHECK(s == n && members[r] == rank);
  int sum = 0, want = 0;
  for (int i = 0; i < n; ++i) want += members[i] * 3 + 1;
  int mine = rank * 3 + 1;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == want);
  const int right = (r + 1) % n, left = (r + n - 1) % n;
  const int wright = (rank + 1) % size, wleft = (rank + size - 1) % size;
  int on_c = 1000 + rank, on_world = 2000 + rank, got = -1;
  MPI_Request reqs[2];
  MPI_Status st;
  CHECK_MPI(MPI_Isend(&on_c, 1, MPI_INT, right, 3, c, &reqs[0]));
  CHECK_MPI(MPI_Isend(&on_world, 1, MPI_INT, wright, 3, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  CHECK(got == 2000 + wleft && st.MPI_SOURCE == wleft);
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &st));
  CHECK(got == 1000 + members[left] && st.MPI_SOURCE == left && st.MPI_TAG == 3);
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
}

static void comm_create(void) {
  MPI_Group world, mine;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int* members = malloc(sizeof(int) * (size_t)size);
  /* Disjoint groups in one call: the even ranks in order, the odd ones highest first. */
  int n = 0;
  if (rank % 2 == 0) {
    for (int r = 0; r < size; r += 2) members[n++] = r;
  } else {
    for (int r = size - 1; r >= 0; --r)
      if (r % 2) members[n++] = r;
  }
  CHECK_MPI(MPI_Group_incl(world, n, members, &mine));
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, mine, &c));
  CHECK(c != MPI_COMM_NULL);
  exercise(c, members, n);
  int cmp = -1;
  CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
  CHECK(cmp == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));

  /* A communicator made from the new one: its first half (by its rank order); the others
   * pass the same group and get MPI_COMM_NULL. */
  MPI_Group cg, half;
  CHECK_MPI(MPI_Comm_group(c, &cg));
  int range[1][3] = {{0, (n - 1) / 2, 1}};
  CHECK_MPI(MPI_Group_range_incl(cg, 1, range, &half));
  MPI_Comm sub;
  CHECK_MPI(MPI_Comm_create(c, half, &sub));
  int cr = -1;
  CHECK_MPI(MPI_Comm_rank(c, &cr));
  if (cr <= (n - 1) / 2) {
    CHECK(sub != MPI_COMM_NULL);
    exercise(sub, members, (n - 1) / 2 + 1);
    CHECK_MPI(MPI_Comm_free(&sub));
  } else {
    CHECK(sub == MPI_COMM_NULL);
    /* exercise()'s world ring needs everyone: take part with a one-rank stand-in. */
    int self_member = rank;
    exercise(MPI_COMM_SELF, &self_member, 1);
  }
  CHECK_MPI(MPI_Group_free(&half));
  CHECK_MPI(MPI_Group_free(&cg));
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Group_free(&mine));

  /* Non-members of the only group (everyone but rank 0) get MPI_COMM_NULL. */
  CHECK_MPI(MPI_Group_excl(world, 1, (int[]){0}, &mine));
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, mine, &c));
  for (int r = 1; r < size; ++r) members[r - 1] = r;
  if (rank == 0) {
    CHECK(c == MPI_COMM_NULL);
    int self_member = 0;
    exercise(MPI_COMM_SELF, &self_member, 1);
  } else {
    exercise(c, members, size - 1);
    CHECK_MPI(MPI_Comm_free(&c));
  }

  /* Comm_create_group: only the members call it, twice in a row with one tag, and the
   * second time each parity with its own group in concurrent calls. The group is the world
   * but rank 0, highest first. */
  MPI_Group rev;
  for (int r = size - 1; r >= 1; --r) members[size - 1 - r] = r;
  CHECK_MPI(MPI_Group_incl(world, size - 1, members, &rev));
  if (rank != 0) {
    for (int round = 0; round < 2; ++round) {
      CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, rev, 77, &c));
      int r = -1;
      CHECK_MPI(MPI_Comm_rank(c, &r));
      CHECK(r == size - 1 - rank);
      int sum = 0, one = rank;
      CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
      CHECK(sum == size * (size - 1) / 2);
      CHECK_MPI(MPI_Comm_free(&c));
    }
  }
  CHECK_MPI(MPI_Group_free(&rev));
  n = 0;
  for (int r = rank % 2; r < size; r += 2) members[n++] = r;
  CHECK_MPI(MPI_Group_free(&mine));
  CHECK_MPI(MPI_Group_incl(world, n, members, &mine));
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 77, &c));
  exercise(c, members, n);
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Group_free(&mine));
  CHECK_MPI(MPI_Group_free(&world));
  free(members);
}

static void split_type(void) {
  /* Every rank of the tests runs on one host: one communicator of all, ordered by key. */
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL,
                                &node));
  int* members = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) members[i] = size - 1 - i;
  exercise(node, members, size);
  CHECK_MPI(MPI_Comm_free(&node));
  /* Rank 0 opts out with MPI_UNDEFINED. */
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED,
                                0, MPI_INFO_NULL, &node));
  for (int i = 0; i + 1 < size; ++i) members[i] = i + 1;
  if (rank == 0) {
    CHECK(node == MPI_COMM_NULL);
    int self_member = 0;
    exercise(MPI_COMM_SELF, &self_member, 1);
  } else {
    exercise(node, members, size - 1);
    CHECK_MPI(MPI_Comm_free(&node));
  }
  free(members);
}

/* More dups and frees than there are context ids (2^15 pairs): ids must be reused. On
 * COMM_SELF an agreement costs no messages, so the loop is quick; the ids come from the same
 * per-process pool as every communicator's. Over the world the same loop runs at two ranks
 * (about 30 us a dup; oversubscribed 8 ranks take ~1 ms). Then communicators over the world
 * while each rank holds a different number of others (the agreed id must be free at every
 * rank, and differs from the lowest free one at some). */
static void context_id_reuse(void) {
  for (int i = 0; i < 33000; ++i) {
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &d));
    CHECK_MPI(MPI_Comm_free(&d));
  }
  for (int i = 0; size <= 2 && i < 33000; ++i) {
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK_MPI(MPI_Comm_free(&d));
  }
  MPI_Comm held[8];
  const int nheld = rank % 8;
  for (int i = 0; i < nheld; ++i) CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &held[i]));
  for (int i = 0; i < 20; ++i) {
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    int* members = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; ++r) members[r] = r;
    exercise(d, members, size);
    free(members);
    for (int h = 0; h < nheld; ++h) { /* the held ones still work, alongside */
      int x = i, y = -1;
      CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, 0, h, &y, 1, MPI_INT, 0, h, held[h],
                             MPI_STATUS_IGNORE));
      CHECK(y == i);
    }
    CHECK_MPI(MPI_Comm_free(&d));
  }
  for (int i = 0; i < nheld; ++i) CHECK_MPI(MPI_Comm_free(&held[i]));
}

/* Callback counters; the extra state of each keyval points at its own. */
struct counts {
  int copies, deletes;
  void* last_deleted;
};
static int fail_deletes;

static int copy_plus_one(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out,
                         int* flag) {
  (void)oldcomm;
  (void)keyval;
  ((struct counts*)extra)->copies++;
  *(void**)out = (void*)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  if (fail_deletes) return MPI_ERR_OTHER;
  ((struct counts*)extra)->deletes++;
  ((struct counts*)extra)->last_deleted = value;
  return MPI_SUCCESS;
}

static struct counts self_counts;

static void attributes(void) {
  struct counts c1 = {0, 0, NULL}, c2 = {0, 0, NULL}, c3 = {0, 0, NULL};
  int k1, k2, k3, a = 1, b = 2, c = 3, flag = -1;
  void* v = NULL;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &k1, &c1));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &k2, &c2));
  CHECK_MPI(MPI_Comm_create_keyval(copy_plus_one, count_delete, &k3, &c3));
  CHECK(k1 != k2 && k2 != k3 && k1 != MPI_KEYVAL_INVALID);
  MPI_Comm d, e;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_get_attr(d, k1, &v, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Comm_set_attr(d, k1, &a));
  CHECK_MPI(MPI_Comm_set_attr(d, k2, &b));
  CHECK_MPI(MPI_Comm_set_attr(d, k3, (void*)(intptr_t)10));
  CHECK_MPI(MPI_Comm_get_attr(d, k1, &v, &flag));
  CHECK(flag == 1 && v == &a);
  CHECK_MPI(MPI_Comm_get_attr(d, k3, &v, &flag));
  CHECK(flag == 1 && v == (void*)(intptr_t)10);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, k1, &v, &flag)); /* per communicator */
  CHECK(flag == 0);
  int* tag_ub = NULL; /* the predefined ones still answer, on any communicator */
  CHECK_MPI(MPI_Comm_get_attr(d, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag == 1 && *tag_ub >= 32767);
  int* universe = NULL;
  CHECK_MPI(MPI_Comm_get_attr(d, MPI_UNIVERSE_SIZE, &universe, &flag));
  CHECK(flag == 1 && *universe >= size);

  /* Dup: k1 copied as is, k2 not at all, k3 through its callback. */
  CHECK_MPI(MPI_Comm_dup(d, &e));
  CHECK(c3.copies == 1 && c1.copies == 0);
  CHECK_MPI(MPI_Comm_get_attr(e, k1, &v, &flag));
  CHECK(flag == 1 && v == &a);
  CHECK_MPI(MPI_Comm_get_attr(e, k2, &v, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Comm_get_attr(e, k3, &v, &flag));
  CHECK(flag == 1 && v == (void*)(intptr_t)11);

  /* Replacing a value deletes the old one; delete_attr deletes; nothing else was deleted. */
  CHECK_MPI(MPI_Comm_set_attr(d, k1, &c));
  CHECK(c1.deletes == 1 && c1.last_deleted == &a);
  CHECK_MPI(MPI_Comm_delete_attr(d, k2));
  CHECK(c2.deletes == 1 && c2.last_deleted == &b);
  CHECK_MPI(MPI_Comm_get_attr(d, k2, &v, &flag));
  CHECK(flag == 0);
  CHECK(c3.deletes == 0);

  /* Comm_free runs the delete callbacks of what is left: e holds k1 and k3. */
  CHECK_MPI(MPI_Comm_free(&e));
  CHECK(c1.deletes == 2 && c3.deletes == 1 && c3.last_deleted == (void*)(intptr_t)11);
  CHECK(c2.deletes == 1);

  /* A freed keyval lives on for the attributes that use it. */
  CHECK_MPI(MPI_Comm_free_keyval(&k1));
  CHECK(k1 == MPI_KEYVAL_INVALID);
  /* A failing delete callback fails Comm_free (and the communicator stays). */
  CHECK_MPI(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
  fail_deletes = 1;
  CHECK(cls(MPI_Comm_free(&d)) == MPI_ERR_OTHER);
  CHECK(cls(MPI_Comm_delete_attr(d, k3)) == MPI_ERR_OTHER);
  fail_deletes = 0;
  CHECK(d != MPI_COMM_NULL);
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK(c1.deletes == 3 && c1.last_deleted == &c && c3.deletes == 2);
  CHECK_MPI(MPI_Comm_free_keyval(&k2));
  CHECK_MPI(MPI_Comm_free_keyval(&k3));

  /* Bad keys: invalid, freed, predefined (which cannot be set). */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(cls(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag)) == MPI_ERR_KEYVAL);
  CHECK(cls(MPI_Comm_set_attr(MPI_COMM_WORLD, k2, &a)) == MPI_ERR_KEYVAL);
  CHECK(cls(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &a)) == MPI_ERR_KEYVAL);
  CHECK(cls(MPI_Comm_free_keyval(&k2)) == MPI_ERR_KEYVAL);
  CHECK(cls(MPI_Comm_set_attr(MPI_COMM_NULL, k2, &a)) == MPI_ERR_COMM);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  /* An attribute on COMM_SELF is deleted by MPI_Finalize (checked after it in main). */
  int ks;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &ks, &self_counts));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, ks, &self_counts));
  CHECK_MPI(MPI_Comm_free_keyval(&ks));
}

static void names(void) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1, flag = -1;
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14);
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13);
  MPI_Comm d;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_get_name(d, name, &len));
  CHECK(len == 0 && name[0] == '\0'); /* names are not copied */
  CHECK_MPI(MPI_Comm_set_name(d, "solver halo"));
  CHECK_MPI(MPI_Comm_get_name(d, name, &len));
  CHECK(strcmp(name, "solver halo") == 0 && len == 11);
  char longname[300];
  memset(longname, 'x', sizeof(longname) - 1);
  longname[sizeof(longname) - 1] = '\0';
  CHECK_MPI(MPI_Comm_set_name(d, longname));
  CHECK_MPI(MPI_Comm_get_name(d, name, &len));
  CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len);
  CHECK_MPI(MPI_Comm_test_inter(d, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len)); /* unchanged */
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0);
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Group world, g = MPI_GROUP_NULL;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int bad[2] = {size, 0}, dup2[2] = {0, 0}, sz = 0, out[2];
  CHECK(cls(MPI_Group_incl(world, 1, bad, &g)) == MPI_ERR_RANK);
  CHECK(cls(MPI_Group_incl(world, 2, dup2, &g)) == MPI_ERR_RANK);
  bad[0] = -1;
  CHECK(cls(MPI_Group_excl(world, 1, bad, &g)) == MPI_ERR_RANK);
  CHECK(cls(MPI_Group_incl(world, -1, bad, &g)) == MPI_ERR_ARG);
  CHECK(cls(MPI_Group_size(MPI_GROUP_NULL, &sz)) == MPI_ERR_GROUP);
  CHECK(cls(MPI_Group_size((MPI_Group)0x88fff123, &sz)) == MPI_ERR_GROUP);
  CHECK(cls(MPI_Group_free(&g)) == MPI_ERR_GROUP);
  CHECK(cls(MPI_Group_union(world, MPI_GROUP_NULL, &g)) == MPI_ERR_GROUP);
  int zero_stride[1][3] = {{0, 0, 0}}, past_end[1][3] = {{0, size, 1}},
      wrong_way[1][3] = {{size - 1, 0, 1}}, overlap[2][3] = {{0, size - 1, 1}, {0, 0, 1}};
  CHECK(cls(MPI_Group_range_incl(world, 1, zero_stride, &g)) == MPI_ERR_ARG);
  CHECK(cls(MPI_Group_range_incl(world, 1, past_end, &g)) == MPI_ERR_ARG);
  CHECK(cls(MPI_Group_range_excl(world, 2, overlap, &g)) == MPI_ERR_ARG);
  if (size > 1) CHECK(cls(MPI_Group_range_incl(world, 1, wrong_way, &g)) == MPI_ERR_ARG);
  bad[0] = size;
  CHECK(cls(MPI_Group_translate_ranks(world, 1, bad, world, out)) == MPI_ERR_RANK);
  MPI_Comm c = MPI_COMM_WORLD;
  CHECK(cls(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c)) == MPI_ERR_GROUP);
  CHECK(cls(MPI_Comm_create(MPI_COMM_NULL, world, &c)) == MPI_ERR_COMM);
  CHECK(cls(MPI_Comm_create_group(MPI_COMM_WORLD, world, -1, &c)) == MPI_ERR_TAG);
  if (size > 1) { /* the world's group is not within COMM_SELF (whose handler applies) */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK(cls(MPI_Comm_create_group(MPI_COMM_SELF, world, 0, &c)) == MPI_ERR_GROUP);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
  }
  CHECK(cls(MPI_Comm_split_type(MPI_COMM_WORLD, 99, 0, MPI_INFO_NULL, &c)) == MPI_ERR_ARG);
  CHECK(cls(MPI_Comm_group((MPI_Comm)0x44001234, &g)) == MPI_ERR_COMM);
  CHECK(cls(MPI_Comm_set_name(MPI_COMM_NULL, "x")) == MPI_ERR_COMM);
  CHECK(cls(MPI_Comm_free(&c)) == MPI_ERR_COMM); /* c is still MPI_COMM_WORLD */
  CHECK(c == MPI_COMM_WORLD);
  CHECK_MPI(MPI_Group_free(&world));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  group_ops();
  comm_create();
  split_type();
  context_id_reuse();
  attributes();
  names();
  errors();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("mpi group ok: %d ranks\n", size);
  CHECK_MPI(MPI_Finalize());
  /* MPI is gone: report without CHECK. */
  if (self_counts.deletes != 1 || self_counts.last_deleted != &self_counts) {
    fprintf(stderr, "rank %d: COMM_SELF's attribute was not deleted by MPI_Finalize\n", rank);
    return 1;
  }
  return 0;
}
