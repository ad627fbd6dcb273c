/* Persistent collectives (MPI 4.0): Allreduce_init restarted over rounds whose input changes
 * between starts; Bcast_init at every root and Barrier_init, started together by Startall;
 * Allgather_init on a strided type freed right after init; Alltoallv_init whose count
 * arrays the program overwrites after init (the request kept its own); Reduce_init,
 * Reduce_scatter(_block)_init, Scan/Exscan_init, Gather(v)/Scatter(v)_init, Alltoall_init,
 * Alltoallw_init, Allgatherv_init, each over several rounds against local references;
 * Test loops, Request_free of an inactive request; a bad count shows at MPI_Start, through
 * a user handler called once; MPI_ERR_COMM and MPI_ERR_ARG at init. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;
enum { kRounds = 4 };

static void allreduce_rounds(void) {
  int in[3] = {0, 0, 0}, out[3] = {0, 0, 0};
  MPI_Request req;
  CHECK_MPI(MPI_Allreduce_init(in, out, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < 3; ++i) in[i] = rank * 10 + round + i;
    CHECK_MPI(MPI_Start(&req));
    if (round % 2) {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    CHECK(req != MPI_REQUEST_NULL); /* persistent: inactive, not freed */
    for (int i = 0; i < 3; ++i) CHECK(out[i] == 10 * size * (size - 1) / 2 + size * (round + i));
  }
  CHECK_MPI(MPI_Request_free(&req));
  CHECK(req == MPI_REQUEST_NULL);
}

static void startall_bcasts(void) {
  MPI_Request req[65];
  int val[64];
  for (int root = 0; root < size; ++root)
    CHECK_MPI(MPI_Bcast_init(&val[root], 1, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &req[root]));
  CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req[size]));
  for (int round = 0; round < kRounds; ++round) {
    for (int root = 0; root < size; ++root) val[root] = rank == root ? 100 * root + round : -1;
    CHECK_MPI(MPI_Startall(size + 1, req));
    CHECK_MPI(MPI_Waitall(size + 1, req, MPI_STATUSES_IGNORE));
    for (int root = 0; root < size; ++root) CHECK(val[root] == 100 * root + round);
  }
  for (int i = 0; i <= size; ++i) CHECK_MPI(MPI_Request_free(&req[i]));
}

static void allgather_freed_type(void) {
  MPI_Datatype t = strided_int_type();
  int mine = 0, *all = marked_ints(2 * size, -1);
  MPI_Request req;
  CHECK_MPI(MPI_Allgather_init(&mine, 1, MPI_INT, all, 1, t, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &req));
  CHECK_MPI(MPI_Type_free(&t)); /* the request holds its own */
  for (int round = 0; round < kRounds; ++round) {
    mine = rank * 7 + round;
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int r = 0; r < size; ++r) CHECK(all[2 * r] == r * 7 + round && all[2 * r + 1] == -1);
  }
  CHECK_MPI(MPI_Request_free(&req));
  free(all);
}

