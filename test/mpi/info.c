/* Info objects: set/get/replace/delete in order, nthkey order, truncated Info_get, buffer
 * sizes from Info_get_valuelen and Info_get_string, Info_dup independence, Info_free (then
 * MPI_ERR_INFO), key and value limits, MPI_INFO_ENV (maxprocs, command; read-only),
 * Comm_set_info/Comm_get_info and infos passed to Comm_dup_with_info/Comm_split_type, and a
 * create/free loop that reuses handles. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;
static const char* argv0;

static int cls(int rc) { return error_class_of(rc); }

static void expect_value(MPI_Info info, const char* key, const char* want) {
  char v[MPI_MAX_INFO_VAL + 1];
  int flag = -1, len = -1;
  CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag));
  CHECK(flag == (want != NULL));
  CHECK_MPI(MPI_Info_get_valuelen(info, key, &len, &flag));
  CHECK(flag == (want != NULL));
  if (want) CHECK(strcmp(v, want) == 0 && len == (int)strlen(want));
}

static void basics(void) {
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK(info != MPI_INFO_NULL);
  int n = -1;
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 0);
  CHECK_MPI(MPI_Info_set(info, "cb_nodes", "4"));
  CHECK_MPI(MPI_Info_set(info, "striping_unit", "1048576"));
  CHECK_MPI(MPI_Info_set(info, "empty", ""));
  CHECK_MPI(MPI_Info_set(info, "cb_nodes", "8")); /* replaces, keeps its place */
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 3);
  const char* order[] = {"cb_nodes", "striping_unit", "empty"};
  for (int i = 0; i < 3; ++i) {
    char key[MPI_MAX_INFO_KEY];
    CHECK_MPI(MPI_Info_get_nthkey(info, i, key));
    CHECK(strcmp(key, order[i]) == 0);
  }
  expect_value(info, "cb_nodes", "8");
  expect_value(info, "striping_unit", "1048576");
  expect_value(info, "empty", "");
  expect_value(info, "absent", NULL);

  /* Truncation: valuelen characters, then a NUL; the byte after it untouched. */
  char small[8];
  memset(small, 'x', sizeof small);
  int flag = 0;
  CHECK_MPI(MPI_Info_get(info, "striping_unit", 3, small, &flag));
  CHECK(flag && strcmp(small, "104") == 0 && small[4] == 'x');
  /* Info_get_string: a short buffer gets what fits, buflen says what is needed. */
  int buflen = 4;
  memset(small, 'x', sizeof small);
  CHECK_MPI(MPI_Info_get_string(info, "striping_unit", &buflen, small, &flag));
  CHECK(flag && buflen == 8 && strcmp(small, "104") == 0);
  buflen = 0;
  CHECK_MPI(MPI_Info_get_string(info, "cb_nodes", &buflen, NULL, &flag));
  CHECK(flag && buflen == 2);

  /* A duplicate is independent. */
  MPI_Info dup;
  CHECK_MPI(MPI_Info_dup(info, &dup));
  CHECK_MPI(MPI_Info_set(dup, "cb_nodes", "16"));
  CHECK_MPI(MPI_Info_delete(dup, "empty"));
  expect_value(info, "cb_nodes", "8");
  expect_value(info, "empty", "");
  expect_value(dup, "cb_nodes", "16");
  expect_value(dup, "empty", NULL);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(cls(MPI_Info_delete(dup, "empty")) == MPI_ERR_INFO_NOKEY);
  char key[MPI_MAX_INFO_KEY];
  CHECK(cls(MPI_Info_get_nthkey(info, 3, key)) == MPI_ERR_ARG);
  char longkey[MPI_MAX_INFO_KEY + 2];
  memset(longkey, 'k', sizeof longkey - 1);
  longkey[sizeof longkey - 1] = '\0';
  CHECK(cls(MPI_Info_set(info, longkey, "v")) == MPI_ERR_INFO_KEY);
  CHECK(cls(MPI_Info_set(info, "", "v")) == MPI_ERR_INFO_KEY);
  static char longval[MPI_MAX_INFO_VAL + 2];
  memset(longval, 'v', sizeof longval - 1);
  CHECK(cls(MPI_Info_set(info, "k", longval)) == MPI_ERR_INFO_VALUE);
  CHECK_MPI(MPI_Info_free(&dup));
  CHECK(dup == MPI_INFO_NULL);
  CHECK(cls(MPI_Info_free(&dup)) == MPI_ERR_INFO);
  MPI_Info stale = info;
  CHECK_MPI(MPI_Info_free(&info));
  CHECK(cls(MPI_Info_get_nkeys(stale, &n)) == MPI_ERR_INFO);
  CHECK(cls(MPI_Info_set(stale, "a", "b")) == MPI_ERR_INFO);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void environment(void) {
  char v[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, v, &flag));
  CHECK(flag && atoi(v) == size);
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, v, &flag));
  CHECK(flag && strcmp(v, argv0) == 0);
  MPI_Info copy;
  CHECK_MPI(MPI_Info_dup(MPI_INFO_ENV, &copy));
  CHECK_MPI(MPI_Info_set(copy, "maxprocs", "0")); /* the copy is the caller's */
  CHECK_MPI(MPI_Info_free(&copy));
  CHECK_MPI(MPI_Info_create_env(0, NULL, &copy)); /* MPI 4.0: the same contents */
  CHECK_MPI(MPI_Info_get(copy, "maxprocs", MPI_MAX_INFO_VAL, v, &flag));
  CHECK(flag && atoi(v) == size);
  CHECK_MPI(MPI_Info_free(&copy));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(cls(MPI_Info_set(MPI_INFO_ENV, "maxprocs", "0")) == MPI_ERR_INFO);
  MPI_Info env = MPI_INFO_ENV;
  CHECK(cls(MPI_Info_free(&env)) == MPI_ERR_INFO);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void with_communicators(void) {
  MPI_Info hints;
  CHECK_MPI(MPI_Info_create(&hints));
  CHECK_MPI(MPI_Info_set(hints, "mpi_assert_no_any_tag", "true"));
  MPI_Comm dup, shared;
  CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, hints, &dup));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, hints, &shared));
  CHECK_MPI(MPI_Comm_set_info(dup, hints));
  MPI_Info used;
  CHECK_MPI(MPI_Comm_get_info(dup, &used));
  int n = -1;
  CHECK_MPI(MPI_Info_get_nkeys(used, &n));
  CHECK(n == 0); /* torus reads no hints: none is in use */
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup));
  CHECK(sum == size * (size - 1) / 2);
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_Info_free(&hints));
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&shared));
}

static void reuse(void) {
  MPI_Info first;
  CHECK_MPI(MPI_Info_create(&first));
  const MPI_Info handle = first;
  CHECK_MPI(MPI_Info_free(&first));
  for (int i = 0; i < 10000; ++i) {
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK(info == handle); /* the freed slot comes back: nothing accumulates */
    CHECK_MPI(MPI_Info_set(info, "k", "v"));
    CHECK_MPI(MPI_Info_free(&info));
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  argv0 = argv[0];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  basics();
  environment();
  with_communicators();
  reuse();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("mpi info ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
