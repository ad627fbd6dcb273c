/* Nonblocking vector collectives: Igatherv and Iscatterv at every root, Iallgatherv and
 * Ialltoallv, with per-rank counts (zeros among them) and gaps between the blocks, on MPI_INT
 * and on a strided vector type (the staged path), MPI_IN_PLACE where the standard allows;
 * every element against a local reference and every gap untouched. The four are also started
 * together on the world and a duplicate and completed by one Waitall. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;

#define GAP 2          /* elements left between blocks, never written */
#define MARK (-777)    /* what every gap and every unwritten element holds */

static int count_of(int from, int to) { return (from * 7 + to * 3 + 1) % 6; } /* 0..5 */
static int value(int from, int to, int i) { return 100000 * from + 1000 * to + i; }

/* Displacements of blocks with counts[i], GAP elements apart; returns the total extent. */
static int layout(const int* counts, int* displs) {
  int at = GAP;
  for (int i = 0; i < size; ++i) {
    displs[i] = at;
    at += counts[i] + GAP;
  }
  return at;
}

/* `stride` 1: MPI_INT; 2: each element every other int (the odd ints must stay MARK). */
static MPI_Datatype elem_type(int stride) { return stride == 1 ? MPI_INT : strided_int_type(); }

static int* marked(int n) { return marked_ints(n, MARK); }

/* buf holds, at displs[b] (in elements of `stride` ints), counts[b] values want(b, i);
 * everything else is MARK. */
static void expect_blocks(const int* buf, int total, int stride, const int* counts,
                          const int* displs, int (*want)(int b, int i)) {
  int* ref = marked(total * stride);
  for (int b = 0; b < size; ++b)
    for (int i = 0; i < counts[b]; ++i) ref[(displs[b] + i) * stride] = want(b, i);
  for (int k = 0; k < total * stride; ++k) CHECK(buf[k] == ref[k]);
  free(ref);
}

static int g_root;
static int want_gather(int b, int i) { return value(b, g_root, i); }
static int want_allgather(int b, int i) { return value(b, -1, i); }
static int want_alltoall(int b, int i) { return value(b, rank, i); }

