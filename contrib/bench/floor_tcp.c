/* The kernel's own limit for a message over TCP loopback: a plain blocking socket over
 * 127.0.0.1 with TCP_NODELAY between two processes (fork), each pinned to its own CPU.
 * No framework, no polling loop, no copies but the kernel's: what any TCP transport on this
 * machine can at best do.
 *   lat:SIZE:ITERS  ping-pong of SIZE-byte messages (the server echoes each); prints the
 *                   median one-way time (round trip / 2) in us over ITERS round trips:
 *                     floor_tcp_lat_us 8 9.87
 *   poll:SIZE:ITERS the same ping-pong, but both ends spin on recv(MSG_DONTWAIT) instead of
 *                   sleeping in it, as a busy-polling library does (no wake-up on the path):
 *                     floor_tcp_poll_us 8 5.12
 *   bw:SIZE:MSGS    a stream of MSGS writes of SIZE bytes, in windows of 32 messages; the
 *                   receiver acknowledges each window (and the last, partial one) with one
 *                   byte; prints total bytes / total time of the timed windows, MB = 1e6:
 *                     floor_tcp_MBps 4194304 3400.1
 * Warm-up: max(100, ITERS/10) round trips, one window; not counted.
 * usage: floor_tcp [CPU_SERVER CPU_CLIENT [CASE...]]
 *        (0 1 lat:8:20000 lat:4096:10000 bw:65536:20000 bw:4194304:500)
 * Bounded: both processes arm alarm() (TIMEOUT s in total, default 120, env FLOOR_TCP_TIMEOUT)
 * and the sockets have 30 s send/receive timeouts, so it never hangs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kWindow = 32 };
enum { kEnd = 0, kLat = 1, kBw = 2, kPoll = 3 };

struct request { /* client -> server, before each case */
  uint32_t kind, pad;
  uint64_t size, count; /* count: round trips or messages, warm-up included */
};

static const char *me = "client";

static void die(const char *what) {
  fprintf(stderr, "floor_tcp (%s): %s: %s\n", me, what, errno ? strerror(errno) : "failed");
  exit(1);
}

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) die("cannot pin to the CPU");
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void send_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) die("send");
    c += k;
    n -= (size_t)k;
  }
}

/* flags 0: block in recv; MSG_DONTWAIT: spin on it (the receiver never sleeps) */
static void recv_all_f(int fd, void *p, size_t n, int flags) {
  char *c = p;
  while (n) {
    ssize_t k = recv(fd, c, n, flags);
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (k == 0) {
      errno = 0;
      die("the peer closed the connection");
    }
    if (k < 0) die("recv");
    c += k;
    n -= (size_t)k;
  }
}

static void recv_all(int fd, void *p, size_t n) { recv_all_f(fd, p, n, 0); }

static void tune(int fd) {
  int one = 1;
  struct timeval tv = {30, 0};
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0) die("TCP_NODELAY");
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0)
    die("socket timeouts");
}

static long warmup_of(long n) { return n / 10 > 100 ? n / 10 : 100; }

