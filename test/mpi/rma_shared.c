/* Shared-memory windows: Comm_split_type(SHARED), then Win_allocate_shared with a size and a
 * disp_unit (1, 4 or 8) per rank, rank 0 giving 0 bytes; flavor SHARED and the window's own
 * attributes; Win_shared_query of every rank (its size, disp_unit and pointer, the caller's
 * own segment at the base it was given), segments contiguous in rank order by default
 * (rank r's starts where rank r - 1's ends), MPI_PROC_NULL giving the lowest rank with a
 * nonzero size; every rank stores through the queried pointers into every segment, and
 * after Win_sync and a barrier each owner reads them through its own pointer and every rank
 * reads them back with MPI_Get; the same with alloc_shared_noncontig (no contiguity
 * asked). Any size on one host. */
#include <string.h>

#include "check.h"

static int rank, size; /* in the shared-memory communicator */
static MPI_Comm node;

static long long value(int from, int to) { return (long long)from * 1000003 + to * 7919 + 1; }

static int unit_of(int r) { return r % 3 == 0 ? 1 : r % 3 == 1 ? 4 : 8; }

/* Rank 0 gives nothing unless it is alone; rank r's segment holds size + r long longs. */
static MPI_Aint bytes_of(int r) {
  return r == 0 && size > 1 ? 0 : (MPI_Aint)sizeof(long long) * (size + r);
}

static void own_attributes(MPI_Win win, void* base) {
  void* got_base = &got_base;
  MPI_Aint* got_size = NULL;
  int *du = NULL, *flavor = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_size, &flag));
  CHECK(flag && *got_size == bytes_of(rank));
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
  CHECK(flag && *du == unit_of(rank));
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &got_base, &flag));
  CHECK(flag && (bytes_of(rank) == 0 || got_base == base));
}

static void shared(int noncontig) {
  MPI_Info info = MPI_INFO_NULL;
  if (noncontig) {
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
  }
  long long* base = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared(bytes_of(rank), unit_of(rank), info, node, &base, &win));
  if (noncontig) CHECK_MPI(MPI_Info_free(&info));
  own_attributes(win, base);
  char** seg = (char**)malloc(sizeof(char*) * (size_t)size);
  for (int r = 0; r < size; ++r) {
    MPI_Aint bytes = -1;
    int du = -1;
    void* p = NULL;
    CHECK_MPI(MPI_Win_shared_query(win, r, &bytes, &du, &p));
    CHECK(bytes == bytes_of(r) && du == unit_of(r));
    CHECK(bytes == 0 || p != NULL);
    seg[r] = (char*)p;
    if (r == rank && bytes) CHECK(p == base);
    /* Rank 0 has no segment, so contiguity is between ranks 1, 2, ... */
    if (!noncontig && r >= 2) CHECK(seg[r] == seg[r - 1] + bytes_of(r - 1));
  }
  const int lowest = size > 1 ? 1 : 0;
  MPI_Aint bytes = -1;
  int du = -1;
  void* p = NULL;
  CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &bytes, &du, &p));
  CHECK(bytes == bytes_of(lowest) && du == unit_of(lowest) && (char*)p == seg[lowest]);

  const int mine = (int)(bytes_of(rank) / (MPI_Aint)sizeof(long long));
  CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  for (int i = 0; i < mine; ++i) base[i] = -1;
  CHECK_MPI(MPI_Win_sync(win));
  CHECK_MPI(MPI_Barrier(node)); /* every segment marked before anyone stores into it */
  CHECK_MPI(MPI_Win_sync(win));
  for (int t = 0; t < size; ++t)
    if (bytes_of(t)) ((long long*)seg[t])[rank] = value(rank, t);
  CHECK_MPI(MPI_Win_sync(win));
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_sync(win));
  for (int i = 0; i < mine; ++i) CHECK(base[i] == (i < size ? value(i, rank) : -1));
  const int most = size + size - 1;
  long long* got = (long long*)malloc(sizeof(long long) * (size_t)(size * most));
  for (int i = 0; i < size * most; ++i) got[i] = -2;
  for (int t = 0; t < size; ++t) {
    const int n = (int)(bytes_of(t) / (MPI_Aint)sizeof(long long));
    CHECK_MPI(MPI_Get(got + t * most, n, MPI_LONG_LONG, t, 0, n, MPI_LONG_LONG, win));
  }
  CHECK_MPI(MPI_Win_flush_all(win));
  for (int t = 0; t < size; ++t) {
    const int n = (int)(bytes_of(t) / (MPI_Aint)sizeof(long long));
    for (int i = 0; i < most; ++i)
      CHECK(got[t * most + i] == (i >= n ? -2 : i < size ? value(i, t) : -1));
  }
  /* One element by target_disp in the target's own units: origin rank's slot. */
  for (int t = 0; t < size; ++t) {
    if (!bytes_of(t)) continue;
    long long one = -3;
    const MPI_Aint disp = (MPI_Aint)sizeof(long long) * rank / unit_of(t);
    CHECK_MPI(MPI_Get(&one, 1, MPI_LONG_LONG, t, disp, 1, MPI_LONG_LONG, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    CHECK(one == value(rank, t));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Win_free(&win));
  free(seg);
  free(got);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int world_size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, &size);
  shared(0);
  shared(1);
  CHECK_MPI(MPI_Comm_free(&node));
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi rma_shared ok: %d ranks, %d on this host\n", world_size, size);
  return 0;
}
