// torus_perf's one-sided tests over one torus endpoint: put_bw and get_bw (windows of puts
// or gets to the server's registered buffer, which the server only progresses), and the
// buffer's registration and exchange.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "contrib/tools/perf_measure.h"
#include "contrib/tools/perf_tests.h"

namespace torus::perf {

void PageBuffer::Free::operator()(std::byte* p) const noexcept { std::free(p); }

PageBuffer::PageBuffer(size_t size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t n = (std::max<size_t>(size, 1) + page - 1) / page * page;
  p_.reset(static_cast<std::byte*>(std::aligned_alloc(page, n)));
  if (!p_) fail("cannot allocate a buffer of " + std::to_string(n) + " bytes");
  std::memset(p_.get(), 0x5a, n);
}

RmaTarget::RmaTarget(Worker& worker, size_t length)
    : worker_(worker), length_(std::max<size_t>(length, 1)), buf_(length_) {
  auto h = worker_.mem_register(buf_.data(), length_, kMemRead | kMemWrite);
  if (!h)
    fail("Worker::mem_register of " + std::to_string(length_) + " bytes failed: " +
         status_string(h.status()) + ": " + h.error().message);
  handle_ = h.value();
}

RmaTarget::~RmaTarget() { worker_.mem_deregister(handle_); }

void RmaTarget::send_to(BootstrapSocket& sock) const {
  sock.send_text("RMA " + std::to_string(reinterpret_cast<uintptr_t>(handle_->address())) + " " +
                 std::to_string(handle_->length()));
  sock.send_msg(handle_->pack_rkey());
}

RemoteBuffer RemoteBuffer::receive(BootstrapSocket& sock, std::chrono::milliseconds timeout) {
  const std::string text = sock.expect("RMA ", timeout);
  RemoteBuffer rb;
  const char *p = text.data(), *end = text.data() + text.size();
  auto r1 = std::from_chars(p, end, rb.address);
  bool ok = r1.ec == std::errc() && r1.ptr != end && *r1.ptr == ' ';
  if (ok) {
    auto r2 = std::from_chars(r1.ptr + 1, end, rb.length);
    ok = r2.ec == std::errc() && r2.ptr == end;
  }
  if (!ok) fail("bad RMA target from the server: 'RMA " + text.substr(0, 100) + "'");
  rb.rkey = sock.recv_msg(timeout);
  return rb;
}

uint64_t get_bw_seed() noexcept { return pattern_seed(0, 0, 1); }

namespace {

// Completes a put or get like Session::complete; Unsupported (no transport to this peer can
// do it) ends the run with exit code 2, as a test this build cannot run.
void complete_rma(Session& s, Status st, Request* req, const char* what, uint64_t iter) {
  if (st == Status::Unsupported)
    fail(std::string(what) + " returned " + status_string(st) + " at iteration " +
             std::to_string(iter) + ": no transport to the server can do it here",
         kExitUnsupported);
  s.complete(st, req, what, iter);
}

SizeResult client_rma_bw(Session& s, const SizePlan& p, unsigned window, bool check,
                         const RemoteBuffer& rb, CheckState& cs, bool put) {
  if (p.size > rb.length)
    fail("internal: size " + std::to_string(p.size) + " exceeds the server's buffer (" +
         std::to_string(rb.length) + " bytes)");
  const char* what = put ? "Endpoint::put" : "Endpoint::get";
  const WindowPlan plan = plan_windows(p, window);
  // Without --check every operation of a window uses one local buffer, as ucx_perftest does.
  std::vector<PageBuffer> bufs;
  for (unsigned j = 0; j < (check ? window : 1u); ++j) bufs.emplace_back(p.size);
  const uint64_t get_seed = get_bw_seed();
  // get --check: a byte the data read can never leave at offset 0, so that a get that wrote
  // nothing shows.
  const int poison = ~std::to_integer<int>(pattern_byte(get_seed, 0)) & 0xff;
  std::vector<Request*> reqs(window);
  std::vector<Status> sts(window);
  std::vector<double> per_msg_us, window_MBps;
  double total_us = 0;
  uint64_t total_msgs = 0, m = 0;
  s.sock().expect("READY", s.socket_timeout());
  for (size_t k = 0; k < plan.counts.size(); ++k) {
    const uint32_t c = plan.counts[k];
    if (check)
      for (uint32_t j = 0; j < c; ++j) {
        if (put)
          fill_pattern(bufs[j].first(p.size), pattern_seed(m + j, p.size, 0));
        else
          std::memset(bufs[j].data(), poison, p.size);
      }
    auto t0 = Clock::now();
    for (uint32_t j = 0; j < c; ++j) {
      std::byte* b = bufs[check ? j : 0].data();
      reqs[j] = nullptr;
      sts[j] = put ? s.ep().put(b, p.size, rb.address, rb.rkey, &reqs[j])
                   : s.ep().get(b, p.size, rb.address, rb.rkey, &reqs[j]);
      if (is_error(sts[j])) complete_rma(s, sts[j], reqs[j], what, m + j);
    }
    Request* freq = nullptr;
    Status fs = put ? s.ep().flush(&freq) : Status::Ok;
    for (uint32_t j = 0; j < c; ++j) complete_rma(s, sts[j], reqs[j], what, m + j);
    s.complete(fs, freq, "Endpoint::flush", m + c - 1);
    auto t1 = Clock::now();
    if (check && !put)
      for (uint32_t j = 0; j < c; ++j)
        if (!cs.bad)
          if (auto off = verify_pattern(bufs[j].first(p.size), get_seed))
            cs.record(m + j, *off, pattern_byte(get_seed, *off), bufs[j].data()[*off]);
    m += c;
    if (k >= plan.first_timed) {
      double us = us_between(t0, t1);
      total_us += us;
      total_msgs += c;
      per_msg_us.push_back(us / c);
      window_MBps.push_back(us > 0 ? static_cast<double>(c) * p.size / (us * 1e-6) / kMB : 0);
    }
  }
  if (check && put) {
    // The puts of a window land in any order: only one put after the flushed loop leaves
    // a known pattern in the server's buffer. The server verifies it on "CHECK <m>".
    fill_pattern(bufs[0].first(p.size), pattern_seed(m, p.size, 0));
    Request *req = nullptr, *freq = nullptr;
    Status st = s.ep().put(bufs[0].data(), p.size, rb.address, rb.rkey, &req);
    complete_rma(s, st, req, "Endpoint::put (checked)", m);
    s.complete(s.ep().flush(&freq), freq, "Endpoint::flush (checked put)", m);
    s.sock().send_text("CHECK " + std::to_string(m));
  } else {
    s.sock().send_text("DONE");
  }
  return window_result(p, std::move(per_msg_us), std::move(window_MBps), total_msgs, total_us);
}

}  // namespace

SizeResult client_put_bw(Session& s, const SizePlan& p, unsigned window, bool check,
                         const RemoteBuffer& rb, CheckState& cs) {
  return client_rma_bw(s, p, window, check, rb, cs, true);
}

SizeResult client_get_bw(Session& s, const SizePlan& p, unsigned window, bool check,
                         const RemoteBuffer& rb, CheckState& cs) {
  return client_rma_bw(s, p, window, check, rb, cs, false);
}

void server_rma_bw(Session& s, const SizePlan& p, const RmaTarget& target, CheckState& cs) {
  s.sock().send_text("READY");
  const std::string msg = s.serve_until_message("the client's DONE or CHECK");
  if (msg == "DONE") return;
  uint64_t m = 0;
  auto [ptr, ec] = std::from_chars(msg.data() + std::min<size_t>(msg.size(), 6),
                                   msg.data() + msg.size(), m);
  if (!msg.starts_with("CHECK ") || ec != std::errc() || ptr != msg.data() + msg.size())
    fail("unexpected bootstrap message from " + s.sock().peer_name() +
         ": wanted 'DONE' or 'CHECK <message>', got '" + msg.substr(0, 120) + "'");
  if (p.size > target.bytes().size())
    fail("internal: size " + std::to_string(p.size) + " exceeds the registered buffer");
  verify(cs, target.bytes().first(p.size), m, p.size, 0);
}

}  // namespace torus::perf
