/* Derived datatypes: every constructor (nested, negative displacements and strides, resized
 * bounds) checked against a hand-written reference layout: sizes, extents and true extents,
 * Pack byte for byte against a locally computed sequence, Unpack touching exactly the typemap;
 * a real transfer of packed bytes (MPI_BYTE and MPI_PACKED) with Get_count/Get_elements on
 * the status, partial messages included; Type_free of types others are built from;
 * get_envelope/get_contents; Type_set_name/get_name; type attributes; Pack_external (external32); absolute addresses with MPI_BOTTOM; error classes. Any size. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

typedef struct {
  long off, len;
} Blk;

/* What one element of a type is, by hand: its data blocks in typemap order and its bounds. */
typedef struct {
  int nblk;
  Blk blk[12];
  long size, lb, extent, true_lb, true_extent;
} Ref;

/* Checks the queries, then Pack and Unpack of `count` elements against `r`. */
static void check_type(MPI_Datatype t, const Ref* r, int count, unsigned seed) {
  long sum = 0;
  for (int b = 0; b < r->nblk; ++b) sum += r->blk[b].len;
  CHECK(sum == r->size); /* the reference itself */

  int isize = -1;
  MPI_Count xsize = -1, xlb = 0, xext = 0;
  MPI_Aint lb = 0, extent = 0, tlb = 0, text = 0;
  CHECK_MPI(MPI_Type_size(t, &isize));
  CHECK_MPI(MPI_Type_size_x(t, &xsize));
  CHECK(isize == r->size && xsize == r->size);
  CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
  CHECK(lb == r->lb && extent == r->extent);
  CHECK_MPI(MPI_Type_get_extent_x(t, &xlb, &xext));
  CHECK(xlb == r->lb && xext == r->extent);
  CHECK_MPI(MPI_Type_get_true_extent(t, &tlb, &text));
  CHECK(tlb == r->true_lb && text == r->true_extent);
  CHECK_MPI(MPI_Type_get_true_extent_x(t, &xlb, &xext));
  CHECK(xlb == r->true_lb && xext == r->true_extent);
  int psize = -1;
  CHECK_MPI(MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize));
  CHECK(psize == count * r->size);

  /* A buffer covering every byte of the typemap, 32 guard bytes either side. */
  long lo = 0, hi = 0;
  for (int i = 0; i < count; ++i)
    for (int b = 0; b < r->nblk; ++b) {
      long o = i * r->extent + r->blk[b].off;
      if ((i == 0 && b == 0) || o < lo) lo = o;
      if ((i == 0 && b == 0) || o + r->blk[b].len > hi) hi = o + r->blk[b].len;
    }
  size_t span = (size_t)(hi - lo) + 64;
  unsigned char* mem = malloc(span);
  unsigned char* base = mem + 32 - lo;
  fill(mem, span, seed);

  size_t bytes = (size_t)count * (size_t)r->size;
  unsigned char* expect = malloc(bytes + 1);
  unsigned char* packed = malloc(bytes + 16);
  size_t at = 0;
  for (int i = 0; i < count; ++i)
    for (int b = 0; b < r->nblk; ++b) {
      memcpy(expect + at, base + i * r->extent + r->blk[b].off, (size_t)r->blk[b].len);
      at += (size_t)r->blk[b].len;
    }
  memset(packed, 0xab, bytes + 16);
  int pos = 0;
  CHECK_MPI(MPI_Pack(base, count, t, packed, (int)bytes, &pos, MPI_COMM_WORLD));
  CHECK(pos == (int)bytes);
  CHECK(memcmp(packed, expect, bytes) == 0);
  for (size_t k = bytes; k < bytes + 16; ++k) CHECK(packed[k] == 0xab);

  /* Unpack writes the typemap's bytes and nothing else. */
  unsigned char* out = malloc(span);
  unsigned char* image = malloc(span);
  memset(out, 0xee, span);
  memset(image, 0xee, span);
  for (int i = 0; i < count; ++i)
    for (int b = 0; b < r->nblk; ++b) {
      long o = 32 - lo + i * r->extent + r->blk[b].off;
      memcpy(image + o, mem + o, (size_t)r->blk[b].len);
    }
  pos = 0;
  CHECK_MPI(MPI_Unpack(packed, (int)bytes, &pos, out + 32 - lo, count, t, MPI_COMM_WORLD));
  CHECK(pos == (int)bytes);
  CHECK(memcmp(out, image, span) == 0);
  free(mem);
  free(expect);
  free(packed);
  free(out);
  free(image);
}

