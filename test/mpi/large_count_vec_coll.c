/* MPI 4.0's large-count vector collectives on the world: Gatherv_c, Scatterv_c,
 * Allgatherv_c, Alltoallv_c, Alltoallw_c and Reduce_scatter_c, blocking, nonblocking and
 * persistent (started twice, the inputs changed in between), with counts that differ per
 * rank, zero counts and MPI_IN_PLACE; and negative counts and displacements (MPI_ERR_COUNT,
 * MPI_ERR_ARG). The odd ranks (a rooted call's root) take the per-peer path, so it meets the
 * int path of the others. Reduce_scatter_c has no displacements: its other path needs a count
 * above INT_MAX, which large_count_vec_huge.c runs. Any size. */
#define _POSIX_C_SOURCE 200809L
#include "large_count_vec_forms.h"

/* Gatherv_c at a root that takes the per-peer path when `big`. */
static void gatherv(int form, int big, int in_place) {
  const int root = (form + big) % size, me_root = rank == root, place = in_place && me_root;
  MPI_Count* counts = must(sizeof(MPI_Count) * (size_t)size);
  MPI_Aint* rel = must(sizeof(MPI_Aint) * (size_t)size);
  MPI_Aint* displs = must(sizeof(MPI_Aint) * (size_t)size);
  for (int i = 0; i < size; ++i) counts[i] = cnt(i, form);
  const size_t len = gapped(size, counts, rel);
  memcpy(displs, rel, sizeof(MPI_Aint) * (size_t)size);
  int* recv = marked_ints((int)len, -7);
  int* want = marked_ints((int)len, -7);
  if (big && me_root) absolute(size, rel, displs, recv, sizeof(int));
  void* rbuf = big && me_root ? MPI_BOTTOM : recv;
  int mine[4];
  MPI_Request r;
  for (int round = 0; round < rounds(form); ++round) {
    for (int k = 0; k < 4; ++k) mine[k] = rank * 1000 + k + 7 * round;
    for (size_t j = 0; j < len; ++j) recv[j] = -7;
    if (place) memcpy(recv + rel[rank], mine, sizeof(int) * (size_t)counts[rank]);
    const void* sbuf = place ? MPI_IN_PLACE : mine;
    if (form == BLOCKING)
      CHECK_MPI(MPI_Gatherv_c(sbuf, counts[rank], MPI_INT, rbuf, counts, displs, MPI_INT, root,
                              MPI_COMM_WORLD));
    else if (form == NONBLOCKING)
      CHECK_MPI(MPI_Igatherv_c(sbuf, counts[rank], MPI_INT, rbuf, counts, displs, MPI_INT, root,
                               MPI_COMM_WORLD, &r));
    else if (round == 0)
      CHECK_MPI(MPI_Gatherv_init_c(sbuf, counts[rank], MPI_INT, rbuf, counts, displs, MPI_INT,
                                   root, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    complete(form, &r);
    if (!me_root) continue;
    for (int i = 0; i < size; ++i)
      for (int k = 0; k < counts[i]; ++k) want[rel[i] + k] = i * 1000 + k + 7 * round;
    CHECK(memcmp(recv, want, sizeof(int) * len) == 0);
  }
  done(form, &r);
  free(counts), free(rel), free(displs), free(recv), free(want);
}

/* Scatterv_c from a root that takes the per-peer path when `big`. */
static void scatterv(int form, int big, int in_place) {
  const int root = (form + 2 * big + 1) % size, me_root = rank == root;
  const int place = in_place && me_root;
  MPI_Count* counts = must(sizeof(MPI_Count) * (size_t)size);
  MPI_Aint* rel = must(sizeof(MPI_Aint) * (size_t)size);
  MPI_Aint* displs = must(sizeof(MPI_Aint) * (size_t)size);
  for (int i = 0; i < size; ++i) counts[i] = cnt(i, form + 1);
  const size_t len = gapped(size, counts, rel);
  memcpy(displs, rel, sizeof(MPI_Aint) * (size_t)size);
  int* send = marked_ints((int)len, -7);
  if (big && me_root) absolute(size, rel, displs, send, sizeof(int));
  const void* sbuf = big && me_root ? MPI_BOTTOM : send;
  int mine[5], want[5];
  void* rbuf = place ? MPI_IN_PLACE : mine;
  MPI_Request r;
  for (int round = 0; round < rounds(form); ++round) {
    for (int i = 0; i < size; ++i)
      for (int k = 0; k < counts[i]; ++k) send[rel[i] + k] = i * 1000 + k + 7 * round;
    for (int k = 0; k < 5; ++k) mine[k] = want[k] = -7;
    if (form == BLOCKING)
      CHECK_MPI(MPI_Scatterv_c(sbuf, counts, displs, MPI_INT, rbuf, counts[rank], MPI_INT, root,
                               MPI_COMM_WORLD));
    else if (form == NONBLOCKING)
      CHECK_MPI(MPI_Iscatterv_c(sbuf, counts, displs, MPI_INT, rbuf, counts[rank], MPI_INT, root,
                                MPI_COMM_WORLD, &r));
    else if (round == 0)
      CHECK_MPI(MPI_Scatterv_init_c(sbuf, counts, displs, MPI_INT, rbuf, counts[rank], MPI_INT,
                                    root, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    complete(form, &r);
    if (!place)
      for (int k = 0; k < counts[rank]; ++k) want[k] = rank * 1000 + k + 7 * round;
    CHECK(memcmp(mine, want, sizeof want) == 0);
  }
  done(form, &r);
  free(counts), free(rel), free(displs), free(send);
}

/* Allgatherv_c, the odd ranks on the per-peer path when `big`; with `strided`, received as
 * one int every other int (a type that is staged). */
static void allgatherv(int form, int big, int in_place, int strided) {
  const int ext = strided ? 2 : 1;  /* ints per element received */
  const MPI_Datatype rtype = strided ? strided_int_type() : MPI_INT;
  MPI_Count* counts = must(sizeof(MPI_Count) * (size_t)size);
  MPI_Aint* rel = must(sizeof(MPI_Aint) * (size_t)size);
  MPI_Aint* displs = must(sizeof(MPI_Aint) * (size_t)size);
  for (int i = 0; i < size; ++i) counts[i] = cnt(i, form + 2);
  const size_t len = gapped(size, counts, rel) * (size_t)ext;
  memcpy(displs, rel, sizeof(MPI_Aint) * (size_t)size);
  int* recv = marked_ints((int)len, -7);
  int* want = marked_ints((int)len, -7);
  const int me_big = big && rank % 2 == 1;
  if (me_big) absolute(size, rel, displs, recv, sizeof(int) * (size_t)ext);
  void* rbuf = me_big ? MPI_BOTTOM : recv;
  int mine[4];
  MPI_Request r;
  for (int round = 0; round < rounds(form); ++round) {
    for (int k = 0; k < 4; ++k) mine[k] = rank * 1000 + k + 7 * round;
    for (size_t j = 0; j < len; ++j) recv[j] = want[j] = -7;
    if (in_place)
      for (int k = 0; k < counts[rank]; ++k) recv[(rel[rank] + k) * ext] = mine[k];
    const void* sbuf = in_place ? MPI_IN_PLACE : mine;
    if (form == BLOCKING)
      CHECK_MPI(MPI_Allgatherv_c(sbuf, counts[rank], MPI_INT, rbuf, counts, displs, rtype,
                                 MPI_COMM_WORLD));
    else if (form == NONBLOCKING)
      CHECK_MPI(MPI_Iallgatherv_c(sbuf, counts[rank], MPI_INT, rbuf, counts, displs, rtype,
                                  MPI_COMM_WORLD, &r));
    else if (round == 0)
      CHECK_MPI(MPI_Allgatherv_init_c(sbuf, counts[rank], MPI_INT, rbuf, counts, displs, rtype,
                                      MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    complete(form, &r);
    for (int i = 0; i < size; ++i)
      for (int k = 0; k < counts[i]; ++k) want[(rel[i] + k) * ext] = i * 1000 + k + 7 * round;
    CHECK(memcmp(recv, want, sizeof(int) * len) == 0);
  }
  done(form, &r);
  if (strided) {
    MPI_Datatype t = rtype;
    CHECK_MPI(MPI_Type_free(&t));
  }
  free(counts), free(rel), free(displs), free(recv), free(want);
}

/* Elements from src to dst: 0 to 2, the same both ways when `symmetric` (MPI_IN_PLACE). */
static MPI_Count pair_cnt(int src, int dst, int salt, int symmetric) {
  return (MPI_Count)((src + (symmetric ? 1 : 2) * dst + salt) % 3);
}

/* Alltoallw_c's element type from src to dst (2 or 4 bytes); Alltoallv_c's is MPI_INT. */
static int w_bytes(int src, int dst) { return (src + dst) % 2 ? 2 : 4; }


/* The byte layout of one side: block j (of counts[j] elements of bytes(j)) at off[j], every
 * block 4-aligned after a 4-byte gap. Returns the bytes in all. */
static size_t layout(const MPI_Count* counts, const int* bytes, MPI_Aint* off) {
  size_t at = 0;
  for (int j = 0; j < size; ++j) {
    off[j] = (MPI_Aint)at + 4;
    at += 4 + (((size_t)counts[j] * (size_t)bytes[j] + 3) & ~(size_t)3);
  }
  return at + 4;
}

/* Alltoallv_c (w == 0) or Alltoallw_c (w == 1), the odd ranks on the per-peer path when
 * `big` (for Alltoallw_c, byte displacements beyond INT_MAX). */
static void alltoall(int w, int form, int big, int in_place) {
  const size_t n = (size_t)size;
  MPI_Count *sc = must(sizeof(MPI_Count) * n), *rc = must(sizeof(MPI_Count) * n);
  MPI_Aint *soff = must(sizeof(MPI_Aint) * n), *roff = must(sizeof(MPI_Aint) * n);
  MPI_Aint *sd = must(sizeof(MPI_Aint) * n), *rd = must(sizeof(MPI_Aint) * n);
  MPI_Datatype *st = must(sizeof(MPI_Datatype) * n), *rt = must(sizeof(MPI_Datatype) * n);
  int *sb = must(sizeof(int) * n), *rb = must(sizeof(int) * n);
  for (int j = 0; j < size; ++j) {
    sc[j] = pair_cnt(rank, j, form + w, in_place);
    rc[j] = pair_cnt(j, rank, form + w, in_place);
    sb[j] = w ? w_bytes(rank, j) : 4;
    rb[j] = w ? w_bytes(j, rank) : 4;
    st[j] = sb[j] == 4 ? MPI_INT : MPI_SHORT;
    rt[j] = rb[j] == 4 ? MPI_INT : MPI_SHORT;
  }
  const size_t slen = layout(sc, sb, soff), rlen = layout(rc, rb, roff);
  unsigned char *send = must(slen), *recv = must(rlen), *want = must(rlen);
  const int me_big = big && rank % 2 == 1;
  const size_t unit = w ? 1 : 4;  /* Alltoallv_c's displacements are in ints */
  for (int j = 0; j < size; ++j) {
    sd[j] = soff[j] / (MPI_Aint)unit;
    rd[j] = roff[j] / (MPI_Aint)unit;
  }
  if (me_big) {
    absolute(size, sd, sd, send, unit);
    absolute(size, rd, rd, recv, unit);
  }
  const void* sbuf = in_place ? MPI_IN_PLACE : me_big ? MPI_BOTTOM : send;
  void* rbuf = me_big ? MPI_BOTTOM : recv;
  MPI_Request r;
  for (int round = 0; round < rounds(form); ++round) {
    memset(send, 0xa5, slen);
    memset(recv, 0x5a, rlen);
    memset(want, 0x5a, rlen);
    for (int j = 0; j < size; ++j) {
      for (int k = 0; k < sc[j]; ++k)
        put(send + soff[j] + k * sb[j], sb[j], rank * 1000 + j * 10 + k + round);
      for (int k = 0; k < rc[j]; ++k)
        put(want + roff[j] + k * rb[j], rb[j], j * 1000 + rank * 10 + k + round);
    }
    /* In place, the receive blocks hold what goes out (symmetric counts and types). */
    if (in_place)
      for (int j = 0; j < size; ++j)
        memcpy(recv + roff[j], send + soff[j], (size_t)sc[j] * (size_t)sb[j]);
    if (!w) {
      if (form == BLOCKING)
        CHECK_MPI(MPI_Alltoallv_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD));
      else if (form == NONBLOCKING)
        CHECK_MPI(MPI_Ialltoallv_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD,
                                   &r));
      else if (round == 0)
        CHECK_MPI(MPI_Alltoallv_init_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT,
                                       MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    } else {
      if (form == BLOCKING)
        CHECK_MPI(MPI_Alltoallw_c(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD));
      else if (form == NONBLOCKING)
        CHECK_MPI(MPI_Ialltoallw_c(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &r));
      else if (round == 0)
        CHECK_MPI(MPI_Alltoallw_init_c(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD,
                                       MPI_INFO_NULL, &r));
    }
    complete(form, &r);
    CHECK(memcmp(recv, want, rlen) == 0);
  }
  done(form, &r);
  free(sc), free(rc), free(soff), free(roff), free(sd), free(rd), free(st), free(rt);
  free(sb), free(rb), free(send), free(recv), free(want);
}

/* Reduce_scatter_c with MPI_SUM: element j of block i of rank s is s + 100 i + j + round. */
static void reduce_scatter(int form, int in_place) {
  MPI_Count* counts = must(sizeof(MPI_Count) * (size_t)size);
  MPI_Count total = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = cnt(i, form + 3);
    total += counts[i];
  }
  int* in = marked_ints((int)total, 0);
  int* out = marked_ints((int)total + 2, -7);
  int* want = marked_ints((int)total + 2, -7);
  MPI_Request r;
  for (int round = 0; round < rounds(form); ++round) {
    for (int i = 0, at = 0; i < size; ++i)
      for (int j = 0; j < counts[i]; ++j) in[at++] = rank + 100 * i + j + round;
    for (int j = 0; j < total + 2; ++j) out[j] = want[j] = -7;
    if (in_place) memcpy(out, in, sizeof(int) * (size_t)total);
    for (int j = 0; j < counts[rank]; ++j)
      want[j] = size * (size - 1) / 2 + size * (100 * rank + j + round);
    const void* sbuf = in_place ? MPI_IN_PLACE : in;
    if (form == BLOCKING)
      CHECK_MPI(MPI_Reduce_scatter_c(sbuf, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    else if (form == NONBLOCKING)
      CHECK_MPI(MPI_Ireduce_scatter_c(sbuf, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    else if (round == 0)
      CHECK_MPI(MPI_Reduce_scatter_init_c(sbuf, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                          MPI_INFO_NULL, &r));
    complete(form, &r);
    /* In place only the result's elements are defined. */
    const MPI_Count check = in_place ? counts[rank] : total + 2;
    CHECK(memcmp(out, want, sizeof(int) * (size_t)check) == 0);
  }
  done(form, &r);
  free(counts), free(in), free(out), free(want);
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Count* counts = must(sizeof(MPI_Count) * (size_t)size);
  MPI_Aint* displs = must(sizeof(MPI_Aint) * (size_t)size);
  int v[2] = {0, 0}, out[64];
  for (int i = 0; i < size; ++i) counts[i] = 1, displs[i] = i;
  counts[size - 1] = -1;
  CHECK(error_class_of(MPI_Allgatherv_c(v, 1, MPI_INT, out, counts, displs, MPI_INT,
                                        MPI_COMM_WORLD)) == MPI_ERR_COUNT);
  CHECK(error_class_of(MPI_Reduce_scatter_c(v, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) ==
        MPI_ERR_COUNT);
  counts[size - 1] = 1;
  displs[0] = -1;
  CHECK(error_class_of(MPI_Alltoallv_c(v, counts, displs, MPI_INT, out, counts, displs, MPI_INT,
                                       MPI_COMM_WORLD)) == MPI_ERR_ARG);
  MPI_Count pos = -1;
  char packed[16];
  CHECK(error_class_of(MPI_Pack_c(v, 1, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD)) ==
        MPI_ERR_ARG);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  free(counts), free(displs);
}

int main(int argc, char** argv) {
  lcv_init(&argc, &argv);
  /* MPICH: Allgatherv_c on one process ignores the displacement; Ialltoallw_c and
   * Alltoallw_init_c in place fail with a truncation. */
  const int lone = MPICH_FAILS(size == 1);
  for (int form = BLOCKING; form <= PERSISTENT; ++form)
    for (int big = 0; big < 2; ++big)
      for (int in_place = 0; in_place < 2; ++in_place) {
        gatherv(form, big, in_place);
        scatterv(form, big, in_place);
        if (!lone || in_place) allgatherv(form, big, in_place, 0);
        alltoall(0, form, big, in_place);
        if (!MPICH_FAILS(form != BLOCKING && in_place)) alltoall(1, form, big, in_place);
        if (!big) reduce_scatter(form, in_place);
      }
  if (!lone)
    for (int form = BLOCKING; form <= PERSISTENT; ++form) allgatherv(form, 1, 0, 1);
#ifdef TORUS_MPI_H
  errors(); /* Debian's MPICH 4.0.2 checks neither displacements nor positions */
#endif
  return lcv_finish("large_count_vec_coll");
}