static void vector_and_rooted(void) {
  int* sc = malloc(sizeof(int) * (size_t)size);
  int* sd = malloc(sizeof(int) * (size_t)size);
  int* rc = malloc(sizeof(int) * (size_t)size);
  int* rd = malloc(sizeof(int) * (size_t)size);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * (size_t)size);
  int* sbuf = malloc(sizeof(int) * 2 * (size_t)size);
  int* rbuf = malloc(sizeof(int) * 2 * (size_t)size);
  int* wbuf = malloc(sizeof(int) * 2 * (size_t)size);
  int* wsd = malloc(sizeof(int) * (size_t)size);
  int* wrd = malloc(sizeof(int) * (size_t)size);
  for (int p = 0; p < size; ++p) {
    sc[p] = rc[p] = 2;
    sd[p] = rd[p] = 2 * p;
    wsd[p] = wrd[p] = 2 * p * (int)sizeof(int);
    types[p] = MPI_INT;
  }
  MPI_Request req[9];
  CHECK_MPI(MPI_Alltoallv_init(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req[0]));
  CHECK_MPI(MPI_Alltoallw_init(sbuf, sc, wsd, types, wbuf, rc, wrd, types, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req[1]));
  /* Overwritten after init: the requests kept the values they were given. */
  for (int p = 0; p < size; ++p) sc[p] = rc[p] = sd[p] = rd[p] = wsd[p] = wrd[p] = -9;
  int red_in[2], red_out[2] = {-1, -1}, scan_out = -1, exscan_out = -5, rsb_out = -1;
  int* rs_counts = malloc(sizeof(int) * (size_t)size);
  for (int p = 0; p < size; ++p) rs_counts[p] = 1;
  int* rs_in = malloc(sizeof(int) * (size_t)size);
  int rs_out = -1;
  CHECK_MPI(MPI_Reduce_init(red_in, red_out, 2, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &req[2]));
  CHECK_MPI(MPI_Scan_init(&red_in[0], &scan_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &req[3]));
  CHECK_MPI(MPI_Exscan_init(&red_in[0], &exscan_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &req[4]));
  CHECK_MPI(MPI_Reduce_scatter_init(rs_in, &rs_out, rs_counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                    MPI_INFO_NULL, &req[5]));
  CHECK_MPI(MPI_Reduce_scatter_block_init(rs_in, &rsb_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                          MPI_INFO_NULL, &req[6]));
  int g_in = 0, *g_all = malloc(sizeof(int) * (size_t)size), s_out = -1;
  CHECK_MPI(MPI_Gather_init(&g_in, 1, MPI_INT, g_all, 1, MPI_INT, 0, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &req[7]));
  int* s_all = malloc(sizeof(int) * (size_t)size);
  CHECK_MPI(MPI_Scatter_init(s_all, 1, MPI_INT, &s_out, 1, MPI_INT, 0, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &req[8]));
  for (int round = 0; round < kRounds; ++round) {
    for (int p = 0; p < size; ++p) {
      sbuf[2 * p] = 1000 * rank + 10 * p + round;
      sbuf[2 * p + 1] = -(1000 * rank + 10 * p + round);
      rs_in[p] = rank + p + round;
      s_all[p] = rank == 0 ? 50 * p + round : -1;
    }
    red_in[0] = rank + round;
    red_in[1] = -rank;
    g_in = 3 * rank + round;
    CHECK_MPI(MPI_Startall(9, req));
    CHECK_MPI(MPI_Waitall(9, req, MPI_STATUSES_IGNORE));
    for (int p = 0; p < size; ++p) {
      CHECK(rbuf[2 * p] == 1000 * p + 10 * rank + round);
      CHECK(rbuf[2 * p + 1] == -(1000 * p + 10 * rank + round));
      CHECK(wbuf[2 * p] == rbuf[2 * p] && wbuf[2 * p + 1] == rbuf[2 * p + 1]);
    }
    if (rank == size - 1) CHECK(red_out[0] == size - 1 + round && red_out[1] == 0);
    CHECK(scan_out == rank * (rank + 1) / 2 + (rank + 1) * round);
    if (rank > 0) CHECK(exscan_out == (rank - 1) * rank / 2 + rank * round);
    CHECK(rs_out == size * (size - 1) / 2 + size * (rank + round));
    CHECK(rsb_out == rs_out);
    if (rank == 0)
      for (int p = 0; p < size; ++p) CHECK(g_all[p] == 3 * p + round);
    CHECK(s_out == 50 * rank + round);
  }
  if (rank == 0) CHECK(exscan_out == -5); /* never written on rank 0 */
  for (int i = 0; i < 9; ++i) CHECK_MPI(MPI_Request_free(&req[i]));
  free(sc), free(sd), free(rc), free(rd), free(types), free(sbuf), free(rbuf), free(wbuf);
  free(wsd), free(wrd), free(rs_counts), free(rs_in), free(g_all), free(s_all);
}

static void vector_rooted_gathers(void) {
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  int total = 0;
  for (int p = 0; p < size; ++p) {
    counts[p] = p % 3;
    displs[p] = total;
    total += counts[p];
  }
  int mine[2], *all = marked_ints(total, -1), *gv = marked_ints(total, -1), got[2] = {-1, -1};
  MPI_Request req[3];
  CHECK_MPI(MPI_Allgatherv_init(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
  CHECK_MPI(MPI_Gatherv_init(mine, counts[rank], MPI_INT, gv, counts, displs, MPI_INT, 0,
                             MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  CHECK_MPI(MPI_Scatterv_init(all, counts, displs, MPI_INT, got, counts[rank], MPI_INT, 0,
                              MPI_COMM_WORLD, MPI_INFO_NULL, &req[2]));
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < 2; ++i) mine[i] = 100 * rank + 10 * round + i;
    CHECK_MPI(MPI_Startall(2, req));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int p = 0; p < size; ++p)
      for (int i = 0; i < counts[p]; ++i) {
        CHECK(all[displs[p] + i] == 100 * p + 10 * round + i);
        if (rank == 0) CHECK(gv[displs[p] + i] == 100 * p + 10 * round + i);
      }
    /* Scatterv sends back from rank 0's `all` (what the Allgatherv just filled). */
    CHECK_MPI(MPI_Start(&req[2]));
    CHECK_MPI(MPI_Wait(&req[2], MPI_STATUS_IGNORE));
    for (int i = 0; i < counts[rank]; ++i) CHECK(got[i] == 100 * rank + 10 * round + i);
  }
  for (int i = 0; i < 3; ++i) CHECK_MPI(MPI_Request_free(&req[i]));
  free(counts), free(displs), free(all), free(gv);
}

static int handler_calls;
static void count_calls(MPI_Comm* comm, int* code, ...) {
  (void)comm, (void)code;
  ++handler_calls;
}

static void errors(void) {
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_create_errhandler(count_calls, &eh));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
  int x = 0, y = 0;
  MPI_Request req;
  CHECK_MPI(MPI_Allreduce_init(&x, &y, -1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &req));
  CHECK(error_class_of(MPI_Start(&req)) == MPI_ERR_COUNT);
  CHECK(handler_calls == 1); /* once, not once more by MPI_Start */
  CHECK_MPI(MPI_Request_free(&req));
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(error_class_of(MPI_Barrier_init(MPI_COMM_NULL, MPI_INFO_NULL, &req)) == MPI_ERR_COMM);
  CHECK(error_class_of(MPI_Bcast_init(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, NULL)) ==
        MPI_ERR_ARG);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64);
  allreduce_rounds();
  startall_bcasts();
  allgather_freed_type();
  vector_and_rooted();
  vector_rooted_gathers();
  errors();
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi coll_persistent ok: %d ranks\n", size);
  return 0;
}
