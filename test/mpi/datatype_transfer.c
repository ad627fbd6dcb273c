/* Packed bytes of derived datatypes in real transfers: sent as MPI_BYTE around the ring,
 * with Get_count/Get_elements(_x) of the struct and vector types on whole and partial
 * messages; one MPI_PACKED message (Probe, Unpack piece by piece). Any size. */
#include "datatype_ref.h"

static MPI_Datatype t_vec, t_s;

/* The packed bytes of `count` elements of `t` from a buffer filled with `seed`'s pattern. */
static void packed_pattern(MPI_Datatype t, int count, long extent, unsigned seed,
                           unsigned char* out, int outsize) {
  size_t n = (size_t)extent * (size_t)count + 64;
  unsigned char* src = malloc(n);
  fill(src, n, seed);
  int pos = 0;
  CHECK_MPI(MPI_Pack(src, count, t, out, outsize, &pos, MPI_COMM_WORLD));
  free(src);
}

/* Packed bytes travel as MPI_BYTE around the ring; the status of the receive then answers
 * Get_count and Get_elements for derived types, for whole and partial messages. */
static void transfer_counts(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  /* struct S: 13 bytes = int, double, char per element (3 basic elements). A partial basic
   * element at the end is not counted (as MPICH does for derived types). */
  const int s_bytes[5] = {0, 26, 30, 38, 32};
  const int s_count[5] = {0, 2, MPI_UNDEFINED, MPI_UNDEFINED, MPI_UNDEFINED};
  const int s_elems[5] = {0, 6, 7, 8, 7};
  /* t_vec: 6 doubles per element */
  const int v_bytes[3] = {48, 64, 52};
  const int v_count[3] = {1, MPI_UNDEFINED, MPI_UNDEFINED};
  const int v_elems[3] = {6, 8, 6};
  for (int k = 0; k < 8; ++k) {
    int is_s = k < 5;
    MPI_Datatype t = is_s ? t_s : t_vec;
    long extent = is_s ? (long)sizeof(S) : 80;
    int nbytes = is_s ? s_bytes[k] : v_bytes[k - 5];
    unsigned char out[128], in[128], expect[128];
    int count = is_s ? 3 : 2, elems = -5; /* 39 or 96 packed bytes */
    packed_pattern(t, count, extent, (unsigned)(rank * 10 + k), out, sizeof out);
    packed_pattern(t, count, extent, (unsigned)(left * 10 + k), expect, sizeof expect);
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(out, nbytes, MPI_BYTE, right, k, in, (int)sizeof in, MPI_BYTE, left,
                           k, MPI_COMM_WORLD, &st));
    CHECK(memcmp(in, expect, (size_t)nbytes) == 0);
    MPI_Count xelems = -5;
    CHECK_MPI(MPI_Get_count(&st, t, &count));
    CHECK_MPI(MPI_Get_elements(&st, t, &elems));
    CHECK_MPI(MPI_Get_elements_x(&st, t, &xelems));
    CHECK(count == (is_s ? s_count[k] : v_count[k - 5]));
    CHECK(elems == (is_s ? s_elems[k] : v_elems[k - 5]));
    CHECK(xelems == elems);
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == nbytes);
    /* predefined types: a partial element is MPI_UNDEFINED for both; a pair counts two */
    int want = nbytes % 4 == 0 ? nbytes / 4 : MPI_UNDEFINED;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &elems));
    CHECK(count == want && elems == want);
    want = nbytes % 8 == 0 ? nbytes / 8 : MPI_UNDEFINED;
    CHECK_MPI(MPI_Get_count(&st, MPI_2INT, &count));
    CHECK_MPI(MPI_Get_elements(&st, MPI_2INT, &elems));
    CHECK(count == want && elems == (want == MPI_UNDEFINED ? want : 2 * want));
  }
}

/* One MPI_PACKED message holding a count, that many S and one t_vec element; the receiver
 * unpacks it piece by piece and compares with the sender's data, rebuilt locally. */
static void transfer_packed(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  S s_out[4], s_in[4], s_ref[4];
  double v_out[10], v_in[10], v_ref[10];
  int n = rank % 4 + 1, pos = 0, bytes = 0, nin = 0;
  fill(s_out, sizeof s_out, (unsigned)rank);
  fill(v_out, sizeof v_out, (unsigned)rank + 100);
  fill(s_ref, sizeof s_ref, (unsigned)left);
  fill(v_ref, sizeof v_ref, (unsigned)left + 100);
  unsigned char buf[256], rbuf[256];
  CHECK_MPI(MPI_Pack(&n, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack(s_out, n, t_s, buf, sizeof buf, &pos, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack(v_out, 1, t_vec, buf, sizeof buf, &pos, MPI_COMM_WORLD));
  CHECK(pos == 4 + 13 * n + 48);
  MPI_Request req;
  MPI_Status st;
  CHECK_MPI(MPI_Isend(buf, pos, MPI_PACKED, right, 77, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Probe(left, 77, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_PACKED, &bytes));
  CHECK_MPI(MPI_Recv(rbuf, bytes, MPI_PACKED, left, 77, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  memset(s_in, 0x5a, sizeof s_in);
  memset(v_in, 0x5a, sizeof v_in);
  pos = 0;
  CHECK_MPI(MPI_Unpack(rbuf, bytes, &pos, &nin, 1, MPI_INT, MPI_COMM_WORLD));
  CHECK(nin == left % 4 + 1 && bytes == 4 + 13 * nin + 48);
  CHECK_MPI(MPI_Unpack(rbuf, bytes, &pos, s_in, nin, t_s, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Unpack(rbuf, bytes, &pos, v_in, 1, t_vec, MPI_COMM_WORLD));
  CHECK(pos == bytes);
  for (int i = 0; i < 4; ++i) {
    unsigned char pad[sizeof(S)];
    memset(pad, 0x5a, sizeof pad);
    const S* want = i < nin ? &s_ref[i] : (const S*)pad;
    CHECK(memcmp(&s_in[i].a, &want->a, sizeof(int)) == 0);
    CHECK(memcmp(&s_in[i].b, &want->b, sizeof(double)) == 0);
    CHECK(memcmp(&s_in[i].c, &want->c, 1) == 0);
  }
  for (int i = 0; i < 10; ++i) { /* t_vec holds doubles 0,1, 4,5, 8,9 */
    int in_map = (i % 4) < 2;
    if (in_map) CHECK(memcmp(&v_in[i], &v_ref[i], sizeof(double)) == 0);
    else {
      unsigned char pad[sizeof(double)];
      memset(pad, 0x5a, sizeof pad);
      CHECK(memcmp(&v_in[i], pad, sizeof(double)) == 0);
    }
  }
}

int main(int argc, char** argv) {
  datatype_init(&argc, &argv);
  t_vec = make_vec();
  t_s = make_s();
  CHECK_MPI(MPI_Type_commit(&t_vec));
  CHECK_MPI(MPI_Type_commit(&t_s));
  transfer_counts();
  transfer_packed();
  CHECK_MPI(MPI_Type_free(&t_vec));
  CHECK_MPI(MPI_Type_free(&t_s));
  return datatype_finish("datatype_transfer");
}
