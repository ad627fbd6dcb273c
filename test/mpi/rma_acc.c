/* Accumulating one-sided operations: Accumulate with every predefined op on INT, LONG, DOUBLE
 * and UNSIGNED (where the op applies), every rank into every rank in one fence epoch, against
 * a locally computed reference (values chosen so that any order gives the same bits; REPLACE
 * only has to leave one of the contributions); MAXLOC/MINLOC on 2INT with ties (the lower
 * index wins); 200000 doubles in one call; a target vector with gaps (gaps untouched);
 * Get_accumulate with SUM (old values checked where one origin owns the location) and NO_OP
 * (an atomic read); Fetch_and_op as a shared counter under MPI_LOCK_SHARED (the fetched values
 * over all ranks are exactly 0..size*N-1); a Compare_and_swap mutex guarding a non-atomic
 * increment; Raccumulate and Rget_accumulate completed by Wait; every rank at once adding a
 * 4096-long vector into one Win_allocate window, exact in every element; accumulates at
 * displacements aligned and not aligned for their type; contiguous derived types on both
 * sides. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;

enum { T_INT, T_LONG, T_DOUBLE, T_UNSIGNED, kTypes };
static const MPI_Datatype types[kTypes] = {MPI_INT, MPI_LONG, MPI_DOUBLE, MPI_UNSIGNED};
static const size_t type_sizes[kTypes] = {sizeof(int), sizeof(long), sizeof(double),
                                          sizeof(unsigned)};
enum { kOps = 10, kReplace = 9 };
static const MPI_Op ops[kOps] = {MPI_SUM,  MPI_PROD, MPI_MAX,  MPI_MIN, MPI_BAND,
                                 MPI_BOR,  MPI_BXOR, MPI_LAND, MPI_LOR, MPI_REPLACE};

static int applies(int ty, int op) { return ty != T_DOUBLE || op < 4 || op == kReplace; }

static unsigned long long mix(unsigned long long x) {
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ULL;
  return x ^ (x >> 29);
}

/* Debian's MPICH 4.0.2 compares MPI_UNSIGNED as signed in MAX and MIN (Reduce_local too), so
 * only torus gets unsigned values on both sides of 2^31. */
#ifdef TORUS_MPI_H
#define UNSIGNED_BASE 0x7ffffe00ULL
#else
#define UNSIGNED_BASE 0ULL
#endif

/* What origin `from` adds to element i of op's slot on rank t; from == size gives the
 * target's initial value. Sums stay small and products are of 1, -1 and 2 (halved for
 * DOUBLE), so every type holds them exactly in any order. */
static unsigned long long operand(int ty, int op, int from, int t, int i) {
  const int h = from * 131 + t * 31 + i * 7 + op, init = from == size;
  static const int factors[3] = {1, -1, 2};
  switch (op) {
    case 0: return (unsigned long long)(h % 23 - 11);
    case 1: return (unsigned long long)factors[h % 3];
    case 2: case 3:
      if (ty == T_UNSIGNED) return UNSIGNED_BASE + (unsigned long long)(h * 37 % 1001);
      return (unsigned long long)(h * 37 % 1001 - 500);
    case 4: return init ? ~0ULL : ~(1ULL << (h % 61));
    case 5: return init ? 0 : 1ULL << (h % 61);
    case 6: return mix((unsigned long long)h);
    case 7: return init ? 3 : from == i % (size + 1) ? 0 : (unsigned long long)h + 1;
    case 8: return init ? 0 : from == i % (size + 1) ? (unsigned long long)h + 1 : 0;
    default: return init ? (unsigned long long)-7 : (unsigned long long)(100000 + from * 100 + i);
  }
}

static void set_elem(int ty, void* buf, int i, unsigned long long v) {
  switch (ty) {
    case T_INT: ((int*)buf)[i] = (int)(long long)v; break;
    case T_LONG: ((long*)buf)[i] = (long)v; break;
    case T_DOUBLE: ((double*)buf)[i] = (double)(long long)v / 2; break;
    default: ((unsigned*)buf)[i] = (unsigned)v;
  }
}

