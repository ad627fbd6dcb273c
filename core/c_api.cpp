// The public C API over the C++ one. Handles are the C++ objects behind opaque types.
#include "core/api/torus.h"

#include <cstring>
#include <string>

#include "core/api/torus.hpp"
#include "core/endpoint.h"
#include "core/worker.h"

struct torus_context {
  std::unique_ptr<torus::Context> ctx;
};
struct torus_worker {
  std::unique_ptr<torus::Worker> worker;
  torus::core::WorkerImpl* impl;
};

namespace {

thread_local std::string g_last_error;

torus_status_t to_c(torus::Status s) { return static_cast<torus_status_t>(static_cast<int>(s)); }
torus::Request* req_of(torus_request_t* r) { return reinterpret_cast<torus::Request*>(r); }
const torus::Request* req_of(const torus_request_t* r) {
  return reinterpret_cast<const torus::Request*>(r);
}
torus::Endpoint* ep_of(torus_ep_t* e) { return reinterpret_cast<torus::Endpoint*>(e); }
torus_ep_t* ep_to_c(torus::Endpoint* e) { return reinterpret_cast<torus_ep_t*>(e); }

std::chrono::nanoseconds timeout_of(int64_t ns) {
  return ns < 0 ? std::chrono::nanoseconds::max() : std::chrono::nanoseconds(ns);
}

torus_status_t send_common(torus_ep_t* ep, const void* buf, size_t length, uint64_t tag,
                           torus_send_cb_t cb, void* user, torus_request_t** req, bool sync) {
  if (ep == nullptr || req == nullptr) return TORUS_ERR_INVALID_PARAM;
  torus::SendParams p;
  p.sync = sync;
  p.user = user;
  torus::Request* r = nullptr;
  torus::Status s = ep_of(ep)->tag_send(buf, length, tag, &r, p);
  if (s == torus::Status::InProgress) {
    // Completion runs only from progress, so setting the callback now cannot miss it.
    auto* ri = static_cast<torus::core::RequestImpl*>(r);
    ri->c_send_cb = cb;
    *req = reinterpret_cast<torus_request_t*>(r);
  }
  return to_c(s);
}

}  // namespace

