/* The MPI tool information interface (MPI_T): the reference-counted init and finalize, usable
 * before MPI_Init and after MPI_Finalize; control variables with their names, values and
 * enums; categories covering every variable; performance variables counting exactly the
 * messages sent between start and stop; no events; error codes for bad indexes and handles.
 * Checks on torus's own variables are behind TORUS_MPI_H. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Before MPI_Init and after MPI_Finalize CHECK cannot abort the job. */
#define EARLY_CHECK(cond)                                                                \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      fprintf(stderr, "%s:%d: check failed outside MPI: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

static int rank, size;

static void not_initialized(void) {
  int n;
  MPI_T_pvar_session s;
  EARLY_CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
  EARLY_CHECK(MPI_T_pvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
  EARLY_CHECK(MPI_T_category_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
  EARLY_CHECK(MPI_T_event_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
  EARLY_CHECK(MPI_T_source_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
  EARLY_CHECK(MPI_T_pvar_session_create(&s) == MPI_T_ERR_NOT_INITIALIZED);
  EARLY_CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED);
}

static int cvar_index(const char* name) {
  int i = -1;
  return MPI_T_cvar_get_index(name, &i) == MPI_SUCCESS ? i : -1;
}

/* Reads a control variable of one element into buf (at least 256 bytes). */
static void read_cvar(int index, void* buf) {
  MPI_T_cvar_handle h;
  int count = 0;
  EARLY_CHECK(MPI_T_cvar_handle_alloc(index, NULL, &h, &count) == MPI_SUCCESS);
  EARLY_CHECK(count >= 1 && count <= 256);
  EARLY_CHECK(MPI_T_cvar_read(h, buf) == MPI_SUCCESS);
  EARLY_CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS && h == MPI_T_CVAR_HANDLE_NULL);
}

/* Every control variable: info, index by name, a read, a refused write, its enum. */
static void cvars(void) {
  int num = 0;
  EARLY_CHECK(MPI_T_cvar_get_num(&num) == MPI_SUCCESS && num > 0);
  for (int i = 0; i < num; ++i) {
    char name[256], desc[1024];
    int name_len = 0, desc_len = 0, verbosity, bind, scope;
    MPI_Datatype type;
    MPI_T_enum en;
    /* Lengths first (no buffers), then the strings. */
    EARLY_CHECK(MPI_T_cvar_get_info(i, NULL, &name_len, NULL, NULL, NULL, NULL, &desc_len,
                                    NULL, NULL) == MPI_SUCCESS);
    EARLY_CHECK(name_len > 1 && name_len <= (int)sizeof name && desc_len > 1);
    const int want_name = name_len;
    name_len = sizeof name;
    desc_len = sizeof desc;
    EARLY_CHECK(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &en, desc,
                                    &desc_len, &bind, &scope) == MPI_SUCCESS);
    EARLY_CHECK(name_len == want_name && (int)strlen(name) + 1 == name_len);
    EARLY_CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC &&
                verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL);
    EARLY_CHECK(bind == MPI_T_BIND_NO_OBJECT);
    EARLY_CHECK(scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_READONLY);
    EARLY_CHECK(type == MPI_INT || type == MPI_UNSIGNED_LONG_LONG || type == MPI_DOUBLE ||
                type == MPI_CHAR);
    EARLY_CHECK(cvar_index(name) == i);

    MPI_T_cvar_handle h;
    int count = 0;
    char value[1024];
    EARLY_CHECK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS);
    EARLY_CHECK(count >= 1 && count < (int)sizeof value);
    EARLY_CHECK(MPI_T_cvar_read(h, value) == MPI_SUCCESS);
    if (type == MPI_CHAR) EARLY_CHECK((int)strlen(value) + 1 <= count);
    EARLY_CHECK(MPI_T_cvar_write(h, value) == MPI_T_ERR_CVAR_SET_NEVER);
    EARLY_CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS && h == MPI_T_CVAR_HANDLE_NULL);
    EARLY_CHECK(MPI_T_cvar_read(h, value) == MPI_T_ERR_INVALID_HANDLE);

    if (en != MPI_T_ENUM_NULL) {
      int items = 0, v = -1, len = sizeof desc;
      EARLY_CHECK(type == MPI_INT);
      EARLY_CHECK(MPI_T_enum_get_info(en, &items, desc, &len) == MPI_SUCCESS && items > 0);
      int current;
      memcpy(&current, value, sizeof current);
      EARLY_CHECK(current >= 0 && current < items);
      len = sizeof desc;
      EARLY_CHECK(MPI_T_enum_get_item(en, items - 1, &v, desc, &len) == MPI_SUCCESS);
      EARLY_CHECK(v == items - 1 && len == (int)strlen(desc) + 1);
      EARLY_CHECK(MPI_T_enum_get_item(en, items, &v, desc, &len) == MPI_T_ERR_INVALID_INDEX);
    }
  }
  int index;
  MPI_T_cvar_handle h;
  int count;
  EARLY_CHECK(MPI_T_cvar_get_index("NO_SUCH_VARIABLE", &index) == MPI_T_ERR_INVALID_NAME);
  EARLY_CHECK(MPI_T_cvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX);
  EARLY_CHECK(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX);
  EARLY_CHECK(MPI_T_cvar_handle_alloc(num, NULL, &h, &count) == MPI_T_ERR_INVALID_INDEX);
  EARLY_CHECK(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &count, NULL, NULL) ==
              MPI_T_ERR_INVALID_HANDLE);

  /* The string rule: at most len - 1 characters and a NUL; len becomes the full length + 1;
   * len 0 or no buffer only gives the length. */
  char full[256], cut[8];
  int full_len = sizeof full, cut_len = 4;
  EARLY_CHECK(MPI_T_cvar_get_info(0, full, &full_len, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL) == MPI_SUCCESS);
  memset(cut, 'x', sizeof cut);
  EARLY_CHECK(MPI_T_cvar_get_info(0, cut, &cut_len, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL) == MPI_SUCCESS);
  EARLY_CHECK(cut_len == full_len && strlen(cut) == 3 && strncmp(cut, full, 3) == 0);
  EARLY_CHECK(cut[4] == 'x');
  cut_len = 0;
  memset(cut, 'x', sizeof cut);
  EARLY_CHECK(MPI_T_cvar_get_info(0, cut, &cut_len, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL) == MPI_SUCCESS);
  EARLY_CHECK(cut_len == full_len && cut[0] == 'x');

