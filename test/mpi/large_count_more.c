/* The rest of MPI 4.0's single-count large-count (_c) calls, each with small counts against
 * a result computed here: Scan/Exscan, Reduce_scatter_block, Reduce_local; the nonblocking
 * collectives (Iallreduce ... Ialltoall); the persistent ones (Bcast_init ... Alltoall_init,
 * each started twice); the neighborhood ones on a periodic ring; Bsend_init, Ssend_init,
 * Rsend_init, Isendrecv, Isendrecv_replace; Put, Get, Accumulate, Get_accumulate and their
 * request forms; and a negative count in each family (MPI_ERR_COUNT). large_count.c covers
 * the conversion above INT_MAX, which these share. Any size. Checks that Debian's MPICH
 * 4.0.2 fails (persistent collectives, negative counts, a sendrecv's count to itself) are
 * behind TORUS_MPI_H, which the ABI test defines when it builds this with mpicc.mpich. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

static long tri(int n) { return (long)n * (n - 1) / 2; } /* 0 + 1 + ... + n-1 */

static void scans_and_local(void) {
  long v[3] = {rank, 1, 2L * rank}, out[3] = {0};
  CHECK_MPI(MPI_Scan_c(v, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK(out[0] == tri(rank + 1) && out[1] == rank + 1 && out[2] == 2 * tri(rank + 1));
  memset(out, 0, sizeof out);
  CHECK_MPI(MPI_Exscan_c(v, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
  if (rank > 0) CHECK(out[0] == tri(rank) && out[1] == rank && out[2] == 2 * tri(rank));
  /* Block r of every rank's vector holds r and the rank; each rank ends with its block summed. */
  int* in = malloc(sizeof(int) * 2 * (size_t)size);
  CHECK(in != NULL);
  for (int j = 0; j < size; ++j) {
    in[2 * j] = j;
    in[2 * j + 1] = rank;
  }
  int blk[2] = {0, 0};
  CHECK_MPI(MPI_Reduce_scatter_block_c(in, blk, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(blk[0] == rank * size && blk[1] == (int)tri(size));
  free(in);
  double a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
  CHECK_MPI(MPI_Reduce_local_c(a, b, 4, MPI_DOUBLE, MPI_PROD));
  CHECK(b[0] == 10 && b[1] == 40 && b[2] == 90 && b[3] == 160);
}

static void nonblocking(void) {
  MPI_Request r;
  long v[2] = {rank, 1}, out[2] = {0};
  CHECK_MPI(MPI_Iallreduce_c(v, out, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(out[0] == tri(size) && out[1] == size);
  memset(out, 0, sizeof out);
  CHECK_MPI(MPI_Ireduce_c(v, out, 2, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  if (rank == 0) CHECK(out[0] == size - 1 && out[1] == 1);
  CHECK_MPI(MPI_Iscan_c(v, out, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(out[0] == tri(rank + 1) && out[1] == rank + 1);
  CHECK_MPI(MPI_Iexscan_c(v, out, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  if (rank > 0) CHECK(out[0] == tri(rank) && out[1] == rank);
  int b[3] = {0};
  if (rank == size - 1) b[0] = 7, b[1] = 8, b[2] = 9;
  CHECK_MPI(MPI_Ibcast_c(b, 3, MPI_INT, size - 1, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(b[0] == 7 && b[1] == 8 && b[2] == 9);

  int* all = malloc(sizeof(int) * 2 * (size_t)size);
  int* back = malloc(sizeof(int) * 2 * (size_t)size);
  CHECK(all && back);
  for (int j = 0; j < size; ++j) all[2 * j] = j, all[2 * j + 1] = rank;
  int blk[2] = {0, 0};
  CHECK_MPI(MPI_Ireduce_scatter_block_c(all, blk, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(blk[0] == rank * size && blk[1] == (int)tri(size));
  int pair[2] = {rank, -rank};
  CHECK_MPI(MPI_Iallgather_c(pair, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int j = 0; j < size; ++j) CHECK(all[2 * j] == j && all[2 * j + 1] == -j);
  memset(all, 0, sizeof(int) * 2 * (size_t)size);
  CHECK_MPI(MPI_Igather_c(pair, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  if (rank == 0)
    for (int j = 0; j < size; ++j) CHECK(all[2 * j] == j && all[2 * j + 1] == -j);
  int mine[2] = {-1, -1};
  CHECK_MPI(MPI_Iscatter_c(all, 2, MPI_INT, mine, 2, MPI_INT, 0, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(mine[0] == rank && mine[1] == -rank);
  for (int j = 0; j < size; ++j) all[2 * j] = rank * 100 + j, all[2 * j + 1] = j;
  CHECK_MPI(MPI_Ialltoall_c(all, 2, MPI_INT, back, 2, MPI_INT, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int j = 0; j < size; ++j) CHECK(back[2 * j] == j * 100 + rank && back[2 * j + 1] == rank);
  free(all);
  free(back);
}

/* Each persistent collective started twice, its inputs changed between the starts. */
static void persistent(void) {
  MPI_Request r[10];
  long v[2], sum[2], mx[2], scan[2], exscan[2];
  int b[2], blk[2], pair[2], mine[2];
  int* in = malloc(sizeof(int) * 2 * (size_t)size);
  int* gathered = malloc(sizeof(int) * 2 * (size_t)size);
  int* everyone = malloc(sizeof(int) * 2 * (size_t)size);
  int* swapped = malloc(sizeof(int) * 2 * (size_t)size);
  CHECK(in && gathered && everyone && swapped);
  CHECK_MPI(MPI_Bcast_init_c(b, 2, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
  CHECK_MPI(MPI_Reduce_init_c(v, mx, 2, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &r[1]));
  CHECK_MPI(MPI_Allreduce_init_c(v, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &r[2]));
  CHECK_MPI(MPI_Scan_init_c(v, scan, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]));
  CHECK_MPI(MPI_Exscan_init_c(v, exscan, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &r[4]));
  CHECK_MPI(MPI_Reduce_scatter_block_init_c(in, blk, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                            MPI_INFO_NULL, &r[5]));
  CHECK_MPI(MPI_Gather_init_c(pair, 2, MPI_INT, gathered, 2, MPI_INT, 0, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &r[6]));
  CHECK_MPI(MPI_Scatter_init_c(in, 2, MPI_INT, mine, 2, MPI_INT, 0, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &r[7]));
  CHECK_MPI(MPI_Allgather_init_c(pair, 2, MPI_INT, everyone, 2, MPI_INT, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &r[8]));
  CHECK_MPI(MPI_Alltoall_init_c(in, 2, MPI_INT, swapped, 2, MPI_INT, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &r[9]));
  for (int round = 1; round <= 2; ++round) {
    v[0] = rank * round;
    v[1] = round;
    b[0] = rank == 0 ? 50 + round : -1;
    b[1] = rank == 0 ? 60 + round : -1;
    pair[0] = rank + round;
    pair[1] = -rank;
    for (int j = 0; j < size; ++j) in[2 * j] = j * round, in[2 * j + 1] = rank;
    for (int i = 0; i < 10; ++i) {
      CHECK_MPI(MPI_Start(&r[i]));
      CHECK_MPI(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
    }
    CHECK(b[0] == 50 + round && b[1] == 60 + round);
    if (rank == 0) CHECK(mx[0] == (long)(size - 1) * round && mx[1] == round);
    CHECK(sum[0] == tri(size) * round && sum[1] == (long)size * round);
    CHECK(scan[0] == tri(rank + 1) * round && scan[1] == (long)(rank + 1) * round);
    if (rank > 0) CHECK(exscan[0] == tri(rank) * round && exscan[1] == (long)rank * round);
    CHECK(blk[0] == rank * round * size && blk[1] == (int)tri(size));
    if (rank == 0)
      for (int j = 0; j < size; ++j)
        CHECK(gathered[2 * j] == j + round && gathered[2 * j + 1] == -j);
    CHECK(mine[0] == rank * round && mine[1] == 0);
    for (int j = 0; j < size; ++j)
      CHECK(everyone[2 * j] == j + round && everyone[2 * j + 1] == -j);
    for (int j = 0; j < size; ++j)
      CHECK(swapped[2 * j] == rank * round && swapped[2 * j + 1] == j);
  }
  for (int i = 0; i < 10; ++i) CHECK_MPI(MPI_Request_free(&r[i]));
  free(in);
  free(gathered);
  free(everyone);
  free(swapped);
}

/* A periodic ring: the neighbours are left then right (the same rank twice at 1 and 2
 * ranks). */
static void neighborhood(void) {
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  int me, n;
  MPI_Comm_rank(ring, &me);
  MPI_Comm_size(ring, &n);
  const int left = (me + n - 1) % n, right = (me + 1) % n;
  int mine[2] = {me, 10 * me}, got[4], send[4], recv[4];
  MPI_Request r;
#ifdef TORUS_MPI_H
  const int forms = 3;
#else
  const int forms = 2; /* Debian's MPICH 4.0.2 fails persistent neighborhood collectives */
#endif
  for (int form = 0; form < forms; ++form) {
    memset(got, 0xff, sizeof got);
    if (form == 0) {
      CHECK_MPI(MPI_Neighbor_allgather_c(mine, 2, MPI_INT, got, 2, MPI_INT, ring));
    } else if (form == 1) {
      CHECK_MPI(MPI_Ineighbor_allgather_c(mine, 2, MPI_INT, got, 2, MPI_INT, ring, &r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Neighbor_allgather_init_c(mine, 2, MPI_INT, got, 2, MPI_INT, ring,
                                              MPI_INFO_NULL, &r));
      CHECK_MPI(MPI_Start(&r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Request_free(&r));
    }
    CHECK(got[0] == left && got[1] == 10 * left && got[2] == right && got[3] == 10 * right);
    /* Block 0 goes to the left neighbour, block 1 to the right. */
    send[0] = 1000 + me, send[1] = 1, send[2] = 2000 + me, send[3] = 2;
    memset(recv, 0xff, sizeof recv);
    if (form == 0) {
      CHECK_MPI(MPI_Neighbor_alltoall_c(send, 2, MPI_INT, recv, 2, MPI_INT, ring));
    } else if (form == 1) {
      CHECK_MPI(MPI_Ineighbor_alltoall_c(send, 2, MPI_INT, recv, 2, MPI_INT, ring, &r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Neighbor_alltoall_init_c(send, 2, MPI_INT, recv, 2, MPI_INT, ring,
                                             MPI_INFO_NULL, &r));
      CHECK_MPI(MPI_Start(&r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Request_free(&r));
    }
    /* From the left neighbour its block 1 (sent right), from the right its block 0. */
    CHECK(recv[0] == 2000 + left && recv[1] == 2 && recv[2] == 1000 + right && recv[3] == 1);
  }
  CHECK_MPI(MPI_Comm_free(&ring));
}

static void p2p(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[5], in[5];
  MPI_Request r[2];
  MPI_Status st;
  MPI_Count n = -1;
  for (int i = 0; i < 5; ++i) out[i] = rank * 10 + i;
  CHECK_MPI(MPI_Isendrecv_c(out, 5, MPI_INT, right, 3, in, 5, MPI_INT, left, 3, MPI_COMM_WORLD,
                            &r[0]));
  CHECK_MPI(MPI_Wait(&r[0], &st));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &n));
  CHECK(in[0] == left * 10 && in[4] == left * 10 + 4);
#ifdef TORUS_MPI_H /* Debian's MPICH 4.0.2 reports another count for a sendrecv to itself */
  CHECK(n == 5);
#endif
  memcpy(in, out, sizeof in);
  CHECK_MPI(MPI_Isendrecv_replace_c(in, 5, MPI_INT, right, 4, left, 4, MPI_COMM_WORLD, &r[0]));
  CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  CHECK(in[0] == left * 10 && in[4] == left * 10 + 4);

  /* Bsend_init_c, Ssend_init_c, Rsend_init_c, each started twice; the ready send's receive
   * is posted (and a barrier passed) before it starts. */
  int pack_size = 0;
  CHECK_MPI(MPI_Pack_size(5, MPI_INT, MPI_COMM_WORLD, &pack_size));
  const int bytes = 2 * (pack_size + MPI_BSEND_OVERHEAD);
  void* space = malloc((size_t)bytes);
  CHECK(space != NULL);
  CHECK_MPI(MPI_Buffer_attach(space, bytes));
  for (int kind = 0; kind < 3; ++kind) {
    MPI_Request s;
    if (kind == 0) CHECK_MPI(MPI_Bsend_init_c(out, 5, MPI_INT, right, 5, MPI_COMM_WORLD, &s));
    if (kind == 1) CHECK_MPI(MPI_Ssend_init_c(out, 5, MPI_INT, right, 5, MPI_COMM_WORLD, &s));
    if (kind == 2) CHECK_MPI(MPI_Rsend_init_c(out, 5, MPI_INT, right, 5, MPI_COMM_WORLD, &s));
    for (int round = 0; round < 2; ++round) {
      out[0] = rank * 10 + kind * 100 + round;
      memset(in, 0, sizeof in);
      CHECK_MPI(MPI_Irecv(in, 5, MPI_INT, left, 5, MPI_COMM_WORLD, &r[0]));
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      CHECK_MPI(MPI_Start(&s));
      CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
      CHECK(in[0] == left * 10 + kind * 100 + round && in[4] == left * 10 + 4);
    }
    CHECK_MPI(MPI_Request_free(&s));
  }
  void* detached = NULL;
  int detached_size = 0;
  CHECK_MPI(MPI_Buffer_detach(&detached, &detached_size));
  free(space);
}

/* A window of 8 longs per rank; everyone works on its right neighbour's. */
static void one_sided(void) {
  long* base = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                             &win));
  for (int i = 0; i < 8; ++i) base[i] = 0;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  long two[2] = {rank + 1, rank + 2}, got[2] = {0, 0}, old[2] = {-1, -1};
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put_c(two, 2, MPI_LONG, right, 0, 2, MPI_LONG, win));
  CHECK_MPI(MPI_Accumulate_c(two, 2, MPI_LONG, right, 2, 2, MPI_LONG, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(base[0] == left + 1 && base[1] == left + 2 && base[2] == left + 1 && base[3] == left + 2);
  CHECK_MPI(MPI_Get_c(got, 2, MPI_LONG, right, 0, 2, MPI_LONG, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(got[0] == rank + 1 && got[1] == rank + 2);
  CHECK_MPI(MPI_Get_accumulate_c(two, 2, MPI_LONG, old, 2, MPI_LONG, right, 2, 2, MPI_LONG,
                                 MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(old[0] == rank + 1 && old[1] == rank + 2);
  CHECK(base[2] == 2 * (left + 1) && base[3] == 2 * (left + 2));
  CHECK_MPI(MPI_Win_fence(0, win));

  /* The request forms, in a passive epoch. */
  MPI_Request r[4];
  long three[3] = {7, 8, 9}, back[3] = {0}, prev[3] = {0};
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Rput_c(three, 3, MPI_LONG, right, 4, 3, MPI_LONG, win, &r[0]));
  CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Win_flush(right, win));
  CHECK_MPI(MPI_Rget_c(back, 3, MPI_LONG, right, 4, 3, MPI_LONG, win, &r[1]));
  CHECK_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
  CHECK(back[0] == 7 && back[1] == 8 && back[2] == 9);
  CHECK_MPI(MPI_Raccumulate_c(three, 1, MPI_LONG, right, 7, 1, MPI_LONG, MPI_MAX, win, &r[2]));
  CHECK_MPI(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Win_flush(right, win));
  CHECK_MPI(MPI_Rget_accumulate_c(three, 3, MPI_LONG, prev, 3, MPI_LONG, right, 4, 3, MPI_LONG,
                                  MPI_SUM, win, &r[3]));
  CHECK_MPI(MPI_Wait(&r[3], MPI_STATUS_IGNORE));
  CHECK(prev[0] == 7 && prev[1] == 8 && prev[2] == 9);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  CHECK(base[4] == 14 && base[5] == 16 && base[6] == 18 && base[7] == 7);
  CHECK_MPI(MPI_Win_unlock(rank, win));

  /* A negative count goes to the window's handler. */
#ifdef TORUS_MPI_H
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(error_class_of(MPI_Put_c(two, -1, MPI_LONG, right, 0, 2, MPI_LONG, win)) ==
        MPI_ERR_COUNT);
  CHECK(error_class_of(MPI_Get_accumulate_c(two, 2, MPI_LONG, old, 2, MPI_LONG, right, 0, -2,
                                            MPI_LONG, MPI_SUM, win)) == MPI_ERR_COUNT);
  CHECK_MPI(MPI_Win_fence(0, win));
#endif
  CHECK_MPI(MPI_Win_free(&win));
}

static void negative_counts(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  long v = 0, out = 0;
  MPI_Request r;
  CHECK(error_class_of(MPI_Scan_c(&v, &out, -1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD)) ==
        MPI_ERR_COUNT);
  CHECK(error_class_of(MPI_Iallreduce_c(&v, &out, -3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r)) ==
        MPI_ERR_COUNT);
  CHECK(error_class_of(MPI_Isendrecv_c(&v, 1, MPI_LONG, 0, 0, &out, -1, MPI_LONG, 0, 0,
                                       MPI_COMM_WORLD, &r)) == MPI_ERR_COUNT);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  /* Reduce_local has no communicator: MPI_COMM_WORLD's handler is the one consulted, as for
   * any error outside a communicator; set it to return for the check. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(error_class_of(MPI_Reduce_local_c(&v, &out, -1, MPI_LONG, MPI_SUM)) == MPI_ERR_COUNT);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  scans_and_local();
  nonblocking();
#ifdef TORUS_MPI_H
  persistent(); /* Debian's MPICH 4.0.2 gets most persistent collectives wrong */
#endif
  neighborhood();
  p2p();
  one_sided();
#ifdef TORUS_MPI_H
  negative_counts(); /* Debian's MPICH 4.0.2 asserts in its pack code on some of these */
#endif
  if (rank == 0) printf("mpi large_count_more ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
