/* Shared by the MPI micro-benchmarks (mpi_latency.c, mpi_bw.c, mpi_bibw.c, mpi_allreduce.c):
 * options, the size sweep, how many iterations to time, and the byte patterns that check every
 * size's data once. Plain C and MPI only, so one source builds with any MPI's own wrapper
 * (torus's mpicc, mpicc.openmpi, mpicc.mpich) and the programs compare the libraries, not
 * the benchmarks.
 *
 * Iterations are chosen by time, not by a fixed table: a warm-up in doubling batches (1, 2, 4,
 * ... iterations) runs until it has lasted a fifth of the per-size budget, then the timed part
 * gets as many iterations as the last batch's speed fits in the budget (-t), within 3 and -n.
 * A fixed count would either take minutes where a library collapses (MPICH's busy-polling
 * ranks oversubscribed need milliseconds per allreduce) or measure too little where it is fast.
 * Rank 0 decides and broadcasts every count, so all ranks always agree. */
#ifndef TORUS_BENCH_MPI_BENCH_H
#define TORUS_BENCH_MPI_BENCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* posix_memalign */
#endif
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bench_options {
  size_t min_size, max_size; /* -m MIN:MAX, bytes */
  unsigned factor;           /* -f: 2 (every power of two) or 4 (every other one) */
  double seconds;            /* -t: timed seconds per size (the warm-up adds a fifth) */
  long max_iters;            /* -n: at most this many timed iterations (windows for bw) */
  int window;                /* -w: messages in flight per window (bw, bibw) */
  int use_double;            /* -d double: allreduce on MPI_DOUBLE instead of MPI_FLOAT */
  int rewrite;               /* -r y: latency writes its send buffer before every send */
};

/* One iteration count of the benchmark's loop; returns the seconds it took on rank 0 (other
 * ranks may return anything). Called by every rank with the same count. */
typedef double (*bench_run_fn)(void *state, long iters);

static inline void bench_fail(const char *what) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "rank %d: %s\n", rank, what);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static inline size_t bench_parse_size(const char *s) {
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  switch (end && *end ? *end : ' ') {
    case 'k': case 'K': v <<= 10; ++end; break;
    case 'm': case 'M': v <<= 20; ++end; break;
    default: break;
  }
  if (end == s || (end && *end && *end != ':')) return 0;
  return (size_t)v;
}

static inline void bench_usage(const char *prog, const struct bench_options *d) {
  fprintf(stderr,
          "usage: %s [-m MIN:MAX] [-f 2|4] [-t SECONDS] [-n MAX_ITERS] [-w WINDOW] [-d float|double] [-r y|n]\n"
          "  -m MIN:MAX  message sizes in bytes, suffixes k, m (default %zu:%zu)\n"
          "  -f 2|4      2: every power of two; 4: every other one, ending at MAX (default 2)\n"
          "  -t SECONDS  timed seconds per size, after a warm-up of a fifth of it (default %.2f)\n"
          "  -n N        at most N timed iterations per size (default %ld)\n"
          "  -w W        bw, bibw: messages in flight per window (default %d)\n"
          "  -d TYPE     allreduce: float (default) or double\n"
          "  -r y|n      latency: write the send buffer before every send, as a program sends\n"
          "              what it just computed (the time includes that write; default n)\n"
          "Prints one line per size, 'SIZE VALUE', after '#' comment lines; every size's data is\n"
          "checked once after its timed loop (a mismatch aborts with exit code 3).\n",
          prog, d->min_size, d->max_size, d->seconds, d->max_iters, d->window);
}

