/* MPI 4.0's large-count neighborhood collectives on a periodic ring: Neighbor_allgatherv_c,
 * Neighbor_alltoallv_c and Neighbor_alltoallw_c, blocking, nonblocking and persistent
 * (started twice, the inputs changed in between), the odd ranks on the per-peer path. Not
 * run: Neighbor_alltoallw_c's per-peer path (its int form takes MPI_Aint displacements
 * already, so only a count above INT_MAX leaves it), which shares the per-peer types and
 * MPI_Neighbor_alltoallw with Neighbor_alltoallv_c's. Any size. */
#define _POSIX_C_SOURCE 200809L
#include "large_count_vec_forms.h"

/* A periodic ring: source and destination 0 are the left neighbour, 1 the right (the same
 * process at 1 and 2 ranks). Block 0 goes left as ints, block 1 right (as shorts for the
 * w-form); the odd ranks take the per-peer path when `big`. */
static void neighborhood(int form, int big) {
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  int me, n;
  MPI_Comm_rank(ring, &me);
  MPI_Comm_size(ring, &n);
  const int left = (me + n - 1) % n, right = (me + 1) % n, me_big = big && me % 2 == 1;
  MPI_Request r;
  /* Neighbor_allgatherv_c: cnt(p) ints from each neighbour p. */
  MPI_Count gc[2] = {cnt(left, form), cnt(right, form)};
  MPI_Aint grel[2], gd[2];
  const size_t glen = gapped(2, gc, grel);
  int got[10], gwant[10], mine[4];
  memcpy(gd, grel, sizeof gd);
  if (me_big) absolute(2, grel, gd, got, sizeof(int));
  void* gbuf = me_big ? MPI_BOTTOM : got;
  for (int round = 0; round < rounds(form); ++round) {
    for (int k = 0; k < 4; ++k) mine[k] = me * 100 + k + round;
    for (int k = 0; k < 10; ++k) got[k] = gwant[k] = -7;
    if (form == BLOCKING)
      CHECK_MPI(MPI_Neighbor_allgatherv_c(mine, cnt(me, form), MPI_INT, gbuf, gc, gd, MPI_INT,
                                          ring));
    else if (form == NONBLOCKING)
      CHECK_MPI(MPI_Ineighbor_allgatherv_c(mine, cnt(me, form), MPI_INT, gbuf, gc, gd, MPI_INT,
                                           ring, &r));
    else if (round == 0)
      CHECK_MPI(MPI_Neighbor_allgatherv_init_c(mine, cnt(me, form), MPI_INT, gbuf, gc, gd,
                                               MPI_INT, ring, MPI_INFO_NULL, &r));
    complete(form, &r);
    for (int k = 0; k < gc[0]; ++k) gwant[grel[0] + k] = left * 100 + k + round;
    for (int k = 0; k < gc[1]; ++k) gwant[grel[1] + k] = right * 100 + k + round;
    CHECK(glen <= 10 && memcmp(got, gwant, sizeof got) == 0);
  }
  done(form, &r);

  /* Neighbor_alltoallv_c (w == 0) and Neighbor_alltoallw_c (w == 1): block d (0 left,
   * 1 right) of p holds (p + d + form) % 3 elements p * 1000 + d * 100 + k + round. MPICH
   * swaps or drops the blocks when both neighbours are the same process. */
  for (int w = 0; w < 2 && !MPICH_FAILS(size <= 2); ++w) {
    const int sbytes[2] = {4, w ? 2 : 4}, rbytes[2] = {w ? 2 : 4, 4};
    const MPI_Datatype stypes[2] = {MPI_INT, w ? MPI_SHORT : MPI_INT};
    const MPI_Datatype rtypes[2] = {w ? MPI_SHORT : MPI_INT, MPI_INT};
    MPI_Count sc[2] = {(me + form) % 3, (me + 1 + form) % 3};
    /* From the left its block 1 (sent right), from the right its block 0. */
    MPI_Count rc[2] = {(left + 1 + form) % 3, (right + form) % 3};
    const MPI_Aint soff[2] = {4, 16}, roff[2] = {4, 16};  /* bytes; blocks of 3 at most */
    MPI_Aint sd[2], rd[2];
    _Alignas(8) unsigned char send[32], recv[32], want[32];
    const size_t unit = w ? 1 : 4;
    for (int d = 0; d < 2; ++d) sd[d] = soff[d] / (MPI_Aint)unit, rd[d] = roff[d] / (MPI_Aint)unit;
    if (me_big) {
      absolute(2, sd, sd, send, unit);
      absolute(2, rd, rd, recv, unit);
    }
    const void* sbuf = me_big ? MPI_BOTTOM : send;
    void* rbuf = me_big ? MPI_BOTTOM : recv;
    for (int round = 0; round < rounds(form); ++round) {
      memset(send, 0xa5, sizeof send);
      memset(recv, 0x5a, sizeof recv);
      memset(want, 0x5a, sizeof want);
      for (int d = 0; d < 2; ++d)
        for (int k = 0; k < sc[d]; ++k)
          put(send + soff[d] + k * sbytes[d], sbytes[d], me * 1000 + d * 100 + k + round);
      for (int k = 0; k < rc[0]; ++k)
        put(want + roff[0] + k * rbytes[0], rbytes[0], left * 1000 + 100 + k + round);
      for (int k = 0; k < rc[1]; ++k)
        put(want + roff[1] + k * rbytes[1], rbytes[1], right * 1000 + k + round);
      if (!w) {
        if (form == BLOCKING)
          CHECK_MPI(MPI_Neighbor_alltoallv_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, ring));
        else if (form == NONBLOCKING)
          CHECK_MPI(MPI_Ineighbor_alltoallv_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, ring,
                                              &r));
        else if (round == 0)
          CHECK_MPI(MPI_Neighbor_alltoallv_init_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT,
                                                  ring, MPI_INFO_NULL, &r));
      } else {
        if (form == BLOCKING)
          CHECK_MPI(MPI_Neighbor_alltoallw_c(sbuf, sc, sd, stypes, rbuf, rc, rd, rtypes, ring));
        else if (form == NONBLOCKING)
          CHECK_MPI(MPI_Ineighbor_alltoallw_c(sbuf, sc, sd, stypes, rbuf, rc, rd, rtypes, ring,
                                              &r));
        else if (round == 0)
          CHECK_MPI(MPI_Neighbor_alltoallw_init_c(sbuf, sc, sd, stypes, rbuf, rc, rd, rtypes,
                                                  ring, MPI_INFO_NULL, &r));
      }
      complete(form, &r);
      CHECK(memcmp(recv, want, sizeof recv) == 0);
    }
    done(form, &r);
  }
  CHECK_MPI(MPI_Comm_free(&ring));
}

int main(int argc, char** argv) {
  lcv_init(&argc, &argv);
  for (int form = BLOCKING; form <= PERSISTENT; ++form) {
    neighborhood(form, 0);
    neighborhood(form, 1);
  }
  return lcv_finish("large_count_vec_nbr");
}
