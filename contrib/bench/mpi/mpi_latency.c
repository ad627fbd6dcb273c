/* MPI latency, in the style of osu_latency: ranks 0 and 1 ping-pong one message with blocking
 * MPI_Send / MPI_Recv; prints 'SIZE US' per size, the one-way time (total / 2 / iterations).
 * With -r y each rank writes its send buffer before every send: the osu-style loop sends an
 * unchanged buffer, which a single-copy (CMA) read finds already in the reader's cache.
 * Other ranks (if any) only take part in the iteration-count broadcasts. See bench.h. */
#include "bench.h"

struct latency {
  int rank;
  int rewrite; /* -r y */
  size_t size;
  char *sbuf, *rbuf;
};

static double pingpong(void *p, long iters) {
  struct latency *s = p;
  const int n = (int)s->size;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (s->rank == 0) {
    for (long i = 0; i < iters; ++i) {
      if (s->rewrite) memset(s->sbuf, (int)(i & 0x7f), s->size);
      MPI_Send(s->sbuf, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(s->rbuf, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (s->rank == 1) {
    for (long i = 0; i < iters; ++i) {
      MPI_Recv(s->rbuf, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (s->rewrite) memset(s->sbuf, (int)(i & 0x7f), s->size);
      MPI_Send(s->sbuf, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

/* One round trip of known patterns, each checked where it lands. */
static void check_size(struct latency *s) {
  const int n = (int)s->size;
  MPI_Status st;
  int count = -1;
  if (s->rank == 0) {
    bench_fill(s->sbuf, s->size, 1);
    MPI_Send(s->sbuf, n, MPI_CHAR, 1, 2, MPI_COMM_WORLD);
    MPI_Recv(s->rbuf, n, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &st);
    bench_verify(s->rbuf, s->size, 2, "latency (rank 1 to 0)");
  } else if (s->rank == 1) {
    bench_fill(s->sbuf, s->size, 2);
    MPI_Recv(s->rbuf, n, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &st);
    bench_verify(s->rbuf, s->size, 1, "latency (rank 0 to 1)");
    MPI_Send(s->sbuf, n, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
  }
  if (s->rank <= 1) {
    MPI_Get_count(&st, MPI_CHAR, &count);
    if (count != n) bench_fail("latency: wrong received count");
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct bench_options o = {1, 16u << 20, 2, 0.2, 100000, 64, 0, 0};
  bench_parse(argc, argv, &o);
  struct latency s = {0, o.rewrite, 0, NULL, NULL};
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks < 2) bench_fail("mpi_latency needs at least 2 ranks");
  s.sbuf = bench_alloc(o.max_size);
  s.rbuf = bench_alloc(o.max_size);
  if (s.rank == 0) printf("# mpi_latency: one-way latency, us (blocking ping-pong)\n# size us\n");
  for (s.size = bench_next_size(&o, 0); s.size; s.size = bench_next_size(&o, s.size)) {
    long iters = 0;
    double t = bench_measure(&o, pingpong, &s, &iters);
    check_size(&s);
    if (s.rank == 0) {
      printf("%zu %.3f\n", s.size, t * 1e6 / 2.0 / (double)iters);
      fflush(stdout);
    }
  }
  free(s.sbuf);
  free(s.rbuf);
  MPI_Finalize();
  return 0;
}