#define INT_COMBINE(T)                                      \
  static T combine_##T(int op, T a, T b) {                  \
    switch (op) {                                           \
      case 0: return (T)(a + b);                            \
      case 1: return (T)(a * b);                            \
      case 2: return a > b ? a : b;                         \
      case 3: return a < b ? a : b;                         \
      case 4: return a & b;                                 \
      case 5: return a | b;                                 \
      case 6: return a ^ b;                                 \
      case 7: return (T)(a && b);                           \
      case 8: return (T)(a || b);                           \
      default: return b;                                    \
    }                                                       \
  }
INT_COMBINE(int)
INT_COMBINE(long)
INT_COMBINE(unsigned)

static double combine_double(int op, double a, double b) {
  switch (op) {
    case 0: return a + b;
    case 1: return a * b;
    case 2: return a > b ? a : b;
    case 3: return a < b ? a : b;
    default: return b;
  }
}

/* acc[i] = acc[i] op v, in the target type. */
static void combine_elem(int ty, int op, void* acc, int i, unsigned long long v) {
  union { int i; long l; double d; unsigned u; } x;
  set_elem(ty, &x, 0, v);
  switch (ty) {
    case T_INT: ((int*)acc)[i] = combine_int(op, ((int*)acc)[i], x.i); break;
    case T_LONG: ((long*)acc)[i] = combine_long(op, ((long*)acc)[i], x.l); break;
    case T_DOUBLE: ((double*)acc)[i] = combine_double(op, ((double*)acc)[i], x.d); break;
    default: ((unsigned*)acc)[i] = combine_unsigned(op, ((unsigned*)acc)[i], x.u);
  }
}

static int elem_equal(int ty, const void* a, int i, const void* b, int j) {
  switch (ty) {
    case T_INT: return ((const int*)a)[i] == ((const int*)b)[j];
    case T_LONG: return ((const long*)a)[i] == ((const long*)b)[j];
    case T_DOUBLE: return ((const double*)a)[i] == ((const double*)b)[j];
    default: return ((const unsigned*)a)[i] == ((const unsigned*)b)[j];
  }
}

static void all_ops(int ty) {
  const int k = size + 3, n = kOps * k;
  const size_t es = type_sizes[ty];
  char* mem = (char*)malloc(es * (size_t)n);
  for (int op = 0; op < kOps; ++op)
    for (int i = 0; i < k; ++i)
      set_elem(ty, mem, op * k + i, operand(ty, op, size, rank, i));
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)es * n, (int)es, MPI_INFO_NULL, MPI_COMM_WORLD,
                           &win));
  char* out = (char*)malloc(es * (size_t)(n * size));
  for (int t = 0; t < size; ++t)
    for (int op = 0; op < kOps; ++op)
      for (int i = 0; i < k; ++i)
        set_elem(ty, out, t * n + op * k + i, operand(ty, op, rank, t, i));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  for (int t = 0; t < size; ++t)
    for (int op = 0; op < kOps; ++op)
      if (applies(ty, op))
        CHECK_MPI(MPI_Accumulate(out + es * (size_t)(t * n + op * k), k, types[ty], t, op * k,
                                 k, types[ty], ops[op], win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  union { long l; double d; } ref, one; /* room for one element of any of the types */
  for (int op = 0; op < kOps; ++op)
    for (int i = 0; i < k; ++i) {
      if (op == kReplace) {
        int found = 0;
        for (int o = 0; o < size; ++o) {
          set_elem(ty, &one, 0, operand(ty, op, o, rank, i));
          found |= elem_equal(ty, mem, op * k + i, &one, 0);
        }
        CHECK(found);
        continue;
      }
      set_elem(ty, &ref, 0, operand(ty, op, size, rank, i));
      if (applies(ty, op))
        for (int o = 0; o < size; ++o)
          combine_elem(ty, op, &ref, 0, operand(ty, op, o, rank, i));
      CHECK(elem_equal(ty, mem, op * k + i, &ref, 0)); /* ops that do not apply: untouched */
    }
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  free(out);
}

/* Ranks 2k and 2k + 1 tie, and the index order is the reverse of the rank order. */
static void maxloc_minloc(void) {
  const int k = 6;
  int* mem = marked_ints(4 * k, 0);
  for (int i = 0; i < k; ++i) {
    mem[2 * i] = i == 0 ? 100 : -100; /* element 0: the initial value wins the MAXLOC */
    mem[2 * i + 1] = 999;
    mem[2 * (k + i)] = i == 0 ? -100 : 100;
    mem[2 * (k + i) + 1] = 999;
  }
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)sizeof(int) * 4 * k, 2 * sizeof(int), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win));
  int* out = marked_ints(2 * k * size, 0);
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int t = 0; t < size; ++t) {
    for (int i = 0; i < k; ++i) {
      out[2 * (t * k + i)] = (rank / 2 + i + t) % 3;
      out[2 * (t * k + i) + 1] = (size - rank) * 10 + i;
    }
    CHECK_MPI(MPI_Accumulate(out + 2 * t * k, k, MPI_2INT, t, 0, k, MPI_2INT, MPI_MAXLOC, win));
    CHECK_MPI(MPI_Accumulate(out + 2 * t * k, k, MPI_2INT, t, k, k, MPI_2INT, MPI_MINLOC, win));
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < k; ++i) {
    int maxv = i == 0 ? 100 : -100, maxi = 999, minv = i == 0 ? -100 : 100, mini = 999;
    for (int o = 0; o < size; ++o) {
      const int v = (o / 2 + i + rank) % 3, idx = (size - o) * 10 + i;
      if (v > maxv || (v == maxv && idx < maxi)) maxv = v, maxi = idx;
      if (v < minv || (v == minv && idx < mini)) minv = v, mini = idx;
    }
    CHECK(mem[2 * i] == maxv && mem[2 * i + 1] == maxi);
    CHECK(mem[2 * (k + i)] == minv && mem[2 * (k + i) + 1] == mini);
  }
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  free(out);
}

