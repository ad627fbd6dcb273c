/* Derived datatypes through collectives, persistent requests, buffered sends and matched
 * receives. Three types with one signature per element (3 MPI_INT): 3 plain ints, a strided
 * vector and a struct with gaps (resized); send and receive sides use different ones. Every
 * collective (blocking and nonblocking, v-variants, in place where allowed, every root) at
 * counts 0, 1 and 2000, element by element against a local reference, and every int outside
 * the typemap still holding its sentinel. Reductions: SUM on a vector of doubles, a
 * non-commutative user op on the struct (its function sees the struct's layout and handle).
 * Persistent/Bsend/Mrecv in a ring with the vector type, which is freed while requests hold
 * it. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;

enum { K_INT, K_VEC, K_ST, NKINDS };
static MPI_Datatype types[NKINDS];
static const int ext_ints[NKINDS] = {3, 5, 6}; /* element extent in ints */
static const int st_pos[3] = {0, 2, 3};        /* the struct's ints: 1 at 0, 2 at 8 bytes */
enum { SENTINEL = -7 };

/* Where int j (0..2) of element i lies, in ints from the buffer start. */
static int pos(int k, int i, int j) {
  switch (k) {
    case K_INT: return i * 3 + j;
    case K_VEC: return i * 5 + 2 * j;
    default: return i * 6 + st_pos[j];
  }
}

static int val(int owner, int i, int j) { return owner * 100000 + i * 3 + j + 1; }

static int* alloc_ints(int k, int elements) {
  const int n = elements * ext_ints[k] + 4;
  int* b = malloc(sizeof(int) * (size_t)n);
  for (int x = 0; x < n; ++x) b[x] = SENTINEL;
  return b;
}

/* Writes owner's elements [0, count) at element offset `at` of b. */
static void put(int k, int* b, int at, int count, int owner) {
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < 3; ++j) b[pos(k, at + i, j)] = val(owner, i, j);
}

/* Checks elements [at, at + count) hold owner's data. */
static void expect(int k, const int* b, int at, int count, int owner) {
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < 3; ++j) CHECK(b[pos(k, at + i, j)] == val(owner, i, j));
}

/* Every int of b (elements elements of kind k) outside [lo, hi) elements' typemap is the
 * sentinel. */
static void untouched(int k, const int* b, int elements, int lo, int hi) {
  const int n = elements * ext_ints[k] + 4;
  char* in_map = calloc((size_t)n, 1);
  for (int i = lo; i < hi; ++i)
    for (int j = 0; j < 3; ++j) in_map[pos(k, i, j)] = 1;
  for (int x = 0; x < n; ++x)
    if (!in_map[x]) CHECK(b[x] == SENTINEL);
  free(in_map);
}

static void wait_or(MPI_Request* r) { CHECK_MPI(MPI_Wait(r, MPI_STATUS_IGNORE)); }

static void check_bcast(int ks, int kr, int n, int root, int nb) {
  const int k = rank == root ? ks : kr;
  int* b = alloc_ints(k, n);
  if (rank == root) put(k, b, 0, n, root);
  if (nb) {
    MPI_Request r;
    CHECK_MPI(MPI_Ibcast(b, n, types[k], root, MPI_COMM_WORLD, &r));
    wait_or(&r);
  } else {
    CHECK_MPI(MPI_Bcast(b, n, types[k], root, MPI_COMM_WORLD));
  }
  expect(k, b, 0, n, root);
  untouched(k, b, n, 0, n);
  free(b);
}

static void check_gather(int ks, int kr, int n, int root, int nb, int in_place) {
  int* s = alloc_ints(ks, n);
  int* r = alloc_ints(kr, n * size);
  put(ks, s, 0, n, rank);
  const int ip = in_place && rank == root;
  if (ip) put(kr, r, root * n, n, root);
  const void* sb = ip ? MPI_IN_PLACE : s;
  if (nb) {
    MPI_Request q;
    CHECK_MPI(MPI_Igather(sb, n, types[ks], r, n, types[kr], root, MPI_COMM_WORLD, &q));
    wait_or(&q);
  } else {
    CHECK_MPI(MPI_Gather(sb, n, types[ks], r, n, types[kr], root, MPI_COMM_WORLD));
  }
  if (rank == root) {
    for (int p = 0; p < size; ++p) expect(kr, r, p * n, n, p);
    untouched(kr, r, n * size, 0, n * size);
  } else {
    untouched(kr, r, n * size, 0, 0);
  }
  free(s);
  free(r);
}

