/* Shared by the datatype_coll_*.c programs: three types with one signature per element
 * (3 MPI_INT): 3 plain ints, a strided vector and a struct with gaps (resized); where each
 * puts its ints, a sentinel in every int outside the typemap, and the checks of both; the
 * counts every program runs at. */
#ifndef TORUS_TEST_MPI_DATATYPE_KINDS_H
#define TORUS_TEST_MPI_DATATYPE_KINDS_H

#include <string.h>

#include "check.h"

static int rank, size;

enum { K_INT, K_VEC, K_ST, NKINDS };
static MPI_Datatype types[NKINDS];
static const int ext_ints[NKINDS] = {3, 5, 6}; /* element extent in ints */
static const int st_pos[3] = {0, 2, 3};        /* the struct's ints: 1 at 0, 2 at 8 bytes */
enum { SENTINEL = -7 };

/* Where int j (0..2) of element i lies, in ints from the buffer start. */
static inline int pos(int k, int i, int j) {
  switch (k) {
    case K_INT: return i * 3 + j;
    case K_VEC: return i * 5 + 2 * j;
    default: return i * 6 + st_pos[j];
  }
}

static inline int val(int owner, int i, int j) { return owner * 100000 + i * 3 + j + 1; }

static inline int* alloc_ints(int k, int elements) {
  const int n = elements * ext_ints[k] + 4;
  int* b = malloc(sizeof(int) * (size_t)n);
  for (int x = 0; x < n; ++x) b[x] = SENTINEL;
  return b;
}

/* Writes owner's elements [0, count) at element offset `at` of b. */
static inline void put(int k, int* b, int at, int count, int owner) {
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < 3; ++j) b[pos(k, at + i, j)] = val(owner, i, j);
}

/* Checks elements [at, at + count) hold owner's data. */
static inline void expect(int k, const int* b, int at, int count, int owner) {
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < 3; ++j) CHECK(b[pos(k, at + i, j)] == val(owner, i, j));
}

/* Every int of b (elements elements of kind k) outside [lo, hi) elements' typemap is the
 * sentinel. */
static inline void untouched(int k, const int* b, int elements, int lo, int hi) {
  const int n = elements * ext_ints[k] + 4;
  char* in_map = calloc((size_t)n, 1);
  for (int i = lo; i < hi; ++i)
    for (int j = 0; j < 3; ++j) in_map[pos(k, i, j)] = 1;
  for (int x = 0; x < n; ++x)
    if (!in_map[x]) CHECK(b[x] == SENTINEL);
  free(in_map);
}

static inline void wait_or(MPI_Request* r) { CHECK_MPI(MPI_Wait(r, MPI_STATUS_IGNORE)); }

static const int kCounts[3] = {0, 1, 2000};

static inline void kinds_init(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64);

  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &types[K_INT]));
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &types[K_VEC]));
  {
    int bl[2] = {1, 2};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype ts[2] = {MPI_INT, MPI_INT}, st;
    CHECK_MPI(MPI_Type_create_struct(2, bl, d, ts, &st));
    CHECK_MPI(MPI_Type_create_resized(st, 0, 24, &types[K_ST]));
    CHECK_MPI(MPI_Type_free(&st));
  }
  for (int k = 0; k < NKINDS; ++k) CHECK_MPI(MPI_Type_commit(&types[k]));
}

static inline int kinds_finish(const char* name) {
  for (int k = 0; k < NKINDS; ++k) CHECK_MPI(MPI_Type_free(&types[k]));
  MPI_Finalize();
  if (rank == 0) printf("%s: ok\n", name);
  return 0;
}

#endif