/* 200000 doubles from this rank into itself and into its right neighbour; and a target
 * vector (2 ints of every 5) that every rank adds into on every rank. */
static void large_and_strided(void) {
  enum { kBig = 200000, kBlocks = 50 };
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double* big = (double*)malloc(sizeof(double) * kBig);
  double* add = (double*)malloc(sizeof(double) * kBig);
  for (int i = 0; i < kBig; ++i) big[i] = i % 3, add[i] = (rank + i) % 7 + 0.25;
  int* ints = marked_ints(kBlocks * 5, -1);
  for (int b = 0; b < kBlocks; ++b) ints[5 * b] = b, ints[5 * b + 1] = -b;
  MPI_Win wd, wi;
  CHECK_MPI(MPI_Win_create(big, (MPI_Aint)sizeof(double) * kBig, sizeof(double), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &wd));
  CHECK_MPI(MPI_Win_create(ints, (MPI_Aint)sizeof(int) * kBlocks * 5, sizeof(int),
                           MPI_INFO_NULL, MPI_COMM_WORLD, &wi));
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(kBlocks, 2, 5, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  int* dense = marked_ints(2 * kBlocks, 0);
  for (int j = 0; j < 2 * kBlocks; ++j) dense[j] = rank * 1000 + j;
  CHECK_MPI(MPI_Win_fence(0, wd));
  CHECK_MPI(MPI_Win_fence(0, wi));
  CHECK_MPI(MPI_Accumulate(add, kBig, MPI_DOUBLE, rank, 0, kBig, MPI_DOUBLE, MPI_SUM, wd));
  CHECK_MPI(MPI_Accumulate(add, kBig, MPI_DOUBLE, right, 0, kBig, MPI_DOUBLE, MPI_SUM, wd));
  for (int t = 0; t < size; ++t)
    CHECK_MPI(MPI_Accumulate(dense, 2 * kBlocks, MPI_INT, t, 0, 1, vec, MPI_SUM, wi));
  CHECK_MPI(MPI_Win_fence(0, wd));
  CHECK_MPI(MPI_Win_fence(0, wi));
  for (int i = 0; i < kBig; ++i)
    CHECK(big[i] == i % 3 + ((rank + i) % 7 + 0.25) + ((left + i) % 7 + 0.25));
  const int ranks_sum = size * (size - 1) / 2;
  for (int b = 0; b < kBlocks; ++b) {
    CHECK(ints[5 * b] == b + ranks_sum * 1000 + size * (2 * b));
    CHECK(ints[5 * b + 1] == -b + ranks_sum * 1000 + size * (2 * b + 1));
    CHECK(ints[5 * b + 2] == -1 && ints[5 * b + 3] == -1 && ints[5 * b + 4] == -1);
  }
  CHECK_MPI(MPI_Win_free(&wd));
  CHECK_MPI(MPI_Win_free(&wi));
  CHECK_MPI(MPI_Type_free(&vec));
  free(big);
  free(add);
  free(ints);
  free(dense);
}

/* Slot o of every window belongs to origin o, so its old values are known; the last int is
 * everyone's. */
static void get_accumulate(int request_based) {
  const int k = 7, n = size * k + 1;
  int* mem = marked_ints(n, 0);
  for (int i = 0; i < n; ++i) mem[i] = rank * 100 + i;
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)sizeof(int) * n, sizeof(int), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win));
  int* add = marked_ints(k, 0);
  int* old = marked_ints(size * k, -1);
  int* all = marked_ints(size * n, -1);
  int shared_old = 0, one = 1;
  for (int i = 0; i < k; ++i) add[i] = (rank + 1) * (i + 3);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int t = 0; t < size; ++t) {
    if (request_based) {
      MPI_Request r[2];
      CHECK_MPI(MPI_Rget_accumulate(add, k, MPI_INT, old + t * k, k, MPI_INT, t, rank * k, k,
                                    MPI_INT, MPI_SUM, win, &r[0]));
      CHECK_MPI(MPI_Raccumulate(&one, 1, MPI_INT, t, n - 1, 1, MPI_INT, MPI_SUM, win, &r[1]));
      CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
      CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL);
    } else {
      CHECK_MPI(MPI_Get_accumulate(add, k, MPI_INT, old + t * k, k, MPI_INT, t, rank * k, k,
                                   MPI_INT, MPI_SUM, win));
      CHECK_MPI(MPI_Get_accumulate(&one, 1, MPI_INT, &shared_old, 1, MPI_INT, t, n - 1, 1,
                                   MPI_INT, MPI_SUM, win));
      CHECK_MPI(MPI_Win_flush(t, win));
      /* Others add concurrently: the old value is the start plus some of them. */
      CHECK(shared_old >= t * 100 + n - 1 && shared_old < t * 100 + n - 1 + size);
    }
  }
  CHECK_MPI(MPI_Win_flush_all(win));
  for (int t = 0; t < size; ++t)
    for (int i = 0; i < k; ++i) CHECK(old[t * k + i] == t * 100 + rank * k + i);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every addition done everywhere */
  for (int t = 0; t < size; ++t)
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, all + t * n, n, MPI_INT, t, 0, n, MPI_INT,
                                 MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  for (int t = 0; t < size; ++t) {
    for (int o = 0; o < size; ++o)
      for (int i = 0; i < k; ++i)
        CHECK(all[t * n + o * k + i] == t * 100 + o * k + i + (o + 1) * (i + 3));
    CHECK(all[t * n + n - 1] == t * 100 + n - 1 + size);
  }
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  free(add);
  free(old);
  free(all);
}

