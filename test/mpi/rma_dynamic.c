/* Dynamic windows: Win_create_dynamic (flavor DYNAMIC; base MPI_BOTTOM, size 0, disp_unit 1
 * as the standard gives them); two regions per rank, of sizes differing per rank, attached
 * and their addresses (Get_address) exchanged by Allgather as MPI_AINT; in lock_all epochs
 * every rank Puts ints into the first region of every rank, itself included (from a strided
 * origin type on odd ranks), Accumulates doubles into the second and Gets both back, every
 * element checked and the ints past the written ones untouched; then the first region detached and
 * a new one attached, accessed by Put and Fetch_and_op, while the second still answers.
 * Any size. */
#include <string.h>

#include "check.h"

static int rank, size;

static int value(int from, int to, int i) { return from * 1000003 + to * 7919 + i; }

static int ints_of(int r) { return 2 * size + 1 + r; }
static int doubles_of(int r) { return 2 * size + r; }
static int longs_of(int r) { return size + 2 + r; }

/* Every rank's address of `p`, as the target_disp of its byte 0. */
static MPI_Aint* addresses(const void* p) {
  MPI_Aint mine;
  CHECK_MPI(MPI_Get_address(p, &mine));
  MPI_Aint* all = (MPI_Aint*)malloc(sizeof(MPI_Aint) * (size_t)size);
  CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD));
  return all;
}

static MPI_Aint at(const MPI_Aint* addrs, int t, size_t offset) {
  return MPI_Aint_add(addrs[t], (MPI_Aint)offset);
}

static void attributes(MPI_Win win) {
  void* base = &base;
  MPI_Aint* got_size = NULL;
  int *du = NULL, *flavor = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
  CHECK(flag && base == MPI_BOTTOM);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_size, &flag));
  CHECK(flag && *got_size == 0);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
  CHECK(flag && *du == 1);
}

/* The regions attached to the window, and every rank's addresses of them. */
static int *a, na;
static double *d, added;
static int nd;
static MPI_Aint *addr_a, *addr_d;

/* Origin o writes a[2o] and a[2o + 1] on every rank (from a strided buffer on odd ranks) and
 * adds (o + 1) / 4 to every double; then everything comes back from every rank. */
static void first_regions(MPI_Win win) {
  MPI_Datatype every_other = strided_int_type();
  int* out = marked_ints(4 * size, -5);
  double* add = (double*)malloc(sizeof(double) * (size_t)doubles_of(size - 1));
  for (int i = 0; i < doubles_of(size - 1); ++i) add[i] = (rank + 1) * 0.25;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int t = 0; t < size; ++t) {
    const MPI_Aint disp = at(addr_a, t, sizeof(int) * 2 * rank);
    if (rank % 2) {
      out[4 * t] = value(rank, t, 0);
      out[4 * t + 2] = value(rank, t, 1);
      CHECK_MPI(MPI_Put(&out[4 * t], 2, every_other, t, disp, 2, MPI_INT, win));
    } else {
      out[4 * t] = value(rank, t, 0);
      out[4 * t + 1] = value(rank, t, 1);
      CHECK_MPI(MPI_Put(&out[4 * t], 2, MPI_INT, t, disp, 2, MPI_INT, win));
    }
    CHECK_MPI(MPI_Accumulate(add, doubles_of(t), MPI_DOUBLE, t, at(addr_d, t, 0),
                             doubles_of(t), MPI_DOUBLE, MPI_SUM, win));
  }
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_sync(win));
  added = size * (size + 1) * 0.125; /* the sum of (o + 1) / 4 */
  for (int i = 0; i < na; ++i) CHECK(a[i] == (i < 2 * size ? value(i / 2, rank, i % 2) : -1));
  for (int i = 0; i < nd; ++i) CHECK(d[i] == rank + 0.5 * i + added);
  /* The last rank's regions are the largest. */
  const int ma = ints_of(size - 1), md = doubles_of(size - 1);
  int* ga = marked_ints(size * ma, -2);
  double* gd = (double*)malloc(sizeof(double) * (size_t)(size * md));
  for (int t = 0; t < size; ++t) {
    CHECK_MPI(MPI_Get(ga + t * ma, ints_of(t), MPI_INT, t, addr_a[t], ints_of(t), MPI_INT,
                      win));
    CHECK_MPI(MPI_Get(gd + t * md, doubles_of(t), MPI_DOUBLE, t, addr_d[t], doubles_of(t),
                      MPI_DOUBLE, win));
  }
  CHECK_MPI(MPI_Win_flush_all(win));
  for (int t = 0; t < size; ++t) {
    for (int i = 0; i < ma; ++i) {
      const int want = i < 2 * size ? value(i / 2, t, i % 2) : i < ints_of(t) ? -1 : -2;
      CHECK(ga[t * ma + i] == want);
    }
    for (int i = 0; i < doubles_of(t); ++i) CHECK(gd[t * md + i] == t + 0.5 * i + added);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Type_free(&every_other));
  free(out);
  free(add);
  free(ga);
  free(gd);
}

