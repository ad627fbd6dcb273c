/* Graph and distributed-graph topologies and the neighborhood collectives: Graph_create
 * (a ring, with the multi-edges and self-loops that 1 and 2 ranks make, and one rank left
 * out), Graphdims_get/Graph_get/Graph_neighbors(_count)/Graph_map; Dist_graph_create_adjacent
 * (weighted, two out-edges ahead and two in-edges behind) and Dist_graph_create (edges named
 * by other ranks than their ends) with their neighbor queries; Neighbor_allgather(v) and
 * Neighbor_alltoall(v/w) on all three topologies, blocking and not, on a grid whose
 * non-periodic edges must leave their blocks untouched (also through a staged strided
 * type); the persistent (_init) forms over rounds; every block against a local reference;
 * the error classes. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;

#define MARK (-777)
#define N 3 /* ints per block */

static int value(int from, int block, int i) { return 10000 * from + 100 * block + i; }

/* The k-th (from 0) position of `who` in list[0..n), or -1. */
static int nth(const int* list, int n, int who, int k) {
  for (int i = 0; i < n; ++i)
    if (list[i] == who && k-- == 0) return i;
  return -1;
}
static int occurrence(const int* list, int i) {
  int k = 0;
  for (int j = 0; j < i; ++j) k += list[j] == list[i];
  return k;
}

/* ---- Graph_create: node i's neighbors are i+1 and i-1 (mod nnodes). */
static void ring_neighbors(int node, int nnodes, int out[2]) {
  out[0] = (node + 1) % nnodes;
  out[1] = (node + nnodes - 1) % nnodes;
}

static void graph(int nnodes) {
  int index[64], edges[128];
  for (int i = 0; i < nnodes; ++i) {
    index[i] = 2 * (i + 1);
    ring_neighbors(i, nnodes, &edges[2 * i]);
  }
  MPI_Comm g;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 1, &g));
  int mapped = -2;
  CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &mapped));
  if (rank >= nnodes) {
    CHECK(g == MPI_COMM_NULL && mapped == MPI_UNDEFINED);
    return;
  }
  CHECK(mapped == rank);
  int status = -1, nn = -1, ne = -1, count = -1;
  CHECK_MPI(MPI_Topo_test(g, &status));
  CHECK(status == MPI_GRAPH);
  CHECK_MPI(MPI_Graphdims_get(g, &nn, &ne));
  CHECK(nn == nnodes && ne == 2 * nnodes);
  int gi[64], ge[128];
  CHECK_MPI(MPI_Graph_get(g, nnodes, 2 * nnodes, gi, ge));
  CHECK(memcmp(gi, index, sizeof(int) * (size_t)nnodes) == 0);
  CHECK(memcmp(ge, edges, sizeof(int) * 2 * (size_t)nnodes) == 0);
  CHECK_MPI(MPI_Graph_neighbors_count(g, nnodes - 1, &count));
  CHECK(count == 2);
  int nb[2];
  CHECK_MPI(MPI_Graph_neighbors(g, rank, 2, nb));
  CHECK(nb[0] == edges[2 * rank] && nb[1] == edges[2 * rank + 1]);
  /* Allgather: block i comes from nb[i]. Alltoall: block j goes to nb[j]; with several
   * edges between two nodes the k-th edge on each side pairs up. */
  int mine[N], got[2 * N], out[2 * N], in[2 * N];
  for (int i = 0; i < N; ++i) mine[i] = value(rank, 0, i);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < N; ++i) out[b * N + i] = value(rank, b, i);
  CHECK_MPI(MPI_Neighbor_allgather(mine, N, MPI_INT, got, N, MPI_INT, g));
  CHECK_MPI(MPI_Neighbor_alltoall(out, N, MPI_INT, in, N, MPI_INT, g));
  for (int b = 0; b < 2; ++b) {
    int theirs[2];
    ring_neighbors(nb[b], nnodes, theirs);
    const int j = nth(theirs, 2, rank, occurrence(nb, b));
    CHECK(j >= 0);
    for (int i = 0; i < N; ++i) {
      CHECK(got[b * N + i] == value(nb[b], 0, i));
      CHECK(in[b * N + i] == value(nb[b], j, i));
    }
  }
  CHECK_MPI(MPI_Comm_free(&g));
}

