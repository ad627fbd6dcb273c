/* Shared by the MPI test programs: CHECK aborts the job with a message naming the rank and
 * the failed condition; fill/verify give every (sender, message) its own byte pattern. */
#ifndef TORUS_TEST_MPI_CHECK_H
#define TORUS_TEST_MPI_CHECK_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                      \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      int check_rank_ = -1;                                                              \
      MPI_Comm_rank(MPI_COMM_WORLD, &check_rank_);                                       \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", check_rank_, __FILE__,       \
              __LINE__, #cond);                                                          \
      fflush(stderr);                                                                    \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
    }                                                                                    \
  } while (0)

#define CHECK_MPI(call) CHECK((call) == MPI_SUCCESS)

/* The class of an error code; -1 when Error_class or Error_string does not know it (every
 * code a call returns must have a class and a text). */
static inline int error_class_of(int rc) {
  int c = -1, len = 0;
  char text[MPI_MAX_ERROR_STRING];
  if (MPI_Error_class(rc, &c) != MPI_SUCCESS) return -1;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS || len == 0) return -1;
  return c;
}

static inline unsigned char pattern_byte(unsigned seed, size_t i) {
  return (unsigned char)((i * 131u + seed * 7919u + (i >> 8)) & 0xff);
}

static inline void fill(void* buf, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; ++i) ((unsigned char*)buf)[i] = pattern_byte(seed, i);
}

/* The offset of the first byte that differs from the pattern, or len when all match. */
static inline size_t verify(const void* buf, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; ++i)
    if (((const unsigned char*)buf)[i] != pattern_byte(seed, i)) return i;
  return len;
}

/* One int every other int (extent two ints): what sends it or receives into it goes through
 * the library's staging, and the ints between must stay untouched. */
static inline MPI_Datatype strided_int_type(void) {
  MPI_Datatype v, r;
  CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &v));
  CHECK_MPI(MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(int), &r));
  CHECK_MPI(MPI_Type_commit(&r));
  CHECK_MPI(MPI_Type_free(&v));
  return r;
}

/* n ints (at least one allocated), every one `mark`. */
static inline int* marked_ints(int n, int mark) {
  int* p = (int*)malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  for (int i = 0; i < n; ++i) p[i] = mark;
  return p;
}

/* A non-commutative op on MPI_2INT: each element is an interval of ranks [lo, hi];
 * combining checks that `in` is the interval just below `inout` and joins them, so a wrong
 * combine order gives -1. */
static inline void interval_join(void* invec, void* inoutvec, int* len, MPI_Datatype* type) {
  (void)type;
  int* a = (int*)invec;
  int* b = (int*)inoutvec;
  for (int i = 0; i < *len; ++i) {
    int ok = a[2 * i] >= 0 && b[2 * i] >= 0 && a[2 * i + 1] + 1 == b[2 * i];
    b[2 * i] = ok ? a[2 * i] : -1;
    b[2 * i + 1] = ok ? b[2 * i + 1] : -1;
  }
}

#endif
