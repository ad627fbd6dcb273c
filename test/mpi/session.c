/* MPI 4.0 sessions and the dynamic-process calls: a session before MPI_Init, its process
 * sets and info, communicators made from its groups (intra and inter) carrying real traffic,
 * its error handler, then MPI_Init sharing the started library, MPI_Finalize while the
 * session's communicators still work, and the session's end. The dynamic-process calls must
 * fail with their own error classes and leave their outputs null. */
#include <stdarg.h>
#include <string.h>

#include "check.h"

static int handler_calls, handler_code;
static MPI_Session handler_session;

static void on_session_error(MPI_Session *s, int *code, ...) {
  ++handler_calls;
  handler_session = *s;
  handler_code = *code;
}

/* Each rank sends its rank pattern to the next; the one from the previous must arrive. */
static void ring(MPI_Comm comm, int tag) {
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CHECK_MPI(MPI_Comm_size(comm, &size));
  unsigned char out[300], in[300];
  fill(out, sizeof out, (unsigned)rank + 7u);
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_Sendrecv(out, sizeof out, MPI_BYTE, (rank + 1) % size, tag, in, sizeof in,
                         MPI_BYTE, (rank + size - 1) % size, tag, comm, MPI_STATUS_IGNORE));
  CHECK(verify(in, sizeof in, (unsigned)((rank + size - 1) % size) + 7u) == sizeof in);
}

static void psets(MPI_Session s, int world_size) {
  int n = 0;
  CHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
  CHECK(n == 2);
  const char *names[2] = {"mpi://WORLD", "mpi://SELF"};
  for (int i = 0; i < 2; ++i) {
    int len = 0;
    char name[MPI_MAX_PSET_NAME_LEN];
    CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
    CHECK(len == (int)strlen(names[i]) + 1);
    CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
    CHECK(strcmp(name, names[i]) == 0);
    len = 5; /* truncated: 4 characters and the NUL */
    CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
    CHECK(strncmp(name, names[i], 4) == 0 && name[4] == '\0');
    MPI_Info info;
    char value[32];
    int flag = 0;
    CHECK_MPI(MPI_Session_get_pset_info(s, names[i], &info));
    CHECK_MPI(MPI_Info_get(info, "mpi_size", sizeof value - 1, value, &flag));
    CHECK(flag && atoi(value) == (i == 0 ? world_size : 1));
    CHECK_MPI(MPI_Info_free(&info));
  }
  CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &n, NULL) == MPI_ERR_ARG);
  MPI_Group g;
  CHECK(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g) == MPI_ERR_ARG);
  MPI_Info info;
  char level[64];
  int flag = 0;
  CHECK_MPI(MPI_Session_get_info(s, &info));
  CHECK_MPI(MPI_Info_get(info, "thread_level", sizeof level - 1, level, &flag));
  CHECK(flag && strncmp(level, "MPI_THREAD_", 11) == 0);
  CHECK_MPI(MPI_Info_free(&info));
}

/* An intercommunicator between the even and the odd ranks of `world`, built from groups. */
static void inter(MPI_Group world, int rank, int size) {
  if (size < 2) return;
  int evens[64], odds[64], ne = 0, no = 0;
  for (int r = 0; r < size; ++r) {
    if (r % 2 == 0) evens[ne++] = r;
    else odds[no++] = r;
  }
  MPI_Group even, odd;
  CHECK_MPI(MPI_Group_incl(world, ne, evens, &even));
  CHECK_MPI(MPI_Group_incl(world, no, odds, &odd));
  const int mine_even = rank % 2 == 0;
  MPI_Comm ic;
  /* The odd group's leader is its second rank when it has one. */
  const int odd_leader = no > 1 ? 1 : 0;
  CHECK_MPI(MPI_Intercomm_create_from_groups(
      mine_even ? even : odd, mine_even ? 0 : odd_leader, mine_even ? odd : even,
      mine_even ? odd_leader : 0, "org.torus.test.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic));
  int is_inter = 0, lsize = 0, rsize = 0;
  CHECK_MPI(MPI_Comm_test_inter(ic, &is_inter));
  CHECK_MPI(MPI_Comm_size(ic, &lsize));
  CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
  CHECK(is_inter && lsize == (mine_even ? ne : no) && rsize == (mine_even ? no : ne));
  /* Each even rank i talks with odd rank i (when there is one), both ways. */
  int lrank;
  CHECK_MPI(MPI_Comm_rank(ic, &lrank));
  if (lrank < no && lrank < ne) {
    long out[3] = {rank, 1000L + rank, -rank}, in[3] = {0, 0, 0};
    CHECK_MPI(MPI_Sendrecv(out, 3, MPI_LONG, lrank, 5, in, 3, MPI_LONG, lrank, 5, ic,
                           MPI_STATUS_IGNORE));
    const long peer = mine_even ? odds[lrank] : evens[lrank];
    CHECK(in[0] == peer && in[1] == 1000L + peer && in[2] == -peer);
  }
  /* The allreduce over an intercommunicator gives each side the other side's sum. */
  int sum = 0, expect = 0;
  for (int i = 0; i < (mine_even ? no : ne); ++i) expect += mine_even ? odds[i] : evens[i];
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ic));
  CHECK(sum == expect);
  CHECK_MPI(MPI_Comm_disconnect(&ic));
  CHECK(ic == MPI_COMM_NULL);
  CHECK_MPI(MPI_Group_free(&even));
  CHECK_MPI(MPI_Group_free(&odd));
}