static void commit_check(MPI_Datatype* t, const Ref* r, unsigned seed) {
  CHECK_MPI(MPI_Type_commit(t));
  check_type(*t, r, 1, seed);
  check_type(*t, r, 3, seed + 1);
}

typedef struct {
  int a;
  double b;
  char c;
} S; /* a at 0, b at 8, c at 16; sizeof 24 */

static MPI_Datatype make_s(void) {
  S s = {0, 0.0, 0};
  MPI_Aint base, addr[3];
  CHECK_MPI(MPI_Get_address(&s, &base));
  CHECK_MPI(MPI_Get_address(&s.a, &addr[0]));
  CHECK_MPI(MPI_Get_address(&s.b, &addr[1]));
  CHECK_MPI(MPI_Get_address(&s.c, &addr[2]));
  for (int i = 0; i < 3; ++i) addr[i] = MPI_Aint_diff(addr[i], base);
  CHECK(addr[1] == 8 && addr[2] == 16 && MPI_Aint_add(base, addr[2]) == (MPI_Aint)&s.c);
  int bl[3] = {1, 1, 1};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;
  CHECK_MPI(MPI_Type_create_struct(3, bl, addr, types, &t));
  return t;
}

static const Ref kS = {3, {{0, 4}, {8, 8}, {16, 1}}, 13, 0, sizeof(S), 0, 17};

/* Every constructor, alone and nested. The types outlive this function where later parts use
 * them. */
static MPI_Datatype t_vec, t_negvec, t_idx, t_s, t_nested;

