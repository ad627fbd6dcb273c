/* The collectives that choose an algorithm by size, around each switch point: counts 0, 1,
 * n - 1, n + 1, just below and above the threshold, and a few MiB, checked against results
 * computed locally (byte patterns, integer sums, an order-dependent user op), in place too.
 * CTest also runs it with each algorithm forced through TORUS_COLL_<NAME> (README.md). */
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* Rank r's element i of the integer reductions, and its sum over all ranks (which repeats
 * every 1000 elements: a table). */
static int value(int r, long i) { return (int)((i * 7 + r * 13) % 1000) - 500; }
static int sums[1000];
static int sum_of(long i) { return sums[i % 1000]; }
static void make_sums(void) {
  for (int i = 0; i < 1000; ++i)
    for (int r = 0; r < size; ++r) sums[i] += value(r, i);
}

static int* ints(long n) { return malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)); }

static void fill_ints(int* buf, long n, int r, long first) {
  for (long i = 0; i < n; ++i) buf[i] = value(r, first + i);
}

/* Elements [0, n) hold the sums of elements first + i; name the first wrong one. */
static void expect_sums(const int* buf, long n, long first, const char* what, long count) {
  for (long i = 0; i < n; ++i)
    if (buf[i] != sum_of(first + i)) {
      fprintf(stderr, "rank %d: %s count %ld: element %ld is %d, want %d\n", rank, what, count,
              first + i, buf[i], sum_of(first + i));
      CHECK(0);
    }
}

/* An associative, non-commutative op: the hash of a concatenation, (h, p) = (hash, base^len)
 * in the two halves of a uint64_t, mod 2^32. Reductions must apply it in rank order. */
static uint64_t concat(uint64_t a, uint64_t b) {
  uint32_t ha = (uint32_t)a, pa = (uint32_t)(a >> 32), hb = (uint32_t)b, pb = (uint32_t)(b >> 32);
  return (uint64_t)(uint32_t)(ha * pb + hb) | (uint64_t)(uint32_t)(pa * pb) << 32;
}
static uint64_t piece(int r, long i) {
  return (uint64_t)((r * 7 + i) % 1000 + 1) | (uint64_t)(31 + 2 * (r % 2)) << 32;
}
static void concat_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  CHECK(*type == MPI_UINT64_T);
  const uint64_t* a = in;
  uint64_t* b = inout;
  for (int k = 0; k < *len; ++k) b[k] = concat(a[k], b[k]);
}
static uint64_t concats[1000]; /* concat over all ranks, which repeats every 1000 too */
static uint64_t concat_all(long i) { return concats[i % 1000]; }
static void make_concats(void) {
  for (int i = 0; i < 1000; ++i) {
    concats[i] = piece(0, i);
    for (int r = 1; r < size; ++r) concats[i] = concat(concats[i], piece(r, i));
  }
}

