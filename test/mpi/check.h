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

#endif
