/* Reduction operations, checked element by element against results computed locally:
 * every predefined op on every type it applies to (MPICH's groups: the C integers with
 * MPI_CHAR and AINT/OFFSET/COUNT, floating point, C_BOOL, BYTE) through Allreduce and
 * Reduce_scatter_block, and for one type of each group also Reduce (in place too), Scan,
 * Exscan and Reduce_scatter; MINLOC/MAXLOC on the six pair types with ties (the lower index
 * wins); user ops, commutative and not (2x2 matrix products, whose value depends on the
 * order), at counts that reach every algorithm; Op_commutative, Op_free, Reduce_local (every
 * predefined op and type at a length that runs the vector loops); and
 * MPI_ERR_OP for ops on types they do not apply to, under MPI_ERRORS_RETURN. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

enum { kCount = 11, kBlock = 3 };

static const MPI_Op kOps[] = {MPI_MAX,  MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                              MPI_LOR,  MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
enum { kNumOps = sizeof(kOps) / sizeof(kOps[0]) };

/* kind: 'i' signed integer, 'u' unsigned integer (MPI_CHAR too: its values stay positive),
 * 'f' floating point, 'b' C_BOOL, 'y' BYTE. full: also run the rest of the collectives. */
struct Type {
  MPI_Datatype type;
  const char* name;
  char kind;
  size_t size;
  int full;
};

static const struct Type kTypes[] = {
    {MPI_CHAR, "CHAR", 'u', 1, 0},
    {MPI_SIGNED_CHAR, "SIGNED_CHAR", 'i', 1, 0},
    {MPI_UNSIGNED_CHAR, "UNSIGNED_CHAR", 'u', 1, 1},
    {MPI_SHORT, "SHORT", 'i', sizeof(short), 0},
    {MPI_UNSIGNED_SHORT, "UNSIGNED_SHORT", 'u', sizeof(short), 0},
    {MPI_INT, "INT", 'i', sizeof(int), 1},
    {MPI_UNSIGNED, "UNSIGNED", 'u', sizeof(int), 0},
    {MPI_LONG, "LONG", 'i', sizeof(long), 0},
    {MPI_UNSIGNED_LONG, "UNSIGNED_LONG", 'u', sizeof(long), 0},
    {MPI_LONG_LONG, "LONG_LONG", 'i', sizeof(long long), 0},
    {MPI_UNSIGNED_LONG_LONG, "UNSIGNED_LONG_LONG", 'u', sizeof(long long), 0},
    {MPI_INT8_T, "INT8_T", 'i', 1, 0},
    {MPI_INT16_T, "INT16_T", 'i', 2, 0},
    {MPI_INT32_T, "INT32_T", 'i', 4, 0},
    {MPI_INT64_T, "INT64_T", 'i', 8, 1},
    {MPI_UINT8_T, "UINT8_T", 'u', 1, 0},
    {MPI_UINT16_T, "UINT16_T", 'u', 2, 0},
    {MPI_UINT32_T, "UINT32_T", 'u', 4, 0},
    {MPI_UINT64_T, "UINT64_T", 'u', 8, 0},
    {MPI_AINT, "AINT", 'i', sizeof(MPI_Aint), 0},
    {MPI_OFFSET, "OFFSET", 'i', sizeof(MPI_Offset), 0},
    {MPI_COUNT, "COUNT", 'i', sizeof(MPI_Count), 0},
    {MPI_FLOAT, "FLOAT", 'f', sizeof(float), 0},
    {MPI_DOUBLE, "DOUBLE", 'f', sizeof(double), 1},
    {MPI_LONG_DOUBLE, "LONG_DOUBLE", 'f', sizeof(long double), 1},
    {MPI_C_BOOL, "C_BOOL", 'b', sizeof(_Bool), 1},
    {MPI_BYTE, "BYTE", 'y', 1, 1},
};
enum { kNumTypes = sizeof(kTypes) / sizeof(kTypes[0]) };