static void check_scatter(int ks, int kr, int n, int root, int nb, int in_place) {
  int* s = alloc_ints(ks, n * size);
  int* r = alloc_ints(kr, n);
  if (rank == root)
    for (int p = 0; p < size; ++p) put(ks, s, p * n, n, p);
  const int ip = in_place && rank == root;
  void* rb = ip ? MPI_IN_PLACE : r;
  if (nb) {
    MPI_Request q;
    CHECK_MPI(MPI_Iscatter(s, n, types[ks], rb, n, types[kr], root, MPI_COMM_WORLD, &q));
    wait_or(&q);
  } else {
    CHECK_MPI(MPI_Scatter(s, n, types[ks], rb, n, types[kr], root, MPI_COMM_WORLD));
  }
  if (!ip) {
    expect(kr, r, 0, n, rank);
    untouched(kr, r, n, 0, n);
  }
  if (rank == root)
    for (int p = 0; p < size; ++p) expect(ks, s, p * n, n, p); /* the send side unchanged */
  free(s);
  free(r);
}

static void check_allgather(int ks, int kr, int n, int nb, int in_place) {
  int* s = alloc_ints(ks, n);
  int* r = alloc_ints(kr, n * size);
  put(ks, s, 0, n, rank);
  if (in_place) put(kr, r, rank * n, n, rank);
  const void* sb = in_place ? MPI_IN_PLACE : s;
  if (nb) {
    MPI_Request q;
    CHECK_MPI(MPI_Iallgather(sb, n, types[ks], r, n, types[kr], MPI_COMM_WORLD, &q));
    wait_or(&q);
  } else {
    CHECK_MPI(MPI_Allgather(sb, n, types[ks], r, n, types[kr], MPI_COMM_WORLD));
  }
  for (int p = 0; p < size; ++p) expect(kr, r, p * n, n, p);
  untouched(kr, r, n * size, 0, n * size);
  free(s);
  free(r);
}

/* Block p of rank q's alltoall send buffer: owner q * size + p (values stay distinct). */
static void check_alltoall(int ks, int kr, int n, int nb, int in_place) {
  int* s = alloc_ints(ks, n * size);
  int* r = alloc_ints(kr, n * size);
  for (int p = 0; p < size; ++p) put(ks, s, p * n, n, rank * size + p);
  if (in_place)
    for (int p = 0; p < size; ++p) put(kr, r, p * n, n, rank * size + p);
  const void* sb = in_place ? MPI_IN_PLACE : s;
  if (nb) {
    MPI_Request q;
    CHECK_MPI(MPI_Ialltoall(sb, n, types[ks], r, n, types[kr], MPI_COMM_WORLD, &q));
    wait_or(&q);
  } else {
    CHECK_MPI(MPI_Alltoall(sb, n, types[ks], r, n, types[kr], MPI_COMM_WORLD));
  }
  for (int p = 0; p < size; ++p) expect(kr, r, p * n, n, p * size + rank);
  untouched(kr, r, n * size, 0, n * size);
  free(s);
  free(r);
}

/* v-variants: rank p's block has n + p elements (0 when n == 0), placed in reverse rank
 * order with one element of gap before each. */
static int vcount(int n, int p) { return n ? n + p : 0; }
static void vlayout(int n, int* counts, int* displs, int* total) {
  int at = 0;
  for (int p = size - 1; p >= 0; --p) {
    counts[p] = vcount(n, p);
    displs[p] = at + 1;
    at += counts[p] + 1;
  }
  *total = at;
}

/* Every int of b (total elements) outside the n blocks is the sentinel: the gaps. */
static void untouched_v(int k, const int* b, int total, const int* counts, const int* displs) {
  const int n_ints = total * ext_ints[k] + 4;
  char* in_map = calloc((size_t)n_ints, 1);
  for (int p = 0; p < size; ++p)
    for (int i = displs[p]; i < displs[p] + counts[p]; ++i)
      for (int j = 0; j < 3; ++j) in_map[pos(k, i, j)] = 1;
  for (int x = 0; x < n_ints; ++x)
    if (!in_map[x]) CHECK(b[x] == SENTINEL);
  free(in_map);
}

