/* The C API from a C program: two workers in one process (they talk over shm), tagged
 * send/receive with callbacks, probe, cancel, an active message, the event fd and a bad
 * configuration value. Exits non-zero on the first failure. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/api/torus.h"

#define CHECK(c)                                                          \
  do {                                                                    \
    if (!(c)) {                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

static int g_recv_called;
static size_t g_recv_len;
static int g_am_called;

static void on_recv(torus_request_t* req, torus_status_t st, uint64_t tag, size_t len,
                    void* user) {
  (void)req;
  CHECK(st == TORUS_OK);
  CHECK(tag == 77);
  CHECK(user == &g_recv_called);
  g_recv_len = len;
  ++g_recv_called;
}

static void on_am(void* arg, const void* hdr, size_t hlen, const void* payload, size_t len,
                  torus_ep_t* reply) {
  CHECK(arg == &g_am_called);
  CHECK(hlen == 4 && memcmp(hdr, "head", 4) == 0);
  CHECK(len == 5 && memcmp(payload, "hello", 5) == 0);
  CHECK(reply != NULL);
  ++g_am_called;
}

static void drive(torus_worker_t* a, torus_worker_t* b, torus_request_t* req) {
  for (long i = 0; i < 100000000 && !torus_request_is_completed(req); ++i) {
    torus_worker_progress(a);
    torus_worker_progress(b);
  }
  CHECK(torus_request_is_completed(req));
}

int main(void) {
  torus_context_t* ctx = NULL;
  setenv("TORUS_SHM_CMA", "maybe", 1);
  CHECK(torus_context_create(&ctx) == TORUS_ERR_INVALID_PARAM);
  CHECK(strstr(torus_last_error(), "TORUS_SHM_CMA") != NULL);
  CHECK(strstr(torus_last_error(), "auto|y|n") != NULL);
  unsetenv("TORUS_SHM_CMA");
  CHECK(torus_context_create(&ctx) == TORUS_OK);

  torus_worker_t *a = NULL, *b = NULL;
  CHECK(torus_worker_create(ctx, &a) == TORUS_OK);
  CHECK(torus_worker_create(ctx, &b) == TORUS_OK);
  CHECK(torus_worker_uid(a) != torus_worker_uid(b));

  char addr[4096];
  size_t len = 1;
  CHECK(torus_worker_get_address(b, addr, &len) == TORUS_ERR_NO_RESOURCE);
  CHECK(len > 1 && len <= sizeof(addr));
  len = sizeof(addr);
  CHECK(torus_worker_get_address(b, addr, &len) == TORUS_OK);
  torus_ep_t* ep = NULL;
  CHECK(torus_ep_create(a, addr, len, &ep) == TORUS_OK);

  /* Eager and rendezvous sizes, receive posted first, callback delivers tag and length. */
  size_t sizes[] = {0, 8, 5000, 1 << 20};
  for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    size_t n = sizes[i];
    char* sbuf = malloc(n + 1);
    char* rbuf = calloc(1, n + 1);
    for (size_t k = 0; k < n; ++k) sbuf[k] = (char)(k * 7 + i);
    torus_request_t *rreq = NULL, *sreq = NULL;
    g_recv_called = 0;
    CHECK(torus_tag_recv(b, rbuf, n, 77, ~0ull, on_recv, &g_recv_called, &rreq) ==
          TORUS_INPROGRESS);
    torus_status_t st = torus_tag_send(ep, sbuf, n, 77, NULL, NULL, &sreq);
    CHECK(st == TORUS_OK || st == TORUS_INPROGRESS);
    drive(a, b, rreq);
    if (st == TORUS_INPROGRESS) {
      drive(a, b, sreq);
      CHECK(torus_request_status(sreq) == TORUS_OK);
      torus_request_release(sreq);
    }
    CHECK(g_recv_called == 1 && g_recv_len == n);
    CHECK(memcmp(sbuf, rbuf, n) == 0);
    torus_request_release(rreq);
    free(sbuf);
    free(rbuf);
  }

  /* Probe sees an unexpected message; cancel takes back an unmatched receive. */
  torus_request_t* sreq = NULL;
  CHECK(torus_tag_send(ep, "x", 1, 5, NULL, NULL, &sreq) == TORUS_OK);
  uint64_t tag = 0;
  size_t plen = 0;
  for (int i = 0; i < 1000000 && !torus_tag_probe(b, 5, ~0ull, &tag, &plen); ++i)
    torus_worker_progress(b);
  CHECK(tag == 5 && plen == 1);
  char c = 0;
  torus_request_t* rreq = NULL;
  CHECK(torus_tag_recv(b, &c, 1, 5, ~0ull, NULL, NULL, &rreq) == TORUS_INPROGRESS);
  CHECK(torus_request_is_completed(rreq) && c == 'x');
  torus_request_release(rreq);
  CHECK(torus_tag_recv(b, &c, 1, 6, ~0ull, NULL, NULL, &rreq) == TORUS_INPROGRESS);
  CHECK(torus_request_cancel(b, rreq) == TORUS_OK);
  CHECK(torus_request_status(rreq) == TORUS_ERR_CANCELED);
  torus_request_release(rreq);

  /* Active message with header and payload. */
  CHECK(torus_am_set_handler(b, 3, on_am, &g_am_called) == TORUS_OK);
  torus_status_t st = torus_am_send(ep, 3, "head", 4, "hello", 5, NULL, NULL, &sreq);
  CHECK(st == TORUS_OK || st == TORUS_INPROGRESS);
  for (int i = 0; i < 1000000 && !g_am_called; ++i) torus_worker_progress(b);
  CHECK(g_am_called == 1);

  /* Event fd: armed and idle means nothing to read; a message makes it readable. */
  int fd = torus_worker_get_event_fd(b);
  CHECK(fd >= 0);
  while (torus_worker_progress(b)) {
  }
  CHECK(torus_worker_arm(b) == TORUS_OK);
  struct pollfd pfd = {fd, POLLIN, 0};
  CHECK(poll(&pfd, 1, 0) == 0);
  CHECK(torus_tag_send(ep, "y", 1, 9, NULL, NULL, &sreq) == TORUS_OK);
  CHECK(poll(&pfd, 1, 5000) == 1);
  CHECK(torus_worker_wait(b, 0) == TORUS_OK);

  torus_worker_destroy(a);
  torus_worker_destroy(b);
  torus_context_destroy(ctx);
  printf("c api: all checks passed\n");
  return 0;
}