static int op_applies(MPI_Op op, char kind) {
  if (op == MPI_MAX || op == MPI_MIN || op == MPI_SUM || op == MPI_PROD)
    return kind == 'i' || kind == 'u' || kind == 'f';
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
    return kind == 'i' || kind == 'u' || kind == 'f' || kind == 'b';
  return kind == 'i' || kind == 'u' || kind == 'y'; /* BAND, BOR, BXOR */
}

/* Rank r's element i for op: small values, so that no result overflows the narrowest type
 * and every float result is exact. */
static long long value(MPI_Op op, char kind, int r, int i) {
  if (kind == 'b') return (r + i) % 3 != 0 || i % 4 == 0;
  if (op == MPI_PROD) {
    long long v = (r + i) % 4 == 0 ? 2 : 1;
    return kind == 'i' && (r + 2 * i) % 3 == 1 ? -v : v;
  }
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
    return i % 4 == 0 ? 1 + r % 2 : (r * 7 + i) % 3; /* some elements all true */
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return (r * 37 + i * 11) % 128;
  long long v = (r * 5 + i * 3) % 7;
  return kind == 'i' || kind == 'f' ? v - 3 : v;
}

static long long combine(MPI_Op op, long long a, long long b) {
  if (op == MPI_MAX) return a > b ? a : b;
  if (op == MPI_MIN) return a < b ? a : b;
  if (op == MPI_SUM) return a + b;
  if (op == MPI_PROD) return a * b;
  if (op == MPI_LAND) return a && b;
  if (op == MPI_LOR) return a || b;
  if (op == MPI_LXOR) return !a != !b;
  if (op == MPI_BAND) return a & b;
  if (op == MPI_BOR) return a | b;
  return a ^ b;
}

/* The reduction of element i over ranks lo..hi, in rank order. */
static long long reference(MPI_Op op, char kind, int i, int lo, int hi) {
  long long acc = value(op, kind, lo, i);
  for (int r = lo + 1; r <= hi; ++r) acc = combine(op, acc, value(op, kind, r, i));
  return acc;
}

static void store(const struct Type* t, void* buf, int i, long long v) {
  char* p = (char*)buf + t->size * (size_t)i;
  if (t->kind == 'f') {
    if (t->size == sizeof(float)) { float x = (float)v; memcpy(p, &x, sizeof x); }
    else if (t->size == sizeof(double)) { double x = (double)v; memcpy(p, &x, sizeof x); }
    else { long double x = (long double)v; memcpy(p, &x, sizeof x); }
  } else if (t->kind == 'b') {
    _Bool x = v != 0;
    memcpy(p, &x, sizeof x);
  } else {
    /* Little-endian two's complement: the low bytes of the value. */
    uint64_t x = (uint64_t)v;
    memcpy(p, &x, t->size);
  }
}

static long long load(const struct Type* t, const void* buf, int i) {
  const char* p = (const char*)buf + t->size * (size_t)i;
  if (t->kind == 'f') {
    if (t->size == sizeof(float)) { float x; memcpy(&x, p, sizeof x); return (long long)x; }
    if (t->size == sizeof(double)) { double x; memcpy(&x, p, sizeof x); return (long long)x; }
    long double x;
    memcpy(&x, p, sizeof x);
    return (long long)x;
  }
  if (t->kind == 'b') {
    _Bool x;
    memcpy(&x, p, sizeof x);
    return x;
  }
  uint64_t x = 0;
  memcpy(&x, p, t->size);
  if (t->kind == 'i' && t->size < 8 && (x >> (8 * t->size - 1)) & 1) x |= ~0ull << (8 * t->size);
  return (long long)x;
}

static void fill_values(const struct Type* t, MPI_Op op, void* buf, int n, int r) {
  for (int i = 0; i < n; ++i) store(t, buf, i, value(op, t->kind, r, i));
}

/* Elements [0, n) of buf against the reduction over ranks lo..hi of elements first + i. */
static void expect(const struct Type* t, MPI_Op op, const void* buf, int n, int first, int lo,
                   int hi, const char* what) {
  for (int i = 0; i < n; ++i) {
    long long want = reference(op, t->kind, first + i, lo, hi), got = load(t, buf, i);
    if (got != want) {
      fprintf(stderr, "rank %d: %s %s op %d element %d: got %lld, want %lld\n", rank, what,
              t->name, (int)(op & 0xff), first + i, got, want);
      CHECK(got == want);
    }
  }
}