/* The int region detached and a region of longs attached in its place: origin o Puts l[o]
 * and everyone adds 1 to l[size]; the doubles still answer. */
static void replaced_region(MPI_Win win) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* nobody accesses `a` any more */
  CHECK_MPI(MPI_Win_detach(win, a));
  const int nl = longs_of(rank);
  long* l = (long*)malloc(sizeof(long) * (size_t)nl);
  for (int i = 0; i < nl; ++i) l[i] = -7;
  l[size] = 0;
  CHECK_MPI(MPI_Win_attach(win, l, (MPI_Aint)sizeof(long) * nl));
  MPI_Aint* addr_l = addresses(l);
  long* lv = (long*)malloc(sizeof(long) * (size_t)size);
  long one = 1, old = -1;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int t = 0; t < size; ++t) {
    lv[t] = (long)value(rank, t, 5) << 16;
    CHECK_MPI(MPI_Put(&lv[t], 1, MPI_LONG, t, at(addr_l, t, sizeof(long) * rank), 1, MPI_LONG,
                      win));
    CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG, t, at(addr_l, t, sizeof(long) * size),
                               MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    CHECK(old >= 0 && old < size);
  }
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_sync(win));
  for (int i = 0; i < nl; ++i)
    CHECK(l[i] == (i < size ? (long)value(i, rank, 5) << 16 : i == size ? size : -7));
  const int next = (rank + 1) % size;
  double back = -1;
  CHECK_MPI(MPI_Get(&back, 1, MPI_DOUBLE, next, at(addr_d, next, sizeof(double)), 1,
                    MPI_DOUBLE, win));
  CHECK_MPI(MPI_Win_flush(next, win));
  CHECK(back == next + 0.5 + added);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_detach(win, l));
  free(l);
  free(lv);
  free(addr_l);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  attributes(win);
  na = ints_of(rank);
  nd = doubles_of(rank);
  a = marked_ints(na, -1);
  d = (double*)malloc(sizeof(double) * (size_t)nd);
  for (int i = 0; i < nd; ++i) d[i] = rank + 0.5 * i;
  CHECK_MPI(MPI_Win_attach(win, a, (MPI_Aint)sizeof(int) * na));
  CHECK_MPI(MPI_Win_attach(win, d, (MPI_Aint)sizeof(double) * nd));
  addr_a = addresses(a);
  addr_d = addresses(d); /* the Allgathers also order every attach before any access */
  first_regions(win);
  replaced_region(win);
  CHECK_MPI(MPI_Win_detach(win, d));
  CHECK_MPI(MPI_Win_free(&win));
  free(a);
  free(d);
  free(addr_a);
  free(addr_d);
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi rma_dynamic ok: %d ranks\n", size);
  return 0;
}
