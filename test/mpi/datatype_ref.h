/* A hand-written reference layout of one element of a derived type and the checks of a type
 * against it (sizes, extents and true extents, Pack byte for byte against a locally computed
 * sequence, Unpack touching exactly the typemap); the struct and vector types more than one
 * program uses; the start and end of datatype_{constructors,transfer,attrs,external32}.c. */
#ifndef TORUS_TEST_MPI_DATATYPE_REF_H
#define TORUS_TEST_MPI_DATATYPE_REF_H

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
static inline void check_type(MPI_Datatype t, const Ref* r, int count, unsigned seed) {
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

static inline void commit_check(MPI_Datatype* t, const Ref* r, unsigned seed) {
  CHECK_MPI(MPI_Type_commit(t));
  check_type(*t, r, 1, seed);
  check_type(*t, r, 3, seed + 1);
}

typedef struct {
  int a;
  double b;
  char c;
} S; /* a at 0, b at 8, c at 16; sizeof 24 */

static inline MPI_Datatype make_s(void) {
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

/* 3 blocks of 2 doubles, stride 4: extent ((3-1)*4+2)*8 */
static inline MPI_Datatype make_vec(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t));
  return t;
}

static const Ref kVec = {3, {{0, 16}, {32, 16}, {64, 16}}, 48, 0, 80, 0, 80};

static inline void datatype_init(int* argc, char*** argv) {
  CHECK_MPI(MPI_Init(argc, argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
}

static inline int datatype_finish(const char* name) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("mpi %s ok: %d ranks\n", name, size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}

#endif