static void predefined(void) {
  /* Aligned for the widest type: the library reads long doubles in place. */
  static _Alignas(32) char in[kBlock * 64 * 16], out[kBlock * 64 * 16];
  int counts[64];
  for (int r = 0; r < size; ++r) counts[r] = r % 3;
  int before = 0;
  for (int r = 0; r < rank; ++r) before += counts[r];
  for (int ti = 0; ti < kNumTypes; ++ti) {
    const struct Type* t = &kTypes[ti];
    for (int oi = 0; oi < kNumOps; ++oi) {
      MPI_Op op = kOps[oi];
      if (!op_applies(op, t->kind)) continue;
      fill_values(t, op, in, kCount, rank);
      CHECK_MPI(MPI_Allreduce(in, out, kCount, t->type, op, MPI_COMM_WORLD));
      expect(t, op, out, kCount, 0, 0, size - 1, "allreduce");
      fill_values(t, op, in, kBlock * size, rank);
      CHECK_MPI(MPI_Reduce_scatter_block(in, out, kBlock, t->type, op, MPI_COMM_WORLD));
      expect(t, op, out, kBlock, kBlock * rank, 0, size - 1, "reduce_scatter_block");
      if (!t->full) continue;

      fill_values(t, op, out, kCount, rank);
      CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, kCount, t->type, op, MPI_COMM_WORLD));
      expect(t, op, out, kCount, 0, 0, size - 1, "allreduce in place");
      const int root = oi % size;
      fill_values(t, op, in, kCount, rank);
      CHECK_MPI(MPI_Reduce(in, out, kCount, t->type, op, root, MPI_COMM_WORLD));
      if (rank == root) expect(t, op, out, kCount, 0, 0, size - 1, "reduce");
      if (rank == root) {
        fill_values(t, op, out, kCount, rank);
        CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, out, kCount, t->type, op, root, MPI_COMM_WORLD));
        expect(t, op, out, kCount, 0, 0, size - 1, "reduce in place");
      } else {
        CHECK_MPI(MPI_Reduce(in, NULL, kCount, t->type, op, root, MPI_COMM_WORLD));
      }
      CHECK_MPI(MPI_Scan(in, out, kCount, t->type, op, MPI_COMM_WORLD));
      expect(t, op, out, kCount, 0, 0, rank, "scan");
      CHECK_MPI(MPI_Exscan(in, out, kCount, t->type, op, MPI_COMM_WORLD));
      if (rank > 0) expect(t, op, out, kCount, 0, 0, rank - 1, "exscan");
      int total = 0;
      for (int r = 0; r < size; ++r) total += counts[r];
      fill_values(t, op, in, total, rank);
      CHECK_MPI(MPI_Reduce_scatter(in, out, counts, t->type, op, MPI_COMM_WORLD));
      expect(t, op, out, counts[rank], before, 0, size - 1, "reduce_scatter");
      fill_values(t, op, out, total, rank);
      CHECK_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, out, counts, t->type, op, MPI_COMM_WORLD));
      expect(t, op, out, counts[rank], before, 0, size - 1, "reduce_scatter in place");
    }
  }
}

/* Every predefined op and type through MPI_Reduce_local at a length whose vector loops run
 * several times (the 1-byte types too, 32 to a 256-bit vector) and end in a tail, from an
 * element-aligned start and from one element further. Ranks 0 and 1's values stand in for
 * in and inout. */