static void check_vector_colls(int ks, int kr, int n, int root, int in_place) {
  int counts[64], displs[64], total;
  vlayout(n, counts, displs, &total);
  const int mine = vcount(n, rank);
  const int ip = in_place && rank == root;
  int* s = alloc_ints(ks, mine);
  int* r = alloc_ints(kr, total);
  put(ks, s, 0, mine, rank);
  /* Gatherv */
  if (ip) put(kr, r, displs[root], mine, root);
  CHECK_MPI(MPI_Gatherv(ip ? MPI_IN_PLACE : s, mine, types[ks], r, counts, displs, types[kr],
                        root, MPI_COMM_WORLD));
  if (rank == root) {
    for (int p = 0; p < size; ++p) expect(kr, r, displs[p], counts[p], p);
    untouched_v(kr, r, total, counts, displs);
  }
  /* Scatterv from the root's blocks in the v layout */
  int* sv = alloc_ints(ks, total);
  if (rank == root)
    for (int p = 0; p < size; ++p) put(ks, sv, displs[p], counts[p], p);
  int* rr = alloc_ints(kr, mine);
  CHECK_MPI(MPI_Scatterv(sv, counts, displs, types[ks], ip ? MPI_IN_PLACE : rr, mine, types[kr],
                         root, MPI_COMM_WORLD));
  if (!ip) {
    expect(kr, rr, 0, mine, rank);
    untouched(kr, rr, mine, 0, mine);
  }
  /* Allgatherv */
  free(r);
  r = alloc_ints(kr, total);
  if (in_place) put(kr, r, displs[rank], mine, rank);
  CHECK_MPI(MPI_Allgatherv(in_place ? MPI_IN_PLACE : s, mine, types[ks], r, counts, displs,
                           types[kr], MPI_COMM_WORLD));
  for (int p = 0; p < size; ++p) expect(kr, r, displs[p], counts[p], p);
  untouched_v(kr, r, total, counts, displs);
  /* Alltoallv: q sends n + q elements (owner q * size + p) to every p; the send blocks in
   * rank order, the receive blocks reversed, one element of gap before each. */
  int scounts[64], sdispls[64], rcounts[64], rdispls[64];
  int sat = 0, rat = 0;
  for (int p = 0; p < size; ++p) {
    scounts[p] = vcount(n, rank);
    sdispls[p] = sat + 1;
    sat += scounts[p] + 1;
  }
  for (int p = size - 1; p >= 0; --p) {
    rcounts[p] = vcount(n, p);
    rdispls[p] = rat + 1;
    rat += rcounts[p] + 1;
  }
  int* s2 = alloc_ints(ks, sat);
  int* r2 = alloc_ints(kr, rat);
  for (int p = 0; p < size; ++p) put(ks, s2, sdispls[p], scounts[p], rank * size + p);
  CHECK_MPI(MPI_Alltoallv(s2, scounts, sdispls, types[ks], r2, rcounts, rdispls, types[kr],
                          MPI_COMM_WORLD));
  for (int p = 0; p < size; ++p) expect(kr, r2, rdispls[p], rcounts[p], p * size + rank);
  untouched_v(kr, r2, rat, rcounts, rdispls);
  free(s2);
  free(r2);
  free(rr);
  free(sv);
  free(r);
  free(s);
}

/* The gather/scatter/bcast/allgather/alltoall family for one type pair and count. */
static void check_family(int ks, int kr, int n) {
  for (int root = 0; root < size; ++root) {
    for (int nb = 0; nb < 2; ++nb) {
      check_bcast(ks, kr, n, root, nb);
      check_gather(ks, kr, n, root, nb, 0);
      check_scatter(ks, kr, n, root, nb, 0);
    }
    check_gather(ks, kr, n, root, 0, 1);
    check_scatter(ks, kr, n, root, 1, 1);
    check_vector_colls(ks, kr, n, root, root & 1);
  }
  for (int nb = 0; nb < 2; ++nb)
    for (int ip = 0; ip < 2; ++ip) {
      check_allgather(ks, kr, n, nb, ip);
      check_alltoall(ks, kr, n, nb, ip);
    }
}

/* ---- reductions ---- */

/* 2 doubles per element, stride 3 doubles (extent 4 doubles). */
static MPI_Datatype dvec;
enum { DEXT = 4 };
static const int dpos[2] = {0, 3};
static const double DSENT = -1.5;

static double dval(int owner, int i, int j) { return (double)(owner + 1) * (i * 2 + j + 1); }

