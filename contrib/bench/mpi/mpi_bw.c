/* MPI bandwidth, in the style of osu_bw: rank 0 sends windows of W MPI_Isend (MPI_Waitall),
 * rank 1 pre-posts W MPI_Irecv and answers each window with a 4-byte ack; prints 'SIZE MB/s'
 * (MB = 10^6 bytes) per size: bytes of the timed windows / their time on rank 0.
 * Other ranks only take part in the broadcasts. See bench.h and window.h. */
#include "window.h"

struct bw {
  int rank;
  size_t size;
  struct window_bufs bufs;
  int slots;
  MPI_Request *reqs;
  MPI_Status *stats; /* filled, as osu_bw does, rather than MPI_STATUSES_IGNORE */
  char ack[4];
};

/* The timed windows send every message from slot 0, as osu_bw does (sharing a send buffer is
 * allowed); the check sends slot j's own pattern as message j. */
static void one_window(struct bw *s, int tag, int messages, int send_slots) {
  const int n = (int)s->size;
  if (s->rank == 0) {
    for (int j = 0; j < messages; ++j)
      MPI_Isend(window_slot(&s->bufs, s->size, j, send_slots), n, MPI_CHAR, 1, tag,
                MPI_COMM_WORLD, &s->reqs[j]);
    MPI_Waitall(messages, s->reqs, s->stats);
    MPI_Recv(s->ack, 4, MPI_CHAR, 1, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (s->rank == 1) {
    for (int j = 0; j < messages; ++j)
      MPI_Irecv(window_slot(&s->bufs, s->size, j, s->slots), n, MPI_CHAR, 0, tag,
                MPI_COMM_WORLD, &s->reqs[j]);
    MPI_Waitall(messages, s->reqs, s->stats);
    MPI_Send(s->ack, 4, MPI_CHAR, 0, tag + 1, MPI_COMM_WORLD);
  }
}

static double windows(void *p, long iters) {
  struct bw *s = p;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) one_window(s, 10, s->slots, 1);
  return MPI_Wtime() - t0;
}

/* One window of distinct patterns, one per slot (up to 16 MiB of them, window.h), each checked
 * in its own receive buffer: catches a lost, duplicated or reordered message as well as a
 * damaged byte. */
static void check_size(struct bw *s) {
  const int n = window_checked(s->slots, s->size);
  if (s->rank == 0)
    for (int j = 0; j < n; ++j)
      bench_fill(window_slot(&s->bufs, s->size, j, s->slots), s->size, 100 + (unsigned)j);
  if (s->rank == 1) memset(s->bufs.pool, 0, s->size * (size_t)n);
  one_window(s, 20, n, s->slots);
  if (s->rank == 1)
    for (int j = 0; j < n; ++j)
      bench_verify(window_slot(&s->bufs, s->size, j, s->slots), s->size, 100 + (unsigned)j,
                   "bw (rank 0 to 1)");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct bench_options o = {1, 16u << 20, 2, 0.2, 100000, 64, 0, 0};
  bench_parse(argc, argv, &o);
  struct bw s;
  memset(&s, 0, sizeof s);
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks < 2) bench_fail("mpi_bw needs at least 2 ranks");
  window_alloc(&s.bufs, &o);
  s.reqs = malloc(sizeof(MPI_Request) * (size_t)o.window);
  s.stats = malloc(sizeof(MPI_Status) * (size_t)o.window);
  if (!s.reqs || !s.stats) bench_fail("out of memory");
  if (s.rank == 0)
    printf("# mpi_bw: bandwidth, MB/s (10^6 bytes/s), windows of %d non-blocking sends\n"
           "# (fewer above 1 MiB: at most 64 MiB per window)\n"
           "# size MB/s\n", o.window);
  for (s.size = bench_next_size(&o, 0); s.size; s.size = bench_next_size(&o, s.size)) {
    s.slots = window_slots(&s.bufs, &o, s.size);
    long iters = 0;
    double t = bench_measure(&o, windows, &s, &iters);
    check_size(&s);
    if (s.rank == 0) {
      printf("%zu %.3f\n", s.size, (double)s.size * s.slots * (double)iters / t / 1e6);
      fflush(stdout);
    }
  }
  free(s.reqs);
  free(s.stats);
  free(s.bufs.pool);
  MPI_Finalize();
  return 0;
}