static void local_long(void) {
  enum { kLong = 203 };
  static _Alignas(32) char a[kLong * 16], b[kLong * 16];
  for (int ti = 0; ti < kNumTypes; ++ti) {
    const struct Type* t = &kTypes[ti];
    for (int oi = 0; oi < kNumOps; ++oi) {
      MPI_Op op = kOps[oi];
      if (!op_applies(op, t->kind)) continue;
      for (int skip = 0; skip < 2; ++skip) {
        fill_values(t, op, a, kLong, 0);
        fill_values(t, op, b, kLong, 1);
        const size_t at = t->size * (size_t)skip;
        CHECK_MPI(MPI_Reduce_local(a + at, b + at, kLong - skip, t->type, op));
        expect(t, op, b + at, kLong - skip, skip, 0, 1, "reduce_local");
      }
    }
  }
}

/* MINLOC/MAXLOC: one layout description per pair type (value kind, offsets, size). */
struct PairType {
  MPI_Datatype type;
  const char* name;
  char kind; /* 'i' integer value, 'f' floating */
  size_t value_size, index_offset, size;
};
struct IntInt { int v; int i; };
struct FloatInt { float v; int i; };
struct DoubleInt { double v; int i; };
struct LongInt { long v; int i; };
struct ShortInt { short v; int i; };
struct LongDoubleInt { long double v; int i; };
#define PAIR(T, S, K) {T, #T, K, sizeof(((struct S*)0)->v), offsetof(struct S, i), sizeof(struct S)}
static const struct PairType kPairs[] = {
    PAIR(MPI_2INT, IntInt, 'i'),       PAIR(MPI_FLOAT_INT, FloatInt, 'f'),
    PAIR(MPI_DOUBLE_INT, DoubleInt, 'f'), PAIR(MPI_LONG_INT, LongInt, 'i'),
    PAIR(MPI_SHORT_INT, ShortInt, 'i'),  PAIR(MPI_LONG_DOUBLE_INT, LongDoubleInt, 'f'),
};

/* Ranks 2k and 2k + 1 tie on every value; indexes are unique and not in rank order, so
 * "the lower index" is neither the lower nor the higher rank's. */
static int pair_value(int r, int i) { return (r / 2 + i) % 3 - 1; }
static int pair_index(int r, int i) { return ((r * 7 + i * 3) % 11) * 100 + r; }

static void pair_store(const struct PairType* p, void* buf, int i, int v, int index) {
  char* e = (char*)buf + p->size * (size_t)i;
  memset(e, 0, p->size);
  struct Type vt = {MPI_DATATYPE_NULL, "", p->kind, p->value_size, 0};
  store(&vt, e, 0, v);
  memcpy(e + p->index_offset, &index, sizeof index);
}

static void pair_expect(const struct PairType* p, int is_max, const void* buf, int n,
                        int first, int lo, int hi, const char* what) {
  struct Type vt = {MPI_DATATYPE_NULL, "", p->kind, p->value_size, 0};
  for (int i = 0; i < n; ++i) {
    int want_v = pair_value(lo, first + i), want_i = pair_index(lo, first + i);
    for (int r = lo + 1; r <= hi; ++r) {
      int v = pair_value(r, first + i), x = pair_index(r, first + i);
      if (v == want_v) {
        if (x < want_i) want_i = x;
      } else if (is_max ? v > want_v : v < want_v) {
        want_v = v;
        want_i = x;
      }
    }
    const char* e = (const char*)buf + p->size * (size_t)i;
    int got_i;
    memcpy(&got_i, e + p->index_offset, sizeof got_i);
    long long got_v = load(&vt, e, 0);
    if (got_v != want_v || got_i != want_i) {
      fprintf(stderr, "rank %d: %s %s %s element %d: got (%lld, %d), want (%d, %d)\n", rank,
              what, p->name, is_max ? "MAXLOC" : "MINLOC", first + i, got_v, got_i, want_v,
              want_i);
      CHECK(0);
    }
  }
}