static double* dalloc(int n) {
  double* b = malloc(sizeof(double) * (size_t)(n * DEXT + 2));
  for (int x = 0; x < n * DEXT + 2; ++x) b[x] = DSENT;
  return b;
}

static void dput(double* b, int n, int owner) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 2; ++j) b[i * DEXT + dpos[j]] = dval(owner, i, j);
}

/* Elements [0, n) of b hold the sum over owners [lo, hi) (nothing written when lo == hi),
 * and every double outside their typemap, the 2 after them included, is untouched. */
static void dexpect_g(const double* b, int n, int lo, int hi, int guard) {
  for (int x = 0; x < n * DEXT + guard; ++x) {
    const int i = x / DEXT, off = x % DEXT;
    const int j = off == dpos[0] ? 0 : off == dpos[1] ? 1 : -1;
    if (j < 0 || i >= n || lo == hi) {
      CHECK(b[x] == DSENT);
      continue;
    }
    double want = 0;
    for (int o = lo; o < hi; ++o) want += dval(o, i, j);
    CHECK(b[x] == want);
  }
}
static void dexpect(const double* b, int n, int lo, int hi) { dexpect_g(b, n, lo, hi, 2); }

static void check_dvec_reductions(int n) {
  double* s = dalloc(n);
  double* r = dalloc(n);
  dput(s, n, rank);
  CHECK_MPI(MPI_Allreduce(s, r, n, dvec, MPI_SUM, MPI_COMM_WORLD));
  dexpect(r, n, 0, size);
  free(r);
  r = dalloc(n);
  dput(r, n, rank);
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, r, n, dvec, MPI_SUM, MPI_COMM_WORLD));
  dexpect(r, n, 0, size);
  for (int root = 0; root < size; ++root) {
    free(r);
    r = dalloc(n);
    const int ip = (root & 1) && rank == root;
    if (ip) dput(r, n, rank);
    CHECK_MPI(MPI_Reduce(ip ? MPI_IN_PLACE : s, r, n, dvec, MPI_SUM, root, MPI_COMM_WORLD));
    if (rank == root) dexpect(r, n, 0, size);
    else dexpect(r, n, 0, 0);
  }
  /* Scan / Exscan */
  free(r);
  r = dalloc(n);
  CHECK_MPI(MPI_Scan(s, r, n, dvec, MPI_SUM, MPI_COMM_WORLD));
  dexpect(r, n, 0, rank + 1);
  free(r);
  r = dalloc(n);
  CHECK_MPI(MPI_Exscan(s, r, n, dvec, MPI_SUM, MPI_COMM_WORLD));
  if (rank > 0) dexpect(r, n, 0, rank);
  else dexpect(r, n, 0, 0);
  /* Nonblocking */
  free(r);
  r = dalloc(n);
  MPI_Request q;
  CHECK_MPI(MPI_Iallreduce(s, r, n, dvec, MPI_SUM, MPI_COMM_WORLD, &q));
  wait_or(&q);
  dexpect(r, n, 0, size);
  free(r);
  r = dalloc(n);
  CHECK_MPI(MPI_Ireduce(s, r, n, dvec, MPI_SUM, size - 1, MPI_COMM_WORLD, &q));
  wait_or(&q);
  if (rank == size - 1) dexpect(r, n, 0, size);
  else dexpect(r, n, 0, 0);
  /* Reduce_scatter_block: n elements each, from a send buffer of n * size. */
  double* sb = dalloc(n * size);
  for (int i = 0; i < n * size; ++i)
    for (int j = 0; j < 2; ++j) sb[i * DEXT + dpos[j]] = dval(rank, i % (n ? n : 1), j);
  free(r);
  r = dalloc(n);
  CHECK_MPI(MPI_Reduce_scatter_block(sb, r, n, dvec, MPI_SUM, MPI_COMM_WORLD));
  dexpect(r, n, 0, size);
  /* Reduce_scatter in place: rank p gets n elements (block p of the input). */
  int counts[64];
  for (int p = 0; p < size; ++p) counts[p] = n;
  CHECK_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, sb, counts, dvec, MPI_SUM, MPI_COMM_WORLD));
  dexpect_g(sb, n, 0, size, 0); /* the result is the first n elements */
  /* Reduce_local */
  double* a = dalloc(n);
  double* b = dalloc(n);
  dput(a, n, 0);
  dput(b, n, 1);
  CHECK_MPI(MPI_Reduce_local(a, b, n, dvec, MPI_SUM));
  dexpect(b, n, 0, 2);
  free(a);
  free(b);
  free(sb);
  free(r);
  free(s);
}

