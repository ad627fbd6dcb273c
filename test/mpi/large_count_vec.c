/* MPI 4.0's large-count vector collectives and the last large-count calls, each with small
 * counts against a result computed here, byte for byte (the gaps left between blocks must
 * stay as they were): Gatherv_c, Scatterv_c, Allgatherv_c, Alltoallv_c, Alltoallw_c and
 * Reduce_scatter_c, blocking, nonblocking and persistent (started twice, the inputs changed
 * in between), with counts that differ per rank, zero counts and MPI_IN_PLACE; the
 * neighborhood ones on a periodic ring; some on an intercommunicator; Pack_c, Unpack_c,
 * Pack_size_c, the external32 ones, Op_create_c, Buffer_attach_c and Buffer_detach_c; and
 * negative counts and displacements (MPI_ERR_COUNT, MPI_ERR_ARG).
 *
 * A displacement beyond INT_MAX, which sends a call down its per-peer type path, is reached
 * with real memory: the buffer is MPI_BOTTOM and the displacements are the blocks' addresses
 * in elements, above INT_MAX for any heap address. The odd ranks (a rooted call's root) take
 * that path, so it meets the int path of the others. Reduce_scatter_c has no
 * displacements: its other path needs a count above INT_MAX, which the argument `huge` runs
 * with 2^31 + 8 bytes, blocking and nonblocking: at one rank as a test of its own (2 GiB, a
 * few seconds), at two by hand (the reduce-scatter algorithm's scratch makes that about
 * 8 GiB per rank and half a minute). Not run:
 * Neighbor_alltoallw_c's (its int form takes MPI_Aint displacements already, so only a
 * count above INT_MAX leaves it), which shares the per-peer types and
 * MPI_Neighbor_alltoallw with Neighbor_alltoallv_c's. Any size. What Debian's MPICH 4.0.2 gets wrong is skipped on it (MPICH_FAILS) unless
 * TORUS_MPI_H is defined, as the ABI test does when it builds this with mpicc.mpich: on our
 * library every check must hold. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

#ifdef TORUS_MPI_H
#define MPICH_FAILS(cond) 0
#else
#define MPICH_FAILS(cond) (cond)
#endif

static int rank, size;

enum { BLOCKING, NONBLOCKING, PERSISTENT };

static int rounds(int form) { return form == PERSISTENT ? 2 : 1; }

/* The call of `form` just made (a persistent one at round 0) completed: waited for, or
 * started and waited for. */
static void complete(int form, MPI_Request* r) {
  if (form == BLOCKING) return;
  if (form == PERSISTENT) CHECK_MPI(MPI_Start(r));
  CHECK_MPI(MPI_Wait(r, MPI_STATUS_IGNORE));
}

static void done(int form, MPI_Request* r) {
  if (form == PERSISTENT) CHECK_MPI(MPI_Request_free(r));
}

/* 0 to 3 elements, zero for some ranks. */
static MPI_Count cnt(int i, int salt) { return (MPI_Count)((i * 3 + salt) % 4); }

/* n blocks of counts[i] elements, each after a gap of one element: the displacements (in
 * elements) and the elements in all. */
static size_t gapped(int n, const MPI_Count* counts, MPI_Aint* displs) {
  size_t at = 0;
  for (int i = 0; i < n; ++i) {
    displs[i] = (MPI_Aint)at + 1;
    at += (size_t)counts[i] + 1;
  }
  return at + 1;
}

/* The same blocks of `base` as displacements from MPI_BOTTOM in `unit`-byte elements: their
 * addresses, divided by unit, beyond INT_MAX. */
static void absolute(int n, const MPI_Aint* rel, MPI_Aint* displs, const void* base,
                     size_t unit) {
  for (int i = 0; i < n; ++i) {
    MPI_Aint a = 0;
    CHECK_MPI(MPI_Get_address((const char*)base + rel[i] * (MPI_Aint)unit, &a));
    CHECK(a % (MPI_Aint)unit == 0 && a / (MPI_Aint)unit > INT_MAX);
    displs[i] = a / (MPI_Aint)unit;
  }
}

static void* must(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  CHECK(p != NULL);
  return p;
}

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

static void put(unsigned char* at, int bytes, int v) {
  if (bytes == 4) memcpy(at, &v, 4);
  else {
    const short s = (short)v;
    memcpy(at, &s, 2);
  }
}

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

