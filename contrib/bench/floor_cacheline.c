/* The hardware floor of a shared-memory message: one cache line handed back and forth
 * between two processes pinned to two CPUs (fork + a shared anonymous mapping). Prints the
 * median one-way time (round trip / 2) over many batches:
 *   floor_cacheline_oneway_ns 58.3
 * usage: floor_cacheline [CPU_A CPU_B [BATCHES [ROUND_TRIPS_PER_BATCH]]]  (0 1 201 2000)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
  _Alignas(64) _Atomic uint64_t ball; /* odd: the child's turn; even: the parent's */
  _Alignas(64) _Atomic int child_ready;
};

static void pin(int cpu, const char *who) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    fprintf(stderr, "floor_cacheline: cannot pin the %s to CPU %d: %s\n", who, cpu,
            strerror(errno));
    exit(1);
  }
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

int main(int argc, char **argv) {
  int cpu_a = argc > 2 ? atoi(argv[1]) : 0, cpu_b = argc > 2 ? atoi(argv[2]) : 1;
  long batches = argc > 3 ? atol(argv[3]) : 201;
  long per_batch = argc > 4 ? atol(argv[4]) : 2000;
  if (batches < 1 || per_batch < 1) {
    fprintf(stderr, "usage: floor_cacheline [CPU_A CPU_B [BATCHES [ROUND_TRIPS]]]\n");
    return 1;
  }
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
    fprintf(stderr, "floor_cacheline: warning: one CPU only; the two spinners share it\n");
  struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                           -1, 0);
  if (sh == MAP_FAILED) {
    perror("floor_cacheline: mmap");
    return 1;
  }
  atomic_store(&sh->ball, 0);
  atomic_store(&sh->child_ready, 0);
  const uint64_t total = (uint64_t)(batches + 1) * (uint64_t)per_batch; /* +1: warm-up */
  pid_t pid = fork();
  if (pid < 0) {
    perror("floor_cacheline: fork");
    return 1;
  }
  if (pid == 0) {
    pin(cpu_b, "child");
    atomic_store(&sh->child_ready, 1);
    for (uint64_t i = 0; i < total; ++i) {
      uint64_t want = 2 * i + 1;
      while (atomic_load_explicit(&sh->ball, memory_order_acquire) != want) cpu_relax();
      atomic_store_explicit(&sh->ball, want + 1, memory_order_release);
    }
    _exit(0);
  }
  pin(cpu_a, "parent");
  /* Bounded start: if the child never comes up, fail rather than spin forever. */
  double deadline = now_ns() + 10e9;
  while (!atomic_load(&sh->child_ready)) {
    if (now_ns() > deadline) {
      fprintf(stderr, "floor_cacheline: the child did not start\n");
      kill(pid, SIGKILL);
      return 1;
    }
    sched_yield();
  }
  double *samples = malloc(sizeof(double) * (size_t)batches);
  uint64_t i = 0;
  for (long b = -1; b < batches; ++b) {
    double t0 = now_ns();
    for (long k = 0; k < per_batch; ++k, ++i) {
      atomic_store_explicit(&sh->ball, 2 * i + 1, memory_order_release);
      while (atomic_load_explicit(&sh->ball, memory_order_acquire) != 2 * i + 2) cpu_relax();
    }
    double t1 = now_ns();
    if (b >= 0) samples[b] = (t1 - t0) / (double)per_batch / 2.0;
  }
  waitpid(pid, NULL, 0);
  qsort(samples, (size_t)batches, sizeof(double), cmp_double);
  double med = batches % 2 ? samples[batches / 2]
                           : (samples[batches / 2 - 1] + samples[batches / 2]) / 2.0;
  printf("floor_cacheline_oneway_ns %.1f\n", med);
  free(samples);
  return 0;
}
