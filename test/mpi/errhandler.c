/* User-defined error handlers and error codes: a handler made by Comm_create_errhandler is
 * called with the communicator and the code (from a call's argument check, from a request's
 * Wait, from Comm_call_errhandler) and the call then returns the code; duplicates inherit
 * it; it keeps working after Errhandler_free; the MPI-1 names; Add_error_class/code/string
 * with Error_class, Error_string and MPI_LASTUSEDCODE; the argument errors. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;
static int calls;
static MPI_Comm last_comm;
static int last_code;

static void record(MPI_Comm* comm, int* code, ...) {
  ++calls;
  last_comm = *comm;
  last_code = *code;
}

static int class_of(int code) {
  int c = -1;
  CHECK_MPI(MPI_Error_class(code, &c));
  return c;
}

static void handler_called(void) {
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_create_errhandler(record, &eh));
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
  MPI_Errhandler got;
  CHECK_MPI(MPI_Comm_get_errhandler(dup, &got));
  CHECK(got == eh);
  int x = 0;
  calls = 0;
  const int code = MPI_Send(&x, 1, MPI_INT, size, 0, dup); /* no such rank */
  CHECK(calls == 1 && last_comm == dup && class_of(code) == MPI_ERR_RANK);
  CHECK(last_code == code);
  /* A request's error reaches the handler of its communicator. */
  int two[2] = {1, 2}, one = 0;
  MPI_Request req;
  CHECK_MPI(MPI_Irecv(&one, 1, MPI_INT, rank, 4, dup, &req));
  CHECK_MPI(MPI_Send(two, 2, MPI_INT, rank, 4, dup));
  const int wcode = MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(calls == 2 && last_comm == dup && class_of(wcode) == MPI_ERR_TRUNCATE);
  /* Comm_call_errhandler: the handler runs, the call succeeds. */
  CHECK_MPI(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
  CHECK(calls == 3 && last_code == MPI_ERR_OTHER);
  /* A duplicate inherits the handler; freeing the handle leaves it working. */
  MPI_Comm dup2;
  CHECK_MPI(MPI_Comm_dup(dup, &dup2));
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK(eh == MPI_ERRHANDLER_NULL);
  (void)MPI_Bcast(&x, 1, MPI_INT, -1, dup2);
  CHECK(calls == 4 && last_comm == dup2 && class_of(last_code) == MPI_ERR_ROOT);
  CHECK_MPI(MPI_Comm_free(&dup2));
  CHECK_MPI(MPI_Comm_free(&dup));
  /* The MPI-1 names. */
  MPI_Errhandler old;
  CHECK_MPI(MPI_Errhandler_create(record, &old));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Errhandler_set(dup, old));
  CHECK_MPI(MPI_Errhandler_get(dup, &got));
  CHECK(got == old);
  (void)MPI_Send(&x, -1, MPI_INT, 0, 0, dup);
  CHECK(calls == 5 && class_of(last_code) == MPI_ERR_COUNT);
  CHECK_MPI(MPI_Errhandler_free(&old));
  CHECK_MPI(MPI_Comm_free(&dup));
}

static void error_codes(void) {
  int cls = -1, code = -1, code2 = -1;
  CHECK_MPI(MPI_Add_error_class(&cls));
  CHECK_MPI(MPI_Add_error_code(cls, &code));
  CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &code2)); /* a code of a predefined class */
  CHECK(cls > MPI_ERR_PROC_ABORTED && code != cls && code2 != code && code <= MPI_ERR_LASTCODE);
  CHECK(class_of(code) == cls && class_of(cls) == cls && class_of(code2) == MPI_ERR_ARG);
  char text[MPI_MAX_ERROR_STRING];
  int len = -1;
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(len == 0 && text[0] == '\0'); /* no string set yet */
  CHECK_MPI(MPI_Add_error_string(code, "the widget is out of frobs"));
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(strcmp(text, "the widget is out of frobs") == 0 && len == (int)strlen(text));
  int* last = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
  CHECK(flag && last && *last >= code && *last >= code2);
  /* A user code through a user handler. */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_create_errhandler(record, &eh));
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
  CHECK_MPI(MPI_Comm_call_errhandler(dup, code));
  CHECK(last_code == code && last_comm == dup);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Errhandler_free(&eh));
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(class_of(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)0x94001234)) ==
        MPI_ERR_ARG);
  MPI_Errhandler bogus = (MPI_Errhandler)0x94001234;
  CHECK(class_of(MPI_Errhandler_free(&bogus)) == MPI_ERR_ARG);
  CHECK(class_of(MPI_Add_error_string(MPI_ERR_RANK, "mine now")) == MPI_ERR_ARG);
  int code;
  CHECK(class_of(MPI_Add_error_code(123456, &code)) == MPI_ERR_ARG);
  CHECK(class_of(MPI_Comm_create_errhandler(NULL, &bogus)) == MPI_ERR_ARG);
  CHECK(class_of(MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER)) == MPI_ERR_COMM);
  int c = 0;
  CHECK(MPI_Error_class(0x3ffffffe, &c) == MPI_ERR_ARG); /* never handed out */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  handler_called();
  error_codes();
  errors();
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi errhandler ok: %d ranks\n", size);
  return 0;
}