static int cmp_long(const void* a, const void* b) {
  const long x = *(const long*)a, y = *(const long*)b;
  return (x > y) - (x < y);
}

/* On an oversubscribed machine every remote fetch may wait for rank 0 to be scheduled: 200
 * per rank, 400 in all at most. */
static void fetch_and_op_counter(void) {
  enum { kMaxN = 200 };
  const int n = 400 / size < kMaxN ? 400 / size : kMaxN;
  long* counter = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rank == 0 ? sizeof(long) : 0, sizeof(long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &counter, &win));
  if (rank == 0) { /* a local store, made public by the unlock */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    *counter = 0;
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  long got[kMaxN], one = 1, now = -1;
  /* Ten fetches per shared-lock epoch, each completed by a flush before the next. */
  for (int j = 0; j < n; ++j) {
    if (j % 10 == 0) CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_MPI(MPI_Fetch_and_op(&one, &got[j], MPI_LONG, 0, 0, MPI_SUM, win));
    if (j % 10 == 9 || j == n - 1) {
      CHECK_MPI(MPI_Win_unlock(0, win));
    } else {
      CHECK_MPI(MPI_Win_flush(0, win));
    }
    CHECK(got[j] >= 0 && got[j] < (long)size * n && (j == 0 || got[j] > got[j - 1]));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Fetch_and_op(NULL, &now, MPI_LONG, 0, 0, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(now == (long)size * n);
  long* every = rank == 0 ? (long*)malloc(sizeof(long) * n * (size_t)size) : NULL;
  CHECK_MPI(MPI_Gather(got, n, MPI_LONG, every, n, MPI_LONG, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    qsort(every, (size_t)n * (size_t)size, sizeof(long), cmp_long);
    for (long j = 0; j < (long)size * n; ++j) CHECK(every[j] == j);
    free(every);
  }
  CHECK_MPI(MPI_Win_free(&win));
}

/* word 0 of rank 0's window is a lock (0 free, r + 1 held by rank r), word 1 a counter only
 * ever touched by Get and Put while holding it. */
static void cas_mutex(void) {
  const int rounds = 16 / size + 2;
  int* words = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rank == 0 ? 2 * sizeof(int) : 0, sizeof(int), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &words, &win));
  const int mine = rank + 1, zero = 0;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  if (rank == 0) words[0] = words[1] = 0;
  CHECK_MPI(MPI_Win_sync(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int j = 0; j < rounds; ++j) {
    int got = -1, c = -1;
    do {
      CHECK_MPI(MPI_Compare_and_swap(&mine, &zero, &got, MPI_INT, 0, 0, win));
      CHECK_MPI(MPI_Win_flush(0, win));
      CHECK(got >= 0 && got <= size && got != mine);
    } while (got != 0);
    CHECK_MPI(MPI_Get(&c, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    ++c;
    CHECK_MPI(MPI_Put(&c, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    if (j % 2)
      CHECK_MPI(MPI_Compare_and_swap(&zero, &mine, &got, MPI_INT, 0, 0, win));
    else
      CHECK_MPI(MPI_Fetch_and_op(&zero, &got, MPI_INT, 0, 0, MPI_REPLACE, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(got == mine); /* nobody took the lock from us */
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int final[2] = {-1, -1};
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Get(final, 2, MPI_INT, 0, 0, 2, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(final[0] == 0 && final[1] == size * rounds);
  CHECK_MPI(MPI_Win_free(&win));
}

/* Every rank adds to the same long vector on rank 0 at once, in a window made by
 * Win_allocate (which an MPI may place where origins apply accumulates themselves): each
 * element must end exactly size * rounds, so no two accumulates interleave in an element. */
static void contended_sum(void) {
  enum { kLongs = 4096, kRounds = 40 };
  long* mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rank == 0 ? (MPI_Aint)(sizeof(long) * kLongs) : 0, sizeof(long),
                             MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    for (int i = 0; i < kLongs; ++i) mem[i] = 0;
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  long* ones = malloc(sizeof(long) * kLongs);
  CHECK(ones);
  for (int i = 0; i < kLongs; ++i) ones[i] = 1;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int k = 0; k < kRounds; ++k) {
    CHECK_MPI(MPI_Accumulate(ones, kLongs, MPI_LONG, 0, 0, kLongs, MPI_LONG, MPI_SUM, win));
    if (k % 8 == 7) CHECK_MPI(MPI_Win_flush(0, win));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    for (int i = 0; i < kLongs; ++i) CHECK(mem[i] == (long)size * kRounds);
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  free(ones);
  CHECK_MPI(MPI_Win_free(&win));
}

/* Accumulates at displacements that are and are not aligned for the type (disp_unit 1 in a
 * Win_allocate window, so the origin applies them under the target's lock): a long at
 * byte 3, a double at byte 24 (aligned for it, not to 16), a long double at byte 32, an
 * MPI_2INT MAXLOC at byte 50 from unaligned origin memory; every rank into rank 0. */
static void placements(void) {
  enum { kBytes = 128 };
  unsigned char* mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rank == 0 ? kBytes : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                             &win));
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    memset(mem, 0, kBytes);
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  const long l = 1000 + rank;
  const double d = 0.5 * (rank + 1);
  const long double ld = 0.25L * (rank + 1);
  unsigned char pair_bytes[1 + 2 * sizeof(int)];
  const int pair[2] = {rank % 3, rank};  /* the highest rank with value 2 (or less) wins */
  memcpy(pair_bytes + 1, pair, sizeof(pair));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Accumulate(&l, 1, MPI_LONG, 0, 3, 1, MPI_LONG, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, 24, 1, MPI_DOUBLE, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(&ld, 1, MPI_LONG_DOUBLE, 0, 32, 1, MPI_LONG_DOUBLE, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(pair_bytes + 1, 1, MPI_2INT, 0, 50, 1, MPI_2INT, MPI_MAXLOC, win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    long want_l = 0;
    double want_d = 0;
    long double want_ld = 0;
    int want_pair[2] = {0, 0};
    for (int r = 0; r < size; ++r) {
      want_l += 1000 + r;
      want_d += 0.5 * (r + 1);
      want_ld += 0.25L * (r + 1);
      if (r % 3 > want_pair[0]) { /* ties keep the lower index (the window's 0 first) */
        want_pair[0] = r % 3;
        want_pair[1] = r;
      }
    }
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    long got_l;
    double got_d;
    long double got_ld;
    int got_pair[2];
    memcpy(&got_l, mem + 3, sizeof(got_l));
    memcpy(&got_d, mem + 24, sizeof(got_d));
    memcpy(&got_ld, mem + 32, sizeof(got_ld));
    memcpy(got_pair, mem + 50, sizeof(got_pair));
    CHECK(got_l == want_l);
    CHECK(got_d == want_d);
    CHECK(got_ld == want_ld);
    CHECK(got_pair[0] == want_pair[0] && got_pair[1] == want_pair[1]);
    for (int i = 0; i < kBytes; ++i) /* the gaps between them untouched */
      if (i < 3 || (i >= 11 && i < 24) || (i >= 48 && i < 50) || i >= 58) CHECK(mem[i] == 0);
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Win_free(&win));
}

/* Dense derived types (contiguous runs of longs) on a Win_allocate window: every rank adds
 * 2 x contiguous(3 longs) into every rank, origin and target of that type; then each rank
 * Get_accumulates 6 longs into itself through the 3-long type, fetching the old values as
 * 3 x contiguous(2 longs). Same sums as with MPI_LONG itself. */
static void dense_derived(void) {
  enum { kN = 6 };
  long* base = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate((MPI_Aint)sizeof(long) * kN, sizeof(long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &base, &win));
  for (int i = 0; i < kN; ++i) base[i] = 0;
  MPI_Datatype three, two;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_LONG, &three));
  CHECK_MPI(MPI_Type_commit(&three));
  CHECK_MPI(MPI_Type_contiguous(2, MPI_LONG, &two));
  CHECK_MPI(MPI_Type_commit(&two));
  long add[kN], got[kN];
  for (int i = 0; i < kN; ++i) add[i] = rank + 1 + 10 * i, got[i] = -1;
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int t = 0; t < size; ++t)
    CHECK_MPI(MPI_Accumulate(add, 2, three, t, 0, 2, three, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  const long ranks = (long)size * (size + 1) / 2;
  for (int i = 0; i < kN; ++i) CHECK(base[i] == ranks + 10L * size * i);
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Get_accumulate(add, kN, MPI_LONG, got, 3, two, rank, 0, 2, three, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < kN; ++i) {
    CHECK(got[i] == ranks + 10L * size * i);
    CHECK(base[i] == ranks + 10L * size * i + add[i]);
  }
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Type_free(&three));
  CHECK_MPI(MPI_Type_free(&two));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int ty = 0; ty < kTypes; ++ty) all_ops(ty);
  maxloc_minloc();
  large_and_strided();
  get_accumulate(0);
  get_accumulate(1);
  fetch_and_op_counter();
  cas_mutex();
  contended_sum();
  placements();
  dense_derived();
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi rma_acc ok: %d ranks\n", size);
  return 0;
}
