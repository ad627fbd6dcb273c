/* Shared by the large_count_vec_*.c programs, which test MPI 4.0's large-count vector
 * collectives and the last large-count calls with small counts against a result computed
 * here, byte for byte (the gaps left between blocks must stay as they were).
 *
 * A displacement beyond INT_MAX, which sends a call down its per-peer type path, is reached
 * with real memory: the buffer is MPI_BOTTOM and the displacements are the blocks' addresses
 * in elements (absolute below), above INT_MAX for any heap address. What Debian's MPICH 4.0.2
 * gets wrong is skipped on it (MPICH_FAILS) unless TORUS_MPI_H is defined, as the ABI test
 * does when it builds these with mpicc.mpich: on our library every check must hold. */
#ifndef TORUS_TEST_MPI_LARGE_COUNT_VEC_FORMS_H
#define TORUS_TEST_MPI_LARGE_COUNT_VEC_FORMS_H

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

static inline int rounds(int form) { return form == PERSISTENT ? 2 : 1; }

/* The call of `form` just made (a persistent one at round 0) completed: waited for, or
 * started and waited for. */
static inline void complete(int form, MPI_Request* r) {
  if (form == BLOCKING) return;
  if (form == PERSISTENT) CHECK_MPI(MPI_Start(r));
  CHECK_MPI(MPI_Wait(r, MPI_STATUS_IGNORE));
}

static inline void done(int form, MPI_Request* r) {
  if (form == PERSISTENT) CHECK_MPI(MPI_Request_free(r));
}

/* 0 to 3 elements, zero for some ranks. */
static inline MPI_Count cnt(int i, int salt) { return (MPI_Count)((i * 3 + salt) % 4); }

/* n blocks of counts[i] elements, each after a gap of one element: the displacements (in
 * elements) and the elements in all. */
static inline size_t gapped(int n, const MPI_Count* counts, MPI_Aint* displs) {
  size_t at = 0;
  for (int i = 0; i < n; ++i) {
    displs[i] = (MPI_Aint)at + 1;
    at += (size_t)counts[i] + 1;
  }
  return at + 1;
}

/* The same blocks of `base` as displacements from MPI_BOTTOM in `unit`-byte elements: their
 * addresses, divided by unit, beyond INT_MAX. */
static inline void absolute(int n, const MPI_Aint* rel, MPI_Aint* displs, const void* base,
                            size_t unit) {
  for (int i = 0; i < n; ++i) {
    MPI_Aint a = 0;
    CHECK_MPI(MPI_Get_address((const char*)base + rel[i] * (MPI_Aint)unit, &a));
    CHECK(a % (MPI_Aint)unit == 0 && a / (MPI_Aint)unit > INT_MAX);
    displs[i] = a / (MPI_Aint)unit;
  }
}

static inline void* must(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  CHECK(p != NULL);
  return p;
}

static inline void put(unsigned char* at, int bytes, int v) {
  if (bytes == 4) memcpy(at, &v, 4);
  else {
    const short s = (short)v;
    memcpy(at, &s, 2);
  }
}

static inline void lcv_init(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
}

/* `name` is the program's: the ABI test expects it in the line printed. */
static inline int lcv_finish(const char* name) {
  if (rank == 0) printf("mpi %s ok: %d ranks\n", name, size);
  MPI_Finalize();
  return 0;
}

#endif