static void minloc_maxloc(void) {
  enum { kN = 9 };
  static _Alignas(32) char in[64 * 2 * 32], out[64 * 2 * 32];
  const int filled = kN > 2 * size ? kN : 2 * size;
  for (size_t pi = 0; pi < sizeof(kPairs) / sizeof(kPairs[0]); ++pi) {
    const struct PairType* p = &kPairs[pi];
    int size_of;
    CHECK_MPI(MPI_Type_size(p->type, &size_of));
    CHECK((size_t)size_of == p->size);
    for (int is_max = 0; is_max < 2; ++is_max) {
      MPI_Op op = is_max ? MPI_MAXLOC : MPI_MINLOC;
      for (int i = 0; i < filled; ++i)
        pair_store(p, in, i, pair_value(rank, i), pair_index(rank, i));
      CHECK_MPI(MPI_Allreduce(in, out, kN, p->type, op, MPI_COMM_WORLD));
      pair_expect(p, is_max, out, kN, 0, 0, size - 1, "allreduce");
      const int root = size - 1 - (int)pi % size;
      CHECK_MPI(MPI_Reduce(in, out, kN, p->type, op, root, MPI_COMM_WORLD));
      if (rank == root) pair_expect(p, is_max, out, kN, 0, 0, size - 1, "reduce");
      CHECK_MPI(MPI_Scan(in, out, kN, p->type, op, MPI_COMM_WORLD));
      pair_expect(p, is_max, out, kN, 0, 0, rank, "scan");
      CHECK_MPI(MPI_Reduce_scatter_block(in, out, 2, p->type, op, MPI_COMM_WORLD));
      pair_expect(p, is_max, out, 2, 2 * rank, 0, size - 1, "reduce_scatter_block");
    }
  }
}

/* A 2x2 matrix of 16-bit entries in one uint64_t: the product mod 2^16, (a b)(c d) order. */
static uint64_t mat_mul(uint64_t a, uint64_t b) {
  uint32_t x[4], y[4];
  for (int k = 0; k < 4; ++k) {
    x[k] = (uint32_t)(a >> (16 * k)) & 0xffff;
    y[k] = (uint32_t)(b >> (16 * k)) & 0xffff;
  }
  uint32_t z[4] = {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3],
                   x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]};
  uint64_t out = 0;
  for (int k = 0; k < 4; ++k) out |= (uint64_t)(z[k] & 0xffff) << (16 * k);
  return out;
}

static uint64_t matrix(int r, int i) {
  uint64_t m[4] = {1, (uint64_t)((r + i) % 5 + 1), (uint64_t)((r * 3 + i) % 4), 1};
  return m[0] | m[1] << 16 | m[2] << 32 | m[3] << 48;
}

static void matmul_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  CHECK(*type == MPI_UINT64_T);
  const uint64_t* a = in;
  uint64_t* b = inout;
  for (int k = 0; k < *len; ++k) b[k] = mat_mul(a[k], b[k]);
}

static void wrapping_sum_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  CHECK(*type == MPI_INT);
  const int* a = in;
  int* b = inout;
  for (int k = 0; k < *len; ++k) b[k] = (int)((unsigned)a[k] + (unsigned)b[k]);
}

static void expect_matrices(const uint64_t* got, int n, int first, int lo, int hi,
                            const char* what) {
  /* matrix(r, i) repeats every 20 elements: one product per residue. */
  uint64_t products[20];
  for (int k = 0; k < 20; ++k) {
    products[k] = matrix(lo, k);
    for (int r = lo + 1; r <= hi; ++r) products[k] = mat_mul(products[k], matrix(r, k));
  }
  for (int i = 0; i < n; ++i) {
    const uint64_t want = products[(first + i) % 20];
    if (got[i] != want) {
      fprintf(stderr, "rank %d: %s element %d: got %016llx, want %016llx\n", rank, what,
              first + i, (unsigned long long)got[i], (unsigned long long)want);
      CHECK(0);
    }
  }
}