#ifdef TORUS_MPI_H
  /* Values from the environment (main sets two before MPI_T_init_thread) and defaults. */
  unsigned long long bytes = 0;
  int n = 0;
  char text[256];
  EARLY_CHECK(cvar_index("TORUS_RNDV_FRAG_SIZE") >= 0);
  read_cvar(cvar_index("TORUS_RNDV_FRAG_SIZE"), &bytes);
  EARLY_CHECK(bytes == 2ull << 20);
  read_cvar(cvar_index("TORUS_OFI_TX_BUFS"), &n);
  EARLY_CHECK(n == 96);
  if (!getenv("TORUS_SHM_SEG_SIZE")) {
    read_cvar(cvar_index("TORUS_SHM_SEG_SIZE"), &bytes);
    EARLY_CHECK(bytes == 8192);
  }
  const char* level = getenv("TORUS_LOG_LEVEL");
  if (level && *level) {
    MPI_T_enum en;
    const int i = cvar_index("TORUS_LOG_LEVEL");
    EARLY_CHECK(MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, &en, NULL, NULL, NULL, NULL) ==
                MPI_SUCCESS && en != MPI_T_ENUM_NULL);
    int len = sizeof text, v = -1;
    read_cvar(i, &n);
    EARLY_CHECK(MPI_T_enum_get_item(en, n, &v, text, &len) == MPI_SUCCESS);
    EARLY_CHECK(v == n && strcmp(text, level) == 0);
  }
  /* The job key is a secret: it reads as "(set)". */
  const char* key = getenv("TORUS_JOB_KEY");
  read_cvar(cvar_index("TORUS_JOB_KEY"), text);
  EARLY_CHECK(strcmp(text, key && *key ? "(set)" : "") == 0);
#endif
}