/* ---- Dist_graph_create_adjacent: out-edges to r+1 and r+2, in-edges from r-1 and r-2. */
static void adjacent_out(int r, int out[2]) {
  out[0] = (r + 1) % size;
  out[1] = (r + 2) % size;
}

static void adjacent(void) {
  int dst[2], src[2] = {(rank + size - 1) % size, (rank + 2 * size - 2) % size};
  adjacent_out(rank, dst);
  int sw[2] = {1, 2}, dw[2] = {3, 4};
  MPI_Comm d;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw,
                                           MPI_INFO_NULL, 0, &d));
  int status = -1, indeg = -1, outdeg = -1, weighted = -1;
  CHECK_MPI(MPI_Topo_test(d, &status));
  CHECK(status == MPI_DIST_GRAPH);
  CHECK_MPI(MPI_Dist_graph_neighbors_count(d, &indeg, &outdeg, &weighted));
  CHECK(indeg == 2 && outdeg == 2 && weighted == 1);
  int s2[2], w2[2], d2[2], x2[2];
  CHECK_MPI(MPI_Dist_graph_neighbors(d, 2, s2, w2, 2, d2, x2));
  CHECK(s2[0] == src[0] && s2[1] == src[1] && d2[0] == dst[0] && d2[1] == dst[1]);
  CHECK(w2[0] == 1 && w2[1] == 2 && x2[0] == 3 && x2[1] == 4);

  /* Block j: j + 1 ints to dst[j], at ints 0 and 2..3 of `out`. Alltoallv receives into
   * ints at rdispls; Alltoallw (the same send blocks by byte displacement) receives from
   * src[0] through a strided type at int 0 and from src[1] as ints at int 8. */
  int out[4] = {value(rank, 0, 0), MARK, value(rank, 1, 0), value(rank, 1, 1)};
  int scounts[2] = {1, 2}, sdispls[2] = {0, 2}, rcounts[2], rdispls[2] = {1, 4}, from[2];
  for (int b = 0; b < 2; ++b) {
    int theirs[2];
    adjacent_out(src[b], theirs);
    from[b] = nth(theirs, 2, rank, occurrence(src, b)); /* the block src[b] sends here */
    CHECK(from[b] >= 0);
    rcounts[b] = from[b] + 1;
  }
  int in[8], inw[12];
  for (int k = 0; k < 8; ++k) in[k] = MARK;
  for (int k = 0; k < 12; ++k) inw[k] = MARK;
  MPI_Datatype strided = strided_int_type();
  MPI_Datatype stypes[2] = {MPI_INT, MPI_INT}, rtypes[2] = {strided, MPI_INT};
  MPI_Aint sbytes[2] = {0, 2 * sizeof(int)}, rbytes[2] = {0, 8 * sizeof(int)};
  MPI_Request req;
  CHECK_MPI(MPI_Ineighbor_alltoallv(out, scounts, sdispls, MPI_INT, in, rcounts, rdispls,
                                    MPI_INT, d, &req));
  CHECK_MPI(MPI_Neighbor_alltoallw(out, scounts, sbytes, stypes, inw, rcounts, rbytes, rtypes,
                                   d));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  int want[8], wantw[12];
  for (int k = 0; k < 8; ++k) want[k] = MARK;
  for (int k = 0; k < 12; ++k) wantw[k] = MARK;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < rcounts[b]; ++i) {
      want[rdispls[b] + i] = value(src[b], from[b], i);
      wantw[b == 0 ? 2 * i : 8 + i] = value(src[b], from[b], i);
    }
  CHECK(memcmp(in, want, sizeof in) == 0);
  CHECK(memcmp(inw, wantw, sizeof inw) == 0);
  CHECK_MPI(MPI_Type_free(&strided));
  CHECK_MPI(MPI_Comm_free(&d));
}