/* The user op on the struct type (3 ints: a, b, c at int offsets 0, 2, 3 of a 6-int
 * element): a summed, b the lower ranks' (left projection: not commutative), c max. */
static int user_op_bad_type;
static MPI_Datatype st_handle; /* the handle the op must be given (types[K_ST] or a dup) */
static void st_op(void* in, void* inout, int* len, MPI_Datatype* dt) {
  if (*dt != st_handle) user_op_bad_type = 1;
  const int* x = in;
  int* y = inout;
  for (int i = 0; i < *len; ++i, x += 6, y += 6) {
    y[0] += x[0];
    y[2] = x[2];
    y[3] = x[3] > y[3] ? x[3] : y[3];
  }
}

static int stv(int owner, int i, int j) {
  return j == 0 ? owner + i : j == 1 ? owner * 1000 + i : (owner * 7919 + i) % 1000;
}
static void st_fill(int* b, int n, int owner) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 3; ++j) b[pos(K_ST, i, j)] = stv(owner, i, j);
}
/* The result over owners [lo, hi). */
static void st_expect(const int* b, int n, int lo, int hi) {
  for (int i = 0; i < n; ++i) {
    int a = 0, c = -1;
    for (int o = lo; o < hi; ++o) {
      a += stv(o, i, 0);
      if (stv(o, i, 2) > c) c = stv(o, i, 2);
    }
    CHECK(b[pos(K_ST, i, 0)] == a);
    CHECK(b[pos(K_ST, i, 1)] == stv(lo, i, 1));
    CHECK(b[pos(K_ST, i, 2)] == c);
  }
  untouched(K_ST, b, n, 0, n);
}

static void check_user_op(int n) {
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(st_op, 0, &op));
  st_handle = types[K_ST];
  int* s = alloc_ints(K_ST, n * size);
  int* r = alloc_ints(K_ST, n * size);
  st_fill(s, n, rank);
  CHECK_MPI(MPI_Allreduce(s, r, n, types[K_ST], op, MPI_COMM_WORLD));
  st_expect(r, n, 0, size);
  const int roots[2] = {0, size - 1};
  for (int k = 0; k < 2; ++k) {
    free(r);
    r = alloc_ints(K_ST, n * size);
    CHECK_MPI(MPI_Reduce(s, r, n, types[K_ST], op, roots[k], MPI_COMM_WORLD));
    if (rank == roots[k]) st_expect(r, n, 0, size);
    else untouched(K_ST, r, n, 0, 0);
  }
  free(r);
  r = alloc_ints(K_ST, n * size);
  CHECK_MPI(MPI_Scan(s, r, n, types[K_ST], op, MPI_COMM_WORLD));
  st_expect(r, n, 0, rank + 1);
  free(r);
  r = alloc_ints(K_ST, n * size);
  CHECK_MPI(MPI_Exscan(s, r, n, types[K_ST], op, MPI_COMM_WORLD));
  if (rank > 0) st_expect(r, n, 0, rank);
  else untouched(K_ST, r, n, 0, 0);
  free(r);
  r = alloc_ints(K_ST, n * size);
  MPI_Request q;
  CHECK_MPI(MPI_Iallreduce(s, r, n, types[K_ST], op, MPI_COMM_WORLD, &q));
  wait_or(&q);
  st_expect(r, n, 0, size);
  /* The type freed while the reductions are pending: they complete with its layout. */
  {
    MPI_Datatype dup;
    CHECK_MPI(MPI_Type_dup(types[K_ST], &dup));
    st_handle = dup;
    int* r2 = alloc_ints(K_ST, n * size);
    MPI_Request qs[2];
    free(r);
    r = alloc_ints(K_ST, n * size);
    CHECK_MPI(MPI_Iallreduce(s, r, n, dup, op, MPI_COMM_WORLD, &qs[0]));
    CHECK_MPI(MPI_Ireduce(s, r2, n, dup, op, 0, MPI_COMM_WORLD, &qs[1]));
    CHECK_MPI(MPI_Type_free(&dup));
    CHECK_MPI(MPI_Waitall(2, qs, MPI_STATUSES_IGNORE));
    st_expect(r, n, 0, size);
    if (rank == 0) st_expect(r2, n, 0, size);
    else untouched(K_ST, r2, n, 0, 0);
    st_handle = types[K_ST];
    free(r2);
  }
  /* Reduce_scatter_block: every block of the input is the rank's own n elements. */
  int* sb = alloc_ints(K_ST, n * size);
  for (int p = 0; p < size; ++p)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < 3; ++j) sb[pos(K_ST, p * n + i, j)] = stv(rank, i, j);
  free(r);
  r = alloc_ints(K_ST, n);
  CHECK_MPI(MPI_Reduce_scatter_block(sb, r, n, types[K_ST], op, MPI_COMM_WORLD));
  st_expect(r, n, 0, size);
  /* Reduce_local: the function gets the user's buffers as they are. */
  int* a = alloc_ints(K_ST, n);
  int* b = alloc_ints(K_ST, n);
  st_fill(a, n, 0);
  st_fill(b, n, 1);
  CHECK_MPI(MPI_Reduce_local(a, b, n, types[K_ST], op));
  st_expect(b, n, 0, 2);
  CHECK(user_op_bad_type == 0);
  free(a);
  free(b);
  free(sb);
  free(r);
  free(s);
  CHECK_MPI(MPI_Op_free(&op));
}