extern "C" {

const char* torus_status_string(torus_status_t status) {
  return torus::status_string(static_cast<torus::Status>(status));
}

const char* torus_last_error(void) { return g_last_error.c_str(); }

torus_status_t torus_context_create(torus_context_t** context) {
  if (context == nullptr) return TORUS_ERR_INVALID_PARAM;
  auto ctx = torus::Context::create();
  if (!ctx) {
    g_last_error = ctx.error().message;
    return to_c(ctx.status());
  }
  *context = new torus_context{std::move(ctx.value())};
  return TORUS_OK;
}

size_t torus_remove_job_resources(const char* job_id) {
  return job_id == nullptr ? 0 : torus::remove_job_resources(job_id);
}

void torus_context_destroy(torus_context_t* context) { delete context; }

torus_status_t torus_worker_create(torus_context_t* context, torus_worker_t** worker) {
  if (context == nullptr || worker == nullptr) return TORUS_ERR_INVALID_PARAM;
  auto w = context->ctx->create_worker();
  if (!w) {
    g_last_error = w.error().message;
    return to_c(w.status());
  }
  auto* impl = w.value()->impl()->w.get();
  *worker = new torus_worker{std::move(w.value()), impl};
  return TORUS_OK;
}

void torus_worker_destroy(torus_worker_t* worker) { delete worker; }

uint64_t torus_worker_uid(const torus_worker_t* worker) { return worker->worker->uid(); }

torus_status_t torus_worker_get_address(torus_worker_t* worker, void* buf, size_t* length) {
  if (worker == nullptr || length == nullptr) return TORUS_ERR_INVALID_PARAM;
  const std::vector<std::byte>& a = worker->impl->address();
  size_t room = *length;
  *length = a.size();
  if (buf == nullptr || room < a.size()) return TORUS_ERR_NO_RESOURCE;
  std::memcpy(buf, a.data(), a.size());
  return TORUS_OK;
}

unsigned torus_worker_progress(torus_worker_t* worker) { return worker->worker->progress(); }

torus_status_t torus_worker_wait(torus_worker_t* worker, int64_t timeout_ns) {
  return to_c(worker->worker->wait(timeout_of(timeout_ns)));
}

int torus_worker_get_event_fd(torus_worker_t* worker) { return worker->worker->event_fd(); }

torus_status_t torus_worker_arm(torus_worker_t* worker) { return to_c(worker->worker->arm()); }

torus_status_t torus_ep_create(torus_worker_t* worker, const void* address, size_t length,
                               torus_ep_t** ep) {
  if (worker == nullptr || address == nullptr || ep == nullptr) return TORUS_ERR_INVALID_PARAM;
  auto e = worker->worker->connect({static_cast<const std::byte*>(address), length});
  if (!e) {
    g_last_error = e.error().message;
    return to_c(e.status());
  }
  *ep = ep_to_c(e.value());
  return TORUS_OK;
}

torus_status_t torus_tag_send(torus_ep_t* ep, const void* buf, size_t length, uint64_t tag,
                              torus_send_cb_t cb, void* user, torus_request_t** req) {
  return send_common(ep, buf, length, tag, cb, user, req, false);
}

torus_status_t torus_tag_ssend(torus_ep_t* ep, const void* buf, size_t length, uint64_t tag,
                               torus_send_cb_t cb, void* user, torus_request_t** req) {
  return send_common(ep, buf, length, tag, cb, user, req, true);
}

torus_status_t torus_tag_recv(torus_worker_t* worker, void* buf, size_t length, uint64_t tag,
                              uint64_t mask, torus_recv_cb_t cb, void* user,
                              torus_request_t** req) {
  if (worker == nullptr || req == nullptr) return TORUS_ERR_INVALID_PARAM;
  torus::RecvParams p;
  p.user = user;
  torus::Request* r = nullptr;
  torus::Status s = worker->impl->tag_recv(
      buf, length, tag, mask, &r, p, cb);
  if (r != nullptr) *req = reinterpret_cast<torus_request_t*>(r);
  return to_c(s);
}

int torus_tag_probe(torus_worker_t* worker, uint64_t tag, uint64_t mask, uint64_t* tag_out,
                    size_t* length_out) {
  torus::RecvInfo info;
  if (!worker->worker->tag_probe(tag, mask, &info)) return 0;
  if (tag_out) *tag_out = info.tag;
  if (length_out) *length_out = info.length;
  return 1;
}

torus_status_t torus_am_set_handler(torus_worker_t* worker, unsigned id, torus_am_cb_t cb,
                                    void* arg) {
  if (worker == nullptr || id > torus::kMaxUserAmId) return TORUS_ERR_INVALID_PARAM;
  struct Thunk {
    torus_am_cb_t cb;
    void* arg;
  };
  // One thunk per id, owned by the worker's C wrapper for its lifetime.
  static thread_local std::vector<std::unique_ptr<Thunk>> keep;
  keep.push_back(std::make_unique<Thunk>(Thunk{cb, arg}));
  worker->worker->set_am_handler(
      id,
      [](void* a, std::span<const std::byte> h, std::span<const std::byte> p, torus::Endpoint* e) {
        auto* t = static_cast<Thunk*>(a);
        t->cb(t->arg, h.data(), h.size(), p.data(), p.size(), ep_to_c(e));
      },
      keep.back().get());
  return TORUS_OK;
}

torus_status_t torus_am_send(torus_ep_t* ep, unsigned id, const void* header,
                             size_t header_length, const void* payload, size_t length,
                             torus_send_cb_t cb, void* user, torus_request_t** req) {
  if (ep == nullptr || req == nullptr) return TORUS_ERR_INVALID_PARAM;
  torus::SendParams p;
  p.user = user;
  torus::Request* r = nullptr;
  torus::Status s =
      ep_of(ep)->am_send(id, {static_cast<const std::byte*>(header), header_length},
                         {static_cast<const std::byte*>(payload), length}, &r, p);
  if (s == torus::Status::InProgress) {
    static_cast<torus::core::RequestImpl*>(r)->c_send_cb =
        cb;
    *req = reinterpret_cast<torus_request_t*>(r);
  }
  return to_c(s);
}

int torus_request_is_completed(const torus_request_t* req) { return req_of(req)->completed(); }

torus_status_t torus_request_status(const torus_request_t* req) {
  return to_c(req_of(req)->status());
}

void torus_request_info(const torus_request_t* req, uint64_t* tag, size_t* length) {
  torus::RecvInfo i = req_of(req)->info();
  if (tag) *tag = i.tag;
  if (length) *length = i.length;
}

torus_status_t torus_request_wait(torus_worker_t* worker, torus_request_t* req,
                                  int64_t timeout_ns) {
  return to_c(worker->worker->wait_request(req_of(req), timeout_of(timeout_ns)));
}

torus_status_t torus_request_cancel(torus_worker_t* worker, torus_request_t* req) {
  return to_c(worker->worker->cancel(req_of(req)));
}

void torus_request_release(torus_request_t* req) { req_of(req)->release(); }

}  // extern "C"
