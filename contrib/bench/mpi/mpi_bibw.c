/* MPI bidirectional bandwidth, in the style of osu_bibw: ranks 0 and 1 each post W MPI_Irecv
 * from the other, then W MPI_Isend to it, and wait for all 2W; prints 'SIZE MB/s' (MB = 10^6
 * bytes) per size: bytes moved in both directions / rank 0's time.
 * Other ranks only take part in the broadcasts. See bench.h and window.h. */
#include "window.h"

struct bibw {
  int rank;
  size_t size;
  struct window_bufs send, recv;
  int slots;
  MPI_Request *reqs;
  MPI_Status *stats; /* filled, as osu_bibw does, rather than MPI_STATUSES_IGNORE */
};

/* The timed windows send every message from one buffer, as osu_bibw does; the check sends
 * message j from slot j, with its own pattern. */
static void one_window(struct bibw *s, int tag, int messages, int send_slots) {
  const int n = (int)s->size, peer = 1 - s->rank;
  if (s->rank > 1) return;
  for (int j = 0; j < messages; ++j)
    MPI_Irecv(window_slot(&s->recv, s->size, j, s->slots), n, MPI_CHAR, peer, tag,
              MPI_COMM_WORLD, &s->reqs[j]);
  for (int j = 0; j < messages; ++j)
    MPI_Isend(window_slot(&s->send, s->size, j, send_slots), n, MPI_CHAR, peer, tag,
              MPI_COMM_WORLD, &s->reqs[messages + j]);
  MPI_Waitall(2 * messages, s->reqs, s->stats);
}

static double windows(void *p, long iters) {
  struct bibw *s = p;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) one_window(s, 10, s->slots, 1);
  return MPI_Wtime() - t0;
}

/* Both directions at once, message j of each from its own slot with its own pattern (up to
 * 16 MiB of them, window.h), verified in its own receive buffer. */
static void check_size(struct bibw *s) {
  if (s->rank > 1) return;
  const unsigned mine = 100u + 1000u * (unsigned)s->rank, theirs = 1100u - 1000u * (unsigned)s->rank;
  const int n = window_checked(s->slots, s->size);
  for (int j = 0; j < n; ++j)
    bench_fill(window_slot(&s->send, s->size, j, s->slots), s->size, mine + (unsigned)j);
  memset(s->recv.pool, 0, s->size * (size_t)n);
  one_window(s, 20, n, s->slots);
  for (int j = 0; j < n; ++j)
    bench_verify(window_slot(&s->recv, s->size, j, s->slots), s->size, theirs + (unsigned)j,
                 "bibw");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct bench_options o = {1, 16u << 20, 2, 0.2, 100000, 64, 0, 0};
  bench_parse(argc, argv, &o);
  struct bibw s;
  memset(&s, 0, sizeof s);
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks < 2) bench_fail("mpi_bibw needs at least 2 ranks");
  window_alloc(&s.send, &o);
  window_alloc(&s.recv, &o);
  s.reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)o.window);
  s.stats = malloc(sizeof(MPI_Status) * 2 * (size_t)o.window);
  if (!s.reqs || !s.stats) bench_fail("out of memory");
  if (s.rank == 0)
    printf("# mpi_bibw: bidirectional bandwidth, MB/s (10^6 bytes/s, both directions), windows"
           " of %d\n# (fewer above 1 MiB: at most 64 MiB per window)\n# size MB/s\n", o.window);
  for (s.size = bench_next_size(&o, 0); s.size; s.size = bench_next_size(&o, s.size)) {
    s.slots = window_slots(&s.recv, &o, s.size);
    long iters = 0;
    double t = bench_measure(&o, windows, &s, &iters);
    check_size(&s);
    if (s.rank == 0) {
      printf("%zu %.3f\n", s.size, 2.0 * (double)s.size * s.slots * (double)iters / t / 1e6);
      fflush(stdout);
    }
  }
  free(s.reqs);
  free(s.stats);
  free(s.send.pool);
  free(s.recv.pool);
  MPI_Finalize();
  return 0;
}
