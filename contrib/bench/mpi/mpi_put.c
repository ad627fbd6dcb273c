/* MPI one-sided put, in the style of osu_put_latency and osu_put_bw: rank 0 holds a passive
 * epoch (MPI_Win_lock_all) on a window made by MPI_Win_allocate on ranks 0 and 1, and per
 * iteration puts -w messages of SIZE bytes to rank 1 then completes them with
 * MPI_Win_flush. Prints 'SIZE US' per size: the time of one iteration. -w 1 (the default)
 * is the latency of a put made remotely complete; with a larger -w, SIZE * W / US is the
 * bandwidth. Rank 1 only takes part in the iteration-count broadcasts, so an implementation
 * that needs the target's progress for puts gets it there. Built with -DBENCH_ACCUMULATE
 * it is mpi_acc: MPI_Accumulate(MPI_SUM) of SIZE / 8 longs instead of each put (sizes from
 * 8 bytes), checked against the sums. See bench.h. */
#include "bench.h"

struct put {
  int rank, window;
  size_t size;
  char *src, *base;
  MPI_Win win;
};

static double run(void *p, long iters) {
  struct put *s = p;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (s->rank == 0) {
    for (long i = 0; i < iters; ++i) {
      for (int k = 0; k < s->window; ++k) {
#ifdef BENCH_ACCUMULATE
        const int n = (int)(s->size / sizeof(long));
        MPI_Accumulate(s->src, n, MPI_LONG, 1, (MPI_Aint)((size_t)k * s->size), n, MPI_LONG,
                       MPI_SUM, s->win);
#else
        MPI_Put(s->src, (int)s->size, MPI_CHAR, 1, (MPI_Aint)((size_t)k * s->size),
                (int)s->size, MPI_CHAR, s->win);
#endif
      }
      MPI_Win_flush(1, s->win);
    }
  }
  return MPI_Wtime() - t0;
}

#ifdef BENCH_ACCUMULATE
/* rank 1 zeroes its first block, rank 0 adds i + 1 to long i twice: 2 (i + 1) there. Rank 1
 * takes shared locks on itself: rank 0's lock_all holds a shared one all along. */
static void check_size(struct put *s) {
  const size_t n = s->size / sizeof(long);
  long *src = (long *)s->src, *dst = (long *)s->base;
  MPI_Barrier(MPI_COMM_WORLD); /* rank 1 leaves the timed loop at once, rank 0 after it */
  if (s->rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, s->win);
    for (size_t i = 0; i < n; ++i) dst[i] = 0;
    MPI_Win_unlock(1, s->win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (s->rank == 0) {
    for (size_t i = 0; i < n; ++i) src[i] = (long)i + 1;
    for (int k = 0; k < 2; ++k)
      MPI_Accumulate(src, (int)n, MPI_LONG, 1, 0, (int)n, MPI_LONG, MPI_SUM, s->win);
    MPI_Win_flush(1, s->win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (s->rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, s->win);
    for (size_t i = 0; i < n; ++i)
      if (dst[i] != 2 * ((long)i + 1)) bench_fail("accumulate: wrong sum at the target");
    MPI_Win_unlock(1, s->win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}
#else
/* One put of a known pattern, checked in rank 1's window. */
static void check_size(struct put *s) {
  if (s->rank == 0) {
    bench_fill(s->src, s->size, 5);
    MPI_Put(s->src, (int)s->size, MPI_CHAR, 1, 0, (int)s->size, MPI_CHAR, s->win);
    MPI_Win_flush(1, s->win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (s->rank == 1) {
    /* A lock on its own window makes the put visible to rank 1's loads. */
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, s->win);
    bench_verify(s->base, s->size, 5, "put (rank 0 into 1)");
    MPI_Win_unlock(1, s->win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct bench_options o = {1, 4u << 20, 2, 0.2, 100000, 1, 0, 0};
  bench_parse(argc, argv, &o);
#ifdef BENCH_ACCUMULATE
  if (o.min_size < sizeof(long)) o.min_size = sizeof(long);
#endif
  struct put s = {0, o.window, 0, NULL, NULL, MPI_WIN_NULL};
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks < 2) bench_fail("mpi_put needs at least 2 ranks");
  s.src = bench_alloc(o.max_size);
  const size_t win_bytes = s.rank == 1 ? o.max_size * (size_t)o.window : 0;
  MPI_Win_allocate((MPI_Aint)win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &s.base, &s.win);
  if (s.rank == 0) {
#ifdef BENCH_ACCUMULATE
    printf("# mpi_acc: %d MPI_Accumulate(SUM, long) then MPI_Win_flush per iteration\n",
           o.window);
#else
    printf("# mpi_put: %d put(s) then MPI_Win_flush per iteration, passive target\n",
           o.window);
#endif
    printf("# size us\n");
    MPI_Win_lock_all(0, s.win);
  }
  for (s.size = bench_next_size(&o, 0); s.size; s.size = bench_next_size(&o, s.size)) {
    long iters = 0;
    double t = bench_measure(&o, run, &s, &iters);
    check_size(&s);
    if (s.rank == 0) {
      printf("%zu %.3f\n", s.size, t * 1e6 / (double)iters);
      fflush(stdout);
    }
  }
  if (s.rank == 0) MPI_Win_unlock_all(s.win);
  MPI_Win_free(&s.win);
  free(s.src);
  MPI_Finalize();
  return 0;
}
