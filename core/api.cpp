// The public C++ API: thin forwards onto the internal objects.
#include "core/api/torus.hpp"

#include "core/endpoint.h"
#include "core/rma.h"
#include "core/worker.h"
#include "transports/shm/shm_transport.h"

namespace torus {
namespace {
core::RequestImpl* impl(Request* r) { return static_cast<core::RequestImpl*>(r); }
const core::RequestImpl* impl(const Request* r) { return static_cast<const core::RequestImpl*>(r); }
core::EndpointImpl* impl(Endpoint* e) { return static_cast<core::EndpointImpl*>(e); }
const core::EndpointImpl* impl(const Endpoint* e) {
  return static_cast<const core::EndpointImpl*>(e);
}
// Serializes public calls on a worker in TORUS_THREAD_MODE=multi; free otherwise.
class ApiGuard {
 public:
  explicit ApiGuard(core::WorkerImpl* w) : w_(w->thread_multi() ? w : nullptr) {
    if (w_) w_->api_mutex().lock();
  }
  ~ApiGuard() {
    if (w_) w_->api_mutex().unlock();
  }
  ApiGuard(const ApiGuard&) = delete;
  ApiGuard& operator=(const ApiGuard&) = delete;

 private:
  core::WorkerImpl* w_;
};

}  // namespace

bool Request::completed() const noexcept { return impl(this)->done; }
Status Request::status() const noexcept { return impl(this)->status; }
RecvInfo Request::info() const noexcept { return impl(this)->info; }
void Request::release() noexcept {
  core::RequestImpl* r = impl(this);
  ApiGuard g(r->worker);
  r->worker->release(r);
}

Status Endpoint::tag_send(const void* buf, size_t length, Tag tag, Request** req,
                          const SendParams& params) {
  ApiGuard g(impl(this)->worker());
  return impl(this)->send_tag(buf, length, tag, req, params);
}

Status Endpoint::am_send(unsigned id, std::span<const std::byte> header,
                         std::span<const std::byte> payload, Request** req,
                         const SendParams& params) {
  ApiGuard g(impl(this)->worker());
  return impl(this)->send_am(id, header, payload, req, params);
}

Status Endpoint::put(const void* buf, size_t length, uint64_t remote_addr,
                     std::span<const std::byte> rkey, Request** req, const SendParams& params) {
  ApiGuard g(impl(this)->worker());
  return impl(this)->send_rma(core::RequestImpl::Rma::Put, const_cast<void*>(buf), length,
                              remote_addr, rkey, req, params);
}

Status Endpoint::get(void* buf, size_t length, uint64_t remote_addr,
                     std::span<const std::byte> rkey, Request** req, const SendParams& params) {
  ApiGuard g(impl(this)->worker());
  return impl(this)->send_rma(core::RequestImpl::Rma::Get, buf, length, remote_addr, rkey, req,
                              params);
}

Status Endpoint::flush(Request** req) {
  ApiGuard g(impl(this)->worker());
  return impl(this)->send_rma(core::RequestImpl::Rma::Flush, nullptr, 0, 0, {}, req, {});
}

void* MemHandle::address() const noexcept {
  return static_cast<const core::MemHandleImpl*>(this)->addr;
}
size_t MemHandle::length() const noexcept {
  return static_cast<const core::MemHandleImpl*>(this)->len;
}
std::vector<std::byte> MemHandle::pack_rkey() const {
  return core::pack_remote_key(*static_cast<const core::MemHandleImpl*>(this));
}

Result<MemHandle*> Worker::mem_register(void* addr, size_t length, uint32_t access) {
  ApiGuard g(impl_->w.get());
  auto h = core::register_memory(*impl_->w, addr, length, access);
  if (!h) return h.error();
  return static_cast<MemHandle*>(h.value());
}

void Worker::mem_deregister(MemHandle* handle) {
  ApiGuard g(impl_->w.get());
  impl_->w->drop_handle(static_cast<core::MemHandleImpl*>(handle));
}

uint64_t Endpoint::peer_uid() const noexcept { return impl(this)->uid(); }
std::string Endpoint::describe() const { return impl(this)->describe_impl(); }
size_t Endpoint::rndv_threshold() {
  ApiGuard g(impl(this)->worker());
  return impl(this)->rndv_threshold();
}

uint64_t Worker::uid() const noexcept { return impl_->w->uid(); }
std::vector<std::byte> Worker::address() const { return impl_->w->address(); }

Result<Endpoint*> Worker::connect(std::span<const std::byte> address) {
  ApiGuard g(impl_->w.get());
  auto ep = impl_->w->connect(address);
  if (!ep) return ep.error();
  return static_cast<Endpoint*>(ep.value());
}

Status Worker::tag_recv(void* buf, size_t length, Tag tag, Tag mask, Request** req,
                        const RecvParams& params) {
  ApiGuard g(impl_->w.get());
  return impl_->w->tag_recv(buf, length, tag, mask, req, params);
}

bool Worker::tag_probe(Tag tag, Tag mask, RecvInfo* info) {
  ApiGuard g(impl_->w.get());
  return impl_->w->tag_probe(tag, mask, info);
}

Message* Worker::tag_probe_remove(Tag tag, Tag mask, RecvInfo* info) {
  ApiGuard g(impl_->w.get());
  return impl_->w->tag_probe_remove(tag, mask, info);
}

Status Worker::tag_msg_recv(Message* msg, void* buf, size_t length, Request** req,
                            const RecvParams& params) {
  ApiGuard g(impl_->w.get());
  return impl_->w->tag_msg_recv(static_cast<core::Unexpected*>(msg), buf, length, req, params);
}

Status Worker::cancel(Request* req) {
  ApiGuard g(impl_->w.get());
  return impl_->w->cancel(torus::impl(req));
}

void Worker::set_am_handler(unsigned id, AmCallback cb, void* arg) {
  impl_->w->set_am_handler(id, cb, arg);
}

void Worker::set_error_handler(EndpointErrorCallback cb, void* arg) {
  impl_->w->set_error_handler(cb, arg);
}

unsigned Worker::progress() {
  ApiGuard g(impl_->w.get());
  return impl_->w->progress();
}
Status Worker::wait(std::chrono::nanoseconds timeout) { return impl_->w->wait(timeout); }
// Not serialized as a whole: wait_request progresses through the guarded public calls'
// internals, so other threads get the worker between polls.
Status Worker::wait_request(Request* req, std::chrono::nanoseconds timeout) {
  return impl_->w->wait_request(torus::impl(req), timeout);
}
std::chrono::nanoseconds Worker::spin_time() const noexcept { return impl_->w->spin_time(); }
void Worker::note_outlasted_wait(std::chrono::nanoseconds elapsed) noexcept {
  impl_->w->note_outlasted_wait(elapsed);
}
int Worker::event_fd() const noexcept { return impl_->w->event_fd(); }
Status Worker::arm() {
  ApiGuard g(impl_->w.get());
  return impl_->w->arm();
}

size_t remove_job_resources(std::string_view job_id) {
  return shm::remove_job_segments(job_id);
}

}  // namespace torus
