/* MPI allreduce, in the style of osu_allreduce: every rank calls MPI_Allreduce (MPI_SUM on
 * MPI_FLOAT, or MPI_DOUBLE with -d double) back to back; prints 'SIZE US' per size, the time
 * per call averaged over the ranks (each rank's loop time / iterations, then the mean), with
 * SIZE the vector's bytes. Any number of ranks, 1 included. See bench.h. */
#include "bench.h"

struct allreduce {
  int rank, nranks, use_double;
  size_t size;
  void *sbuf, *rbuf;
  double last; /* this rank's time of the last loop */
};

static int count_of(const struct allreduce *s) {
  return (int)(s->size / (s->use_double ? sizeof(double) : sizeof(float)));
}

static double loop(void *p, long iters) {
  struct allreduce *s = p;
  MPI_Datatype type = s->use_double ? MPI_DOUBLE : MPI_FLOAT;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i)
    MPI_Allreduce(s->sbuf, s->rbuf, count_of(s), type, MPI_SUM, MPI_COMM_WORLD);
  s->last = MPI_Wtime() - t0;
  return s->last;
}

/* Small integers, exact in a float's 24-bit mantissa at any of these rank counts, so the sum
 * has one right answer whatever order a library adds in. */
static double element(int rank, int i) { return (double)(rank + 1) * (double)(i % 7 + 1); }

static void check_size(struct allreduce *s) {
  const int n = count_of(s);
  for (int i = 0; i < n; ++i) {
    if (s->use_double) {
      ((double *)s->sbuf)[i] = element(s->rank, i);
      ((double *)s->rbuf)[i] = -1;
    } else {
      ((float *)s->sbuf)[i] = (float)element(s->rank, i);
      ((float *)s->rbuf)[i] = -1;
    }
  }
  MPI_Allreduce(s->sbuf, s->rbuf, n, s->use_double ? MPI_DOUBLE : MPI_FLOAT, MPI_SUM,
                MPI_COMM_WORLD);
  const double ranks_sum = (double)s->nranks * (s->nranks + 1) / 2.0;
  for (int i = 0; i < n; ++i) {
    double got = s->use_double ? ((double *)s->rbuf)[i] : (double)((float *)s->rbuf)[i];
    if (got != ranks_sum * (double)(i % 7 + 1)) {
      char msg[160];
      snprintf(msg, sizeof msg, "allreduce: %zu bytes, element %d is %g, expected %g", s->size,
               i, got, ranks_sum * (double)(i % 7 + 1));
      bench_fail(msg);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct bench_options o = {8, 16u << 20, 2, 0.2, 100000, 64, 0, 0};
  bench_parse(argc, argv, &o);
  struct allreduce s;
  memset(&s, 0, sizeof s);
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.nranks);
  s.use_double = o.use_double;
  if (o.min_size < (s.use_double ? sizeof(double) : sizeof(float)))
    bench_fail("mpi_allreduce: the smallest size must hold one element");
  s.sbuf = bench_alloc(o.max_size);
  s.rbuf = bench_alloc(o.max_size);
  if (s.rank == 0)
    printf("# mpi_allreduce: MPI_SUM on MPI_%s, %d ranks, us per call (mean over ranks)\n"
           "# size us\n", s.use_double ? "DOUBLE" : "FLOAT", s.nranks);
  for (s.size = bench_next_size(&o, 0); s.size; s.size = bench_next_size(&o, s.size)) {
    long iters = 0;
    bench_measure(&o, loop, &s, &iters);
    double per_call = s.last / (double)iters, sum = 0;
    MPI_Reduce(&per_call, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    check_size(&s);
    if (s.rank == 0) {
      printf("%zu %.3f\n", s.size, sum / s.nranks * 1e6);
      fflush(stdout);
    }
  }
  free(s.sbuf);
  free(s.rbuf);
  MPI_Finalize();
  return 0;
}