/* ---- Dist_graph_create: rank r names the edge r -> r+2 (weight 20 + r) and the edge
 * r+1 -> r (weight 10 + r), so each rank learns one of its out-edges and one of its in-edges
 * from another rank. Neighbor order is the library's; the sets are checked. */
static void general(void) {
  const int sources[2] = {rank, (rank + 1) % size}, degrees[2] = {1, 1};
  const int destinations[2] = {(rank + 2) % size, rank}, weights[2] = {20 + rank, 10 + rank};
  MPI_Comm d;
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, sources, degrees, destinations, weights,
                                  MPI_INFO_NULL, 0, &d));
  int indeg = -1, outdeg = -1, weighted = -1;
  CHECK_MPI(MPI_Dist_graph_neighbors_count(d, &indeg, &outdeg, &weighted));
  CHECK(indeg == 2 && outdeg == 2 && weighted == 1);
  int src[2], sw[2], dst[2], dw[2];
  CHECK_MPI(MPI_Dist_graph_neighbors(d, 2, src, sw, 2, dst, dw));
  /* In: (r-2 -> r, 20 + r-2) and (r+1 -> r, 10 + r). Out: (r -> r+2, 20 + r) and
   * (r -> r-1, 10 + r-1). */
  const int in_a = (rank + 2 * size - 2) % size, in_b = (rank + 1) % size;
  const int out_a = (rank + 2) % size, out_b = (rank + size - 1) % size;
  CHECK((src[0] == in_a && sw[0] == 20 + in_a && src[1] == in_b && sw[1] == 10 + rank) ||
        (src[1] == in_a && sw[1] == 20 + in_a && src[0] == in_b && sw[0] == 10 + rank));
  CHECK((dst[0] == out_a && dw[0] == 20 + rank && dst[1] == out_b && dw[1] == 10 + out_b) ||
        (dst[1] == out_a && dw[1] == 20 + rank && dst[0] == out_b && dw[0] == 10 + out_b));
  /* Allgatherv: block i (the 2 ints every source sends, at int 3 * i) from src[i]. */
  int mine[2] = {value(rank, 0, 0), value(rank, 0, 0)}, got[6];
  for (int k = 0; k < 6; ++k) got[k] = MARK;
  int counts[2] = {2, 2}, displs[2] = {0, 3};
  MPI_Request req;
  CHECK_MPI(MPI_Ineighbor_allgatherv(mine, 2, MPI_INT, got, counts, displs, MPI_INT, d, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 2; ++i) CHECK(got[displs[b] + i] == value(src[b], 0, 0));
  CHECK(got[2] == MARK && got[5] == MARK);
  CHECK_MPI(MPI_Comm_free(&d));
  /* Unweighted, and a rank with no edges at all. */
  const int one_src = 0, one_deg = rank == 0 ? 1 : 0, one_dst = size - 1;
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? 1 : 0, &one_src, &one_deg,
                                  &one_dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
  CHECK_MPI(MPI_Dist_graph_neighbors_count(d, &indeg, &outdeg, &weighted));
  CHECK(weighted == 0);
  CHECK(indeg == (rank == size - 1) && outdeg == (rank == 0));
  int x = value(rank, 0, 0), y = MARK;
  CHECK_MPI(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, d));
  CHECK(y == (rank == size - 1 ? value(0, 0, 0) : MARK));
  CHECK_MPI(MPI_Comm_free(&d));
}

/* ---- A grid: dims from Dims_create, periodic along dimension 0 only. Block 2d goes to
 * the neighbor below along d, 2d + 1 above; what comes from below is what it sent up. The
 * blocks of neighbors past the non-periodic edge stay untouched, through a staged type
 * too. Then a 1-D periodic ring, whose neighbors below and above are one process at 1 and 2
 * ranks. */
