/* torus public C API: for embedders (Python/Dask-like runtimes, Horovod-like frameworks).
 * Same model as the C++ API (torus.hpp): context -> worker -> endpoint; non-blocking calls
 * return TORUS_OK when done at once (no request), TORUS_INPROGRESS with *req set, or an
 * error. Requests go back with torus_request_release(). A worker is used by one thread at a
 * time; torus_worker_get_event_fd() plugs it into an external event loop:
 *   while (torus_worker_progress(w)) {}
 *   if (torus_worker_arm(w) == TORUS_OK) poll(event fd) ... */
#ifndef TORUS_H
#define TORUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TORUS_OK = 0,
  TORUS_INPROGRESS = 1,
  TORUS_ERR_NO_RESOURCE = 2,
  TORUS_ERR_INVALID_PARAM = -1,
  TORUS_ERR_UNSUPPORTED = -2,
  TORUS_ERR_NO_MEMORY = -3,
  TORUS_ERR_TRUNCATED = -4,
  TORUS_ERR_NOT_FOUND = -5,
  TORUS_ERR_CANCELED = -6,
  TORUS_ERR_TIMEOUT = -7,
  TORUS_ERR_ACCESS_DENIED = -8,
  TORUS_ERR_IO = -9,
  TORUS_ERR_UNREACHABLE = -10,
  TORUS_ERR_CONNECTION_RESET = -11,
  TORUS_ERR_PROTOCOL = -12
} torus_status_t;

typedef struct torus_context torus_context_t;
typedef struct torus_worker torus_worker_t;
typedef struct torus_ep torus_ep_t;
typedef struct torus_request torus_request_t;

typedef void (*torus_send_cb_t)(torus_request_t* req, torus_status_t status, void* user);
typedef void (*torus_recv_cb_t)(torus_request_t* req, torus_status_t status, uint64_t tag,
                                size_t length, void* user);
typedef void (*torus_am_cb_t)(void* arg, const void* header, size_t header_length,
                              const void* payload, size_t length, torus_ep_t* reply_ep);

const char* torus_status_string(torus_status_t status);
/* Text of the last failed create call on this thread (bad TORUS_* value, ...). */
const char* torus_last_error(void);

/* Removes a finished or crashed job's leftovers on this host (shared-memory segments named
 * after its TORUS_JOB_ID); returns how many were removed. For launchers. */
size_t torus_remove_job_resources(const char* job_id);

torus_status_t torus_context_create(torus_context_t** context);
void torus_context_destroy(torus_context_t* context);

torus_status_t torus_worker_create(torus_context_t* context, torus_worker_t** worker);
void torus_worker_destroy(torus_worker_t* worker);
uint64_t torus_worker_uid(const torus_worker_t* worker);
/* Copies the packed address into buf; *length: in, buf size; out, address size
 * (TORUS_ERR_NO_RESOURCE with the needed size when buf is too small). */
torus_status_t torus_worker_get_address(torus_worker_t* worker, void* buf, size_t* length);
unsigned torus_worker_progress(torus_worker_t* worker);
/* Sleeps until an event or timeout_ns (< 0: forever). */
torus_status_t torus_worker_wait(torus_worker_t* worker, int64_t timeout_ns);
int torus_worker_get_event_fd(torus_worker_t* worker);
torus_status_t torus_worker_arm(torus_worker_t* worker);

/* Endpoints are owned by the worker and live as long as it does. */
torus_status_t torus_ep_create(torus_worker_t* worker, const void* address, size_t length,
                               torus_ep_t** ep);

torus_status_t torus_tag_send(torus_ep_t* ep, const void* buf, size_t length, uint64_t tag,
                              torus_send_cb_t cb, void* user, torus_request_t** req);
/* Synchronous send: completes once the receiver has matched the message. */
torus_status_t torus_tag_ssend(torus_ep_t* ep, const void* buf, size_t length, uint64_t tag,
                               torus_send_cb_t cb, void* user, torus_request_t** req);
/* Always returns a request (TORUS_INPROGRESS), possibly already completed. */
torus_status_t torus_tag_recv(torus_worker_t* worker, void* buf, size_t length, uint64_t tag,
                              uint64_t mask, torus_recv_cb_t cb, void* user,
                              torus_request_t** req);
/* 1 and the message's tag and length when a matching message waits unreceived, else 0. */
int torus_tag_probe(torus_worker_t* worker, uint64_t tag, uint64_t mask, uint64_t* tag_out,
                    size_t* length_out);

torus_status_t torus_am_set_handler(torus_worker_t* worker, unsigned id, torus_am_cb_t cb,
                                    void* arg);
torus_status_t torus_am_send(torus_ep_t* ep, unsigned id, const void* header,
                             size_t header_length, const void* payload, size_t length,
                             torus_send_cb_t cb, void* user, torus_request_t** req);

int torus_request_is_completed(const torus_request_t* req);
torus_status_t torus_request_status(const torus_request_t* req);
void torus_request_info(const torus_request_t* req, uint64_t* tag, size_t* length);
/* Waits (progressing the worker) until done or timeout_ns (< 0: forever). */
torus_status_t torus_request_wait(torus_worker_t* worker, torus_request_t* req,
                                  int64_t timeout_ns);
torus_status_t torus_request_cancel(torus_worker_t* worker, torus_request_t* req);
void torus_request_release(torus_request_t* req);

#ifdef __cplusplus
}
#endif

#endif /* TORUS_H */
