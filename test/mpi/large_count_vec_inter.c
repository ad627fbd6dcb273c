/* MPI 4.0's large-count vector collectives on an intercommunicator between the even and the
 * odd ranks: Gatherv_c, Scatterv_c, Allgatherv_c and Alltoallv_c, blocking and nonblocking,
 * the roots and the odd group on the per-peer path or not. Any size (nothing at one rank). */
#define _POSIX_C_SOURCE 200809L
#include "large_count_vec_forms.h"

/* Between the even and the odd ranks (2 ranks or more): Gatherv_c to local rank 0 of the
 * even group, Scatterv_c from local rank 0 of the odd one, Allgatherv_c, Alltoallv_c,
 * blocking and nonblocking; when `big`, the roots and the odd group's processes on the
 * per-peer path. */
static void intercomm(int nonblocking, int big) {
  MPI_Comm local, inter;
  const int color = rank % 2;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : 1, 77, &inter));
  int me, rsize;
  MPI_Comm_rank(inter, &me);
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Count counts[8], rc[8], sc[8];
  MPI_Aint rel[8], displs[8], srel[8], sd[8];
  int buf[40], want[40], mine[4], send[40];
  /* Rooted: the even group's local rank 0 gathers from the odd group, the odd group's
   * scatters to the even group; cnt(i) ints from/to remote rank i. */
  for (int i = 0; i < rsize; ++i) counts[i] = cnt(i, 1);
  const size_t len = gapped(rsize, counts, rel);
  const int is_root = me == 0, root_big = big && is_root;
  memcpy(displs, rel, sizeof(MPI_Aint) * (size_t)rsize);
  for (int k = 0; k < 40; ++k) buf[k] = want[k] = send[k] = -7;
  for (int k = 0; k < 4; ++k) mine[k] = me * 100 + k;
  if (color == 0) {
    const int root = is_root ? MPI_ROOT : MPI_PROC_NULL;
    if (root_big) absolute(rsize, rel, displs, buf, sizeof(int));
    void* rbuf = root_big ? MPI_BOTTOM : buf;
    if (nonblocking)
      CHECK_MPI(MPI_Igatherv_c(NULL, 0, MPI_INT, rbuf, counts, displs, MPI_INT, root, inter, &r));
    else
      CHECK_MPI(MPI_Gatherv_c(NULL, 0, MPI_INT, rbuf, counts, displs, MPI_INT, root, inter));
  } else {
    const int n = (int)cnt(me, 1);
    if (nonblocking)
      CHECK_MPI(MPI_Igatherv_c(mine, n, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, inter, &r));
    else
      CHECK_MPI(MPI_Gatherv_c(mine, n, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, inter));
  }
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  if (color == 0 && is_root) {
    for (int i = 0; i < rsize; ++i)
      for (int k = 0; k < counts[i]; ++k) want[rel[i] + k] = i * 100 + k;
    CHECK(len <= 40 && memcmp(buf, want, sizeof buf) == 0);
  }
  for (int k = 0; k < 40; ++k) buf[k] = want[k] = -7;
  if (color == 1) {
    const int root = is_root ? MPI_ROOT : MPI_PROC_NULL;
    for (int i = 0; i < rsize; ++i)
      for (int k = 0; k < counts[i]; ++k) send[rel[i] + k] = i * 100 + k + 50;
    memcpy(displs, rel, sizeof(MPI_Aint) * (size_t)rsize);
    if (root_big) absolute(rsize, rel, displs, send, sizeof(int));
    const void* sbuf = root_big ? MPI_BOTTOM : send;
    if (nonblocking)
      CHECK_MPI(MPI_Iscatterv_c(sbuf, counts, displs, MPI_INT, NULL, 0, MPI_INT, root, inter,
                                &r));
    else
      CHECK_MPI(MPI_Scatterv_c(sbuf, counts, displs, MPI_INT, NULL, 0, MPI_INT, root, inter));
  } else {
    const MPI_Count n = cnt(me, 1);
    if (nonblocking)
      CHECK_MPI(MPI_Iscatterv_c(NULL, NULL, NULL, MPI_INT, buf, n, MPI_INT, 0, inter, &r));
    else
      CHECK_MPI(MPI_Scatterv_c(NULL, NULL, NULL, MPI_INT, buf, n, MPI_INT, 0, inter));
  }
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  if (color == 0) {
    for (int k = 0; k < cnt(me, 1); ++k) want[k] = me * 100 + k + 50;
    CHECK(memcmp(buf, want, sizeof buf) == 0);
  }

  /* Allgatherv_c: every process sends cnt(me + color) ints to the whole remote group. */
  for (int i = 0; i < rsize; ++i) counts[i] = cnt(i + 1 - color, 2);
  const size_t alen = gapped(rsize, counts, rel);
  memcpy(displs, rel, sizeof(MPI_Aint) * (size_t)rsize);
  for (int k = 0; k < 40; ++k) buf[k] = want[k] = -7;
  const int me_big = big && color == 1;
  if (me_big) absolute(rsize, rel, displs, buf, sizeof(int));
  void* abuf = me_big ? MPI_BOTTOM : buf;
  if (nonblocking)
    CHECK_MPI(MPI_Iallgatherv_c(mine, cnt(me + color, 2), MPI_INT, abuf, counts, displs, MPI_INT,
                                inter, &r));
  else
    CHECK_MPI(MPI_Allgatherv_c(mine, cnt(me + color, 2), MPI_INT, abuf, counts, displs, MPI_INT,
                               inter));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int i = 0; i < rsize; ++i)
    for (int k = 0; k < counts[i]; ++k) want[rel[i] + k] = i * 100 + k;
  CHECK(alen <= 40 && memcmp(buf, want, sizeof buf) == 0);

  /* Alltoallv_c: local rank s of group a sends (s + j + a) % 3 ints to remote rank j. */
  for (int j = 0; j < rsize; ++j) {
    sc[j] = (me + j + color) % 3;
    rc[j] = (j + me + 1 - color) % 3;
  }
  gapped(rsize, sc, srel);
  const size_t vlen = gapped(rsize, rc, rel);
  memcpy(sd, srel, sizeof(MPI_Aint) * (size_t)rsize);
  memcpy(displs, rel, sizeof(MPI_Aint) * (size_t)rsize);
  for (int k = 0; k < 40; ++k) buf[k] = want[k] = send[k] = -7;
  for (int j = 0; j < rsize; ++j) {
    for (int k = 0; k < sc[j]; ++k) send[srel[j] + k] = me * 1000 + j * 10 + k;
    for (int k = 0; k < rc[j]; ++k) want[rel[j] + k] = j * 1000 + me * 10 + k;
  }
  if (me_big) {
    absolute(rsize, srel, sd, send, sizeof(int));
    absolute(rsize, rel, displs, buf, sizeof(int));
  }
  const void* vs = me_big ? MPI_BOTTOM : send;
  void* vr = me_big ? MPI_BOTTOM : buf;
  if (nonblocking)
    CHECK_MPI(MPI_Ialltoallv_c(vs, sc, sd, MPI_INT, vr, rc, displs, MPI_INT, inter, &r));
  else
    CHECK_MPI(MPI_Alltoallv_c(vs, sc, sd, MPI_INT, vr, rc, displs, MPI_INT, inter));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(vlen <= 40 && memcmp(buf, want, sizeof buf) == 0);
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&local));
}

int main(int argc, char** argv) {
  lcv_init(&argc, &argv);
  if (size > 1)
    for (int nonblocking = 0; nonblocking < 2; ++nonblocking) {
      intercomm(nonblocking, 0);
      intercomm(nonblocking, 1);
    }
  return lcv_finish("large_count_vec_inter");
}