static void user_ops(void) {
  MPI_Op matop, sumop;
  CHECK_MPI(MPI_Op_create(matmul_op, 0, &matop));
  CHECK_MPI(MPI_Op_create(wrapping_sum_op, 1, &sumop));
  CHECK(((unsigned)matop & 0xfc000000u) == 0x98000000u); /* MPICH's direct op handles */
  CHECK(matop != sumop);
  int commute = -1;
  CHECK_MPI(MPI_Op_commutative(matop, &commute));
  CHECK(commute == 0);
  CHECK_MPI(MPI_Op_commutative(sumop, &commute));
  CHECK(commute == 1);
  CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1);

  /* The order matters: a local reduction puts the lower operand first. */
  uint64_t a = matrix(0, 0), b = matrix(1, 0);
  CHECK(mat_mul(a, b) != mat_mul(b, a));
  CHECK_MPI(MPI_Reduce_local(&a, &b, 1, MPI_UINT64_T, matop));
  CHECK(b == mat_mul(matrix(0, 0), matrix(1, 0)));

  /* Counts that reach the short and the long algorithms of each collective. */
  const int kCounts[] = {1, 7, 3 * size + 1, 20000};
  for (size_t ci = 0; ci < sizeof(kCounts) / sizeof(kCounts[0]); ++ci) {
    const int n = kCounts[ci];
    uint64_t* in = malloc(sizeof(uint64_t) * (size_t)n);
    uint64_t* out = malloc(sizeof(uint64_t) * (size_t)n);
    for (int i = 0; i < n; ++i) in[i] = matrix(rank, i);
    CHECK_MPI(MPI_Allreduce(in, out, n, MPI_UINT64_T, matop, MPI_COMM_WORLD));
    expect_matrices(out, n, 0, 0, size - 1, "allreduce");
    memcpy(out, in, sizeof(uint64_t) * (size_t)n);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_UINT64_T, matop, MPI_COMM_WORLD));
    expect_matrices(out, n, 0, 0, size - 1, "allreduce in place");
    const int roots[2] = {0, size - 1};
    for (int k = 0; k < 2; ++k) {
      memset(out, 0, sizeof(uint64_t) * (size_t)n);
      CHECK_MPI(MPI_Reduce(in, out, n, MPI_UINT64_T, matop, roots[k], MPI_COMM_WORLD));
      if (rank == roots[k]) expect_matrices(out, n, 0, 0, size - 1, "reduce");
    }
    CHECK_MPI(MPI_Scan(in, out, n, MPI_UINT64_T, matop, MPI_COMM_WORLD));
    expect_matrices(out, n, 0, 0, rank, "scan");
    CHECK_MPI(MPI_Exscan(in, out, n, MPI_UINT64_T, matop, MPI_COMM_WORLD));
    if (rank > 0) expect_matrices(out, n, 0, 0, rank - 1, "exscan");
    /* Reduce_scatter: uneven blocks, the last rank gets the remainder. */
    int counts[64], first = 0;
    for (int r = 0; r < size; ++r) counts[r] = n / size + (r == size - 1 ? n % size : 0);
    for (int r = 0; r < rank; ++r) first += counts[r];
    CHECK_MPI(MPI_Reduce_scatter(in, out, counts, MPI_UINT64_T, matop, MPI_COMM_WORLD));
    expect_matrices(out, counts[rank], first, 0, size - 1, "reduce_scatter");
    CHECK_MPI(MPI_Reduce_scatter_block(in, out, n / size, MPI_UINT64_T, matop, MPI_COMM_WORLD));
    expect_matrices(out, n / size, (n / size) * rank, 0, size - 1, "reduce_scatter_block");

    /* The commutative user op, the last time long enough for the ring. */
    const int m = n < 20000 ? n * 8 : 300000;
    int* iin = malloc(sizeof(int) * (size_t)m);
    int* iout = malloc(sizeof(int) * (size_t)m);
    for (int i = 0; i < m; ++i) iin[i] = (rank + 1) * (i % 1000) - 500;
    CHECK_MPI(MPI_Allreduce(iin, iout, m, MPI_INT, sumop, MPI_COMM_WORLD));
    for (int i = 0; i < m; ++i) CHECK(iout[i] == (size * (size + 1) / 2) * (i % 1000) - 500 * size);
    int rcounts[64];
    for (int r = 0; r < size; ++r) rcounts[r] = m / size + (r == 0 ? m % size : 0);
    int ifirst = rank == 0 ? 0 : rcounts[0] + (rank - 1) * (m / size);
    CHECK_MPI(MPI_Reduce_scatter(iin, iout, rcounts, MPI_INT, sumop, MPI_COMM_WORLD));
    for (int i = 0; i < rcounts[rank]; ++i)
      CHECK(iout[i] == (size * (size + 1) / 2) * ((ifirst + i) % 1000) - 500 * size);
    free(iin);
    free(iout);
    free(in);
    free(out);
  }

  /* Op_free: the handle becomes MPI_OP_NULL, and the freed op is refused. */
  MPI_Op freed = matop;
  CHECK_MPI(MPI_Op_free(&matop));
  CHECK(matop == MPI_OP_NULL);
  CHECK_MPI(MPI_Op_free(&sumop));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  uint64_t x = 1, y = 0;
  int cls = -1;
  CHECK_MPI(MPI_Error_class(MPI_Allreduce(&x, &y, 1, MPI_UINT64_T, freed, MPI_COMM_WORLD), &cls));
  CHECK(cls == MPI_ERR_OP);
  CHECK_MPI(MPI_Error_class(MPI_Op_commutative(freed, &commute), &cls));
  CHECK(cls == MPI_ERR_OP);
  MPI_Op predefined_op = MPI_SUM;
  CHECK_MPI(MPI_Error_class(MPI_Op_free(&predefined_op), &cls));
  CHECK(cls == MPI_ERR_OP && predefined_op == MPI_SUM);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Each reduction collective refuses an op that does not apply to the type: MPI_ERR_OP on
 * every rank, nothing sent (the next collective still matches up). */