static void grid(int ndims, int periodic_all, int stride, int nonblocking) {
  int dims[2] = {0, 0}, periods[2] = {1, periodic_all};
  CHECK_MPI(MPI_Dims_create(size, ndims, dims));
  MPI_Comm g;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &g));
  MPI_Datatype t = stride == 2 ? strided_int_type() : MPI_INT;
  const int nb = 2 * ndims;
  int out[4 * N], in[4 * N * 2], gathered[4 * N * 2], mine[N];
  for (int b = 0; b < nb; ++b)
    for (int i = 0; i < N; ++i) out[b * N + i] = value(rank, b, i);
  for (int i = 0; i < N; ++i) mine[i] = value(rank, 9, i);
  for (int k = 0; k < 4 * N * 2; ++k) in[k] = gathered[k] = MARK;
  if (nonblocking) {
    MPI_Request req[2];
    CHECK_MPI(MPI_Ineighbor_alltoall(out, N, MPI_INT, in, N, t, g, &req[0]));
    CHECK_MPI(MPI_Ineighbor_allgather(mine, N, MPI_INT, gathered, N, t, g, &req[1]));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  } else {
    CHECK_MPI(MPI_Neighbor_alltoall(out, N, MPI_INT, in, N, t, g));
    CHECK_MPI(MPI_Neighbor_allgather(mine, N, MPI_INT, gathered, N, t, g));
  }
  int want[4 * N * 2], wantg[4 * N * 2];
  for (int k = 0; k < 4 * N * 2; ++k) want[k] = wantg[k] = MARK;
  for (int d = 0; d < ndims; ++d) {
    int below, above;
    CHECK_MPI(MPI_Cart_shift(g, d, 1, &below, &above));
    for (int i = 0; i < N; ++i) {
      const int at_below = ((2 * d) * N + i) * stride, at_above = ((2 * d + 1) * N + i) * stride;
      if (below != MPI_PROC_NULL) {
        want[at_below] = value(below, 2 * d + 1, i);
        wantg[at_below] = value(below, 9, i);
      }
      if (above != MPI_PROC_NULL) {
        want[at_above] = value(above, 2 * d, i);
        wantg[at_above] = value(above, 9, i);
      }
    }
  }
  CHECK(memcmp(in, want, sizeof(int) * (size_t)(nb * N * stride)) == 0);
  CHECK(memcmp(gathered, wantg, sizeof(int) * (size_t)(nb * N * stride)) == 0);
  if (stride == 2) CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Comm_free(&g));
}

/* ---- Persistent neighborhood collectives: on a periodic ring (below and above the same
 * process at 1 and 2 ranks) an alltoall and an allgather restarted over rounds with new
 * data; on the adjacent distributed graph an alltoallv and an alltoallw whose count arrays
 * are overwritten after init. */
