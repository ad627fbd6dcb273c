/* Derived datatypes through the collectives that move data, send and receive types
 * different: Bcast, Gather, Scatter, Allgather, Alltoall and their nonblocking forms,
 * Gatherv/Scatterv/Allgatherv/Alltoallv (reversed blocks with gaps), in place where allowed,
 * every root, counts 0, 1 and 2000, element by element against a local reference, and every
 * int outside the typemap still holding its sentinel. Any size up to 64. */
#include "datatype_kinds.h"

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

int main(int argc, char** argv) {
  kinds_init(&argc, &argv);
  const int pairs[3][2] = {{K_VEC, K_ST}, {K_ST, K_INT}, {K_INT, K_VEC}};
  for (int c = 0; c < 3; ++c) {
    /* The long count with one pair only, every root still: run time stays small. */
    for (int p = 0; p < (kCounts[c] > 1 ? 1 : 3); ++p)
      check_family(pairs[p][0], pairs[p][1], kCounts[c]);
  }
  return kinds_finish("datatype_coll_family");
}
