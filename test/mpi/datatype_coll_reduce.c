/* Derived datatypes through reductions, at counts 0, 1 and 2000: SUM on a vector of doubles
 * through Allreduce (in place), Reduce (every root), Scan, Exscan, Iallreduce, Ireduce,
 * Reduce_scatter_block, Reduce_scatter (in place), Reduce_local; a non-commutative user op on
 * the struct (its function gets the struct's layout and handle) through the same, the type
 * freed while reductions are pending; every double or int outside the typemap untouched.
 * MPI_ERR_OP for a predefined op on a mixed struct, MPI_ERR_TYPE for an uncommitted type.
 * Any size up to 64. */
#include "datatype_kinds.h"

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
  kinds_init(&argc, &argv);
  CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &dvec));
  {
    MPI_Datatype t = dvec;
    CHECK_MPI(MPI_Type_create_resized(t, 0, DEXT * sizeof(double), &dvec));
    CHECK_MPI(MPI_Type_free(&t));
  }
  CHECK_MPI(MPI_Type_commit(&dvec));
  for (int c = 0; c < 3; ++c) {
    check_dvec_reductions(kCounts[c]);
    check_user_op(kCounts[c]);
  }
  check_errors();
  CHECK_MPI(MPI_Type_free(&dvec));
  return kinds_finish("datatype_coll_reduce");
}
