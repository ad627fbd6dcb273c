/* One-sided communication from several threads at once (MPI_THREAD_MULTIPLE): on every rank
 * two threads each add 1 to a counter on every rank with Fetch_and_op, many times, and put
 * a tagged value into their own slot of every rank, inside the one lock_all epoch the main
 * thread opened (an epoch belongs to the process, not to a thread). The window is made by Win_create on malloc'd memory, so
 * the adds travel as messages that each target applies in its progress, whichever of its
 * threads runs it. Afterwards every counter is exactly size * threads * rounds, the values
 * each thread fetched from one target are increasing, and every slot holds the last value
 * put into it. Any size. */
#include <pthread.h>
#include <string.h>

#include "check.h"

enum { kThreads = 2, kRounds = 60 };

static int rank, size;
static MPI_Win win;

/* mem[0]: the counter; mem[1 + r * kThreads + t]: the slot of thread t of rank r. */
static long* mem;

static long tag(int r, int t, int k) { return ((long)r << 32) | ((long)t << 16) | k; }

static void* worker(void* arg) {
  const int t = (int)(long)arg;
  long one = 1, got = 0;
  long* last = calloc((size_t)size, sizeof(long));
  CHECK(last);
  for (int r = 0; r < size; ++r) last[r] = -1;
  for (int k = 0; k < kRounds; ++k) {
    for (int r = 0; r < size; ++r) {
      CHECK_MPI(MPI_Fetch_and_op(&one, &got, MPI_LONG, r, 0, MPI_SUM, win));
      long v = tag(rank, t, k);
      CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, r, 1 + rank * kThreads + t, 1, MPI_LONG, win));
      CHECK_MPI(MPI_Win_flush(r, win));
      CHECK(got > last[r]); /* our own adds to r come back in order */
      last[r] = got;
    }
  }
  free(last);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = 1 + (size_t)size * kThreads;
  mem = calloc(n, sizeof(long));
  CHECK(mem);
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  pthread_t th[kThreads];
  for (long t = 0; t < kThreads; ++t) CHECK(pthread_create(&th[t], NULL, worker, (void*)t) == 0);
  for (int t = 0; t < kThreads; ++t) CHECK(pthread_join(th[t], NULL) == 0);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  CHECK(mem[0] == (long)size * kThreads * kRounds);
  for (int r = 0; r < size; ++r)
    for (int t = 0; t < kThreads; ++t) CHECK(mem[1 + r * kThreads + t] == tag(r, t, kRounds - 1));
  CHECK_MPI(MPI_Win_unlock(rank, win));
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi rma_threads ok: %d ranks\n", size);
  return 0;
}
