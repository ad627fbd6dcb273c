/* A tiny PMI-1 client for mpirun's tests and its start-up benchmark, independent of torus's
 * own bootstrap: speaks the wire protocol by hand over PMI_FD, or PMI_PORT + PMI_ID with the
 * initack handshake. It runs init, get_maxes, get_appnum, get_my_kvsname, put, barrier, a get
 * of every peer's key (checked), a get of a missing key (must fail), finalize, then prints
 *   pmi ok: rank R of N (local L of M) appnum A
 * Failure modes for the tests:
 *   --exit-code N --at-rank R   rank R exits N after the barrier
 *   --abort N                   rank 1 (rank 0 in a 1-rank job) sends cmd=abort exitcode=N
 *   --kill-self                 rank 1 SIGKILLs itself between put and barrier
 *   --sleep-forever             every rank sleeps after init (for --timeout and SIGINT tests)
 *   --malformed                 rank 1 sends a line that is not a PMI command
 *   --no-finalize               every rank exits 0 without finalize
 *   --lines N --width W         before finalize, print N lines of W characters each
 *   --quiet                     no "pmi ok" line (the benchmark)
 *   --get-neighbour             get only rank+1's key, not every rank's (start-up cost O(N))
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fd = -1;
static int rank = -1, size = -1;

static void die(const char *what, const char *line) {
  fprintf(stderr, "pmi_probe rank %d: %s%s%s\n", rank, what, line ? ": " : "", line ? line : "");
  exit(90);
}

static void send_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void send_line(const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  for (int off = 0; off < n;) {
    ssize_t w = write(fd, buf + off, (size_t)(n - off));
    if (w <= 0) die("write to the PMI server failed", NULL);
    off += (int)w;
  }
}

/* Reads one '\n'-terminated line (byte by byte: responses are few and short). */
static void recv_line(char *buf, size_t cap) {
  size_t n = 0;
  for (;;) {
    char c;
    ssize_t r = read(fd, &c, 1);
    if (r <= 0) die("the PMI server closed the connection", NULL);
    if (c == '\n') break;
    if (n + 1 < cap) buf[n++] = c;
  }
  buf[n] = '\0';
}

/* The value of key in a response line, copied into out; 0 if absent. */
static int field(const char *line, const char *key, char *out, size_t cap) {
  size_t kl = strlen(key);
  for (const char *p = line; p && *p; p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL) {
    if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
      const char *v = p + kl + 1;
      size_t len = strcspn(v, " ");
      if (len >= cap) len = cap - 1;
      memcpy(out, v, len);
      out[len] = '\0';
      return 1;
    }
  }
  return 0;
}

static void expect(const char *line, const char *cmd) {
  char v[256];
  if (!field(line, "cmd", v, sizeof(v)) || strcmp(v, cmd) != 0) die("unexpected response", line);
}

static void connect_port(const char *port_env) {
  char host[256];
  const char *colon = strrchr(port_env, ':');
  if (!colon || (size_t)(colon - port_env) >= sizeof(host)) die("bad PMI_PORT", port_env);
  memcpy(host, port_env, (size_t)(colon - port_env));
  host[colon - port_env] = '\0';
  struct addrinfo hints = {0}, *res = NULL;
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host, colon + 1, &hints, &res) != 0) die("cannot resolve PMI_PORT", port_env);
  fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) != 0) die("cannot connect to PMI_PORT", port_env);
  freeaddrinfo(res);
  const char *id = getenv("PMI_ID");
  if (!id) die("PMI_PORT without PMI_ID", NULL);
  char line[1024], v[64];
  send_line("cmd=initack pmiid=%s\n", id);
  recv_line(line, sizeof(line));
  expect(line, "initack");
  for (int i = 0; i < 3; ++i) {
    recv_line(line, sizeof(line));
    expect(line, "set");
    if (field(line, "size", v, sizeof(v))) size = atoi(v);
    if (field(line, "rank", v, sizeof(v))) rank = atoi(v);
  }
  if (rank < 0 || size < 1) die("initack did not set rank and size", NULL);
}

