/* Derived datatypes through point-to-point: every rank sends to the next and receives from
 * the previous one in a ring, with non-contiguous types on either side (a strided vector, a
 * struct with gaps, a resized type), through Send/Recv, Isend/Irecv (Wait, Test, Waitall),
 * Ssend, Sendrecv and Sendrecv_replace; data is checked element by element and bytes outside
 * the typemap must stay untouched. A short message into a vector receive fills a prefix
 * (Get_elements, Get_count). Any rank count, also 1 (a rank sends to itself). */
#include <string.h>

#include "check.h"

enum { kN = 1000, kStride = 3, kCount = 4 };
static int rank, size, next, prev;

/* A strided vector of ints: kN blocks of 1 int every kStride ints. */
static MPI_Datatype make_vector(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(kN, 1, kStride, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

struct Item {
  double d;
  char c;   /* gap after it */
  int i;
};

/* {d, i} of struct Item, leaving c (and the padding) out of the typemap. */
static MPI_Datatype make_struct(void) {
  int lens[2] = {1, 1};
  MPI_Aint disps[2] = {offsetof(struct Item, d), offsetof(struct Item, i)};
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT}, t, r;
  CHECK_MPI(MPI_Type_create_struct(2, lens, disps, types, &t));
  CHECK_MPI(MPI_Type_create_resized(t, 0, sizeof(struct Item), &r));
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_commit(&r));
  return r;
}

static int value(int from, int k) { return from * 100003 + k * 7 + 1; }

static void vector_ring(MPI_Datatype vec) {
  int* src = malloc(sizeof(int) * kN * kStride * kCount);
  int* dst = malloc(sizeof(int) * kN * kStride * kCount);
  CHECK(src && dst);
  for (int k = 0; k < kN * kStride * kCount; ++k) src[k] = value(rank, k);
  for (int mode = 0; mode < 4; ++mode) {
    for (int k = 0; k < kN * kStride * kCount; ++k) dst[k] = -1;
    /* The receive side sees kCount vectors; the extent of a vector ends at its last int, so
     * element e starts at e * ((kN - 1) * kStride + 1) ints. */
    MPI_Status st;
    if (mode == 0) {
      MPI_Request r;
      CHECK_MPI(MPI_Irecv(dst, kCount, vec, prev, 1, MPI_COMM_WORLD, &r));
      CHECK_MPI(MPI_Send(src, kCount, vec, next, 1, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&r, &st));
    } else if (mode == 1) {
      MPI_Request r[2];
      CHECK_MPI(MPI_Irecv(dst, kCount, vec, prev, 2, MPI_COMM_WORLD, &r[0]));
      CHECK_MPI(MPI_Isend(src, kCount, vec, next, 2, MPI_COMM_WORLD, &r[1]));
      MPI_Status sts[2];
      CHECK_MPI(MPI_Waitall(2, r, sts));
      st = sts[0];
    } else if (mode == 2) {
      CHECK_MPI(MPI_Sendrecv(src, kCount, vec, next, 3, dst, kCount, vec, prev, 3,
                             MPI_COMM_WORLD, &st));
    } else {
      MPI_Request r;
      int flag = 0;
      CHECK_MPI(MPI_Irecv(dst, kCount, vec, prev, 4, MPI_COMM_WORLD, &r));
      CHECK_MPI(MPI_Ssend(src, kCount, vec, next, 4, MPI_COMM_WORLD));
      while (!flag) CHECK_MPI(MPI_Test(&r, &flag, &st));
    }
    int count = -1;
    CHECK_MPI(MPI_Get_count(&st, vec, &count));
    CHECK(count == kCount);
    CHECK(st.MPI_SOURCE == prev);
    const int span = (kN - 1) * kStride + 1;
    for (int e = 0; e < kCount; ++e)
      for (int k = 0; k < span; ++k) {
        const int at = e * span + k;
        const int want = k % kStride == 0 ? value(prev, at) : -1;
        CHECK(dst[at] == want);
      }
    for (int k = kCount * span; k < kN * kStride * kCount; ++k) CHECK(dst[k] == -1);
  }
  free(src);
  free(dst);
}