/* Parses argv into *o (which holds the defaults). Every rank parses the same arguments. */
static inline void bench_parse(int argc, char **argv, struct bench_options *o) {
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int ok = v != NULL;
    if (ok && !strcmp(a, "-m")) {
      const char *colon = strchr(v, ':');
      o->min_size = bench_parse_size(v);
      o->max_size = colon ? bench_parse_size(colon + 1) : o->min_size;
      ok = o->min_size > 0 && o->max_size >= o->min_size;
    } else if (ok && !strcmp(a, "-f")) {
      o->factor = (unsigned)atoi(v);
      ok = o->factor == 2 || o->factor == 4;
    } else if (ok && !strcmp(a, "-t")) {
      o->seconds = atof(v);
      ok = o->seconds > 0;
    } else if (ok && !strcmp(a, "-n")) {
      o->max_iters = atol(v);
      ok = o->max_iters >= 1;
    } else if (ok && !strcmp(a, "-w")) {
      o->window = atoi(v);
      ok = o->window >= 1 && o->window <= 1024;
    } else if (ok && !strcmp(a, "-r")) {
      o->rewrite = !strcmp(v, "y");
      ok = o->rewrite || !strcmp(v, "n");
    } else if (ok && !strcmp(a, "-d")) {
      o->use_double = !strcmp(v, "double");
      ok = o->use_double || !strcmp(v, "float");
    } else {
      ok = 0;
    }
    if (!ok) {
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0) bench_usage(argv[0], o);
      MPI_Finalize();
      exit(strcmp(a, "-h") && strcmp(a, "--help") ? 2 : 0);
    }
    ++i;
  }
}

/* The sweep: MIN, then the powers of two above it up to MAX; with -f 4 only those an even
 * number of doublings below MAX, so the quick sweep still ends at MAX. 0 ends the sweep. */
static inline size_t bench_next_size(const struct bench_options *o, size_t size) {
  if (size == 0) return o->min_size;
  size_t p = 1;
  while (p <= size) p <<= 1;
  for (; p <= o->max_size; p <<= 1) {
    size_t k = 0;
    for (size_t q = p; q < o->max_size; q <<= 1) ++k;
    if (o->factor == 2 || k % 2 == 0) return p;
  }
  return 0;
}

/* Warm-up, then the timed loop; returns rank 0's seconds and sets *iters_out (all ranks). */
static inline double bench_measure(const struct bench_options *o, bench_run_fn run,
                                   void *state, long *iters_out) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double warm = 0, per_iter = 0;
  long warm_iters = 0;
  for (long batch = 1;; batch *= 2) {
    double t = run(state, batch);
    warm += t;
    warm_iters += batch;
    /* decision[0]: go on warming up; [1]: the timed count once done. */
    long decision[2] = {0, 0};
    if (rank == 0) {
      per_iter = t / (double)batch;
      decision[0] = warm < o->seconds / 5 && warm_iters < o->max_iters;
      if (!decision[0]) {
        double n = per_iter > 0 ? o->seconds / per_iter : (double)o->max_iters;
        decision[1] = n > (double)o->max_iters ? o->max_iters : n < 3 ? 3 : (long)n;
      }
    }
    MPI_Bcast(decision, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    if (!decision[0]) {
      *iters_out = decision[1];
      break;
    }
  }
  return run(state, *iters_out);
}

static inline unsigned char bench_pattern(unsigned seed, size_t i) {
  /* Not periodic in 256: a chunk landing at the wrong offset changes the bytes. */
  return (unsigned char)((i * 131u + (i >> 8) * 7u + (i >> 16) * 3u + seed * 7919u) & 0xff);
}

static inline void bench_fill(void *buf, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; ++i) ((unsigned char *)buf)[i] = bench_pattern(seed, i);
}

static inline void bench_verify(const void *buf, size_t len, unsigned seed,
                                const char *what) {
  for (size_t i = 0; i < len; ++i)
    if (((const unsigned char *)buf)[i] != bench_pattern(seed, i)) {
      char msg[160];
      snprintf(msg, sizeof msg, "%s: %zu-byte message wrong at byte %zu", what, len, i);
      bench_fail(msg);
    }
}

/* Aligned, touched memory: a first-touch page fault must not land in a timed loop. */
static inline void *bench_alloc(size_t len) {
  void *p = NULL;
  if (posix_memalign(&p, 4096, len ? len : 1) != 0) bench_fail("out of memory");
  memset(p, 0, len);
  return p;
}

#endif