static void persistent_neighbors(void) {
  int dims[1] = {size}, periods[1] = {1};
  MPI_Comm ring;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  int below, above;
  CHECK_MPI(MPI_Cart_shift(ring, 0, 1, &below, &above));
  int out[2], in[2], mine = 0, all[2];
  MPI_Request req[4];
  CHECK_MPI(MPI_Neighbor_alltoall_init(out, 1, MPI_INT, in, 1, MPI_INT, ring, MPI_INFO_NULL,
                                       &req[0]));
  CHECK_MPI(MPI_Neighbor_allgather_init(&mine, 1, MPI_INT, all, 1, MPI_INT, ring,
                                        MPI_INFO_NULL, &req[1]));
  for (int round = 0; round < 3; ++round) {
    out[0] = value(rank, 0, round);
    out[1] = value(rank, 1, round);
    mine = value(rank, 9, round);
    CHECK_MPI(MPI_Startall(2, req));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    CHECK(in[0] == value(below, 1, round) && in[1] == value(above, 0, round));
    CHECK(all[0] == value(below, 9, round) && all[1] == value(above, 9, round));
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
  CHECK_MPI(MPI_Comm_free(&ring));

  int dst[2], src[2] = {(rank + size - 1) % size, (rank + 2 * size - 2) % size};
  adjacent_out(rank, dst);
  MPI_Comm d;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
  int sc[2] = {1, 1}, sd[2] = {0, 1}, rc[2] = {1, 1}, rd[2] = {0, 1};
  MPI_Aint sb[2] = {0, sizeof(int)}, rb[2] = {0, sizeof(int)};
  MPI_Datatype ts[2] = {MPI_INT, MPI_INT};
  int vin[2], win[2];
  CHECK_MPI(MPI_Neighbor_alltoallv_init(out, sc, sd, MPI_INT, vin, rc, rd, MPI_INT, d,
                                        MPI_INFO_NULL, &req[2]));
  CHECK_MPI(MPI_Neighbor_alltoallw_init(out, sc, sb, ts, win, rc, rb, ts, d, MPI_INFO_NULL,
                                        &req[3]));
  sc[0] = sc[1] = rc[0] = rc[1] = -1; /* the requests kept their own */
  sb[0] = rb[1] = -4;
  for (int round = 0; round < 2; ++round) {
    out[0] = value(rank, 0, 10 + round);
    out[1] = value(rank, 1, 10 + round);
    CHECK_MPI(MPI_Startall(2, &req[2]));
    CHECK_MPI(MPI_Waitall(2, &req[2], MPI_STATUSES_IGNORE));
    for (int b = 0; b < 2; ++b) {
      int theirs[2];
      adjacent_out(src[b], theirs);
      const int j = nth(theirs, 2, rank, occurrence(src, b));
      CHECK(vin[b] == value(src[b], j, 10 + round) && win[b] == vin[b]);
    }
  }
  CHECK_MPI(MPI_Request_free(&req[2]));
  CHECK_MPI(MPI_Request_free(&req[3]));
  CHECK_MPI(MPI_Comm_free(&d));
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x = 0, y = 0, nn, ne;
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK(error_class_of(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT,
                                              MPI_COMM_WORLD)) == MPI_ERR_TOPOLOGY);
  CHECK(error_class_of(MPI_Ineighbor_alltoall(&x, 1, MPI_INT, &y, 1, MPI_INT, MPI_COMM_WORLD,
                                              &req)) == MPI_ERR_TOPOLOGY);
  CHECK(req == MPI_REQUEST_NULL);
  CHECK(error_class_of(MPI_Graphdims_get(MPI_COMM_WORLD, &nn, &ne)) == MPI_ERR_TOPOLOGY);
  int index[1] = {1}, bad_edge[1] = {size};
  MPI_Comm c;
  CHECK(error_class_of(MPI_Graph_create(MPI_COMM_WORLD, 1, index, bad_edge, 0, &c)) ==
        MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, bad_edge, 0, &c)) ==
        MPI_ERR_ARG);
  int bad_rank = size;
  CHECK(error_class_of(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad_rank,
                                                      MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                                      MPI_INFO_NULL, 0, &c)) == MPI_ERR_RANK);
  int dims[1] = {size}, periods[1] = {1};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
  CHECK(error_class_of(MPI_Graph_neighbors_count(c, 0, &nn)) == MPI_ERR_TOPOLOGY);
  CHECK(error_class_of(MPI_Dist_graph_neighbors_count(c, &nn, &ne, &x)) == MPI_ERR_TOPOLOGY);
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  CHECK(error_class_of(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, &y, 1, MPI_INT, c)) ==
        MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64);
  graph(size);
  if (size > 1) graph(size - 1);
  adjacent();
  general();
  for (int nonblocking = 0; nonblocking <= 1; ++nonblocking)
    for (int stride = 1; stride <= 2; ++stride) {
      grid(2, 0, stride, nonblocking);
      grid(1, 1, stride, nonblocking);
    }
  persistent_neighbors();
  errors();
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi topo_graph ok: %d ranks\n", size);
  return 0;
}