static void wrong_ops(void) {
  static const struct {
    MPI_Op op;
    MPI_Datatype type;
  } kWrong[] = {
      {MPI_BAND, MPI_FLOAT},   {MPI_BXOR, MPI_DOUBLE}, {MPI_SUM, MPI_C_BOOL},
      {MPI_MAX, MPI_C_BOOL},   {MPI_LAND, MPI_BYTE},   {MPI_SUM, MPI_BYTE},
      {MPI_MINLOC, MPI_INT},   {MPI_MAXLOC, MPI_DOUBLE}, {MPI_MAX, MPI_2INT},
      {MPI_SUM, MPI_DOUBLE_INT}, {MPI_OP_NULL, MPI_INT}, {MPI_REPLACE, MPI_INT},
      {MPI_NO_OP, MPI_INT},    {MPI_SUM, MPI_WCHAR},   {MPI_BOR, MPI_PACKED},
  };
  static _Alignas(32) char in[64 * 32], out[64 * 32];
  int counts[64];
  for (int r = 0; r < size; ++r) counts[r] = 1;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  for (size_t k = 0; k < sizeof(kWrong) / sizeof(kWrong[0]); ++k) {
    MPI_Op op = kWrong[k].op;
    MPI_Datatype t = kWrong[k].type;
    int rc[7];
    rc[0] = MPI_Allreduce(in, out, 1, t, op, MPI_COMM_WORLD);
    rc[1] = MPI_Reduce(in, out, 1, t, op, 0, MPI_COMM_WORLD);
    rc[2] = MPI_Scan(in, out, 1, t, op, MPI_COMM_WORLD);
    rc[3] = MPI_Exscan(in, out, 1, t, op, MPI_COMM_WORLD);
    rc[4] = MPI_Reduce_scatter(in, out, counts, t, op, MPI_COMM_WORLD);
    rc[5] = MPI_Reduce_scatter_block(in, out, 1, t, op, MPI_COMM_WORLD);
    rc[6] = MPI_Reduce_local(in, out, 1, t, op);
    for (int j = 0; j < 7; ++j) {
      int cls = -1;
      CHECK_MPI(MPI_Error_class(rc[j], &cls));
      if (cls != MPI_ERR_OP)
        fprintf(stderr, "rank %d: wrong op case %zu call %d: class %d\n", rank, k, j, cls);
      CHECK(cls == MPI_ERR_OP);
    }
  }
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  /* Still in step: a real reduction right after the refused ones. */
  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64);
  predefined();
  local_long();
  minloc_maxloc();
  user_ops();
  wrong_ops();
  if (rank == 0) printf("mpi coll_ops ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
