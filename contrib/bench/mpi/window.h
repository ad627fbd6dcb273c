/* Buffers of the windowed benchmarks (mpi_bw.c, mpi_bibw.c): one receive slot per message in
 * flight, so no two pending receives share memory (the standard leaves that undefined, and a
 * library that writes in place could pass a check it should fail). A window holds at most
 * 64 MiB: above 1 MiB it has fewer than W messages (4 at 16 MiB). A window of 64 x 16 MiB
 * would take a second or more per window here, and bandwidth at those sizes does not depend
 * on more messages in flight. */
#ifndef TORUS_BENCH_MPI_WINDOW_H
#define TORUS_BENCH_MPI_WINDOW_H

#include "bench.h"

enum { kWindowPoolBytes = 64 << 20 };

struct window_bufs {
  char *pool;
  size_t pool_bytes;
};

static inline void window_alloc(struct window_bufs *w, const struct bench_options *o) {
  size_t want = (size_t)o->window * o->max_size;
  w->pool_bytes = want < kWindowPoolBytes ? want : kWindowPoolBytes;
  if (w->pool_bytes < o->max_size) w->pool_bytes = o->max_size;
  w->pool = bench_alloc(w->pool_bytes);
}

/* Messages per window at SIZE bytes: W, or as many as the 64 MiB pool holds. */
static inline int window_slots(const struct window_bufs *w, const struct bench_options *o,
                               size_t size) {
  size_t n = w->pool_bytes / (size ? size : 1);
  return n < (size_t)o->window ? (int)n : o->window;
}

/* Messages in the one checked window at SIZE bytes: all slots up to 16 MiB of data, at least
 * one. Filling and verifying 64 MiB per size would cost more than timing it. */
static inline int window_checked(int slots, size_t size) {
  size_t n = (size_t)(16 << 20) / (size ? size : 1);
  return n < 1 ? 1 : n < (size_t)slots ? (int)n : slots;
}

static inline char *window_slot(const struct window_bufs *w, size_t size, int i, int slots) {
  return w->pool + (size_t)(i % slots) * size;
}

#endif
