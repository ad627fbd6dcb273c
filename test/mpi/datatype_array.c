/* MPI_Type_create_subarray and MPI_Type_create_darray: the packed elements of a 3-D
 * subarray in C and Fortran order (every index against a local walk of the box), extent,
 * size and get_contents; a subarray sent as one message into another subarray of the
 * neighbor's array; a 2-D darray (BLOCK rows, CYCLIC(2) columns; then Fortran order with
 * default arguments and a NONE dimension) on every rank, whose pieces must be exactly the
 * global indices the distribution gives each rank, in storage order, and together cover the
 * array once; the argument errors. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;

/* Packs one element of `t` over an array where element k holds k; returns the count. */
static int pack_indices(MPI_Datatype t, int nelems, int* out) {
  int* a = malloc(sizeof(int) * (size_t)nelems);
  for (int k = 0; k < nelems; ++k) a[k] = k;
  int bytes = 0, pos = 0;
  CHECK_MPI(MPI_Type_size(t, &bytes));
  CHECK_MPI(MPI_Pack(a, 1, t, out, bytes, &pos, MPI_COMM_SELF));
  CHECK(pos == bytes);
  free(a);
  return bytes / (int)sizeof(int);
}

static void subarray(int order) {
  const int sizes[3] = {4, 5, 6}, sub[3] = {2, 3, 4}, starts[3] = {1, 1, 2};
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_create_subarray(3, sizes, sub, starts, order, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  MPI_Aint lb, extent;
  CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
  CHECK(lb == 0 && extent == 4 * 5 * 6 * (MPI_Aint)sizeof(int));
  int got[24], n = pack_indices(t, 120, got), k = 0;
  CHECK(n == 24);
  /* Storage order: C has the last index fastest, element (i, j, l) at (i * 5 + j) * 6 + l;
   * Fortran the first, at i + 4 * (j + 5 * l). */
  if (order == MPI_ORDER_C) {
    for (int i = starts[0]; i < starts[0] + sub[0]; ++i)
      for (int j = starts[1]; j < starts[1] + sub[1]; ++j)
        for (int l = starts[2]; l < starts[2] + sub[2]; ++l) CHECK(got[k++] == (i * 5 + j) * 6 + l);
  } else {
    for (int l = starts[2]; l < starts[2] + sub[2]; ++l)
      for (int j = starts[1]; j < starts[1] + sub[1]; ++j)
        for (int i = starts[0]; i < starts[0] + sub[0]; ++i) CHECK(got[k++] == i + 4 * (j + 5 * l));
  }
  int ni, na, nt, comb;
  CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb));
  CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 3 * 3 + 2 && na == 0 && nt == 1);
  int ints[11];
  MPI_Datatype inner;
  CHECK_MPI(MPI_Type_get_contents(t, 11, 0, 1, ints, NULL, &inner));
  CHECK(ints[0] == 3 && ints[1] == 4 && ints[4] == 2 && ints[7] == 1 && ints[9] == 2 &&
        ints[10] == order && inner == MPI_INT);
  CHECK_MPI(MPI_Type_free(&t));
}

/* A 2x3 box of an 4x5 array on this rank goes to a 2x3 box at another place of the right
 * neighbor's 3x6 array. */
