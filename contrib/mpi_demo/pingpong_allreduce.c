/* pingpong_allreduce: the first thing to run on torus's MPI.
 *   mpirun -n 2 build/bin/pingpong_allreduce
 * Ranks 0 and 1 ping-pong 8 B and 1 MiB messages (median one-way latency and bandwidth);
 * then every rank joins an MPI_Allreduce of 8 B and 1 MiB of doubles, whose result is
 * checked against the value computed locally. Plain MPI C: it builds with any mpicc. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kWarmup = 20, kIters = 200 };

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median round-trip time in seconds of `iters` ping-pongs of `bytes` between ranks 0 and 1. */
static double pingpong(int rank, size_t bytes, int iters) {
  char* buf = malloc(bytes ? bytes : 1);
  memset(buf, rank, bytes ? bytes : 1);
  double* rtt = malloc(sizeof(double) * (size_t)iters);
  for (int i = -kWarmup; i < iters; ++i) {
    double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    if (i >= 0) rtt[i] = MPI_Wtime() - t0;
  }
  double m = median(rtt, iters);
  free(rtt);
  free(buf);
  return m;
}

/* Median time of an allreduce (SUM) of `count` doubles; returns -1 when a result is wrong. */
static double allreduce(int rank, int size, int count, int iters) {
  double* in = malloc(sizeof(double) * (size_t)count);
  double* out = malloc(sizeof(double) * (size_t)count);
  double* t = malloc(sizeof(double) * (size_t)iters);
  for (int i = 0; i < count; ++i) in[i] = rank + (i % 100);
  int ok = 1;
  for (int it = -kWarmup / 4; it < iters; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double dt = MPI_Wtime() - t0;
    if (it >= 0) t[it] = dt;
    /* sum over ranks r of (r + i%100) = size*(size-1)/2 + size*(i%100): exact in double */
    for (int i = 0; i < count; ++i)
      if (out[i] != size * (size - 1) / 2.0 + (double)size * (i % 100)) ok = 0;
  }
  double m = median(t, iters);
  free(in);
  free(out);
  free(t);
  return ok ? m : -1.0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, len;
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);
  if (rank == 0) printf("pingpong_allreduce: %d ranks, rank 0 on %s\n", size, host);

  if (size >= 2 && rank < 2) {
    const size_t sizes[] = {8, 1 << 20};
    for (int s = 0; s < 2; ++s) {
      double rtt = pingpong(rank, sizes[s], s == 0 ? kIters * 5 : kIters / 2);
      if (rank == 0)
        printf("  ping-pong %8zu B: latency %8.2f us (one way, median), bandwidth %8.1f MB/s\n",
               sizes[s], rtt / 2 * 1e6, sizes[s] / (rtt / 2) / 1e6);
    }
  } else if (size < 2 && rank == 0) {
    printf("  ping-pong skipped: it needs 2 ranks (mpirun -n 2)\n");
  }

  int failed = 0;
  const int counts[] = {1, (1 << 20) / (int)sizeof(double)};
  for (int c = 0; c < 2; ++c) {
    double t = allreduce(rank, size, counts[c], c == 0 ? kIters : kIters / 10);
    int bad = t < 0, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad) failed = 1;
    if (rank == 0)
      printf("  allreduce %8zu B: %8.2f us (median), result %s\n", counts[c] * sizeof(double),
             t * 1e6, any_bad ? "WRONG" : "checked ok");
  }
  MPI_Finalize();
  return failed;
}