/* ---- persistent, buffered, matched, in a ring with the vector type ---- */

static void check_ring(int n) {
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  MPI_Datatype held;
  CHECK_MPI(MPI_Type_dup(types[K_VEC], &held));
  CHECK_MPI(MPI_Type_commit(&held));
  int* s = alloc_ints(K_VEC, n);
  int* r = alloc_ints(K_ST, n);
  MPI_Request req[2];
  /* Send_init / Ssend_init / Bsend_init against Recv_init into the struct type, the send
   * type freed before the first Start. */
  int bsize = 0;
  CHECK_MPI(MPI_Pack_size(n, held, MPI_COMM_WORLD, &bsize));
  bsize += MPI_BSEND_OVERHEAD;
  /* Room for every buffered message that may be pending at once: a message sent by
   * rendezvous holds its copy until the receiver has fetched it, so both persistent rounds'
   * copies may still be there when the Bsend and Ibsend below are posted. */
  char* attached = malloc((size_t)bsize * 4);
  CHECK_MPI(MPI_Buffer_attach(attached, bsize * 4));
  for (int mode = 0; mode < 3; ++mode) {
    if (mode == 0) CHECK_MPI(MPI_Send_init(s, n, held, right, 5, MPI_COMM_WORLD, &req[0]));
    if (mode == 1) CHECK_MPI(MPI_Ssend_init(s, n, held, right, 5, MPI_COMM_WORLD, &req[0]));
    if (mode == 2) CHECK_MPI(MPI_Bsend_init(s, n, held, right, 5, MPI_COMM_WORLD, &req[0]));
    MPI_Datatype rt;
    CHECK_MPI(MPI_Type_dup(types[K_ST], &rt));
    CHECK_MPI(MPI_Type_commit(&rt));
    CHECK_MPI(MPI_Recv_init(r, n, rt, left, 5, MPI_COMM_WORLD, &req[1]));
    CHECK_MPI(MPI_Type_free(&rt)); /* the request holds it */
    if (mode == 0) CHECK_MPI(MPI_Type_free(&held));
    for (int round = 0; round < 2; ++round) {
      put(K_VEC, s, 0, n, rank * 10 + round + mode * 100);
      for (int x = 0; x < n * 6 + 4; ++x) r[x] = SENTINEL;
      CHECK_MPI(MPI_Startall(2, req));
      CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
      expect(K_ST, r, 0, n, left * 10 + round + mode * 100);
      untouched(K_ST, r, n, 0, n);
    }
    CHECK_MPI(MPI_Request_free(&req[0]));
    CHECK_MPI(MPI_Request_free(&req[1]));
    if (mode == 0) {
      CHECK_MPI(MPI_Type_dup(types[K_VEC], &held));
      CHECK_MPI(MPI_Type_commit(&held));
    }
  }
  CHECK_MPI(MPI_Type_free(&held));
  /* Bsend and Ibsend, received by Mprobe + Mrecv and Improbe + Imrecv into the struct. */
  put(K_VEC, s, 0, n, rank + 30);
  CHECK_MPI(MPI_Bsend(s, n, types[K_VEC], right, 7, MPI_COMM_WORLD));
  MPI_Request bq;
  CHECK_MPI(MPI_Ibsend(s, n, types[K_VEC], right, 8, MPI_COMM_WORLD, &bq));
  for (int x = 0; x < n * 3; ++x) s[x] = 0; /* the copies were made */
  CHECK_MPI(MPI_Wait(&bq, MPI_STATUS_IGNORE));
  for (int x = 0; x < n * 6 + 4; ++x) r[x] = SENTINEL;
  MPI_Message m;
  MPI_Status st;
  CHECK_MPI(MPI_Mprobe(left, 7, MPI_COMM_WORLD, &m, &st));
  CHECK_MPI(MPI_Mrecv(r, n, types[K_ST], &m, &st));
  int got = -1;
  CHECK_MPI(MPI_Get_count(&st, types[K_ST], &got));
  CHECK(got == n);
  expect(K_ST, r, 0, n, left + 30);
  untouched(K_ST, r, n, 0, n);
  for (int x = 0; x < n * 6 + 4; ++x) r[x] = SENTINEL;
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Improbe(left, 8, MPI_COMM_WORLD, &flag, &m, &st));
  CHECK_MPI(MPI_Imrecv(r, n, types[K_ST], &m, &bq));
  CHECK_MPI(MPI_Wait(&bq, &st));
  expect(K_ST, r, 0, n, left + 30);
  untouched(K_ST, r, n, 0, n);
  void* detached;
  int dsize;
  CHECK_MPI(MPI_Buffer_detach(&detached, &dsize));
  CHECK(detached == attached && dsize == bsize * 4);
  free(attached);
  free(s);
  free(r);
}

