/* MPI one-sided atomics, the calls a shared counter, a work queue or a lock word makes: rank
 * 0 holds a passive epoch (MPI_Win_lock_all) on a window made by MPI_Win_allocate, and per
 * iteration makes one MPI_Fetch_and_op(SUM, long), one MPI_Compare_and_swap(long) or one
 * MPI_Accumulate(SUM) of one long at rank 1, then MPI_Win_flush. Prints 'OP US' per op: the
 * time of one op made remotely complete. Rank 1 only takes part in the iteration-count
 * broadcasts. Every op's effect on the target is checked once after its timed loop. Options
 * as bench.h's (-t, -n; sizes do not apply). Not part of compare.sh: Debian's Open MPI 4.1
 * crashes in Fetch_and_op with its default one-sided component here (osc rdma over vader;
 * `--mca osc sm` works). */
#include "bench.h"

enum atomic_op { FETCH_AND_OP, COMPARE_AND_SWAP, ACCUMULATE, N_OPS };
static const char *const op_names[N_OPS] = {"fetch_and_op", "compare_and_swap", "accumulate"};

struct atomic {
  int rank;
  enum atomic_op op;
  long *base;   /* rank 1's window: [0] the counter, [1] the swapped word */
  long issued;  /* ops made on the counter since it was zeroed */
  MPI_Win win;
};

static double run(void *p, long iters) {
  struct atomic *s = p;
  long one = 1, got = 0, cmp = 0, swap = 7;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (s->rank == 0) {
    for (long i = 0; i < iters; ++i) {
      switch (s->op) {
        case FETCH_AND_OP:
          MPI_Fetch_and_op(&one, &got, MPI_LONG, 1, 0, MPI_SUM, s->win);
          break;
        case COMPARE_AND_SWAP: /* swaps 0 for 7 once, then compares and fails */
          MPI_Compare_and_swap(&swap, &cmp, &got, MPI_LONG, 1, 1, s->win);
          break;
        default:
          MPI_Accumulate(&one, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, s->win);
          break;
      }
      MPI_Win_flush(1, s->win);
    }
    if (s->op != COMPARE_AND_SWAP) s->issued += iters;
  }
  return MPI_Wtime() - t0;
}

/* Rank 0 reads both words through the window and compares them with what it issued. */
static void check_op(struct atomic *s) {
  if (s->rank != 0) return;
  long counter = -1, word = -1, zero = 0;
  MPI_Fetch_and_op(&zero, &counter, MPI_LONG, 1, 0, MPI_NO_OP, s->win);
  MPI_Fetch_and_op(&zero, &word, MPI_LONG, 1, 1, MPI_NO_OP, s->win);
  MPI_Win_flush(1, s->win);
  if (counter != s->issued) bench_fail("atomic: the counter misses increments");
  if (s->op == COMPARE_AND_SWAP && word != 7) bench_fail("atomic: compare-and-swap lost");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct bench_options o = {8, 8, 2, 0.2, 10000000, 1, 0, 0};
  bench_parse(argc, argv, &o);
  struct atomic s = {0, FETCH_AND_OP, NULL, 0, MPI_WIN_NULL};
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks < 2) bench_fail("mpi_atomic needs at least 2 ranks");
  MPI_Win_allocate(s.rank == 1 ? 2 * (MPI_Aint)sizeof(long) : 0, sizeof(long), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &s.base, &s.win);
  if (s.rank == 1) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, s.win);
    s.base[0] = s.base[1] = 0;
    MPI_Win_unlock(1, s.win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (s.rank == 0) {
    printf("# mpi_atomic: one op on a long at rank 1, then MPI_Win_flush, per iteration\n");
    printf("# op us\n");
    MPI_Win_lock_all(0, s.win);
  }
  for (int op = 0; op < N_OPS; ++op) {
    long iters = 0;
    s.op = (enum atomic_op)op;
    double t = bench_measure(&o, run, &s, &iters);
    check_op(&s);
    if (s.rank == 0) {
      printf("%s %.4f\n", op_names[op], t * 1e6 / (double)iters);
      fflush(stdout);
    }
  }
  if (s.rank == 0) MPI_Win_unlock_all(s.win);
  MPI_Win_free(&s.win);
  MPI_Finalize();
  return 0;
}