static void dynamic_calls(MPI_Comm comm, int rank) {
  MPI_Comm parent = MPI_COMM_WORLD, made = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  CHECK(parent == MPI_COMM_NULL);
  int codes[3] = {0, 0, 0};
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  int rc = MPI_Comm_spawn("true", MPI_ARGV_NULL, 3, MPI_INFO_NULL, 0, comm, &made, codes);
  CHECK(error_class_of(rc) == MPI_ERR_SPAWN && made == MPI_COMM_NULL);
  if (rank == 0) CHECK(codes[0] == MPI_ERR_SPAWN && codes[2] == MPI_ERR_SPAWN);
  char port[MPI_MAX_PORT_NAME] = "x";
  CHECK(error_class_of(MPI_Open_port(MPI_INFO_NULL, port)) == MPI_ERR_PORT);
  made = MPI_COMM_WORLD;
  CHECK(error_class_of(MPI_Comm_connect("nowhere", MPI_INFO_NULL, 0, comm, &made)) ==
        MPI_ERR_PORT);
  CHECK(made == MPI_COMM_NULL);
  CHECK(error_class_of(MPI_Lookup_name("torus-test", MPI_INFO_NULL, port)) == MPI_ERR_NAME);
  CHECK(error_class_of(MPI_Publish_name("torus-test", MPI_INFO_NULL, "p")) == MPI_ERR_SERVICE);
}

int main(int argc, char **argv) {
  MPI_Session s;
  MPI_Info want;
  CHECK_MPI(MPI_Info_create(&want));
  CHECK_MPI(MPI_Info_set(want, "thread_level", "MPI_THREAD_SINGLE"));
  CHECK_MPI(MPI_Session_init(want, MPI_ERRORS_RETURN, &s));
  CHECK_MPI(MPI_Info_free(&want));
  int flag = 1;
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(!flag); /* a session is not the world model */

  MPI_Group world;
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
  int rank, size;
  CHECK_MPI(MPI_Group_rank(world, &rank));
  CHECK_MPI(MPI_Group_size(world, &size));
  psets(s, size);

  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_create_from_group(world, "org.torus.test.world", MPI_INFO_NULL,
                                       MPI_ERRORS_RETURN, &comm));
  int crank, csize;
  CHECK_MPI(MPI_Comm_rank(comm, &crank));
  CHECK_MPI(MPI_Comm_size(comm, &csize));
  CHECK(crank == rank && csize == size);
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size * (size - 1) / 2);
  ring(comm, 3);

  /* Disjoint groups under one tag, created at once: the even and the odd ranks. */
  int members[64], n = 0;
  for (int r = rank % 2; r < size; r += 2) members[n++] = r;
  MPI_Group half;
  MPI_Comm half_comm;
  CHECK_MPI(MPI_Group_incl(world, n, members, &half));
  CHECK_MPI(MPI_Comm_create_from_group(half, "org.torus.test.half", MPI_INFO_NULL,
                                       MPI_ERRORS_RETURN, &half_comm));
  int hsum = 0, hexpect = 0;
  for (int i = 0; i < n; ++i) hexpect += members[i];
  CHECK_MPI(MPI_Allreduce(&rank, &hsum, 1, MPI_INT, MPI_SUM, half_comm));
  CHECK(hsum == hexpect);
  ring(half_comm, 4);
  /* A group that leaves this process out is refused. */
  MPI_Group other;
  MPI_Comm none = MPI_COMM_WORLD;
  int someone_else = (rank + 1) % size;
  CHECK_MPI(MPI_Group_incl(world, 1, &someone_else, &other));
  if (size > 1)
    CHECK(error_class_of(MPI_Comm_create_from_group(other, "org.torus.test.other",
                                                    MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                                    &none)) == MPI_ERR_GROUP);
  CHECK_MPI(MPI_Group_free(&other));
  inter(world, rank, size);

  /* The session's own error handler, called with the session and the code. */
  MPI_Errhandler eh, got;
  CHECK_MPI(MPI_Session_create_errhandler(on_session_error, &eh));
  CHECK_MPI(MPI_Session_set_errhandler(s, eh));
  CHECK_MPI(MPI_Session_get_errhandler(s, &got));
  CHECK(got == eh);
  CHECK_MPI(MPI_Errhandler_free(&got));
  CHECK_MPI(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
  CHECK(handler_calls == 1 && handler_session == s && handler_code == MPI_ERR_OTHER);
  (void)MPI_Group_from_session_pset(s, "mpi://NOWHERE", &other);
  CHECK(handler_calls == 2 && handler_code == MPI_ERR_ARG);
  CHECK_MPI(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_free(&eh));

  /* The world model on the library the session started. */
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
  CHECK(provided == MPI_THREAD_SINGLE);
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(flag);
  int wsum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &wsum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(wsum == sum);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  dynamic_calls(comm, rank);
  CHECK_MPI(MPI_Finalize());
  CHECK_MPI(MPI_Finalized(&flag));
  CHECK(flag);

  /* The session's communicators outlive the world model. */
  ring(comm, 6);
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size * (size - 1) / 2);
  CHECK_MPI(MPI_Comm_free(&half_comm));
  CHECK_MPI(MPI_Comm_disconnect(&comm));
  CHECK_MPI(MPI_Group_free(&half));
  CHECK_MPI(MPI_Group_free(&world));
  CHECK_MPI(MPI_Session_finalize(&s));
  CHECK(s == MPI_SESSION_NULL);
  if (rank == 0) printf("mpi session ok: %d ranks\n", size);
  return 0;
}