static void bcasts(void) {
  /* Binomial below 512 KiB, scatter + ring allgather above. */
  const long kBytes[] = {0, 1, size - 1, size + 1, 8191, (512 << 10) - 1, (512 << 10) + 1,
                         (3 << 20) + 5};
  unsigned char* buf = malloc((3 << 20) + 6);
  for (size_t k = 0; k < sizeof(kBytes) / sizeof(kBytes[0]); ++k) {
    const long n = kBytes[k];
    const int roots[3] = {0, size - 1, size / 2};
    for (int j = 0; j < (n > (1 << 20) ? 1 : 3); ++j) {
      const int root = roots[(j + (int)k) % 3];
      const unsigned seed = (unsigned)(k * 10 + (size_t)root);
      if (rank == root) fill(buf, (size_t)n, seed);
      else memset(buf, 0xee, (size_t)n + 1);
      buf[n] = 0xee;
      CHECK_MPI(MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
      if (verify(buf, (size_t)n, seed) != (size_t)n)
        fprintf(stderr, "rank %d: bcast %ld bytes from %d: byte %zu\n", rank, n, root,
                verify(buf, (size_t)n, seed));
      CHECK(verify(buf, (size_t)n, seed) == (size_t)n);
      CHECK(buf[n] == 0xee); /* nothing written past the message */
    }
  }
  free(buf);
}

static void reduces(void) {
  /* Reduce: binomial below 256 KiB, Rabenseifner above; allreduce: recursive doubling below
   * 64 KiB (512 KiB at 2 or 4 ranks, further where 256 KiB goes by rendezvous), Rabenseifner
   * above, or the ring from 1 MiB when size is not a power of two. */
  const long kCounts[] = {0,     1,      size - 1, size + 1, 16383,  16385,
                          65535, 65537,  131071,   131073,   262143, 262145, 786433};
  for (size_t k = 0; k < sizeof(kCounts) / sizeof(kCounts[0]); ++k) {
    const long n = kCounts[k];
    int* in = ints(n);
    int* out = ints(n + 1);
    fill_ints(in, n, rank, 0);
    out[n] = 12345;
    CHECK_MPI(MPI_Allreduce(in, out, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    expect_sums(out, n, 0, "allreduce", n);
    CHECK(out[n] == 12345);
    fill_ints(out, n, rank, 0);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    expect_sums(out, n, 0, "allreduce in place", n);
    const int root = (int)k % size;
    memset(out, 0, sizeof(int) * (size_t)n);
    CHECK_MPI(MPI_Reduce(in, out, (int)n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    if (rank == root) expect_sums(out, n, 0, "reduce", n);
    if (rank == root) {
      fill_ints(out, n, rank, 0);
      CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, out, (int)n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
      expect_sums(out, n, 0, "reduce in place", n);
    } else {
      CHECK_MPI(MPI_Reduce(in, NULL, (int)n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    }
    CHECK(out[n] == 12345 || rank != root);
    free(in);
    free(out);
  }
}

/* The non-commutative op through every reduction that chooses: whatever is forced, the
 * ranks must meet in order (the ring falls back). */
static void ordered(void) {
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(concat_op, 0, &op));
  const long kCounts[] = {1, size + 1, 4097, 40001};
  for (size_t k = 0; k < sizeof(kCounts) / sizeof(kCounts[0]); ++k) {
    const long n = kCounts[k];
    uint64_t* in = malloc(sizeof(uint64_t) * (size_t)n);
    uint64_t* out = malloc(sizeof(uint64_t) * (size_t)n);
    for (long i = 0; i < n; ++i) in[i] = piece(rank, i);
    CHECK_MPI(MPI_Allreduce(in, out, (int)n, MPI_UINT64_T, op, MPI_COMM_WORLD));
    for (long i = 0; i < n; ++i) CHECK(out[i] == concat_all(i));
    memcpy(out, in, sizeof(uint64_t) * (size_t)n);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, (int)n, MPI_UINT64_T, op, MPI_COMM_WORLD));
    for (long i = 0; i < n; ++i) CHECK(out[i] == concat_all(i));
    const int root = size - 1 - (int)k % size;
    CHECK_MPI(MPI_Reduce(in, out, (int)n, MPI_UINT64_T, op, root, MPI_COMM_WORLD));
    if (rank == root)
      for (long i = 0; i < n; ++i) CHECK(out[i] == concat_all(i));
    const int block = (int)(n / size);
    CHECK_MPI(MPI_Reduce_scatter_block(in, out, block, MPI_UINT64_T, op, MPI_COMM_WORLD));
    for (long i = 0; i < block; ++i) CHECK(out[i] == concat_all((long)block * rank + i));
    free(in);
    free(out);
  }
  CHECK_MPI(MPI_Op_free(&op));
}

/* Per-rank counts summing to `total`, uneven, and none at all for rank 0 when `skip0`. */
static void spread(long total, int skip0, int* counts, int* displs) {
  const int parts = skip0 && size > 1 ? size - 1 : size;
  for (int r = 0, at = 0, p = 0; r < size; ++r) {
    if (skip0 && size > 1 && r == 0) {
      counts[r] = 0;
    } else {
      counts[r] = (int)(total / parts + (p < total % parts ? 1 : 0));
      ++p;
    }
    displs[r] = at;
    at += counts[r];
  }
}

static void reduce_scatters(void) {
  /* Recursive halving, or from 256 KiB in all the ring when size is not a power of two. */
  const long kTotals[] = {0, 1, size - 1, size + 1, 65535, 65537, 786433};
  int counts[64], displs[64];
  for (size_t k = 0; k < sizeof(kTotals) / sizeof(kTotals[0]); ++k) {
    const long total = kTotals[k];
    int* in = ints(total);
    int* out = ints(total + 1);
    for (int skip0 = 0; skip0 < 2; ++skip0) {
      spread(total, skip0, counts, displs);
      const long mine = counts[rank];
      fill_ints(in, total, rank, 0);
      out[mine] = 12345;
      CHECK_MPI(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      expect_sums(out, mine, displs[rank], "reduce_scatter", total);
      CHECK(out[mine] == 12345);
      fill_ints(out, total, rank, 0);
      CHECK_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      expect_sums(out, mine, displs[rank], "reduce_scatter in place", total);
    }
    free(in);
    free(out);
  }
  const long kBlocks[] = {0, 1, 3, (65536 / size) - 1, (65536 / size) + 1, 100003};
  for (size_t k = 0; k < sizeof(kBlocks) / sizeof(kBlocks[0]); ++k) {
    const long block = kBlocks[k], total = block * size;
    int* in = ints(total);
    int* out = ints(total);
    fill_ints(in, total, rank, 0);
    CHECK_MPI(MPI_Reduce_scatter_block(in, out, (int)block, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    expect_sums(out, block, block * rank, "reduce_scatter_block", total);
    fill_ints(out, total, rank, 0);
    CHECK_MPI(MPI_Reduce_scatter_block(MPI_IN_PLACE, out, (int)block, MPI_INT, MPI_SUM,
                                       MPI_COMM_WORLD));
    expect_sums(out, block, block * rank, "reduce_scatter_block in place", total);
    free(in);
    free(out);
  }
}

static void allgathers(void) {
  /* Bruck below 64 KiB gathered, the ring above. */
  const long kBlocks[] = {0, 1, 3, (65536 / size) - 1, (65536 / size) + 1, 400003};
  for (size_t k = 0; k < sizeof(kBlocks) / sizeof(kBlocks[0]); ++k) {
    const long block = kBlocks[k];
    unsigned char* mine = malloc((size_t)block + 1);
    unsigned char* all = malloc((size_t)(block * size) + 1);
    fill(mine, (size_t)block, (unsigned)(rank * 7 + k));
    memset(all, 0, (size_t)(block * size) + 1);
    CHECK_MPI(MPI_Allgather(mine, (int)block, MPI_BYTE, all, (int)block, MPI_BYTE,
                            MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r)
      CHECK(verify(all + block * r, (size_t)block, (unsigned)(r * 7 + k)) == (size_t)block);
    CHECK(all[block * size] == 0);
    memset(all, 0, (size_t)(block * size));
    fill(all + block * rank, (size_t)block, (unsigned)(rank * 7 + k));
    CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, (int)block, MPI_BYTE,
                            MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r)
      CHECK(verify(all + block * r, (size_t)block, (unsigned)(r * 7 + k)) == (size_t)block);
    free(mine);
    free(all);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64);
  make_sums();
  make_concats();
  bcasts();
  reduces();
  ordered();
  reduce_scatters();
  allgathers();
  if (rank == 0) printf("mpi coll_algos ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
