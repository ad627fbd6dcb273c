/* The hardware floor of a single-copy large message: process_vm_readv (CMA) from a child
 * process's buffer into this one's, each pinned to its own CPU. Prints, per size, the median
 * rate over many reads, GB = 1e9 bytes:
 *   floor_cma_GBps 4194304 23.8
 * usage: floor_cma [CPU_READER CPU_OWNER [SIZES...]]  (1 0 65536 1048576 4194304)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pin(int cpu, const char *who) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    fprintf(stderr, "floor_cma: cannot pin the %s to CPU %d: %s\n", who, cpu, strerror(errno));
    exit(1);
  }
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int cpu_reader = argc > 2 ? atoi(argv[1]) : 1, cpu_owner = argc > 2 ? atoi(argv[2]) : 0;
  size_t sizes[16] = {65536, 1048576, 4194304};
  int nsizes = 3;
  if (argc > 3) {
    nsizes = 0;
    for (int i = 3; i < argc && nsizes < 16; ++i) sizes[nsizes++] = (size_t)strtoull(argv[i], 0, 0);
  }
  size_t max = 0;
  for (int i = 0; i < nsizes; ++i)
    if (sizes[i] > max) max = sizes[i];
  if (max == 0) {
    fprintf(stderr, "usage: floor_cma [CPU_READER CPU_OWNER [SIZES...]]\n");
    return 1;
  }

  int to_parent[2], to_child[2];
  if (pipe(to_parent) != 0 || pipe(to_child) != 0) {
    perror("floor_cma: pipe");
    return 1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("floor_cma: fork");
    return 1;
  }
  if (pid == 0) {
    /* The owner: fills a buffer, sends its address, then waits until the reader is done
     * (the pipe closes), so the buffer stays mapped throughout. */
    close(to_child[1]); /* else our own copy keeps the pipe open */
    close(to_parent[0]);
    pin(cpu_owner, "owner");
    char *buf = malloc(max);
    if (!buf) _exit(1);
    memset(buf, 0x5a, max);
    uintptr_t addr = (uintptr_t)buf;
    if (write(to_parent[1], &addr, sizeof(addr)) != sizeof(addr)) _exit(1);
    char c;
    while (read(to_child[0], &c, 1) > 0) {
    }
    _exit(0);
  }
  close(to_parent[1]);
  close(to_child[0]);
  pin(cpu_reader, "reader");
  uintptr_t remote = 0;
  alarm(60); /* bounded: a stuck child cannot hang the benchmark */
  if (read(to_parent[0], &remote, sizeof(remote)) != sizeof(remote)) {
    fprintf(stderr, "floor_cma: the owner process did not report its buffer\n");
    return 1;
  }
  char *local = malloc(max);
  memset(local, 0, max);
  int rc = 0;
  for (int s = 0; s < nsizes && rc == 0; ++s) {
    size_t n = sizes[s];
    /* Enough reads for a stable median: ~256 MB per size, 20..2000 samples. */
    long reads = (long)(256e6 / (double)n);
    if (reads < 20) reads = 20;
    if (reads > 2000) reads = 2000;
    double *samples = malloc(sizeof(double) * (size_t)reads);
    for (long r = -5; r < reads; ++r) { /* 5 warm-up reads */
      struct iovec l = {local, n}, rv = {(void *)remote, n};
      double t0 = now_s();
      ssize_t got = process_vm_readv(pid, &l, 1, &rv, 1, 0);
      double t1 = now_s();
      if (got != (ssize_t)n) {
        fprintf(stderr, "floor_cma: process_vm_readv of %zu bytes failed: %s\n", n,
                got < 0 ? strerror(errno) : "short read");
        rc = 1;
        break;
      }
      if (r >= 0) samples[r] = (double)n / (t1 - t0) / 1e9;
    }
    if (rc == 0) {
      qsort(samples, (size_t)reads, sizeof(double), cmp_double);
      double med = reads % 2 ? samples[reads / 2]
                             : (samples[reads / 2 - 1] + samples[reads / 2]) / 2.0;
      printf("floor_cma_GBps %zu %.2f\n", n, med);
      fflush(stdout);
    }
    free(samples);
  }
  close(to_child[1]);
  waitpid(pid, NULL, 0);
  return rc;
}
