/* Collectives on MPI_COMM_WORLD and a duplicate, at counts 0, 1, 7, 1000 and 262147 (not
 * divisible by anything useful), every root, checked against a result computed locally:
 * Barrier, Bcast, Reduce and Allreduce (SUM/MAX/MIN/PROD on INT, LONG, LONG_LONG, UNSIGNED,
 * FLOAT, DOUBLE; BOR/BXOR on BYTE; MPI_IN_PLACE), Gather, Scatter, Allgather, Alltoall,
 * the v-variants with zero counts and gaps between blocks, Scan and Exscan. Up to 64 ranks. */
#include <string.h>

#include "check.h"

static int rank, size;
static const int kCounts[] = {0, 1, 7, 1000, 262147};
enum { kNumCounts = sizeof(kCounts) / sizeof(kCounts[0]) };

/* Rank r's element i: small integers, so that every sum and product is exact in float too. */
static long long value(int r, int i) { return (long long)((r * 7 + i * 3) % 11) - 3; }

/* The reference reduction of element i over all ranks, computed locally. */
static long long reference(MPI_Op op, int i) {
  long long acc = value(0, i);
  for (int r = 1; r < size; ++r) {
    long long v = value(r, i);
    if (op == MPI_SUM) acc += v;
    else if (op == MPI_MAX) acc = v > acc ? v : acc;
    else if (op == MPI_MIN) acc = v < acc ? v : acc;
    else if (op == MPI_PROD) acc *= v;
  }
  return acc;
}

/* Typed fill and check through one macro per type, to keep the loops plain C. */
#define DEFINE_TYPE(T, NAME)                                                           \
  static void fill_##NAME(void* buf, int n, int r, int unsigned_vals) {                \
    for (int i = 0; i < n; ++i)                                                        \
      ((T*)buf)[i] = (T)(unsigned_vals ? value(r, i) + 3 : value(r, i));               \
  }                                                                                    \
  static int check_##NAME(const void* buf, int n, MPI_Op op, int unsigned_vals) {      \
    for (int i = 0; i < n; ++i) {                                                      \
      T want;                                                                          \
      if (unsigned_vals) {                                                             \
        long long acc = value(0, i) + 3;                                               \
        for (int r = 1; r < size; ++r) {                                               \
          long long v = value(r, i) + 3;                                               \
          if (op == MPI_SUM) acc += v;                                                 \
          else if (op == MPI_MAX) acc = v > acc ? v : acc;                             \
          else if (op == MPI_MIN) acc = v < acc ? v : acc;                             \
          else acc *= v;                                                               \
        }                                                                              \
        want = (T)acc;                                                                 \
      } else {                                                                         \
        want = (T)reference(op, i);                                                    \
      }                                                                                \
      if (((const T*)buf)[i] != want) return i;                                        \
    }                                                                                  \
    return -1;                                                                         \
  }
DEFINE_TYPE(int, int)
DEFINE_TYPE(long, long)
DEFINE_TYPE(long long, longlong)
DEFINE_TYPE(unsigned, unsigned)
DEFINE_TYPE(float, float)
DEFINE_TYPE(double, double)

struct TypeCase {
  MPI_Datatype type;
  size_t size;
  int unsigned_vals;
  void (*fill)(void*, int, int, int);
  int (*check)(const void*, int, MPI_Op, int);
};

static const struct TypeCase kTypes[] = {
    {MPI_INT, sizeof(int), 0, fill_int, check_int},
    {MPI_LONG, sizeof(long), 0, fill_long, check_long},
    {MPI_LONG_LONG, sizeof(long long), 0, fill_longlong, check_longlong},
    {MPI_UNSIGNED, sizeof(unsigned), 1, fill_unsigned, check_unsigned},
    {MPI_FLOAT, sizeof(float), 0, fill_float, check_float},
    {MPI_DOUBLE, sizeof(double), 0, fill_double, check_double},
};
static const MPI_Op kOps[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};