static void constructors(void) {
  MPI_Datatype t;
  {
    const Ref r = {1, {{0, 12}}, 12, 0, 12, 0, 12};
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
    commit_check(&t, &r, 1);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL);
  }
  {
    const Ref r = {0, {{0, 0}}, 0, 0, 0, 0, 0};
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &t));
    commit_check(&t, &r, 2);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* 3 blocks of 2 doubles, stride 4: extent ((3-1)*4+2)*8 */
    const Ref r = {3, {{0, 16}, {32, 16}, {64, 16}}, 48, 0, 80, 0, 80};
    CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t_vec));
    commit_check(&t_vec, &r, 3);
  }
  { /* negative stride: blocks go backwards from 0 */
    const Ref r = {3, {{0, 4}, {-8, 4}, {-16, 4}}, 12, -16, 20, -16, 20};
    CHECK_MPI(MPI_Type_vector(3, 1, -2, MPI_INT, &t_negvec));
    commit_check(&t_negvec, &r, 4);
    MPI_Aint ub = 0, lb = 0, ext = 0;
    CHECK_MPI(MPI_Type_lb(t_negvec, &lb));
    CHECK_MPI(MPI_Type_ub(t_negvec, &ub));
    CHECK_MPI(MPI_Type_extent(t_negvec, &ext));
    CHECK(lb == -16 && ub == 4 && ext == 20);
  }
  { /* hvector, and the MPI-1 spelling gives the same type */
    const Ref r = {2, {{0, 6}, {20, 6}}, 12, 0, 26, 0, 26};
    CHECK_MPI(MPI_Type_create_hvector(2, 3, 20, MPI_SHORT, &t));
    commit_check(&t, &r, 5);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_hvector(2, 3, 20, MPI_SHORT, &t));
    commit_check(&t, &r, 6);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* indexed, out of order, with an empty block that adds no bounds */
    const int bl[3] = {2, 0, 1}, disp[3] = {5, 1, 0};
    const Ref r = {2, {{20, 8}, {0, 4}}, 12, 0, 28, 0, 28};
    CHECK_MPI(MPI_Type_indexed(3, bl, disp, MPI_INT, &t_idx));
    commit_check(&t_idx, &r, 7);
  }
  { /* hindexed with a negative displacement */
    int bl[2] = {1, 2};
    MPI_Aint disp[2] = {-12, 4};
    const Ref r = {2, {{-12, 8}, {4, 16}}, 24, -12, 32, -12, 32};
    CHECK_MPI(MPI_Type_create_hindexed(2, bl, disp, MPI_DOUBLE, &t));
    commit_check(&t, &r, 8);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_hindexed(2, bl, disp, MPI_DOUBLE, &t));
    commit_check(&t, &r, 9);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const int disp[3] = {4, 0, 8};
    const Ref r = {3, {{8, 4}, {0, 4}, {16, 4}}, 12, 0, 20, 0, 20};
    CHECK_MPI(MPI_Type_create_indexed_block(3, 2, disp, MPI_SHORT, &t));
    commit_check(&t, &r, 10);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const MPI_Aint disp[2] = {16, 3};
    const Ref r = {2, {{16, 4}, {3, 4}}, 8, 3, 17, 3, 17};
    CHECK_MPI(MPI_Type_create_hindexed_block(2, 1, disp, MPI_INT, &t));
    commit_check(&t, &r, 11);
    CHECK_MPI(MPI_Type_free(&t));
  }
  /* struct: the extent is padded to the C struct's (alignment of the double) */
  t_s = make_s();
  commit_check(&t_s, &kS, 12);
  {
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {0, 8, 16};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    CHECK_MPI(MPI_Type_struct(3, bl, disp, types, &t));
    commit_check(&t, &kS, 13);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* resized struct: new bounds, same data */
    const Ref r = {3, {{0, 4}, {8, 8}, {16, 1}}, 13, -4, 32, 0, 17};
    CHECK_MPI(MPI_Type_create_resized(t_s, -4, 32, &t));
    commit_check(&t, &r, 14);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* a struct pads even a resized piece (as MPICH): ub 17 rounds up to 20 */
    MPI_Datatype wide, types[2];
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 16};
    const Ref r = {2, {{0, 4}, {16, 1}}, 5, 0, 20, 0, 17};
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 12, &wide));
    types[0] = wide;
    types[1] = MPI_CHAR;
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &t));
    CHECK_MPI(MPI_Type_free(&wide));
    commit_check(&t, &r, 22);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* vector of the struct, stride 2 structs */
    const Ref r = {6, {{0, 4}, {8, 8}, {16, 1}, {48, 4}, {56, 8}, {64, 1}}, 26, 0, 72, 0, 65};
    CHECK_MPI(MPI_Type_vector(2, 1, 2, t_s, &t));
    commit_check(&t, &r, 15);
    CHECK_MPI(MPI_Type_dup(t, &t_nested)); /* committed because t is */
    check_type(t_nested, &r, 2, 16);
    CHECK_MPI(MPI_Type_free(&t_nested));
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* struct of the indexed type at 100 and two of the backwards vector at -40 */
    int bl[2] = {1, 2};
    MPI_Aint disp[2] = {100, -40};
    MPI_Datatype types[2] = {t_idx, t_negvec};
    const Ref r = {8,
                   {{120, 8}, {100, 4}, {-40, 4}, {-48, 4}, {-56, 4}, {-20, 4}, {-28, 4}, {-36, 4}},
                   36, -56, 184, -56, 184};
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &t_nested));
    commit_check(&t_nested, &r, 17);
  }
  { /* a resized int with extent 8 interleaves: contiguous of it has holes */
    MPI_Datatype wide;
    const Ref r = {3, {{0, 4}, {8, 4}, {16, 4}}, 12, 0, 24, 0, 20};
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 8, &wide));
    CHECK_MPI(MPI_Type_contiguous(3, wide, &t));
    CHECK_MPI(MPI_Type_free(&wide));
    commit_check(&t, &r, 18);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* hvector of a resized int with a negative lb */
    MPI_Datatype shifted;
    const Ref r = {4, {{0, 4}, {12, 4}, {30, 4}, {42, 4}}, 16, -4, 54, 0, 46};
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, -4, 12, &shifted));
    CHECK_MPI(MPI_Type_create_hvector(2, 2, 30, shifted, &t));
    CHECK_MPI(MPI_Type_free(&shifted));
    commit_check(&t, &r, 19);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* adjacent blocks merge: a dense vector is one block, a big contiguous too */
    const Ref r = {1, {{0, 4000}}, 4000, 0, 4000, 0, 4000};
    CHECK_MPI(MPI_Type_vector(100, 5, 5, MPI_DOUBLE, &t));
    commit_check(&t, &r, 20);
    CHECK_MPI(MPI_Type_free(&t));
    const Ref big = {1, {{0, 400000}}, 400000, 0, 400000, 0, 400000};
    CHECK_MPI(MPI_Type_contiguous(100000, MPI_INT, &t));
    commit_check(&t, &big, 21);
    CHECK_MPI(MPI_Type_free(&t));
  }
}