static void check_errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  /* A predefined op on a type of mixed basic types. */
  MPI_Datatype mixed;
  int bl[2] = {1, 1};
  MPI_Aint d[2] = {0, 8};
  MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_create_struct(2, bl, d, ts, &mixed));
  CHECK_MPI(MPI_Type_commit(&mixed));
  char in[32] = {0}, out[32] = {0};
  int cls = 0;
  MPI_Error_class(MPI_Allreduce(in, out, 1, mixed, MPI_SUM, MPI_COMM_WORLD), &cls);
  CHECK(cls == MPI_ERR_OP);
  MPI_Error_class(MPI_Reduce_local(in, out, 1, mixed, MPI_MAX), &cls);
  CHECK(cls == MPI_ERR_OP);
  CHECK_MPI(MPI_Type_free(&mixed));
  /* An uncommitted derived type is still refused. */
  MPI_Datatype raw;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &raw));
  MPI_Error_class(MPI_Bcast(in, 1, raw, 0, MPI_COMM_WORLD), &cls);
  CHECK(cls == MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_free(&raw));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64);

  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &types[K_INT]));
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &types[K_VEC]));
  {
    int bl[2] = {1, 2};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype ts[2] = {MPI_INT, MPI_INT}, st;
    CHECK_MPI(MPI_Type_create_struct(2, bl, d, ts, &st));
    CHECK_MPI(MPI_Type_create_resized(st, 0, 24, &types[K_ST]));
    CHECK_MPI(MPI_Type_free(&st));
  }
  for (int k = 0; k < NKINDS; ++k) CHECK_MPI(MPI_Type_commit(&types[k]));
  CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &dvec));
  {
    MPI_Datatype t = dvec;
    CHECK_MPI(MPI_Type_create_resized(t, 0, DEXT * sizeof(double), &dvec));
    CHECK_MPI(MPI_Type_free(&t));
  }
  CHECK_MPI(MPI_Type_commit(&dvec));

  const int counts[3] = {0, 1, 2000};
  const int pairs[3][2] = {{K_VEC, K_ST}, {K_ST, K_INT}, {K_INT, K_VEC}};
  for (int c = 0; c < 3; ++c) {
    /* The long count with one pair only, every root still: run time stays small. */
    for (int p = 0; p < (counts[c] > 1 ? 1 : 3); ++p)
      check_family(pairs[p][0], pairs[p][1], counts[c]);
    check_dvec_reductions(counts[c]);
    check_user_op(counts[c]);
    check_ring(counts[c]);
  }
  check_errors();

  for (int k = 0; k < NKINDS; ++k) CHECK_MPI(MPI_Type_free(&types[k]));
  CHECK_MPI(MPI_Type_free(&dvec));
  MPI_Finalize();
  if (rank == 0) printf("datatype_coll: ok\n");
  return 0;
}