static void gatherv_scatterv(int stride, int in_place) {
  MPI_Datatype t = elem_type(stride);
  for (int root = 0; root < size; ++root) {
    g_root = root;
    int counts[64], displs[64];
    for (int i = 0; i < size; ++i) counts[i] = count_of(i, root);
    const int total = layout(counts, displs);
    /* Igatherv: rank i sends counts[i] values to root. */
    int* rbuf = marked(total * stride);
    const int mine = counts[rank];
    int* sbuf = marked(mine * stride);
    for (int i = 0; i < mine; ++i) sbuf[i * stride] = value(rank, root, i);
    const int use_in_place = in_place && rank == root;
    if (use_in_place)
      for (int i = 0; i < mine; ++i) rbuf[(displs[rank] + i) * stride] = value(rank, root, i);
    MPI_Request req;
    CHECK_MPI(MPI_Igatherv(use_in_place ? MPI_IN_PLACE : sbuf, mine, t, rbuf, counts, displs, t,
                           root, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank == root) expect_blocks(rbuf, total, stride, counts, displs, want_gather);
    /* Iscatterv: the root sends the same blocks back; each rank checks its own. */
    int* back = marked(mine * stride);
    CHECK_MPI(MPI_Iscatterv(rbuf, counts, displs, t, use_in_place ? MPI_IN_PLACE : back, mine,
                            t, root, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (!use_in_place)
      for (int k = 0; k < mine * stride; ++k)
        CHECK(back[k] == (k % stride == 0 ? value(rank, root, k / stride) : MARK));
    free(back);
    free(sbuf);
    free(rbuf);
  }
  if (t != MPI_INT) MPI_Type_free(&t);
}

static void allgatherv(int stride, int in_place) {
  MPI_Datatype t = elem_type(stride);
  int counts[64], displs[64];
  for (int i = 0; i < size; ++i) counts[i] = count_of(i, i);
  const int total = layout(counts, displs);
  int* rbuf = marked(total * stride);
  const int mine = counts[rank];
  int* sbuf = marked(mine * stride);
  for (int i = 0; i < mine; ++i) sbuf[i * stride] = value(rank, -1, i);
  if (in_place)
    for (int i = 0; i < mine; ++i) rbuf[(displs[rank] + i) * stride] = value(rank, -1, i);
  MPI_Request req;
  CHECK_MPI(MPI_Iallgatherv(in_place ? MPI_IN_PLACE : sbuf, mine, t, rbuf, counts, displs, t,
                            MPI_COMM_WORLD, &req));
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
  expect_blocks(rbuf, total, stride, counts, displs, want_allgather);
  free(sbuf);
  free(rbuf);
  if (t != MPI_INT) MPI_Type_free(&t);
}

/* Fills the send side of an alltoallv: block d holds count_of(rank, d) values for rank d. */
static int* alltoall_send(int stride, int* scounts, int* sdispls, int* rcounts, int* rdispls,
                          int* rtotal) {
  for (int i = 0; i < size; ++i) {
    scounts[i] = count_of(rank, i);
    rcounts[i] = count_of(i, rank);
  }
  const int stotal = layout(scounts, sdispls);
  *rtotal = layout(rcounts, rdispls);
  int* sbuf = marked(stotal * stride);
  for (int d = 0; d < size; ++d)
    for (int i = 0; i < scounts[d]; ++i) sbuf[(sdispls[d] + i) * stride] = value(rank, d, i);
  return sbuf;
}

static void alltoallv(int stride) {
  MPI_Datatype t = elem_type(stride);
  int scounts[64], sdispls[64], rcounts[64], rdispls[64], rtotal;
  int* sbuf = alltoall_send(stride, scounts, sdispls, rcounts, rdispls, &rtotal);
  int* rbuf = marked(rtotal * stride);
  MPI_Request req;
  CHECK_MPI(MPI_Ialltoallv(sbuf, scounts, sdispls, t, rbuf, rcounts, rdispls, t,
                           MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  expect_blocks(rbuf, rtotal, stride, rcounts, rdispls, want_alltoall);
  free(sbuf);
  free(rbuf);
  if (t != MPI_INT) MPI_Type_free(&t);
}

/* All four pending at once, half on a duplicate of the world, one Waitall. */
static void together(void) {
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int gc[64], gd[64], ac[64], ad[64];
  for (int i = 0; i < size; ++i) gc[i] = ac[i] = count_of(i, 0);
  const int gtotal = layout(gc, gd), atotal = layout(ac, ad);
  const int mine = gc[rank];
  int* gs = marked(mine);
  int* as = marked(mine);
  for (int i = 0; i < mine; ++i) gs[i] = as[i] = value(rank, 0, i);
  int* gr = marked(gtotal);
  int* ar = marked(atotal);
  int scounts[64], sdispls[64], rcounts[64], rdispls[64], rtotal;
  int* ts = alltoall_send(1, scounts, sdispls, rcounts, rdispls, &rtotal);
  int* tr = marked(rtotal);
  int* back = marked(mine);
  int* ss = marked(gtotal); /* the scatter's root sends every block from the gathered layout */
  for (int d = 0; d < size; ++d)
    for (int i = 0; i < gc[d]; ++i) ss[gd[d] + i] = value(d, 0, i);
  MPI_Request reqs[4];
  CHECK_MPI(MPI_Igatherv(gs, mine, MPI_INT, gr, gc, gd, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Ialltoallv(ts, scounts, sdispls, MPI_INT, tr, rcounts, rdispls, MPI_INT, dup,
                           &reqs[1]));
  CHECK_MPI(MPI_Iallgatherv(as, mine, MPI_INT, ar, ac, ad, MPI_INT, MPI_COMM_WORLD, &reqs[2]));
  CHECK_MPI(MPI_Iscatterv(ss, gc, gd, MPI_INT, back, mine, MPI_INT, size - 1, dup, &reqs[3]));
  CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
  g_root = 0;
  if (rank == 0) expect_blocks(gr, gtotal, 1, gc, gd, want_gather);
  expect_blocks(tr, rtotal, 1, rcounts, rdispls, want_alltoall);
  for (int b = 0; b < size; ++b)
    for (int i = 0; i < ac[b]; ++i) CHECK(ar[ad[b] + i] == value(b, 0, i));
  for (int i = 0; i < mine; ++i) CHECK(back[i] == value(rank, 0, i));
  free(gs), free(as), free(gr), free(ar), free(ts), free(tr), free(back), free(ss);
  CHECK_MPI(MPI_Comm_free(&dup));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64);
  for (int stride = 1; stride <= 2; ++stride) {
    gatherv_scatterv(stride, 0);
    gatherv_scatterv(stride, 1);
    allgatherv(stride, 0);
    allgatherv(stride, 1);
    alltoallv(stride);
  }
  together();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("mpi icoll_v ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