static void pack(void) {
  int data[5] = {1, -2, 3, -4, 5}, back[5] = {0};
  char packed[64], ref[64];
  int ref_pos = 0;
  MPI_Count pos = 0, bytes = -1;
  CHECK_MPI(MPI_Pack(data, 5, MPI_INT, ref, sizeof ref, &ref_pos, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack_c(data, 5, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  CHECK(pos == ref_pos && memcmp(packed, ref, (size_t)ref_pos) == 0);
  pos = 0;
  CHECK_MPI(MPI_Unpack_c(packed, sizeof packed, &pos, back, 5, MPI_INT, MPI_COMM_WORLD));
  CHECK(pos == ref_pos && memcmp(back, data, sizeof data) == 0);
  CHECK_MPI(MPI_Pack_size_c(5, MPI_INT, MPI_COMM_WORLD, &bytes));
  CHECK(bytes >= 20);
  /* Sizes and positions beyond INT_MAX: the buffer argument 3 GiB below the real one and the
   * position 3 GiB in (only bytes from buf + position on are touched). */
  const MPI_Count far = (MPI_Count)3 << 30;
  void* below = (void*)((uintptr_t)packed - (uintptr_t)far);
  memset(packed, 0, sizeof packed);
  memset(back, 0, sizeof back);
  pos = far;
  CHECK_MPI(MPI_Pack_c(data, 5, MPI_INT, below, far + (MPI_Count)sizeof packed, &pos,
                       MPI_COMM_WORLD));
  CHECK(pos == far + ref_pos && memcmp(packed, ref, (size_t)ref_pos) == 0);
  pos = far;
  CHECK_MPI(MPI_Unpack_c(below, far + ref_pos, &pos, back, 5, MPI_INT, MPI_COMM_WORLD));
  CHECK(pos == far + ref_pos && memcmp(back, data, sizeof data) == 0);
  CHECK_MPI(MPI_Pack_size_c(far, MPI_INT, MPI_COMM_WORLD, &bytes));
  CHECK(bytes >= 4 * far);

  /* external32: the same bytes as the int calls, big-endian. */
  MPI_Aint ext_ref = 0, ref_size = 0;
  MPI_Count ext_pos = 0, ext_size = 0;
  CHECK_MPI(MPI_Pack_external("external32", data, 5, MPI_INT, ref, sizeof ref, &ext_ref));
  CHECK_MPI(MPI_Pack_external_c("external32", data, 5, MPI_INT, packed, sizeof packed, &ext_pos));
  CHECK(ext_pos == ext_ref && ext_pos == 20 && memcmp(packed, ref, 20) == 0);
  CHECK((unsigned char)packed[7] == 0xfe && (unsigned char)packed[4] == 0xff);
  memset(back, 0, sizeof back);
  ext_pos = 0;
  CHECK_MPI(MPI_Unpack_external_c("external32", packed, 20, &ext_pos, back, 5, MPI_INT));
  CHECK(ext_pos == 20 && memcmp(back, data, sizeof data) == 0);
  CHECK_MPI(MPI_Pack_external_size("external32", 5, MPI_INT, &ref_size));
  CHECK_MPI(MPI_Pack_external_size_c("external32", 5, MPI_INT, &ext_size));
  CHECK(ext_size == ref_size && ext_size == 20);
}

static MPI_Count last_len;

/* Non-commutative, on MPI_2INT intervals as check.h's interval_join, with a large count. */
static void interval_join_c(void* invec, void* inoutvec, MPI_Count* len, MPI_Datatype* type) {
  (void)type;
  int* a = (int*)invec;
  int* b = (int*)inoutvec;
  last_len = *len;
  for (MPI_Count i = 0; i < *len; ++i) {
    const int ok = a[2 * i] >= 0 && b[2 * i] >= 0 && a[2 * i + 1] + 1 == b[2 * i];
    b[2 * i] = ok ? a[2 * i] : -1;
    b[2 * i + 1] = ok ? b[2 * i + 1] : -1;
  }
}

static void add_c(void* in, void* inout, MPI_Count* len, MPI_Datatype* type) {
  (void)type;
  for (MPI_Count i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

static void sub_c(void* in, void* inout, MPI_Count* len, MPI_Datatype* type) {
  (void)type;
  for (MPI_Count i = 0; i < *len; ++i) ((int*)inout)[i] -= ((int*)in)[i];
}

static void user_ops(void) {
  MPI_Op op;
  int commute = 1;
  CHECK_MPI(MPI_Op_create_c(interval_join_c, 0, &op));
  CHECK_MPI(MPI_Op_commutative(op, &commute));
  CHECK(commute == 0);
  int iv[6] = {rank, rank, rank, rank, rank, rank}, res[6] = {0};
  CHECK_MPI(MPI_Allreduce(iv, res, 3, MPI_2INT, op, MPI_COMM_WORLD));
  for (int i = 0; i < 3; ++i) CHECK(res[2 * i] == 0 && res[2 * i + 1] == size - 1);
  int lo[4] = {0, 2, 0, 2}, hi[4] = {3, 5, 3, 5};
  last_len = 0;
  CHECK_MPI(MPI_Reduce_local_c(lo, hi, 2, MPI_2INT, op));
  CHECK(last_len == 2 && hi[0] == 0 && hi[1] == 5 && hi[2] == 0 && hi[3] == 5);
  CHECK_MPI(MPI_Op_free(&op));
  /* More ops than the library keeps at once, two live at a time and used each time: every
   * one must call its own function. */
  for (int i = 0; i < 600; ++i) {
    MPI_Op add, sub;
    CHECK_MPI(MPI_Op_create_c(add_c, 1, &add));
    CHECK_MPI(MPI_Op_create_c(sub_c, 0, &sub));
    int a[2] = {i, 1}, b[2] = {10, 10};
    CHECK_MPI(MPI_Reduce_local_c(a, b, 2, MPI_INT, add));
    CHECK(b[0] == 10 + i && b[1] == 11);
    CHECK_MPI(MPI_Reduce_local_c(a, b, 2, MPI_INT, sub));
    CHECK(b[0] == 10 && b[1] == 10);
    CHECK_MPI(MPI_Op_free(&add));
    CHECK_MPI(MPI_Op_free(&sub));
  }
}

static void buffer(void) {
  int size1 = 0;
  CHECK_MPI(MPI_Pack_size(4, MPI_INT, MPI_COMM_WORLD, &size1));
  const MPI_Count bytes = size1 + MPI_BSEND_OVERHEAD;
  void* space = must((size_t)bytes);
  CHECK_MPI(MPI_Buffer_attach_c(space, bytes));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[4] = {rank, 1, 2, 3}, in[4] = {0};
  CHECK_MPI(MPI_Bsend_c(out, 4, MPI_INT, right, 9, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv_c(in, 4, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(in[0] == left && in[3] == 3);
  void* detached = NULL;
  MPI_Count detached_size = -1;
  CHECK_MPI(MPI_Buffer_detach_c(&detached, &detached_size));
  CHECK(detached == space && detached_size == bytes);
  free(space);
}

/* Reduce_scatter_c and Ireduce_scatter_c with MPI_BOR on MPI_BYTE, counts {2^31 + 8} at one
 * rank, {2^31 + 8, 3} at two: the send buffers are calloc'd (untouched pages read as zero
 * without being allocated), one byte set per MiB, rank 0's at offset 5 of each, rank 1's at
 * offset 9, and 3 bytes at the end for rank 1. */
static void huge(int nonblocking) {
  const MPI_Count big = ((MPI_Count)1 << 31) + 8, counts[2] = {big, 3};
  const size_t mib = (size_t)1 << 20, total = (size_t)big + (size == 2 ? 3 : 0);
  unsigned char* in = calloc(total, 1);
  unsigned char* out = malloc(rank == 0 ? (size_t)big : 3);
  CHECK(in != NULL && out != NULL);
  for (size_t at = 0; at < (size_t)big; at += mib) {
    const size_t j = at + (rank == 0 ? 5 : 9);
    if (j < (size_t)big) in[j] = rank == 0 ? (unsigned char)(((at / mib) * 7) & 0x7f) : 0x80;
  }
  for (int k = 0; k < 3 && size == 2; ++k) in[(size_t)big + (size_t)k] = rank == 0 ? 0x11 : 0x22;
  MPI_Request r;
  if (nonblocking) {
    CHECK_MPI(MPI_Ireduce_scatter_c(in, out, counts, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Reduce_scatter_c(in, out, counts, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD));
  }
  if (rank == 1) {
    CHECK(out[0] == 0x33 && out[1] == 0x33 && out[2] == 0x33);
  } else {
    static const unsigned char zero[1 << 20];
    for (size_t at = 0; at < (size_t)big; at += mib) {
      const size_t n = (size_t)big - at < mib ? (size_t)big - at : mib;
      unsigned char* chunk = out + at;
      if (n > 9) {
        CHECK(chunk[5] == (unsigned char)(((at / mib) * 7) & 0x7f) &&
              chunk[9] == (size == 2 ? 0x80 : 0));
        chunk[5] = chunk[9] = 0;
      }
      CHECK(memcmp(chunk, zero, n) == 0);
    }
  }
  free(in);
  free(out);
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
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "huge") == 0) {
    CHECK(size <= 2);
    huge(0);
    huge(1);
    if (rank == 0) printf("mpi large_count_vec huge ok: %d ranks\n", size);
    MPI_Finalize();
    return 0;
  }
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
  for (int form = BLOCKING; form <= PERSISTENT; ++form) {
    if (!lone) allgatherv(form, 1, 0, 1);
    neighborhood(form, 0);
    neighborhood(form, 1);
  }
  if (size > 1)
    for (int nonblocking = 0; nonblocking < 2; ++nonblocking) {
      intercomm(nonblocking, 0);
      intercomm(nonblocking, 1);
    }
  pack();
  user_ops();
  buffer();
#ifdef TORUS_MPI_H
  errors(); /* Debian's MPICH 4.0.2 checks neither displacements nor positions */
#endif
  if (rank == 0) printf("mpi large_count_vec ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
