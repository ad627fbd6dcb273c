/* Shared by the intercomm_*.c programs: an intercommunicator made by MPI_Intercomm_create
 * from two groups of the world, what each side knows of both groups, the root arguments of a
 * rooted collective across it, and the two ways of splitting the job every program runs its
 * parts on. */
#ifndef TORUS_TEST_MPI_INTERCOMM_SETUP_H
#define TORUS_TEST_MPI_INTERCOMM_SETUP_H

#include <stdlib.h>
#include <string.h>

#include "check.h"

static int wrank, wsize;

/* One intercommunicator and what each side knows of both groups. */
struct inter {
  MPI_Comm comm;
  int in_a;              /* this process is in group A */
  int lrank, lsize;      /* in the local group */
  int rsize;             /* of the remote group */
  int *lworld, *rworld;  /* world ranks of the local and the remote group, in group order */
};

static inline int *members(int in_a, int (*is_a)(int), int *n) {
  int *w = malloc(sizeof(int) * (size_t)wsize), k = 0;
  CHECK(w != NULL);
  for (int r = 0; r < wsize; ++r)
    if (!!is_a(r) == !!in_a) w[k++] = r;
  *n = k;
  return w;
}

static inline int block_a(int r) { return r < wsize / 3 + 1; }
static inline int even_a(int r) { return r % 2 == 0; }

/* Groups A and B as is_a splits the world; the leaders are local rank `leader_last ? last :
 * 0` of each group, found in MPI_COMM_WORLD as the peer communicator. */
static inline struct inter make_inter(int (*is_a)(int), int leader_last, int tag) {
  struct inter x;
  x.in_a = is_a(wrank);
  MPI_Comm local;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, x.in_a, wrank, &local));
  x.lworld = members(x.in_a, is_a, &x.lsize);
  x.rworld = members(!x.in_a, is_a, &x.rsize);
  const int local_leader = leader_last ? x.lsize - 1 : 0;
  const int remote_leader = x.rworld[leader_last ? x.rsize - 1 : 0];
  CHECK_MPI(MPI_Intercomm_create(local, local_leader, MPI_COMM_WORLD, remote_leader, tag,
                                 &x.comm));
  CHECK_MPI(MPI_Comm_free(&local));
  CHECK_MPI(MPI_Comm_rank(x.comm, &x.lrank));
  int n = -1, flag = 0;
  CHECK_MPI(MPI_Comm_size(x.comm, &n));
  CHECK(n == x.lsize && x.lworld[x.lrank] == wrank);
  CHECK_MPI(MPI_Comm_remote_size(x.comm, &n));
  CHECK(n == x.rsize);
  CHECK_MPI(MPI_Comm_test_inter(x.comm, &flag));
  CHECK(flag == 1);
  return x;
}

static inline void free_inter(struct inter *x) {
  CHECK_MPI(MPI_Comm_free(&x->comm));
  CHECK(x->comm == MPI_COMM_NULL);
  free(x->lworld);
  free(x->rworld);
}

/* The root argument of a rooted collective whose root is local rank `r` of group A (a_root)
 * or of group B. */
static inline int root_arg(const struct inter *x, int a_root, int r) {
  if (x->in_a == a_root) return x->lrank == r ? MPI_ROOT : MPI_PROC_NULL;
  return r;
}

static inline void intercomm_init(int *argc, char ***argv) {
  CHECK_MPI(MPI_Init(argc, argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  int flag = 1;
  CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0);
}

/* `body` on blocks of unequal size with the leaders at local rank 0, then on the even and
 * odd ranks with the leaders at the last rank. One rank has no second group: nothing. */
static inline void on_each_inter(void (*body)(const struct inter *)) {
  if (wsize < 2) return;
  for (int way = 0; way < 2; ++way) {
    struct inter x = way ? make_inter(even_a, 1, 12) : make_inter(block_a, 0, 11);
    body(&x);
    free_inter(&x);
  }
}

/* `name` is the program's: the ABI test expects it in the line printed. */
static inline int intercomm_finish(const char *name) {
  if (wrank == 0) printf("mpi %s ok: %d ranks\n", name, wsize);
  CHECK_MPI(MPI_Finalize());
  return 0;
}

#endif