/* The server: echoes (lat) or swallows and acknowledges (bw) until told to stop. */
static int serve(int lfd, int cpu) {
  me = "server";
  pin(cpu);
  int fd = accept(lfd, NULL, NULL);
  if (fd < 0) die("accept");
  close(lfd);
  tune(fd);
  char *buf = NULL;
  size_t cap = 0;
  for (;;) {
    struct request q;
    recv_all(fd, &q, sizeof(q));
    if (q.kind == kEnd) break;
    if (q.size > cap) {
      free(buf);
      buf = malloc(q.size);
      if (!buf) die("malloc");
      memset(buf, 0, q.size);
      cap = q.size;
    }
    if (q.kind == kLat || q.kind == kPoll) {
      int flags = q.kind == kPoll ? MSG_DONTWAIT : 0;
      for (uint64_t i = 0; i < q.count; ++i) {
        recv_all_f(fd, buf, q.size, flags);
        send_all(fd, buf, q.size);
      }
    } else {
      for (uint64_t i = 0; i < q.count; ++i) {
        recv_all(fd, buf, q.size);
        if ((i + 1) % kWindow == 0 || i + 1 == q.count) send_all(fd, "a", 1);
      }
    }
  }
  close(fd);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int cpu_srv = argc > 2 ? atoi(argv[1]) : 0, cpu_cli = argc > 2 ? atoi(argv[2]) : 1;
  static const char *defaults[] = {"lat:8:20000", "lat:4096:10000", "bw:65536:20000",
                                   "bw:4194304:500"};
  const char **cases = argc > 3 ? (const char **)argv + 3 : defaults;
  int ncases = argc > 3 ? argc - 3 : 4;
  const char *t = getenv("FLOOR_TCP_TIMEOUT");
  unsigned timeout = t && atoi(t) > 0 ? (unsigned)atoi(t) : 120;

  struct request *reqs = calloc((size_t)ncases, sizeof(*reqs));
  for (int i = 0; i < ncases; ++i) {
    char kind[8];
    unsigned long long size, count;
    if (sscanf(cases[i], "%7[a-z]:%llu:%llu", kind, &size, &count) != 3 || size == 0 ||
        count == 0 || (strcmp(kind, "lat") && strcmp(kind, "poll") && strcmp(kind, "bw"))) {
      fprintf(stderr, "floor_tcp: bad case '%s' (lat:SIZE:ITERS, poll:SIZE:ITERS or bw:SIZE:MSGS)\n",
              cases[i]);
      fprintf(stderr, "usage: floor_tcp [CPU_SERVER CPU_CLIENT [CASE...]]\n");
      return 1;
    }
    reqs[i].kind = !strcmp(kind, "lat") ? kLat : !strcmp(kind, "poll") ? kPoll : kBw;
    reqs[i].size = size;
    reqs[i].count = count;
  }

  /* Listen on an ephemeral port before forking: no port to choose, no race. */
  int lfd = socket(AF_INET, SOCK_STREAM, 0);
  if (lfd < 0) die("socket");
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t alen = sizeof(addr);
  if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(lfd, 1) != 0 ||
      getsockname(lfd, (struct sockaddr *)&addr, &alen) != 0)
    die("listen on 127.0.0.1");

  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    alarm(timeout); /* SIGALRM's default action ends the process */
    _exit(serve(lfd, cpu_srv));
  }
  alarm(timeout);
  close(lfd);
  pin(cpu_cli);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) die("socket");
  if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) die("connect");
  tune(fd);

  int rc = 0;
  for (int c = 0; c < ncases; ++c) {
    struct request q = reqs[c];
    long n = (long)q.count;
    char *buf = malloc(q.size);
    if (!buf) die("malloc");
    memset(buf, 0x5a, q.size);
    if (q.kind == kLat || q.kind == kPoll) {
      int flags = q.kind == kPoll ? MSG_DONTWAIT : 0;
      long warm = warmup_of(n);
      q.count = (uint64_t)(n + warm);
      send_all(fd, &q, sizeof(q));
      double *samples = malloc(sizeof(double) * (size_t)n);
      if (!samples) die("malloc");
      for (long i = -warm; i < n; ++i) {
        double t0 = now_s();
        send_all(fd, buf, q.size);
        recv_all_f(fd, buf, q.size, flags);
        double t1 = now_s();
        if (i >= 0) samples[i] = (t1 - t0) / 2.0 * 1e6;
      }
      qsort(samples, (size_t)n, sizeof(double), cmp_double);
      double med = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
      printf("floor_tcp_%s_us %llu %.3f\n", q.kind == kPoll ? "poll" : "lat",
             (unsigned long long)q.size, med);
      free(samples);
    } else {
      long warm = kWindow; /* one window */
      q.count = (uint64_t)(n + warm);
      send_all(fd, &q, sizeof(q));
      char ack;
      for (long i = 0; i < warm; ++i) send_all(fd, buf, q.size);
      recv_all(fd, &ack, 1);
      double t0 = now_s();
      for (long i = 0; i < n; ++i) {
        send_all(fd, buf, q.size);
        if ((i + 1) % kWindow == 0 || i + 1 == n) recv_all(fd, &ack, 1);
      }
      double t1 = now_s();
      printf("floor_tcp_MBps %llu %.1f\n", (unsigned long long)q.size,
             (double)q.size * (double)n / (t1 - t0) / 1e6);
    }
    fflush(stdout);
    free(buf);
  }
  struct request end = {kEnd, 0, 0, 0};
  send_all(fd, &end, sizeof(end));
  close(fd);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "floor_tcp: the server process failed (status %d)\n", status);
    rc = 1;
  }
  return rc;
}