/* Structs in, plain ints out: the typemap's data (d as its bytes, then i) arrives packed. */
static void struct_to_bytes(MPI_Datatype st_type) {
  struct Item items[50];
  memset(items, 0x5a, sizeof(items));
  for (int k = 0; k < 50; ++k) {
    items[k].d = value(rank, k) + 0.5;
    items[k].i = value(rank, k);
    items[k].c = 'x';
  }
  struct Item got[50];
  memset(got, 0x77, sizeof(got));
  MPI_Request r;
  CHECK_MPI(MPI_Irecv(got, 50, st_type, prev, 5, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Send(items, 50, st_type, next, 5, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int k = 0; k < 50; ++k) {
    CHECK(got[k].d == value(prev, k) + 0.5);
    CHECK(got[k].i == value(prev, k));
    CHECK(got[k].c == 0x77); /* outside the typemap: untouched */
  }
  /* The same structs received as raw bytes: 12 data bytes per item. */
  unsigned char raw[50 * 12];
  MPI_Status s;
  CHECK_MPI(MPI_Sendrecv(items, 50, st_type, next, 6, raw, sizeof(raw), MPI_BYTE, prev, 6,
                         MPI_COMM_WORLD, &s));
  int n = 0;
  CHECK_MPI(MPI_Get_count(&s, MPI_BYTE, &n));
  CHECK(n == 50 * 12);
  for (int k = 0; k < 50; ++k) {
    double d;
    int i;
    memcpy(&d, raw + k * 12, sizeof(d));
    memcpy(&i, raw + k * 12 + 8, sizeof(i));
    CHECK(d == value(prev, k) + 0.5);
    CHECK(i == value(prev, k));
  }
}

/* Fewer ints than the receive's vector holds: a prefix of the typemap is filled. */
static void short_message(MPI_Datatype vec) {
  int sent[10];
  for (int k = 0; k < 10; ++k) sent[k] = value(rank, k);
  int* dst = malloc(sizeof(int) * kN * kStride);
  CHECK(dst);
  for (int k = 0; k < kN * kStride; ++k) dst[k] = -1;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(sent, 10, MPI_INT, next, 7, dst, 1, vec, prev, 7, MPI_COMM_WORLD, &st));
  int elements = -1, count = 0;
  CHECK_MPI(MPI_Get_elements(&st, vec, &elements));
  CHECK(elements == 10);
  CHECK_MPI(MPI_Get_count(&st, vec, &count));
  CHECK(count == MPI_UNDEFINED);
  for (int k = 0; k < kN * kStride; ++k) {
    const int want = (k % kStride == 0 && k / kStride < 10) ? value(prev, k / kStride) : -1;
    CHECK(dst[k] == want);
  }
  free(dst);
}

/* Sendrecv_replace on a strided vector: the gaps keep their own values. */
static void replace(MPI_Datatype vec) {
  int* buf = malloc(sizeof(int) * kN * kStride);
  CHECK(buf);
  for (int k = 0; k < kN * kStride; ++k) buf[k] = k % kStride == 0 ? value(rank, k) : -k;
  CHECK_MPI(MPI_Sendrecv_replace(buf, 1, vec, next, 8, prev, 8, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE));
  for (int k = 0; k < (kN - 1) * kStride + 1; ++k)
    CHECK(buf[k] == (k % kStride == 0 ? value(prev, k) : -k));
  free(buf);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  MPI_Datatype vec = make_vector(), st_type = make_struct();
  vector_ring(vec);
  struct_to_bytes(st_type);
  short_message(vec);
  replace(vec);
  /* An uncommitted type is refused. */
  MPI_Datatype raw;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &raw));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x[4] = {0};
  int err = MPI_Send(x, 1, raw, next, 9, MPI_COMM_WORLD), cls = 0;
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_free(&raw));
  CHECK_MPI(MPI_Type_free(&vec));
  CHECK_MPI(MPI_Type_free(&st_type));
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi datatype_p2p ok: %d ranks\n", size);
  return 0;
}
