/* Cartesian topologies: Dims_create against known factorizations and its errors; a 2-D grid
 * from Dims_create (periodic in one dimension) with coords and ranks inverse to each other,
 * Cart_get, shifts checked against coordinates computed here, and a halo exchange whose
 * values come from each neighbour (MPI_PROC_NULL at the open edges leaves the halo alone);
 * Cart_sub rows and columns with an Allreduce over each; a grid smaller than the job (the
 * rest get MPI_COMM_NULL); Comm_dup keeps the grid; Topo_test; error classes. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;

static int cls(int rc) { return error_class_of(rc); }

static void dims_create_cases(void) {
  struct {
    int nnodes, ndims, in[3], out[3];
  } cases[] = {
      {12, 2, {0, 0}, {4, 3}},       {7, 2, {0, 0}, {7, 1}},     {16, 3, {0, 0, 0}, {4, 2, 2}},
      {36, 2, {0, 0}, {6, 6}},       {30, 2, {0, 0}, {6, 5}},    {12, 3, {0, 3, 0}, {2, 3, 2}},
      {1, 3, {0, 0, 0}, {1, 1, 1}},  {8, 1, {0}, {8}},           {6, 2, {3, 2}, {3, 2}},
      {64, 3, {0, 0, 0}, {4, 4, 4}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    int d[3];
    memcpy(d, cases[k].in, sizeof d);
    CHECK_MPI(MPI_Dims_create(cases[k].nnodes, cases[k].ndims, d));
    for (int i = 0; i < cases[k].ndims; ++i) CHECK(d[i] == cases[k].out[i]);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int bad[2] = {5, 0};
  CHECK(cls(MPI_Dims_create(12, 2, bad)) == MPI_ERR_DIMS); /* 5 does not divide 12 */
  int neg[2] = {-1, 0};
  CHECK(cls(MPI_Dims_create(4, 2, neg)) == MPI_ERR_DIMS);
  int full[2] = {2, 2};
  CHECK(cls(MPI_Dims_create(8, 2, full)) == MPI_ERR_DIMS); /* nothing free, product 4 */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* The whole job as a dims[0] x dims[1] grid, periodic along dimension 1 only. */
