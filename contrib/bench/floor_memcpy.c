/* The machine's limit for moving a message within one host: memcpy by one core, at each size.
 * Any shared-memory transfer copies the bytes at least once (CMA is the kernel's memcpy; a
 * bounce buffer is two), so one core's memcpy rate bounds every single-stream bandwidth over
 * shm, and size / rate is the least a message of that size adds to a latency.
 * For each SIZE: source and destination of SIZE bytes, touched first; batches of copies of
 * about 2 ms each (the count calibrated once); prints the median of 11 batches, GB = 1e9:
 *     floor_memcpy_GBps 65536 41.7
 * usage: floor_memcpy [CPU [SIZE...]]   (default: CPU 0, 4 KiB, 64 KiB, 1 MiB, 4 MiB, 16 MiB)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kBatches = 11 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The copies must happen: the compiler may not drop or merge them. */
static double copy_batch(char *dst, const char *src, size_t n, long count) {
  double t0 = now_s();
  for (long i = 0; i < count; ++i) {
    memcpy(dst, src, n);
    __asm__ volatile("" : : "r"(dst), "r"(src) : "memory");
  }
  return now_s() - t0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int cpu = argc > 1 ? atoi(argv[1]) : 0;
  size_t defaults[] = {4096, 65536, 1 << 20, 4 << 20, 16 << 20};
  size_t nsizes = argc > 2 ? (size_t)(argc - 2) : sizeof defaults / sizeof defaults[0];
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0)
    fprintf(stderr, "floor_memcpy: cannot pin to CPU %d: %s (running unpinned)\n", cpu,
            strerror(errno));
  for (size_t k = 0; k < nsizes; ++k) {
    size_t n = argc > 2 ? (size_t)strtoull(argv[k + 2], NULL, 0) : defaults[k];
    if (n == 0) {
      fprintf(stderr, "floor_memcpy: bad size '%s'\n", argv[k + 2]);
      return 1;
    }
    char *src = NULL, *dst = NULL;
    if (posix_memalign((void **)&src, 4096, n) || posix_memalign((void **)&dst, 4096, n)) {
      fprintf(stderr, "floor_memcpy: cannot allocate 2 x %zu bytes\n", n);
      return 1;
    }
    memset(src, 1, n);
    memset(dst, 2, n);
    long count = 1;
    double t;
    while ((t = copy_batch(dst, src, n, count)) < 2e-3 && count < (1L << 30)) count *= 2;
    double rates[kBatches];
    for (int b = 0; b < kBatches; ++b)
      rates[b] = (double)n * (double)count / copy_batch(dst, src, n, count) / 1e9;
    qsort(rates, kBatches, sizeof rates[0], cmp_double);
    printf("floor_memcpy_GBps %zu %.2f\n", n, rates[kBatches / 2]);
    fflush(stdout);
    free(src);
    free(dst);
  }
  return 0;
}