/* Every control variable is in exactly one category, every performance variable in one. */
static void categories(void) {
  int num = 0, ncvar = 0, npvar = 0;
  EARLY_CHECK(MPI_T_category_get_num(&num) == MPI_SUCCESS && num > 0);
  EARLY_CHECK(MPI_T_cvar_get_num(&ncvar) == MPI_SUCCESS);
  EARLY_CHECK(MPI_T_pvar_get_num(&npvar) == MPI_SUCCESS);
  int* cvar_seen = calloc((size_t)ncvar + 1, sizeof(int));
  int* pvar_seen = calloc((size_t)npvar + 1, sizeof(int));
  int indices[512];
  for (int c = 0; c < num; ++c) {
    char name[128];
    int len = sizeof name, nc = -1, np = -1, ncat = -1, ne = -1, index = -1;
    EARLY_CHECK(MPI_T_category_get_info(c, name, &len, NULL, NULL, &nc, &np, &ncat) ==
                MPI_SUCCESS);
    EARLY_CHECK(MPI_T_category_get_index(name, &index) == MPI_SUCCESS && index == c);
    EARLY_CHECK(nc >= 0 && nc <= 512 && np >= 0 && np <= 512 && ncat >= 0 && ncat <= 512);
    EARLY_CHECK(MPI_T_category_get_cvars(c, nc, indices) == MPI_SUCCESS);
    for (int i = 0; i < nc; ++i) {
      EARLY_CHECK(indices[i] >= 0 && indices[i] < ncvar);
      ++cvar_seen[indices[i]];
    }
    EARLY_CHECK(MPI_T_category_get_pvars(c, np, indices) == MPI_SUCCESS);
    for (int i = 0; i < np; ++i) {
      EARLY_CHECK(indices[i] >= 0 && indices[i] < npvar);
      ++pvar_seen[indices[i]];
    }
    EARLY_CHECK(MPI_T_category_get_categories(c, ncat, indices) == MPI_SUCCESS);
    for (int i = 0; i < ncat; ++i) EARLY_CHECK(indices[i] >= 0 && indices[i] < num);
    EARLY_CHECK(MPI_T_category_get_num_events(c, &ne) == MPI_SUCCESS && ne == 0);
    EARLY_CHECK(MPI_T_category_get_events(c, 0, indices) == MPI_SUCCESS);
  }
  for (int i = 0; i < ncvar; ++i) EARLY_CHECK(cvar_seen[i] == 1);
  for (int i = 0; i < npvar; ++i) EARLY_CHECK(pvar_seen[i] == 1);
  free(cvar_seen);
  free(pvar_seen);
  int stamp = -1, index;
  EARLY_CHECK(MPI_T_category_changed(&stamp) == MPI_SUCCESS);
  EARLY_CHECK(MPI_T_category_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX);
  EARLY_CHECK(MPI_T_category_get_cvars(-1, 0, indices) == MPI_T_ERR_INVALID_INDEX);
  EARLY_CHECK(MPI_T_category_get_index("no_such_category", &index) == MPI_T_ERR_INVALID_NAME);
#ifdef TORUS_MPI_H
  int nc = 0, bcast = cvar_index("TORUS_COLL_BCAST"), found = 0;
  EARLY_CHECK(MPI_T_category_get_index("torus_coll", &index) == MPI_SUCCESS);
  EARLY_CHECK(MPI_T_category_get_info(index, NULL, NULL, NULL, NULL, &nc, NULL, NULL) ==
              MPI_SUCCESS && nc > 0 && nc <= 512);
  EARLY_CHECK(MPI_T_category_get_cvars(index, nc, indices) == MPI_SUCCESS);
  for (int i = 0; i < nc; ++i) found += indices[i] == bcast;
  EARLY_CHECK(found == 1);
#endif
}

static unsigned long long pvar_read(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
  unsigned long long v = 0;
  CHECK(MPI_T_pvar_read(s, h, &v) == MPI_SUCCESS);
  return v;
}

/* Sends sizes[0..n) around a ring (to rank + 1, from rank - 1) and waits for all. */
static void ring(const int* sizes, int n) {
  char sbuf[4096], rbuf[4096];
  MPI_Request reqs[8];
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int i = 0; i < n; ++i)
    CHECK_MPI(MPI_Isend(sbuf, sizes[i], MPI_BYTE, next, i, MPI_COMM_WORLD, &reqs[i]));
  for (int i = 0; i < n; ++i)
    CHECK_MPI(MPI_Recv(rbuf, sizes[i], MPI_BYTE, prev, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
}

static void pvars(void) {
  int num = 0;
  CHECK(MPI_T_pvar_get_num(&num) == MPI_SUCCESS && num >= 0);
  for (int i = 0; i < num; ++i) {
    char name[128];
    int len = sizeof name, verbosity, var_class, bind, readonly, continuous, atomic, index = -1;
    MPI_Datatype type;
    MPI_T_enum en;
    CHECK(MPI_T_pvar_get_info(i, name, &len, &verbosity, &var_class, &type, &en, NULL, NULL,
                              &bind, &readonly, &continuous, &atomic) == MPI_SUCCESS);
    CHECK(len == (int)strlen(name) + 1);
    CHECK(MPI_T_pvar_get_index(name, var_class, &index) == MPI_SUCCESS && index == i);
  }
  int index;
  CHECK(MPI_T_pvar_get_index("no_such_pvar", MPI_T_PVAR_CLASS_COUNTER, &index) ==
        MPI_T_ERR_INVALID_NAME);
  CHECK(MPI_T_pvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                            NULL, NULL) == MPI_T_ERR_INVALID_INDEX);
  MPI_T_pvar_session s, other;
  MPI_T_pvar_handle h;
  int count;
  CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_session_create(&other) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_handle_alloc(s, num, NULL, &h, &count) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_pvar_start(MPI_T_PVAR_SESSION_NULL, MPI_T_PVAR_ALL_HANDLES) ==
        MPI_T_ERR_INVALID_SESSION);
  CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);  /* none: still fine */