static void grid_2d(void) {
  int dims[2] = {0, 0}, periods[2] = {0, 1};
  CHECK_MPI(MPI_Dims_create(size, 2, dims));
  MPI_Comm grid;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid));
  CHECK(grid != MPI_COMM_NULL);
  int status = -1, nd = -1, grank = -1, gsize = -1;
  CHECK_MPI(MPI_Topo_test(grid, &status));
  CHECK(status == MPI_CART);
  CHECK_MPI(MPI_Cartdim_get(grid, &nd));
  CHECK(nd == 2);
  CHECK_MPI(MPI_Comm_rank(grid, &grank));
  CHECK_MPI(MPI_Comm_size(grid, &gsize));
  CHECK(grank == rank && gsize == size); /* no reordering */

  int gd[2], gp[2], gc[2];
  CHECK_MPI(MPI_Cart_get(grid, 2, gd, gp, gc));
  CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 0 && gp[1] == 1);
  CHECK(gc[0] == rank / dims[1] && gc[1] == rank % dims[1]); /* row-major */
  for (int r = 0; r < size; ++r) {
    int c[2], back = -1;
    CHECK_MPI(MPI_Cart_coords(grid, r, 2, c));
    CHECK(c[0] == r / dims[1] && c[1] == r % dims[1]);
    CHECK_MPI(MPI_Cart_rank(grid, c, &back));
    CHECK(back == r);
  }
  /* Periodic dimension 1 wraps; dimension 0 does not. */
  int wrap[2] = {gc[0], gc[1] + dims[1]}, w = -1;
  CHECK_MPI(MPI_Cart_rank(grid, wrap, &w));
  CHECK(w == rank);

  int up, down, left, right;
  CHECK_MPI(MPI_Cart_shift(grid, 0, 1, &up, &down));
  CHECK_MPI(MPI_Cart_shift(grid, 1, 1, &left, &right));
  CHECK(up == (gc[0] > 0 ? rank - dims[1] : MPI_PROC_NULL));
  CHECK(down == (gc[0] < dims[0] - 1 ? rank + dims[1] : MPI_PROC_NULL));
  CHECK(left == gc[0] * dims[1] + (gc[1] + dims[1] - 1) % dims[1]);
  CHECK(right == gc[0] * dims[1] + (gc[1] + 1) % dims[1]);
  int far_src, far_dst;
  CHECK_MPI(MPI_Cart_shift(grid, 0, dims[0], &far_src, &far_dst));
  CHECK(far_src == MPI_PROC_NULL && far_dst == MPI_PROC_NULL);

  /* Halo exchange: each rank sends its rank down and right; what arrives from up and left
   * is their rank, and an edge without a neighbour keeps the initial -7. */
  int from_up = -7, from_left = -7;
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, down, 1, &from_up, 1, MPI_INT, up, 1, grid,
                         MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 2, &from_left, 1, MPI_INT, left, 2, grid,
                         MPI_STATUS_IGNORE));
  CHECK(from_up == (up == MPI_PROC_NULL ? -7 : up));
  CHECK(from_left == left);

  /* Rows (dimension 1 kept) and columns (dimension 0 kept). */
  int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
  MPI_Comm row, col;
  CHECK_MPI(MPI_Cart_sub(grid, keep_row, &row));
  CHECK_MPI(MPI_Cart_sub(grid, keep_col, &col));
  int rs, rr, cs, cr, rnd = -1, rdim[1], rper[1], rco[1];
  CHECK_MPI(MPI_Comm_size(row, &rs));
  CHECK_MPI(MPI_Comm_rank(row, &rr));
  CHECK_MPI(MPI_Comm_size(col, &cs));
  CHECK_MPI(MPI_Comm_rank(col, &cr));
  CHECK(rs == dims[1] && rr == gc[1] && cs == dims[0] && cr == gc[0]);
  CHECK_MPI(MPI_Cartdim_get(row, &rnd));
  CHECK(rnd == 1);
  CHECK_MPI(MPI_Cart_get(row, 1, rdim, rper, rco));
  CHECK(rdim[0] == dims[1] && rper[0] == 1 && rco[0] == gc[1]);
  int row_sum = -1, col_sum = -1;
  CHECK_MPI(MPI_Allreduce(&rank, &row_sum, 1, MPI_INT, MPI_SUM, row));
  CHECK_MPI(MPI_Allreduce(&rank, &col_sum, 1, MPI_INT, MPI_SUM, col));
  int want_row = 0, want_col = 0;
  for (int j = 0; j < dims[1]; ++j) want_row += gc[0] * dims[1] + j;
  for (int i = 0; i < dims[0]; ++i) want_col += i * dims[1] + gc[1];
  CHECK(row_sum == want_row && col_sum == want_col);

  /* A duplicate keeps the grid. */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(grid, &dup));
  CHECK_MPI(MPI_Topo_test(dup, &status));
  CHECK(status == MPI_CART);
  int dd[2], dp[2], dc[2];
  CHECK_MPI(MPI_Cart_get(dup, 2, dd, dp, dc));
  CHECK(dd[0] == dims[0] && dd[1] == dims[1] && dc[0] == gc[0] && dc[1] == gc[1]);

  /* Errors: a rank outside, coordinates off a non-periodic edge, a bad direction. */
  MPI_Comm_set_errhandler(grid, MPI_ERRORS_RETURN);
  int c2[2];
  CHECK(cls(MPI_Cart_coords(grid, size, 2, c2)) == MPI_ERR_RANK);
  int off[2] = {dims[0], 0}, r2;
  CHECK(cls(MPI_Cart_rank(grid, off, &r2)) == MPI_ERR_ARG);
  int s1, s2;
  CHECK(cls(MPI_Cart_shift(grid, 2, 1, &s1, &s2)) == MPI_ERR_ARG);

  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&row));
  CHECK_MPI(MPI_Comm_free(&col));
  CHECK_MPI(MPI_Comm_free(&grid));
}

/* A 1-D ring of size - 1 processes: the last rank is left out. */
static void smaller_grid(void) {
  if (size < 2) return;
  int dims[1] = {size - 1}, periods[1] = {1};
  MPI_Comm ring;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  if (rank == size - 1) {
    CHECK(ring == MPI_COMM_NULL);
    return;
  }
  CHECK(ring != MPI_COMM_NULL);
  int src, dst, got = -1;
  CHECK_MPI(MPI_Cart_shift(ring, 0, 1, &src, &dst));
  CHECK(dst == (rank + 1) % (size - 1) && src == (rank + size - 2) % (size - 1));
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 3, &got, 1, MPI_INT, src, 3, ring,
                         MPI_STATUS_IGNORE));
  CHECK(got == src);
  CHECK_MPI(MPI_Comm_free(&ring));
}

static void errors(void) {
  int status = 0;
  CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK(status == MPI_UNDEFINED);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int nd, c[1], r;
  CHECK(cls(MPI_Cartdim_get(MPI_COMM_WORLD, &nd)) == MPI_ERR_TOPOLOGY);
  CHECK(cls(MPI_Cart_coords(MPI_COMM_WORLD, 0, 1, c)) == MPI_ERR_TOPOLOGY);
  CHECK(cls(MPI_Cart_rank(MPI_COMM_WORLD, c, &r)) == MPI_ERR_TOPOLOGY);
  int big[1] = {size + 1}, periods[1] = {0};
  MPI_Comm none = MPI_COMM_NULL;
  CHECK(cls(MPI_Cart_create(MPI_COMM_WORLD, 1, big, periods, 0, &none)) == MPI_ERR_ARG);
  int zero[1] = {0};
  CHECK(cls(MPI_Cart_create(MPI_COMM_WORLD, 1, zero, periods, 0, &none)) == MPI_ERR_DIMS);
  CHECK(none == MPI_COMM_NULL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dims_create_cases();
  grid_2d();
  smaller_grid();
  errors();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("mpi topo ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