/* Free a type that others are built from, and the dup's original: the others still work. */
static void free_while_used(void) {
  MPI_Datatype c3, v, d;
  const Ref r = {2, {{0, 12}, {24, 12}}, 24, 0, 36, 0, 36};
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &c3));
  CHECK_MPI(MPI_Type_vector(2, 1, 2, c3, &v));
  CHECK_MPI(MPI_Type_free(&c3));
  commit_check(&v, &r, 30);
  CHECK_MPI(MPI_Type_dup(v, &d));
  CHECK_MPI(MPI_Type_free(&v));
  check_type(d, &r, 4, 31);
  CHECK_MPI(MPI_Type_free(&d));
}

/* Absolute addresses: a struct over two unrelated arrays, packed from MPI_BOTTOM. */
static void bottom(void) {
  int x[4] = {10, 11, 12, 13};
  double y[2] = {0.5, 1.5};
  int bl[2] = {2, 2};
  MPI_Aint disp[2];
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;
  CHECK_MPI(MPI_Get_address(&x[1], &disp[0]));
  CHECK_MPI(MPI_Get_address(&y[0], &disp[1]));
  CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  unsigned char packed[24], expect[24];
  memcpy(expect, &x[1], 8);
  memcpy(expect + 8, y, 16);
  int pos = 0;
  CHECK_MPI(MPI_Pack(MPI_BOTTOM, 1, t, packed, 24, &pos, MPI_COMM_WORLD));
  CHECK(pos == 24 && memcmp(packed, expect, 24) == 0);
  memset(x, 0, sizeof x);
  memset(y, 0, sizeof y);
  pos = 0;
  CHECK_MPI(MPI_Unpack(packed, 24, &pos, MPI_BOTTOM, 1, t, MPI_COMM_WORLD));
  CHECK(x[0] == 0 && x[1] == 11 && x[2] == 12 && x[3] == 0 && y[0] == 0.5 && y[1] == 1.5);
  CHECK_MPI(MPI_Type_free(&t));
}

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