#ifdef TORUS_MPI_H
  int msgs_i, bytes_i, recvs_i, continuous = 0;
  CHECK(MPI_T_pvar_get_index("torus_mpi_sent_messages", MPI_T_PVAR_CLASS_COUNTER, &msgs_i) ==
        MPI_SUCCESS);
  CHECK(MPI_T_pvar_get_index("torus_mpi_sent_messages", MPI_T_PVAR_CLASS_LEVEL, &index) ==
        MPI_T_ERR_INVALID_NAME);
  CHECK(MPI_T_pvar_get_index("torus_mpi_sent_bytes", MPI_T_PVAR_CLASS_COUNTER, &bytes_i) ==
        MPI_SUCCESS);
  CHECK(MPI_T_pvar_get_index("torus_mpi_recvs_posted", MPI_T_PVAR_CLASS_COUNTER, &recvs_i) ==
        MPI_SUCCESS);
  CHECK(MPI_T_pvar_get_info(recvs_i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                            NULL, &continuous, NULL) == MPI_SUCCESS && continuous);
  MPI_T_pvar_handle msgs, bytes, recvs, foreign;
  CHECK(MPI_T_pvar_handle_alloc(s, msgs_i, NULL, &msgs, &count) == MPI_SUCCESS && count == 1);
  CHECK(MPI_T_pvar_handle_alloc(s, bytes_i, NULL, &bytes, &count) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_handle_alloc(s, recvs_i, NULL, &recvs, &count) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_handle_alloc(other, msgs_i, NULL, &foreign, &count) == MPI_SUCCESS);

  /* Not started: nothing counts. */
  const int sizes[3] = {10, 100, 1000};
  CHECK(pvar_read(s, msgs) == 0);
  ring(sizes, 3);
  CHECK(pvar_read(s, msgs) == 0 && pvar_read(s, bytes) == 0);

  /* Started: exactly the ring's sends and receives; the continuous one cannot stop. */
  CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_start(s, recvs) == MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK(MPI_T_pvar_stop(s, recvs) == MPI_T_ERR_PVAR_NO_STARTSTOP);
  const unsigned long long recvs_before = pvar_read(s, recvs);
  CHECK(recvs_before >= 3);  /* the process's total: the ring above posted 3 */
  ring(sizes, 3);
  CHECK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
  CHECK(pvar_read(s, msgs) == 3 && pvar_read(s, bytes) == 1110);
  CHECK(pvar_read(s, recvs) == recvs_before + 3);
  CHECK(pvar_read(other, foreign) == 0);  /* never started */

  /* Stopped: traffic is not counted, the value stays. */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(pvar_read(s, msgs) == 3);

  /* Reset, write, readreset. */
  unsigned long long v = 42;
  CHECK(MPI_T_pvar_reset(s, msgs) == MPI_SUCCESS && pvar_read(s, msgs) == 0);
  CHECK(MPI_T_pvar_write(s, bytes, &v) == MPI_SUCCESS && pvar_read(s, bytes) == 42);
  CHECK(MPI_T_pvar_reset(s, recvs) == MPI_SUCCESS && pvar_read(s, recvs) == 0);
  CHECK(MPI_T_pvar_start(s, msgs) == MPI_SUCCESS);
  ring(sizes, 2);
  CHECK(MPI_T_pvar_readreset(s, msgs, &v) == MPI_SUCCESS && v == 2);
  CHECK(pvar_read(s, msgs) == 0);
  ring(sizes, 1);
  CHECK(pvar_read(s, msgs) == 1);
  CHECK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
  CHECK(pvar_read(s, msgs) == 0 && pvar_read(s, bytes) == 0);

  /* Handles belong to their session; ALL_HANDLES is not a handle to read. */
  CHECK(MPI_T_pvar_read(s, foreign, &v) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_pvar_readreset(s, MPI_T_PVAR_ALL_HANDLES, &v) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_pvar_handle_free(other, &msgs) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_pvar_handle_free(s, &msgs) == MPI_SUCCESS && msgs == MPI_T_PVAR_HANDLE_NULL);
  CHECK(MPI_T_pvar_read(s, msgs, &v) == MPI_T_ERR_INVALID_HANDLE);
  (void)bytes;