int main(int argc, char **argv) {
  int exit_code = 0, exit_rank = -1, abort_code = -1, kill_self = 0, sleep_forever = 0;
  int malformed = 0, no_finalize = 0, lines = 0, width = 80, quiet = 0, neighbour = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--exit-code") && i + 1 < argc) exit_code = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--at-rank") && i + 1 < argc) exit_rank = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--abort") && i + 1 < argc) abort_code = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--kill-self")) kill_self = 1;
    else if (!strcmp(argv[i], "--sleep-forever")) sleep_forever = 1;
    else if (!strcmp(argv[i], "--malformed")) malformed = 1;
    else if (!strcmp(argv[i], "--no-finalize")) no_finalize = 1;
    else if (!strcmp(argv[i], "--lines") && i + 1 < argc) lines = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--width") && i + 1 < argc) width = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quiet")) quiet = 1;
    else if (!strcmp(argv[i], "--get-neighbour")) neighbour = 1;
    else { fprintf(stderr, "pmi_probe: unknown argument %s\n", argv[i]); return 2; }
  }
  const char *fd_env = getenv("PMI_FD"), *port_env = getenv("PMI_PORT");
  if (fd_env) {
    fd = atoi(fd_env);
    rank = getenv("PMI_RANK") ? atoi(getenv("PMI_RANK")) : -1;
    size = getenv("PMI_SIZE") ? atoi(getenv("PMI_SIZE")) : -1;
  } else if (port_env) {
    connect_port(port_env);
  } else {
    die("neither PMI_FD nor PMI_PORT is set", NULL);
  }
  char line[2048], v[1100], kvs[300];
  send_line("cmd=init pmi_version=1 pmi_subversion=1\n");
  recv_line(line, sizeof(line));
  expect(line, "response_to_init");
  if (!field(line, "rc", v, sizeof(v)) || strcmp(v, "0") != 0) die("init refused", line);
  send_line("cmd=get_maxes\n");
  recv_line(line, sizeof(line));
  expect(line, "maxes");
  send_line("cmd=get_appnum\n");
  recv_line(line, sizeof(line));
  expect(line, "appnum");
  int appnum = field(line, "appnum", v, sizeof(v)) ? atoi(v) : -1;
  send_line("cmd=get_my_kvsname\n");
  recv_line(line, sizeof(line));
  expect(line, "my_kvsname");
  if (!field(line, "kvsname", kvs, sizeof(kvs))) die("no kvsname", line);
  if (sleep_forever) for (;;) pause();
  if (malformed && (rank == 1 || size == 1)) send_line("this is not a PMI command\n");
  if (abort_code >= 0 && (rank == 1 || size == 1)) {
    send_line("cmd=abort exitcode=%d\n", abort_code);
    for (;;) pause();
  }
  send_line("cmd=put kvsname=%s key=probe-%d value=v%d-%s\n", kvs, rank, rank * 7 + 1, kvs);
  recv_line(line, sizeof(line));
  expect(line, "put_result");
  if (!field(line, "rc", v, sizeof(v)) || strcmp(v, "0") != 0) die("put failed", line);
  if (kill_self && rank == 1) kill(getpid(), SIGKILL);
  send_line("cmd=barrier_in\n");
  recv_line(line, sizeof(line));
  expect(line, "barrier_out");
  if (exit_rank == rank) return exit_code;
  for (int i = 0; i < size; ++i) {
    int peer = neighbour ? (rank + 1) % size : i;
    if (neighbour && i > 0) break;
    char want[400];
    snprintf(want, sizeof(want), "v%d-%s", peer * 7 + 1, kvs);
    send_line("cmd=get kvsname=%s key=probe-%d\n", kvs, peer);
    recv_line(line, sizeof(line));
    expect(line, "get_result");
    if (!field(line, "rc", v, sizeof(v)) || strcmp(v, "0") != 0) die("get failed", line);
    if (!field(line, "value", v, sizeof(v)) || strcmp(v, want) != 0) die("get returned a wrong value", line);
  }
  send_line("cmd=get kvsname=%s key=no-such-key\n", kvs);
  recv_line(line, sizeof(line));
  expect(line, "get_result");
  if (!field(line, "rc", v, sizeof(v)) || strcmp(v, "0") == 0) die("get of a missing key succeeded", line);
  if (lines > 0) {
    char *buf = malloc((size_t)width + 2);
    for (int i = 0; i < lines; ++i) {
      int head = snprintf(buf, (size_t)width + 1, "rank %d line %d ", rank, i);
      for (int k = head; k < width; ++k) buf[k] = (char)('a' + (rank + i + k) % 26);
      buf[width] = '\n';
      fwrite(buf, 1, (size_t)width + 1, stdout);
    }
    fflush(stdout);
    free(buf);
  }
  if (!quiet)
    printf("pmi ok: rank %d of %d (local %s of %s) appnum %d\n", rank, size,
           getenv("MPI_LOCALRANKID") ? getenv("MPI_LOCALRANKID") : "?",
           getenv("MPI_LOCALNRANKS") ? getenv("MPI_LOCALNRANKS") : "?", appnum);
  fflush(stdout);
  if (no_finalize) return 0;
  send_line("cmd=finalize\n");
  recv_line(line, sizeof(line));
  expect(line, "finalize_ack");
  return 0;
}