static void subarray_message(void) {
  const int s1[2] = {4, 5}, b[2] = {2, 3}, st1[2] = {2, 1};
  const int s2[2] = {3, 6}, st2[2] = {0, 3};
  MPI_Datatype out_t, in_t;
  CHECK_MPI(MPI_Type_create_subarray(2, s1, b, st1, MPI_ORDER_C, MPI_INT, &out_t));
  CHECK_MPI(MPI_Type_create_subarray(2, s2, b, st2, MPI_ORDER_C, MPI_INT, &in_t));
  CHECK_MPI(MPI_Type_commit(&out_t));
  CHECK_MPI(MPI_Type_commit(&in_t));
  int a[20], c[18];
  for (int k = 0; k < 20; ++k) a[k] = 1000 * rank + k;
  for (int k = 0; k < 18; ++k) c[k] = -1;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  CHECK_MPI(
      MPI_Sendrecv(a, 1, out_t, right, 4, c, 1, in_t, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 6; ++j) {
      const int inside = i < 2 && j >= 3;
      const int want = inside ? 1000 * left + (i + 2) * 5 + (j - 3 + 1) : -1;
      CHECK(c[i * 6 + j] == want);
    }
  CHECK_MPI(MPI_Type_free(&out_t));
  CHECK_MPI(MPI_Type_free(&in_t));
}

/* Which process coordinate owns global index g of a dimension. */
static int owner(int distrib, int darg, int gsize, int psize, int g) {
  if (distrib == MPI_DISTRIBUTE_NONE) return 0;
  if (distrib == MPI_DISTRIBUTE_BLOCK) {
    int blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
    return g / blk;
  }
  int blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
  return (g / blk) % psize;
}

static void darray(int order, const int distribs[2], const int dargs[2], int none_dim) {
  const int gsizes[2] = {7, 10};
  int psizes[2] = {0, 0};
  if (none_dim >= 0) psizes[none_dim] = 1;
  CHECK_MPI(MPI_Dims_create(size, 2, psizes));
  MPI_Datatype t;
  CHECK_MPI(
      MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, psizes, order, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  MPI_Aint lb, extent;
  CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
  CHECK(lb == 0 && extent == 70 * (MPI_Aint)sizeof(int));
  int got[70], n = pack_indices(t, 70, got);
  /* The reference: this rank's coordinates (row-major grid), then every global (i, j) it
   * owns in storage order. */
  const int me[2] = {rank / psizes[1], rank % psizes[1]};
  int k = 0;
  for (int outer = 0; outer < (order == MPI_ORDER_C ? 7 : 10); ++outer)
    for (int inner = 0; inner < (order == MPI_ORDER_C ? 10 : 7); ++inner) {
      const int i = order == MPI_ORDER_C ? outer : inner, j = order == MPI_ORDER_C ? inner : outer;
      if (owner(distribs[0], dargs[0], 7, psizes[0], i) != me[0]) continue;
      if (owner(distribs[1], dargs[1], 10, psizes[1], j) != me[1]) continue;
      CHECK(k < n);
      CHECK(got[k++] == (order == MPI_ORDER_C ? i * 10 + j : i + 7 * j));
    }
  CHECK(k == n);
  /* Together the ranks own every element once. */
  int total = 0;
  CHECK_MPI(MPI_Allreduce(&n, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(total == 70);
  CHECK_MPI(MPI_Type_free(&t));
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Datatype t;
  const int sizes[2] = {4, 4}, sub[2] = {2, 3}, starts[2] = {0, 2}, ok_starts[2] = {0, 0};
  CHECK(error_class_of(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t)) ==
        MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Type_create_subarray(2, sizes, sub, ok_starts, 99, MPI_INT, &t)) ==
        MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Type_create_subarray(2, sizes, sub, ok_starts, MPI_ORDER_C,
                                                MPI_DATATYPE_NULL, &t)) == MPI_ERR_TYPE);
  const int g[1] = {10}, block[1] = {MPI_DISTRIBUTE_BLOCK}, small[1] = {1}, p2[1] = {2};
  const int p1[1] = {1}, dflt[1] = {MPI_DISTRIBUTE_DFLT_DARG};
  CHECK(error_class_of(MPI_Type_create_darray(2, 0, 1, g, block, small, p2, MPI_ORDER_C, MPI_INT,
                                              &t)) == MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Type_create_darray(2, 0, 1, g, block, dflt, p1, MPI_ORDER_C, MPI_INT,
                                              &t)) == MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Type_create_darray(2, 2, 1, g, block, dflt, p2, MPI_ORDER_C, MPI_INT,
                                              &t)) == MPI_ERR_ARG);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  subarray(MPI_ORDER_C);
  subarray(MPI_ORDER_FORTRAN);
  subarray_message();
  const int bc[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
            two[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
  darray(MPI_ORDER_C, bc, two, -1);
  darray(MPI_ORDER_FORTRAN, bc, two, -1);
  const int nb[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
  const int dd[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
  darray(MPI_ORDER_FORTRAN, nb, dd, 0);
  const int cyc[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC}, c3[2] = {3, 1};
  darray(MPI_ORDER_C, cyc, c3, -1);
  errors();
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi datatype_array ok: %d ranks\n", size);
  return 0;
}