#endif
  CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS && s == MPI_T_PVAR_SESSION_NULL);
  CHECK(MPI_T_pvar_session_free(&other) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_session_free(&s) == MPI_T_ERR_INVALID_SESSION);
}

/* No events; the one source's clock runs forward. */
static void events(void) {
  int n = -1, index;
  CHECK(MPI_T_event_get_num(&n) == MPI_SUCCESS && n >= 0);
  CHECK(MPI_T_event_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                             NULL) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_event_get_index("no_such_event", &index) == MPI_T_ERR_INVALID_NAME);
  MPI_T_event_registration reg;
  CHECK(MPI_T_event_handle_alloc(n, NULL, MPI_INFO_NULL, &reg) == MPI_T_ERR_INVALID_INDEX);
#ifdef TORUS_MPI_H
  /* With no events there is no registration or instance to pass. */
  MPI_Count ts;
  int src;
  MPI_Info info;
  CHECK(n == 0);
  CHECK(MPI_T_event_handle_free(NULL, NULL, NULL) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_handle_get_info(NULL, &info) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_register_callback(NULL, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL,
                                      NULL) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_read(NULL, 0, &ts) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_get_timestamp(NULL, &ts) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_get_source(NULL, &src) == MPI_T_ERR_INVALID_HANDLE);
#endif
  int sources = -1;
  CHECK(MPI_T_source_get_num(&sources) == MPI_SUCCESS && sources >= 0);
  for (int i = 0; i < sources; ++i) {
    char name[128];
    int len = sizeof name;
    MPI_T_source_order order;
    MPI_Count tps = 0, max = 0, t1 = -1, t2 = -1;
    MPI_Info info = MPI_INFO_NULL;
    CHECK(MPI_T_source_get_info(i, name, &len, NULL, NULL, &order, &tps, &max, &info) ==
          MPI_SUCCESS);
    CHECK(tps > 0 && max > 0 && len == (int)strlen(name) + 1);
    if (info != MPI_INFO_NULL) CHECK_MPI(MPI_Info_free(&info));
    CHECK(MPI_T_source_get_timestamp(i, &t1) == MPI_SUCCESS);
    CHECK(MPI_T_source_get_timestamp(i, &t2) == MPI_SUCCESS && t2 >= t1);
  }
  MPI_Count t;
  CHECK(MPI_T_source_get_timestamp(sources, &t) == MPI_T_ERR_INVALID_INDEX);
}

/* Every MPI_T error code has a class and a text. */
static void error_codes(void) {
  const int codes[] = {MPI_T_ERR_NOT_INITIALIZED, MPI_T_ERR_INVALID_INDEX,
                       MPI_T_ERR_INVALID_HANDLE, MPI_T_ERR_INVALID_SESSION,
                       MPI_T_ERR_CVAR_SET_NEVER, MPI_T_ERR_PVAR_NO_STARTSTOP,
                       MPI_T_ERR_PVAR_NO_WRITE, MPI_T_ERR_INVALID_NAME, MPI_T_ERR_INVALID};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; ++i)
    CHECK(error_class_of(codes[i]) == codes[i]);
}

int main(int argc, char** argv) {
  int provided = -1, n = 0;
  not_initialized();
  /* Read when the interface starts (and by MPI_Init): harmless values for this test. */
  setenv("TORUS_RNDV_FRAG_SIZE", "2m", 1);
  setenv("TORUS_OFI_TX_BUFS", "96", 1);
  EARLY_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
  EARLY_CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE);
  EARLY_CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
  cvars();  /* before MPI_Init */
  EARLY_CHECK(MPI_T_finalize() == MPI_SUCCESS);
  EARLY_CHECK(MPI_T_cvar_get_num(&n) == MPI_SUCCESS);  /* one init still open */

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  cvars();
  categories();
  pvars();
  events();
  error_codes();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();

  /* After MPI_Finalize: still usable, until the last MPI_T_finalize. */
  cvars();
  EARLY_CHECK(MPI_T_finalize() == MPI_SUCCESS);
  not_initialized();
  EARLY_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
  EARLY_CHECK(MPI_T_cvar_get_num(&n) == MPI_SUCCESS && n > 0);
  EARLY_CHECK(MPI_T_finalize() == MPI_SUCCESS);
  if (rank == 0) printf("mpi tool ok: %d ranks\n", size);
  return 0;
}