static void reductions(MPI_Comm comm) {
  for (size_t t = 0; t < sizeof(kTypes) / sizeof(kTypes[0]); ++t) {
    const struct TypeCase* tc = &kTypes[t];
    for (size_t o = 0; o < sizeof(kOps) / sizeof(kOps[0]); ++o) {
      MPI_Op op = kOps[o];
      for (int ci = 0; ci < kNumCounts; ++ci) {
        int n = kCounts[ci];
        /* The big count only for the first op and two types: it is slow to reference. */
        if (n > 1000 && (o > 0 || t > 1)) continue;
        void* in = malloc(tc->size * (size_t)n + 1);
        void* out = malloc(tc->size * (size_t)n + 1);
        tc->fill(in, n, rank, tc->unsigned_vals);
        CHECK_MPI(MPI_Allreduce(in, out, n, tc->type, op, comm));
        int bad = tc->check(out, n, op, tc->unsigned_vals);
        if (bad >= 0) fprintf(stderr, "allreduce type %zu op %zu count %d: element %d\n", t, o, n, bad);
        CHECK(bad < 0);
        /* In place: the result replaces the input. */
        tc->fill(out, n, rank, tc->unsigned_vals);
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, n, tc->type, op, comm));
        CHECK(tc->check(out, n, op, tc->unsigned_vals) < 0);
        int root = (ci + (int)o) % size;
        memset(out, 0, tc->size * (size_t)n);
        CHECK_MPI(MPI_Reduce(in, out, n, tc->type, op, root, comm));
        if (rank == root) CHECK(tc->check(out, n, op, tc->unsigned_vals) < 0);
        if (rank == root) {
          tc->fill(out, n, rank, tc->unsigned_vals);
          CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, out, n, tc->type, op, root, comm));
          CHECK(tc->check(out, n, op, tc->unsigned_vals) < 0);
        } else {
          CHECK_MPI(MPI_Reduce(in, NULL, n, tc->type, op, root, comm));
        }
        free(in);
        free(out);
      }
    }
  }
  /* Bitwise ops on bytes. */
  unsigned char b = (unsigned char)(1u << (rank % 8)), r_or = 0, r_xor = 0, want_or = 0,
                want_xor = 0;
  for (int r = 0; r < size; ++r) {
    want_or |= (unsigned char)(1u << (r % 8));
    want_xor ^= (unsigned char)(1u << (r % 8));
  }
  CHECK_MPI(MPI_Allreduce(&b, &r_or, 1, MPI_BYTE, MPI_BOR, comm));
  CHECK_MPI(MPI_Allreduce(&b, &r_xor, 1, MPI_BYTE, MPI_BXOR, comm));
  CHECK(r_or == want_or && r_xor == want_xor);
}

static void data_movement(MPI_Comm comm) {
  for (int ci = 0; ci < kNumCounts; ++ci) {
    int n = kCounts[ci];
    if (n > 1000) n = 65537; /* per-rank blocks: keep the all-to-all buffers modest */
    size_t block = (size_t)n;
    unsigned char* buf = malloc(block * (size_t)size + 1);
    unsigned char* all = malloc(block * (size_t)size + 1);
    for (int root = 0; root < size; ++root) {
      /* Bcast */
      if (rank == root) fill(buf, block, (unsigned)(root + 17 * ci));
      else memset(buf, 0, block);
      CHECK_MPI(MPI_Bcast(buf, n, MPI_BYTE, root, comm));
      CHECK(verify(buf, block, (unsigned)(root + 17 * ci)) == block);
      /* Gather: block r from rank r */
      fill(buf, block, (unsigned)(rank * 31 + ci));
      memset(all, 0, block * (size_t)size);
      CHECK_MPI(MPI_Gather(buf, n, MPI_BYTE, all, n, MPI_BYTE, root, comm));
      if (rank == root)
        for (int r = 0; r < size; ++r)
          CHECK(verify(all + block * (size_t)r, block, (unsigned)(r * 31 + ci)) == block);
      /* Scatter: the root's block r goes to rank r */
      if (rank == root)
        for (int r = 0; r < size; ++r) fill(all + block * (size_t)r, block, (unsigned)(r * 53 + root));
      memset(buf, 0, block);
      CHECK_MPI(MPI_Scatter(all, n, MPI_BYTE, buf, n, MPI_BYTE, root, comm));
      CHECK(verify(buf, block, (unsigned)(rank * 53 + root)) == block);
    }
    /* Allgather, and in place */
    fill(buf, block, (unsigned)(rank * 7 + ci));
    memset(all, 0, block * (size_t)size);
    CHECK_MPI(MPI_Allgather(buf, n, MPI_BYTE, all, n, MPI_BYTE, comm));
    for (int r = 0; r < size; ++r)
      CHECK(verify(all + block * (size_t)r, block, (unsigned)(r * 7 + ci)) == block);
    memset(all, 0, block * (size_t)size);
    fill(all + block * (size_t)rank, block, (unsigned)(rank * 7 + ci));
    CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_BYTE, comm));
    for (int r = 0; r < size; ++r)
      CHECK(verify(all + block * (size_t)r, block, (unsigned)(r * 7 + ci)) == block);
    /* Alltoall: block d of rank s is pattern (s, d) */
    unsigned char* out = malloc(block * (size_t)size + 1);
    for (int d = 0; d < size; ++d) fill(out + block * (size_t)d, block, (unsigned)(rank * 64 + d));
    CHECK_MPI(MPI_Alltoall(out, n, MPI_BYTE, all, n, MPI_BYTE, comm));
    for (int s = 0; s < size; ++s)
      CHECK(verify(all + block * (size_t)s, block, (unsigned)(s * 64 + rank)) == block);
    free(out);
    free(buf);
    free(all);
  }
}

/* Rank r's contribution in the vector variants: (r * 3) % 5 ints (zero for some ranks),
 * placed with a one-int gap after each block to exercise displacements. */
