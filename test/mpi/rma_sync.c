/* One-sided synchronization: exclusive locks on rank 0 make a Get/flush/Put increment from
 * every rank exact; shared locks on every target held at once for Gets completed by
 * flush_local; an origin buffer reused after flush_local and flush_local_all leaves the
 * earlier values at the target (flush, flush_all, Win_sync, lock_all); a lock on itself
 * makes a rank's own Put visible to its loads; general active target (post/start/complete
 * with ring neighbours, with every rank, with empty groups; Win_wait and a Win_test loop);
 * errors under MPI_ERRORS_RETURN by class (RANK, RMA_RANGE, RMA_SYNC, LOCKTYPE, DISP, COUNT,
 * WIN) with the window left as it was; a Win_create_errhandler handler called with the
 * window and the code, Win_get_errhandler, Win_call_errhandler; window attributes whose
 * delete callback runs on replace, delete_attr and Win_free (after Win_free_keyval). Any
 * size. */
#include <string.h>

#include "check.h"

static int rank, size, left, right;

static int value(int from, int to, int i) { return from * 1000003 + to * 7919 + i; }

/* Memory is filled before the window exists, so no local store races a remote access. */
static MPI_Win expose(int* mem, int n) {
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(n ? mem : NULL, (MPI_Aint)sizeof(int) * n, sizeof(int),
                           MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  return win;
}

static void exclusive_counter(void) {
  const int rounds = 16 / size + 2;
  int* mem = marked_ints(1, 0);
  MPI_Win win = expose(mem, rank == 0 ? 1 : 0);
  for (int j = 0; j < rounds; ++j) {
    int c = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Get(&c, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(c >= j && c < size * rounds);
    ++c;
    CHECK_MPI(MPI_Put(&c, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int c = -1;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Get(&c, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(c == size * rounds);
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
}

/* Rank t exposes 100 + t ints that never change; every rank holds a shared lock on every
 * rank at once. Then a rank locks itself and stores through Put. */
static void shared_locks_and_self(void) {
  const int n = 100 + rank;
  int* mem = marked_ints(n, 0);
  for (int i = 0; i < n; ++i) mem[i] = value(rank, 0, i);
  MPI_Win win = expose(mem, n);
  int* in = marked_ints(size * (100 + size), -2);
  for (int t = 0; t < size; ++t) CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
  for (int t = 0; t < size; ++t) {
    CHECK_MPI(MPI_Get(in + t * (100 + size), 100 + t, MPI_INT, t, 0, 100 + t, MPI_INT, win));
    if (t % 2) CHECK_MPI(MPI_Win_flush_local(t, win));
  }
  CHECK_MPI(MPI_Win_flush_local_all(win));
  for (int t = 0; t < size; ++t)
    for (int i = 0; i < 100 + size; ++i)
      CHECK(in[t * (100 + size) + i] == (i < 100 + t ? value(t, 0, i) : -2));
  for (int t = size - 1; t >= 0; --t) CHECK_MPI(MPI_Win_unlock(t, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* nobody reads any more */
  int x[2] = {value(rank, 1, 0), value(rank, 1, 1)};
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
  CHECK_MPI(MPI_Put(x, 2, MPI_INT, rank, n - 2, 2, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(rank, win));
  CHECK(mem[n - 2] == x[0] && mem[n - 1] == x[1] && mem[n - 3] == value(rank, 0, n - 3));
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  free(in);
}

/* Origin o's three slots on every target get the buffer's contents at the time of each Put:
 * flush_local (one target) and flush_local_all (every target) let it be overwritten. */
static void flushes(void) {
  int* mem = marked_ints(3 * size, -1);
  MPI_Win win = expose(mem, 3 * size);
  int* buf = marked_ints(size, 0);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int t = 0; t < size; ++t) {
    buf[t] = value(rank, t, 0);
    CHECK_MPI(MPI_Put(&buf[t], 1, MPI_INT, t, 3 * rank, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush_local(t, win));
    buf[t] = value(rank, t, 1);
    CHECK_MPI(MPI_Put(&buf[t], 1, MPI_INT, t, 3 * rank + 1, 1, MPI_INT, win));
  }
  CHECK_MPI(MPI_Win_flush_local_all(win));
  for (int t = 0; t < size; ++t) {
    buf[t] = value(rank, t, 2);
    CHECK_MPI(MPI_Put(&buf[t], 1, MPI_INT, t, 3 * rank + 2, 1, MPI_INT, win));
    if (t % 2 == 0) CHECK_MPI(MPI_Win_flush(t, win));
  }
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_sync(win));
  for (int o = 0; o < size; ++o)
    for (int k = 0; k < 3; ++k) CHECK(mem[3 * o + k] == value(o, rank, k));
  int* in = marked_ints(3 * size, -2);
  for (int t = 0; t < size; ++t)
    CHECK_MPI(MPI_Get(in + 3 * t, 3, MPI_INT, t, 3 * right, 3, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush_all(win));
  for (int t = 0; t < size; ++t)
    for (int k = 0; k < 3; ++k) CHECK(in[3 * t + k] == value(right, t, k));
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  free(buf);
  free(in);
}

static MPI_Group group_of(int n, const int* ranks) {
  MPI_Group world, g;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_MPI(MPI_Group_incl(world, n, ranks, &g));
  CHECK_MPI(MPI_Group_free(&world));
  return g;
}

static void wait_or_test(MPI_Win win, int test) {
  if (!test) {
    CHECK_MPI(MPI_Win_wait(win));
    return;
  }
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Win_test(win, &flag));
}

/* Slot o of each window is origin o's; ints [size, 2 * size) never change and are read. */
static void pscw(int test) {
  int* mem = marked_ints(2 * size, -1);
  for (int i = 0; i < size; ++i) mem[size + i] = value(rank, 9, i);
  MPI_Win win = expose(mem, 2 * size);
  MPI_Group from_left = group_of(1, &left), to_right = group_of(1, &right);
  int x = value(rank, right, 0), got = -2;
  CHECK_MPI(MPI_Win_post(from_left, 0, win));
  CHECK_MPI(MPI_Win_start(to_right, 0, win));
  CHECK_MPI(MPI_Put(&x, 1, MPI_INT, right, rank, 1, MPI_INT, win));
  CHECK_MPI(MPI_Get(&got, 1, MPI_INT, right, size + rank, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_complete(win));
  CHECK(got == value(right, 9, rank));
  wait_or_test(win, test);
  for (int o = 0; o < size; ++o) CHECK(mem[o] == (o == left ? value(left, rank, 0) : -1));
#ifndef TORUS_MPI_H
  /* MPICH 4.0.2 sometimes loses the post a rank is waiting for in Win_start when posts for
   * its next epoch arrive meanwhile (a hang at 8 ranks); under torus they may. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
#endif
  /* Everyone to everyone: the same slots again, so each target waits for all. */
  MPI_Group world;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int* xs = marked_ints(size, 0);
  CHECK_MPI(MPI_Win_post(world, 0, win));
  CHECK_MPI(MPI_Win_start(world, 0, win));
  for (int t = 0; t < size; ++t) {
    xs[t] = value(rank, t, 1);
    CHECK_MPI(MPI_Put(&xs[t], 1, MPI_INT, t, rank, 1, MPI_INT, win));
  }
  CHECK_MPI(MPI_Win_complete(win));
  wait_or_test(win, test);
  for (int o = 0; o < size; ++o) CHECK(mem[o] == value(o, rank, 1));
  /* Empty groups: nothing to wait for on either side. */
  CHECK_MPI(MPI_Win_post(MPI_GROUP_EMPTY, 0, win));
  CHECK_MPI(MPI_Win_start(MPI_GROUP_EMPTY, 0, win));
  CHECK_MPI(MPI_Win_complete(win));
  wait_or_test(win, test);
  for (int o = 0; o < size; ++o) CHECK(mem[o] == value(o, rank, 1));
  CHECK_MPI(MPI_Group_free(&from_left));
  CHECK_MPI(MPI_Group_free(&to_right));
  CHECK_MPI(MPI_Group_free(&world));
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  free(xs);
}

static void errors(void) {
  int* mem = marked_ints(4, 0);
  for (int i = 0; i < 4; ++i) mem[i] = value(rank, 3, i);
  MPI_Win win = expose(mem, 4);
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  /* Calls on MPI_WIN_NULL have no window whose handler could run. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  int x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(error_class_of(MPI_Win_unlock(right, win)) == MPI_ERR_RMA_SYNC);
  CHECK(error_class_of(MPI_Win_unlock_all(win)) == MPI_ERR_RMA_SYNC);
  CHECK(error_class_of(MPI_Put(x, 1, MPI_INT, right, 0, 1, MPI_INT, win)) == MPI_ERR_RMA_SYNC);
#ifdef TORUS_MPI_H
  CHECK(error_class_of(MPI_Win_lock(12345, right, 0, win)) == MPI_ERR_LOCKTYPE);
  /* MPICH 4.0.2 grants a lock on a rank that does not exist (and then hangs). */
  CHECK(error_class_of(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win)) == MPI_ERR_RANK);
#else
  /* MPICH 4.0.2 says MPI_ERR_ARG; the standard's class is MPI_ERR_LOCKTYPE. */
  CHECK(error_class_of(MPI_Win_lock(12345, right, 0, win)) == MPI_ERR_ARG);
#endif
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK(error_class_of(MPI_Put(x, 1, MPI_INT, size, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
  CHECK(error_class_of(MPI_Get(x, 1, MPI_INT, -5, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
  CHECK(error_class_of(MPI_Put(x, 1, MPI_INT, right, -1, 1, MPI_INT, win)) == MPI_ERR_DISP);
  CHECK(error_class_of(MPI_Put(x, -1, MPI_INT, right, 0, 1, MPI_INT, win)) == MPI_ERR_COUNT);
  CHECK(error_class_of(MPI_Get(x, 1, MPI_INT, right, 0, -1, MPI_INT, win)) == MPI_ERR_COUNT);
  CHECK(error_class_of(MPI_Accumulate(x, -2, MPI_INT, right, 0, -2, MPI_INT, MPI_SUM, win)) ==
        MPI_ERR_COUNT);
  CHECK(error_class_of(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win)) == MPI_ERR_RMA_SYNC);
#ifdef TORUS_MPI_H
  /* MPICH 4.0.2 does not check the target's window size (the access lands past it). */
  CHECK(error_class_of(MPI_Put(x, 5, MPI_INT, right, 0, 5, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
  CHECK(error_class_of(MPI_Get(x, 1, MPI_INT, right, 4, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
  CHECK(error_class_of(MPI_Accumulate(x, 2, MPI_INT, right, 3, 2, MPI_INT, MPI_SUM, win)) ==
        MPI_ERR_RMA_RANGE);
#endif
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < 4; ++i) CHECK(mem[i] == value(rank, 3, i)); /* nothing landed */
  MPI_Win null = MPI_WIN_NULL;
  CHECK(error_class_of(MPI_Put(x, 1, MPI_INT, 0, 0, 1, MPI_INT, null)) == MPI_ERR_WIN);
  CHECK(error_class_of(MPI_Win_fence(0, null)) == MPI_ERR_WIN);
  CHECK(error_class_of(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, null)) == MPI_ERR_WIN);
  CHECK(error_class_of(MPI_Win_flush_all(null)) == MPI_ERR_WIN);
  CHECK(error_class_of(MPI_Win_set_name(null, "none")) == MPI_ERR_WIN);
  CHECK(error_class_of(MPI_Win_free(&null)) == MPI_ERR_WIN);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
}

static int calls;
static MPI_Win last_win;
static int last_code;

static void record(MPI_Win* win, int* code, ...) {
  ++calls;
  last_win = *win;
  last_code = *code;
}

static void user_errhandler(void) {
  int* mem = marked_ints(1, 0);
  MPI_Win win = expose(mem, 1);
  MPI_Errhandler eh, got;
  CHECK_MPI(MPI_Win_create_errhandler(record, &eh));
  CHECK_MPI(MPI_Win_set_errhandler(win, eh));
  CHECK_MPI(MPI_Win_get_errhandler(win, &got));
  CHECK(got == eh);
  int x = 0;
  calls = 0;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  const int code = MPI_Put(&x, 1, MPI_INT, size, 0, 1, MPI_INT, win);
  CHECK(calls == 1 && last_win == win && last_code == code);
  CHECK(error_class_of(code) == MPI_ERR_RANK);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  CHECK(calls == 2 && last_win == win && last_code == MPI_ERR_OTHER);
  /* Freeing the handle leaves the window's handler in place. */
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK(eh == MPI_ERRHANDLER_NULL);
  const int code2 = MPI_Win_unlock(0, win);
  CHECK(calls == 3 && last_code == code2 && error_class_of(code2) == MPI_ERR_RMA_SYNC);
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
}

static int deletes;
static void* last_deleted;
static MPI_Win deleted_from;

static int count_delete(MPI_Win win, int keyval, void* value, void* extra) {
  (void)keyval;
  CHECK(extra == &deletes);
  ++deletes;
  last_deleted = value;
  deleted_from = win;
  return MPI_SUCCESS;
}

static void attributes(void) {
  int* mem = marked_ints(2, 0);
  MPI_Win win = expose(mem, 2);
  int key = MPI_KEYVAL_INVALID, a = 1, b = 2, c = 3, flag = -1;
  void* got = NULL;
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &key, &deletes));
  CHECK(key != MPI_KEYVAL_INVALID);
  deletes = 0;
  CHECK_MPI(MPI_Win_get_attr(win, key, &got, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Win_set_attr(win, key, &a));
  CHECK_MPI(MPI_Win_get_attr(win, key, &got, &flag));
  CHECK(flag == 1 && got == &a && deletes == 0);
  CHECK_MPI(MPI_Win_set_attr(win, key, &b)); /* replacing deletes the old value */
  CHECK(deletes == 1 && last_deleted == &a && deleted_from == win);
  CHECK_MPI(MPI_Win_get_attr(win, key, &got, &flag));
  CHECK(flag == 1 && got == &b);
  CHECK_MPI(MPI_Win_delete_attr(win, key));
  CHECK(deletes == 2 && last_deleted == &b);
  CHECK_MPI(MPI_Win_get_attr(win, key, &got, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Win_set_attr(win, key, &c));
  CHECK_MPI(MPI_Win_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID && deletes == 2);
  const MPI_Win was = win;
  CHECK_MPI(MPI_Win_free(&win)); /* the attribute outlives its freed keyval until here */
  CHECK(deletes == 3 && last_deleted == &c && deleted_from == was);
  free(mem);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  exclusive_counter();
  shared_locks_and_self();
  flushes();
  pscw(0);
  pscw(1);
  errors();
  user_errhandler();
  attributes();
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi rma_sync ok: %d ranks\n", size);
  return 0;
}
