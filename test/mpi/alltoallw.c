/* Alltoallw and Ialltoallw with a type per peer and byte displacements with gaps: what a
 * rank sends to even peers is dense ints and to odd ones a strided int type, while it
 * receives from odd peers as dense ints and from even ones strided (the same signature
 * either way, different layouts), so dense and staged blocks meet in one call; also all
 * dense (moved from the user's memory itself). Then MPI_IN_PLACE for Alltoallv, Ialltoallv,
 * Alltoallw and Ialltoallw. Every element against a local reference, every gap untouched.
 * Any size. */
#include <string.h>

#include "check.h"

static int rank, size;
static MPI_Datatype strided; /* one int every other int */

#define MARK (-777)

static int count_of(int from, int to) { return (from * 3 + to * 5 + 2) % 5; } /* 0..4 */
static int value(int from, int to, int i) { return 100000 * from + 1000 * to + i; }

static int* marked(int n) { return marked_ints(n, MARK); }

/* Per peer: a type, count and byte displacement, each block `gap` ints after the last.
 * Strided blocks take two ints per element. Returns the buffer's length in ints. */
static int layout(int me_sends, int dense_only, MPI_Datatype* types, int* counts, int* displs,
                  int* strides) {
  int at = 1;
  for (int p = 0; p < size; ++p) {
    counts[p] = me_sends ? count_of(rank, p) : count_of(p, rank);
    int dense = dense_only || (me_sends ? p % 2 == 0 : p % 2 == 1);
    types[p] = dense ? MPI_INT : strided;
    strides[p] = dense ? 1 : 2;
    displs[p] = at * (int)sizeof(int);
    at += counts[p] * strides[p] + 1;
  }
  return at;
}

static void check_received(const int* buf, int len, const int* counts, const int* displs,
                           const int* strides, int (*want)(int p, int i)) {
  int* ref = marked(len);
  for (int p = 0; p < size; ++p)
    for (int i = 0; i < counts[p]; ++i)
      ref[displs[p] / (int)sizeof(int) + i * strides[p]] = want(p, i);
  for (int k = 0; k < len; ++k) CHECK(buf[k] == ref[k]);
  free(ref);
}

static int want_from(int p, int i) { return value(p, rank, i); }

static void alltoallw(int nonblocking, int dense_only) {
  MPI_Datatype st[64], rt[64];
  int sc[64], sd[64], ss[64], rc[64], rd[64], rs[64];
  int slen = layout(1, dense_only, st, sc, sd, ss);
  int rlen = layout(0, dense_only, rt, rc, rd, rs);
  int* sbuf = marked(slen);
  int* rbuf = marked(rlen);
  for (int p = 0; p < size; ++p)
    for (int i = 0; i < sc[p]; ++i) sbuf[sd[p] / (int)sizeof(int) + i * ss[p]] = value(rank, p, i);
  if (nonblocking) {
    MPI_Request req;
    CHECK_MPI(MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD));
  }
  check_received(rbuf, rlen, rc, rd, rs, want_from);
  free(sbuf);
  free(rbuf);
}

/* In place the receive arguments describe both what goes out and what comes in: block p
 * holds count_sym(me, p) elements, the same number either way. */
static int count_sym(int a, int b) { return (a + b) % 4 + (a == b); }

static void in_place(int variant, int stride) {
  MPI_Datatype t = stride == 1 ? MPI_INT : strided;
  MPI_Datatype types[64];
  int counts[64], displs[64], bdispls[64], strides[64], at = 2;
  for (int p = 0; p < size; ++p) {
    counts[p] = count_sym(rank, p);
    displs[p] = at / stride; /* in extents of t */
    bdispls[p] = at * (int)sizeof(int);
    types[p] = t;
    strides[p] = stride;
    at += (counts[p] + 1) * stride;
  }
  int* buf = marked(at);
  for (int p = 0; p < size; ++p)
    for (int i = 0; i < counts[p]; ++i) buf[displs[p] * stride + i * stride] = value(rank, p, i);
  MPI_Request req;
  switch (variant) {
    case 0:
      CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts, displs,
                              t, MPI_COMM_WORLD));
      break;
    case 1:
      CHECK_MPI(MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts,
                               displs, t, MPI_COMM_WORLD, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      break;
    case 2:
      CHECK_MPI(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, bdispls, types,
                              MPI_COMM_WORLD));
      break;
    default:
      CHECK_MPI(MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, bdispls, types,
                               MPI_COMM_WORLD, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      break;
  }
  check_received(buf, at, counts, bdispls, strides, want_from);
  free(buf);
}

static void errors(void) {
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  int counts[64], displs[64], x[64];
  MPI_Datatype types[64];
  for (int p = 0; p < size; ++p) {
    counts[p] = 1;
    displs[p] = p * (int)sizeof(int);
    types[p] = MPI_INT;
  }
  types[size - 1] = MPI_DATATYPE_NULL;
  CHECK(error_class_of(MPI_Alltoallw(x, counts, displs, types, x, counts, displs, types,
                                     comm)) == MPI_ERR_TYPE);
  types[size - 1] = MPI_INT;
  counts[0] = -1;
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK(error_class_of(MPI_Ialltoallw(x, counts, displs, types, x, counts, displs, types,
                                      comm, &req)) == MPI_ERR_COUNT);
  CHECK(req == MPI_REQUEST_NULL);
  counts[0] = 1;
  /* This rank's own block: 2 ints out, 1 expected back. */
  int two[64];
  memcpy(two, counts, sizeof(int) * (size_t)size);
  two[rank] = 2;
  CHECK(error_class_of(MPI_Alltoallw(x, two, displs, types, x, counts, displs, types, comm)) ==
        MPI_ERR_TRUNCATE);
  CHECK_MPI(MPI_Comm_free(&comm));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64);
  strided = strided_int_type();
  for (int nb = 0; nb <= 1; ++nb)
    for (int dense = 0; dense <= 1; ++dense) alltoallw(nb, dense);
  for (int variant = 0; variant < 4; ++variant)
    for (int stride = 1; stride <= 2; ++stride) in_place(variant, stride);
  errors();
  CHECK_MPI(MPI_Type_free(&strided));
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi alltoallw ok: %d ranks\n", size);
  return 0;
}