static int vcount(int r) { return (r * 3) % 5; }

static void vectors_and_scans(MPI_Comm comm) {
  int counts[64], displs[64], total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = vcount(r);
    displs[r] = total;
    total += counts[r] + 1;
  }
  int* all = malloc(sizeof(int) * (size_t)(total + 1));
  int mine[8];
  for (int k = 0; k < vcount(rank); ++k) mine[k] = rank * 100 + k;
  for (int root = 0; root < size; ++root) {
    for (int i = 0; i < total; ++i) all[i] = -1;
    CHECK_MPI(MPI_Gatherv(mine, vcount(rank), MPI_INT, all, counts, displs, MPI_INT, root, comm));
    if (rank == root)
      for (int r = 0; r < size; ++r) {
        for (int k = 0; k < counts[r]; ++k) CHECK(all[displs[r] + k] == r * 100 + k);
        CHECK(all[displs[r] + counts[r]] == -1); /* the gap is untouched */
      }
    /* Scatterv: the root's block r goes to rank r */
    if (rank == root)
      for (int r = 0; r < size; ++r)
        for (int k = 0; k < counts[r]; ++k) all[displs[r] + k] = root * 10000 + r * 100 + k;
    int got[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    CHECK_MPI(MPI_Scatterv(all, counts, displs, MPI_INT, got, vcount(rank), MPI_INT, root, comm));
    for (int k = 0; k < vcount(rank); ++k) CHECK(got[k] == root * 10000 + rank * 100 + k);
  }
  for (int i = 0; i < total; ++i) all[i] = -1;
  CHECK_MPI(MPI_Allgatherv(mine, vcount(rank), MPI_INT, all, counts, displs, MPI_INT, comm));
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < counts[r]; ++k) CHECK(all[displs[r] + k] == r * 100 + k);
  free(all);

  /* Alltoallv: rank s sends (s + d) % 3 + 1 ints to d, valued s * 1000 + d * 10 + k. */
  int scounts[64], sdispls[64], rcounts[64], rdispls[64], stot = 0, rtot = 0;
  for (int d = 0; d < size; ++d) {
    scounts[d] = (rank + d) % 3 + 1;
    sdispls[d] = stot;
    stot += scounts[d];
    rcounts[d] = (d + rank) % 3 + 1;
    rdispls[d] = rtot + 1; /* leading gap */
    rtot += rcounts[d] + 1;
  }
  int* sb = malloc(sizeof(int) * (size_t)stot);
  int* rb = malloc(sizeof(int) * (size_t)(rtot + 1));
  for (int d = 0; d < size; ++d)
    for (int k = 0; k < scounts[d]; ++k) sb[sdispls[d] + k] = rank * 1000 + d * 10 + k;
  CHECK_MPI(MPI_Alltoallv(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls, MPI_INT, comm));
  for (int s = 0; s < size; ++s)
    for (int k = 0; k < rcounts[s]; ++k) CHECK(rb[rdispls[s] + k] == s * 1000 + rank * 10 + k);
  free(sb);
  free(rb);

  /* Scan and Exscan: element i of rank r is r + 1 + i; prefix sums and maxima. */
  enum { kN = 5 };
  long in[kN], out[kN], ex[kN];
  for (int i = 0; i < kN; ++i) {
    in[i] = rank + 1 + i;
    ex[i] = -7;
  }
  CHECK_MPI(MPI_Scan(in, out, kN, MPI_LONG, MPI_SUM, comm));
  CHECK_MPI(MPI_Exscan(in, ex, kN, MPI_LONG, MPI_SUM, comm));
  for (int i = 0; i < kN; ++i) {
    long incl = (long)(rank + 1) * (rank + 2) / 2 + (long)(rank + 1) * i;
    CHECK(out[i] == incl);
    if (rank > 0) CHECK(ex[i] == incl - in[i]);
    else CHECK(ex[i] == -7); /* undefined on rank 0: left alone */
  }
  double dv = (double)((rank * 5) % 3), dmax = -1;
  CHECK_MPI(MPI_Scan(&dv, &dmax, 1, MPI_DOUBLE, MPI_MAX, comm));
  double want = 0;
  for (int r = 0; r <= rank; ++r) want = (double)((r * 5) % 3) > want ? (double)((r * 5) % 3) : want;
  CHECK(dmax == want);
  CHECK_MPI(MPI_Scan(MPI_IN_PLACE, in, kN, MPI_LONG, MPI_SUM, comm));
  CHECK(in[0] == (long)(rank + 1) * (rank + 2) / 2);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  for (int i = 0; i < 5; ++i) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  reductions(MPI_COMM_WORLD);
  data_movement(dup);
  vectors_and_scans(dup);
  CHECK_MPI(MPI_Barrier(dup));
  CHECK_MPI(MPI_Comm_free(&dup));
  if (rank == 0) printf("mpi collectives ok: %d ranks\n", size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