static void envelopes(void) {
  int ni, na, nd, comb;
  int ints[8];
  MPI_Aint aints[4];
  MPI_Datatype types[4];
  CHECK_MPI(MPI_Type_get_envelope(MPI_DOUBLE, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0);
  CHECK_MPI(MPI_Type_get_envelope(t_vec, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1);
  CHECK_MPI(MPI_Type_get_contents(t_vec, 8, 4, 4, ints, aints, types));
  CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 4 && types[0] == MPI_DOUBLE);

  /* The nested struct: its inner derived types come back as new handles to free. */
  CHECK_MPI(MPI_Type_get_envelope(t_nested, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nd == 2);
  CHECK_MPI(MPI_Type_get_contents(t_nested, 8, 4, 4, ints, aints, types));
  CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && aints[0] == 100 && aints[1] == -40);
  const Ref idx = {2, {{20, 8}, {0, 4}}, 12, 0, 28, 0, 28};
  const Ref neg = {3, {{0, 4}, {-8, 4}, {-16, 4}}, 12, -16, 20, -16, 20};
  check_type(types[0], &idx, 2, 40);
  check_type(types[1], &neg, 2, 41);
  CHECK_MPI(MPI_Type_get_envelope(types[0], &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_INDEXED && ni == 7 && na == 0 && nd == 1);
  CHECK_MPI(MPI_Type_free(&types[0]));
  CHECK_MPI(MPI_Type_free(&types[1]));

  MPI_Datatype r, d;
  CHECK_MPI(MPI_Type_create_resized(t_s, -4, 32, &r));
  CHECK_MPI(MPI_Type_get_envelope(r, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nd == 1);
  CHECK_MPI(MPI_Type_get_contents(r, 0, 2, 1, ints, aints, types));
  CHECK(aints[0] == -4 && aints[1] == 32);
  check_type(types[0], &kS, 2, 42);
  CHECK_MPI(MPI_Type_free(&types[0]));
  CHECK_MPI(MPI_Type_dup(r, &d));
  CHECK_MPI(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_DUP && ni == 0 && na == 0 && nd == 1);
  CHECK_MPI(MPI_Type_free(&d));
  CHECK_MPI(MPI_Type_free(&r));
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = 0, pos = 0, n = 0;
  int data[16] = {0};
  unsigned char buf[64];
  MPI_Datatype t = MPI_DATATYPE_NULL, stale;
#define EXPECT_CLASS(call, want)        \
  do {                                  \
    int rc_ = (call);                   \
    CHECK(rc_ != MPI_SUCCESS);          \
    CHECK_MPI(MPI_Error_class(rc_, &cls)); \
    CHECK(cls == (want));               \
  } while (0)
  /* uncommitted: queries work, Pack does not */
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  CHECK_MPI(MPI_Type_size(t, &n));
  CHECK(n == 8);
  EXPECT_CLASS(MPI_Pack(data, 1, t, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_commit(&t));
  /* freed */
  stale = t;
  CHECK_MPI(MPI_Type_free(&t));
  EXPECT_CLASS(MPI_Pack(data, 1, stale, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_free(&stale), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_size(stale, &n), MPI_ERR_TYPE);
  /* predefined types cannot be freed, nor decoded */
  MPI_Datatype predefined = MPI_INT;
  EXPECT_CLASS(MPI_Type_free(&predefined), MPI_ERR_TYPE);
  CHECK(predefined == MPI_INT);
  EXPECT_CLASS(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL), MPI_ERR_TYPE);
  /* counts and arguments */
  EXPECT_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_vector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_COUNT); /* as MPICH */
  EXPECT_CLASS(MPI_Type_vector(2, 1, 1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  const int bl[2] = {1, -2}, disp[2] = {0, 4};
  EXPECT_CLASS(MPI_Type_indexed(2, bl, disp, MPI_INT, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_create_indexed_block(2, -1, disp, MPI_INT, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_commit(NULL), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Type_get_extent(MPI_INT, NULL, NULL), MPI_ERR_ARG);
  MPI_Aint adisp[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DATATYPE_NULL};
  const int bl2[2] = {1, 1};
  EXPECT_CLASS(MPI_Type_create_struct(2, bl2, adisp, types, &t), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_create_struct(-1, bl2, adisp, types, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_size(MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
  pos = 0;
  EXPECT_CLASS(MPI_Pack(data, -1, MPI_INT, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Pack(data, 16, MPI_INT, buf, 60, &pos, MPI_COMM_WORLD), MPI_ERR_ARG);
  CHECK(pos == 0);
  EXPECT_CLASS(MPI_Pack(data, 1, MPI_INT, buf, 64, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &n), MPI_ERR_COUNT);
  CHECK_MPI(MPI_Pack(data, 3, MPI_INT, buf, 64, &pos, MPI_COMM_WORLD));
  pos = 0;
  EXPECT_CLASS(MPI_Unpack(buf, 12, &pos, data, 4, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  EXPECT_CLASS(MPI_Unpack(buf, 12, &pos, data, -1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
#undef EXPECT_CLASS
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Type_set_name / Type_get_name: predefined names, renaming, a long name cut, a derived
 * type's name forgotten when its handle is freed. */
static void names(void) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Type_get_name(MPI_DOUBLE, name, &len));
  CHECK(strcmp(name, "MPI_DOUBLE") == 0 && len == 10);
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(len == 0 && name[0] == '\0');
  CHECK_MPI(MPI_Type_set_name(t, "triple"));
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(strcmp(name, "triple") == 0 && len == 6);
  char longname[300];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  CHECK_MPI(MPI_Type_set_name(t, longname));
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len);
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t)); /* may reuse the freed handle */
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(len == 0);
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_set_name(MPI_INT, "renamed int"));
  CHECK_MPI(MPI_Type_get_name(MPI_INT, name, &len));
  CHECK(strcmp(name, "renamed int") == 0);
  CHECK_MPI(MPI_Type_set_name(MPI_INT, "MPI_INT"));
}

/* Pack_external / Unpack_external / Pack_external_size ("external32"): big-endian bytes at
 * fixed sizes, pairs without padding, long double as binary128, a padded struct round trip;
 * the argument errors. */
static void external32(void) {
  unsigned char out[64];
  MPI_Aint pos = 0, size = 0;
  int i = 0x01020304;
  CHECK_MPI(MPI_Pack_external("external32", &i, 1, MPI_INT, out, sizeof out, &pos));
  CHECK(pos == 4 && out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 4);
  double d = 1.0;
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, out, sizeof out, &pos));
  CHECK(pos == 8 && out[0] == 0x3f && out[1] == 0xf0 && out[7] == 0);
  long double ld[2] = {1.0L, -2.5L}, ld_back[2] = {0, 0};
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", ld, 2, MPI_LONG_DOUBLE, out, sizeof out, &pos));
  CHECK(pos == 32 && out[0] == 0x3f && out[1] == 0xff && out[2] == 0 && out[15] == 0);
  CHECK(out[16] == 0xc0 && out[17] == 0x00 && out[18] == 0x40 && out[19] == 0);
  pos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", out, 32, &pos, ld_back, 2, MPI_LONG_DOUBLE));
  CHECK(pos == 32 && ld_back[0] == 1.0L && ld_back[1] == -2.5L);
  struct { double v; int k; } pair = {3.0, 7};
  CHECK_MPI(MPI_Pack_external_size("external32", 1, MPI_DOUBLE_INT, &size));
  CHECK(size == 12);
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", &pair, 1, MPI_DOUBLE_INT, out, sizeof out, &pos));
  CHECK(pos == 12 && out[0] == 0x40 && out[1] == 0x08 && out[8] == 0 && out[11] == 7);
  /* A struct with padding: char, double, short; 11 external bytes per element. */
  struct S { char c; double x; short s; } in[3], back[3];
  int bl[3] = {1, 1, 1};
  MPI_Aint disp[3] = {offsetof(struct S, c), offsetof(struct S, x), offsetof(struct S, s)};
  MPI_Datatype parts[3] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT}, st;
  CHECK_MPI(MPI_Type_create_struct(3, bl, disp, parts, &st));
  CHECK_MPI(MPI_Type_commit(&st));
  CHECK_MPI(MPI_Pack_external_size("external32", 3, st, &size));
  CHECK(size == 33);
  memset(back, 0, sizeof back);
  for (int k = 0; k < 3; ++k) {
    in[k].c = (char)('a' + k);
    in[k].x = 0.5 * k - 7;
    in[k].s = (short)(-300 * k);
  }
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", in, 3, st, out, sizeof out, &pos));
  CHECK(pos == 33 && out[0] == 'a' && out[9] == 0 && out[10] == 0 && out[11] == 'b');
  pos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", out, 33, &pos, back, 3, st));
  for (int k = 0; k < 3; ++k)
    CHECK(back[k].c == in[k].c && back[k].x == in[k].x && back[k].s == in[k].s);
  CHECK_MPI(MPI_Type_free(&st));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  pos = 0;
  CHECK(error_class_of(MPI_Pack_external("native", &i, 1, MPI_INT, out, 64, &pos)) ==
        MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Pack_external("external32", &i, 1, MPI_INT, out, 3, &pos)) ==
        MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Unpack_external("external32", out, 2, &pos, &i, 1, MPI_INT)) ==
        MPI_ERR_TRUNCATE);
  CHECK(pos == 0);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Type attributes: set/get/delete, replacement running the delete callback, copies on
 * Type_dup by the copy callback (one that declines, one that copies), deletes on Type_free
 * last set first, a keyval freed while in use staying valid for its attributes, errors. */
static int attr_deletes, attr_copies, attr_order[4], attr_order_n;
static int count_delete(MPI_Datatype t, int key, void* value, void* extra) {
  (void)t, (void)key, (void)extra;
  ++attr_deletes;
  if (attr_order_n < 4) attr_order[attr_order_n++] = (int)(intptr_t)value;
  return MPI_SUCCESS;
}
static int plus_one(MPI_Datatype t, int key, void* extra, void* in, void* out, int* flag) {
  (void)t, (void)key, (void)extra;
  ++attr_copies;
  *(void**)out = (void*)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}
static int failing_delete(MPI_Datatype t, int key, void* value, void* extra) {
  (void)t, (void)key, (void)value, (void)extra;
  return MPI_ERR_OTHER;
}

static void type_attributes(void) {
  int k1, k2, k3, flag = -1;
  CHECK_MPI(MPI_Type_create_keyval(plus_one, count_delete, &k1, NULL));
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_delete, &k2, NULL));
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &k3, NULL));
  MPI_Datatype t, d;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  void* v = NULL;
  CHECK_MPI(MPI_Type_get_attr(t, k1, &v, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Type_set_attr(t, k1, (void*)(intptr_t)10));
  CHECK_MPI(MPI_Type_set_attr(t, k2, (void*)(intptr_t)20));
  CHECK_MPI(MPI_Type_set_attr(t, k3, (void*)(intptr_t)30));
  CHECK_MPI(MPI_Type_set_attr(t, k2, (void*)(intptr_t)21)); /* replaces: deletes 20 */
  CHECK(attr_deletes == 1 && attr_order[0] == 20);
  CHECK_MPI(MPI_Type_get_attr(t, k2, &v, &flag));
  CHECK(flag == 1 && (intptr_t)v == 21);
  CHECK_MPI(MPI_Type_dup(t, &d));
  CHECK(attr_copies == 1);
  CHECK_MPI(MPI_Type_get_attr(d, k1, &v, &flag));
  CHECK(flag == 1 && (intptr_t)v == 11);
  CHECK_MPI(MPI_Type_get_attr(d, k2, &v, &flag));
  CHECK(flag == 0); /* no copy callback: not copied */
  CHECK_MPI(MPI_Type_get_attr(d, k3, &v, &flag));
  CHECK(flag == 1 && (intptr_t)v == 30); /* MPI_TYPE_DUP_FN: the same value */
  CHECK_MPI(MPI_Type_delete_attr(d, k3));
  CHECK_MPI(MPI_Type_get_attr(d, k3, &v, &flag));
  CHECK(flag == 0);
  /* A freed keyval stays valid for the attributes that use it. */
  CHECK_MPI(MPI_Type_free_keyval(&k1));
  CHECK(k1 == MPI_KEYVAL_INVALID);
  attr_order_n = 0;
  CHECK_MPI(MPI_Type_free(&t)); /* deletes k3 (no callback), k2 = 21, then k1 = 10 */
  CHECK(attr_deletes == 3 && attr_order_n == 2 && attr_order[0] == 21 && attr_order[1] == 10);
  CHECK_MPI(MPI_Type_free(&d)); /* k1 = 11 */
  CHECK(attr_deletes == 4);
  /* A failing delete callback keeps the type. */
  int kf;
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, failing_delete, &kf, NULL));
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
  CHECK_MPI(MPI_Type_set_attr(t, kf, NULL));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(MPI_Type_free(&t) == MPI_ERR_OTHER && t != MPI_DATATYPE_NULL);
  CHECK(error_class_of(MPI_Type_get_attr(t, 0x12345, &v, &flag)) == MPI_ERR_KEYVAL);
  CHECK(error_class_of(MPI_Type_delete_attr(t, k2)) == MPI_ERR_KEYVAL); /* not set on t */
  CHECK(error_class_of(MPI_Type_set_attr(MPI_DATATYPE_NULL, k2, NULL)) == MPI_ERR_TYPE);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Type_free_keyval(&kf));
  CHECK_MPI(MPI_Type_free_keyval(&k2));
  CHECK_MPI(MPI_Type_free_keyval(&k3));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  constructors();
  free_while_used();
  bottom();
  transfer_counts();
  transfer_packed();
  envelopes();
  names();
  type_attributes();
  external32();
  errors();
  CHECK_MPI(MPI_Type_free(&t_vec));
  CHECK_MPI(MPI_Type_free(&t_negvec));
  CHECK_MPI(MPI_Type_free(&t_idx));
  CHECK_MPI(MPI_Type_free(&t_s));
  CHECK_MPI(MPI_Type_free(&t_nested));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("mpi datatype ok: %d ranks\n", size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
