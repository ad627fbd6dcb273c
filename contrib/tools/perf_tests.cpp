// torus_perf's tests over one torus endpoint: tag_lat and am_lat (ping-pong, one-way time =
// round trip / 2), tag_bw (windows of non-blocking sends, one ack per window), put_bw and
// get_bw (windows of one-sided puts or gets to the server's registered buffer).
#include "contrib/tools/perf_tests.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

namespace torus::perf {
namespace {

using Clock = std::chrono::steady_clock;

constexpr Tag kTagPing = 0x746f'7275'7000'0001ULL;
constexpr Tag kTagPong = 0x746f'7275'7000'0002ULL;
constexpr Tag kTagData = 0x746f'7275'7000'0003ULL;
constexpr Tag kTagAck = 0x746f'7275'7000'0004ULL;
constexpr unsigned kAmPing = 1;
constexpr unsigned kAmPong = 2;
constexpr unsigned kAmProbe = 3;

// How long to poll before sleeping in Worker::wait, as Worker::wait_request does by default.
const std::chrono::nanoseconds kSpin = sysconf(_SC_NPROCESSORS_ONLN) > 1
                                           ? std::chrono::microseconds(50)
                                           : std::chrono::microseconds(2);
constexpr std::chrono::milliseconds kPeerCheck{1000};

// A message buffer: at least one byte so that size 0 still has a valid address; pages
// touched up front so that first-touch faults stay out of the timings.
std::vector<std::byte> make_buffer(size_t size) {
  return std::vector<std::byte>(size == 0 ? 1 : size, std::byte{0x5a});
}

double us_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

constexpr double kMB = 1024.0 * 1024.0;

void verify(CheckState& cs, std::span<const std::byte> got, uint64_t iter, size_t size,
            unsigned dir) {
  if (cs.bad) return;  // report the first corruption only
  uint64_t seed = pattern_seed(iter, size, dir);
  if (auto off = verify_pattern(got, seed))
    cs.record(iter, *off, pattern_byte(seed, *off), got[*off]);
}

void check_length(CheckState& cs, const RecvInfo& info, uint64_t iter, size_t size) {
  if (info.length != SIZE_MAX && info.length != size && !cs.bad)
    cs.record_length(iter, size, info.length);
}

// The AM handler of am_lat, for pings (server) and pongs (client): the header carries the
// iteration number; with --check the payload is verified here, while it is valid.
void on_am(void* arg, std::span<const std::byte> header, std::span<const std::byte> payload,
           Endpoint* /*reply_ep*/) {
  auto* am = static_cast<AmState*>(arg);
  uint64_t iter = am->received;
  if (header.size() == sizeof(iter)) std::memcpy(&iter, header.data(), sizeof(iter));
  if (am->check && am->cs != nullptr) {
    if (payload.size() != am->size && !am->cs->bad)
      am->cs->record_length(iter, am->size, payload.size());
    else
      verify(*am->cs, payload, iter, am->size, am->dir);
  }
  ++am->received;
}

void on_probe(void*, std::span<const std::byte>, std::span<const std::byte>, Endpoint*) {}

// tag_bw's windows: warm-up windows of `window` messages, then the timed ones, the last
// partial. Both sides derive the same plan from the parameters.
struct WindowPlan {
  std::vector<uint32_t> counts;
  size_t first_timed = 0;
};
WindowPlan plan_windows(const SizePlan& p, unsigned window) {
  WindowPlan w;
  for (uint64_t m = 0; m < p.warmup; m += window) w.counts.push_back(window);
  w.first_timed = w.counts.size();
  for (uint64_t m = 0; m < p.iters; m += window)
    w.counts.push_back(static_cast<uint32_t>(std::min<uint64_t>(window, p.iters - m)));
  return w;
}

}  // namespace

void CheckState::record(uint64_t iter, size_t offset, std::byte expected, std::byte got) {
  if (bad) return;
  bad = true;
  char b[160];
  std::snprintf(b, sizeof(b),
                "iteration %" PRIu64 ", first bad offset %zu: expected 0x%02x, got 0x%02x", iter,
                offset, static_cast<unsigned>(expected), static_cast<unsigned>(got));
  first = b;
}

void CheckState::record_length(uint64_t iter, size_t expected, size_t got) {
  if (bad) return;
  bad = true;
  first = "iteration " + std::to_string(iter) + ": received " + std::to_string(got) +
          " bytes, expected " + std::to_string(expected);
}

Session::Session(Worker& worker, Endpoint& ep, BootstrapSocket& sock,
                 std::chrono::seconds timeout)
    : worker_(worker), ep_(ep), sock_(sock), timeout_(timeout) {
  worker_.set_am_handler(kAmPing, &on_am, &am_);
  worker_.set_am_handler(kAmPong, &on_am, &am_);
  worker_.set_am_handler(kAmProbe, &on_probe, nullptr);
}

Session::~Session() {
  for (unsigned id : {kAmPing, kAmPong, kAmProbe}) worker_.set_am_handler(id, nullptr, nullptr);
}

void Session::check_peer(const char* what, uint64_t iter) {
  if (!sock_.peer_alive())
    fail(std::string("the peer closed the bootstrap connection (it exited or died) while this "
                     "side waited for ") + what + " at iteration " + std::to_string(iter));
}

void Session::timed_out(const char* what, uint64_t iter) {
  fail(std::string("timed out after ") + std::to_string(timeout_.count() / 1000) +
       " s waiting for " + what + " at iteration " + std::to_string(iter) +
       " (peer stuck, or a torus bug: a message lost?)");
}

RecvInfo Session::complete(Status s, Request* req, const char* what, uint64_t iter) {
  if (s == Status::Ok) return RecvInfo{0, SIZE_MAX};
  if (s != Status::InProgress || req == nullptr)
    fail(std::string(what) + " failed at iteration " + std::to_string(iter) + ": " +
         status_string(s));
  // The clock is read only once a wait has run out: a read costs 30-70 ns in a VM, as much
  // as a small message, and a receiver completes one request per message. The first wait's
  // slice counts towards the deadline.
  bool have_deadline = false;
  Clock::time_point deadline{};
  std::chrono::nanoseconds slice = kPeerCheck;
  while (true) {
    Status ws = worker_.wait_request(req, slice);
    if (ws == Status::Timeout && !req->completed()) {
      const auto now = Clock::now();
      if (!have_deadline) {
        deadline = now - kPeerCheck + timeout_;
        have_deadline = true;
      }
      check_peer(what, iter);
      if (now >= deadline) timed_out(what, iter);
      slice = std::min<std::chrono::nanoseconds>(deadline - now, kPeerCheck);
      continue;
    }
    if (ws != Status::Ok) {
      // Waiting itself failed, or the request completed with an error.
      Status rs = req->completed() ? req->status() : ws;
      req->release();
      fail(std::string(what) + " failed at iteration " + std::to_string(iter) + ": " +
           status_string(rs));
    }
    RecvInfo info = req->info();
    req->release();
    return info;
  }
}

void Session::progress_until_received(uint64_t count, const char* what, uint64_t iter) {
  auto start = Clock::now(), last_check = start;
  const auto deadline = start + timeout_;
  unsigned polls = 0;
  while (am_.received < count) {
    worker_.progress();
    if (am_.received >= count || (++polls & 63) != 0) continue;
    auto now = Clock::now();
    if (now - start < kSpin) continue;
    if (now - last_check >= kPeerCheck) {
      check_peer(what, iter);
      last_check = now;
    }
    if (now >= deadline) timed_out(what, iter);
    Status ws = worker_.wait(std::chrono::milliseconds(100));
    if (is_error(ws) && ws != Status::Timeout)
      fail(std::string("Worker::wait failed while waiting for ") + what + ": " +
           status_string(ws));
  }
}

std::string Session::serve_until_message(const char* what) {
  const int sfd = sock_.native_fd();
  auto socket_readable = [&](int timeout_ms) {
    pollfd pf{sfd, POLLIN, 0};
    int r = poll(&pf, 1, timeout_ms);
    if (r < 0 && errno != EINTR)
      fail(std::string("poll on the bootstrap socket failed while waiting for ") + what + ": " +
           std::strerror(errno));
    return r > 0;
  };
  // A readable socket is a message, or the peer's EOF when it failed or died.
  auto receive = [&] {
    if (!sock_.peer_alive())
      fail(std::string("the peer closed the bootstrap connection (it exited or died) while this "
                       "side waited for ") + what);
    return sock_.recv_text(timeout_);
  };
  auto last_event = Clock::now();
  bool busy = false;
  unsigned polls = 0;
  while (true) {
    if (worker_.progress() != 0) busy = true;
    if ((++polls & 63) != 0) continue;
    if (socket_readable(0)) return receive();
    auto now = Clock::now();
    if (busy) {
      busy = false;
      last_event = now;
      continue;
    }
    if (now - last_event < kSpin || worker_.arm() != Status::Ok) continue;
    // Nothing happened for a while (CMA needs no target progress): sleep until the worker
    // has an event or the client speaks.
    pollfd fds[2] = {{sfd, POLLIN, 0}, {worker_.event_fd(), POLLIN, 0}};
    int r = poll(fds, fds[1].fd >= 0 ? 2 : 1, fds[1].fd >= 0 ? 1000 : 1);
    if (r < 0 && errno != EINTR)
      fail(std::string("poll on the worker and the bootstrap socket failed while waiting for ") +
           what + ": " + std::strerror(errno));
    if (r > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) return receive();
    if (r > 0) last_event = Clock::now();
  }
}

bool Session::am_size_supported(size_t size) {
  probe_bufs_.push_back(make_buffer(size));
  uint64_t h = 0;
  Request* req = nullptr;
  Status s = ep_.am_send(kAmProbe, {reinterpret_cast<const std::byte*>(&h), sizeof(h)},
                         {probe_bufs_.back().data(), size}, &req);
  if (s == Status::Unsupported) return false;
  if (s == Status::InProgress) {
    req->release();  // completes in the background; its buffer lives as long as the session
  } else if (s != Status::Ok) {
    fail(std::string("am_send (probe of ") + std::to_string(size) + " bytes) failed: " +
         status_string(s));
  }
  return true;
}

// ---- tag_lat ----

// Result of a ping-pong test (tag_lat, am_lat) from its one-way samples in microseconds.
SizeResult latency_result(const SizePlan& p, std::vector<double> samples) {
  SizeResult r;
  r.size = p.size;
  r.iters = p.iters;
  r.lat = summarize(std::move(samples));
  r.bw_MBps = r.lat.median > 0 ? static_cast<double>(p.size) / (r.lat.median * 1e-6) / kMB : 0;
  return r;
}

SizeResult client_tag_lat(Session& s, const SizePlan& p, bool check, CheckState& cs) {
  auto sbuf = make_buffer(p.size), rbuf = make_buffer(p.size);
  std::vector<double> samples;
  samples.reserve(p.iters);
  s.sock().expect("READY", s.socket_timeout());
  const uint64_t total = p.warmup + p.iters;
  for (uint64_t i = 0; i < total; ++i) {
    if (check) fill_pattern({sbuf.data(), p.size}, pattern_seed(i, p.size, 0));
    Request *sreq = nullptr, *rreq = nullptr;
    auto t0 = Clock::now();
    Status ss = s.ep().tag_send(sbuf.data(), p.size, kTagPing, &sreq);
    Status rs = s.worker().tag_recv(rbuf.data(), p.size, kTagPong, kTagMaskFull, &rreq);
    s.complete(ss, sreq, "tag_send (ping)", i);
    RecvInfo info = s.complete(rs, rreq, "tag_recv (pong)", i);
    auto t1 = Clock::now();
    if (i >= p.warmup) samples.push_back(us_between(t0, t1) / 2);
    if (check) {
      check_length(cs, info, i, p.size);
      verify(cs, {rbuf.data(), p.size}, i, p.size, 1);
    }
  }
  return latency_result(p, std::move(samples));
}

void server_tag_lat(Session& s, const SizePlan& p, bool check, CheckState& cs) {
  auto sbuf = make_buffer(p.size), rbuf = make_buffer(p.size);
  const uint64_t total = p.warmup + p.iters;
  Request* rreq = nullptr;
  Status rs = s.worker().tag_recv(rbuf.data(), p.size, kTagPing, kTagMaskFull, &rreq);
  s.sock().send_text("READY");
  for (uint64_t i = 0; i < total; ++i) {
    RecvInfo info = s.complete(rs, rreq, "tag_recv (ping)", i);
    if (check) {
      check_length(cs, info, i, p.size);
      verify(cs, {rbuf.data(), p.size}, i, p.size, 0);
      fill_pattern({sbuf.data(), p.size}, pattern_seed(i, p.size, 1));
    }
    Request* sreq = nullptr;
    Status ss = s.ep().tag_send(sbuf.data(), p.size, kTagPong, &sreq);
    // The next ping cannot come before this pong arrives: posting now keeps it expected.
    if (i + 1 < total) rs = s.worker().tag_recv(rbuf.data(), p.size, kTagPing, kTagMaskFull, &rreq);
    s.complete(ss, sreq, "tag_send (pong)", i);
  }
}

// ---- tag_bw ----

// Result of a windowed bandwidth test (tag_bw, put_bw, get_bw) from its timed windows.
SizeResult window_result(const SizePlan& p, std::vector<double> per_msg_us,
                         std::vector<double> window_MBps, uint64_t total_msgs, double total_us) {
  SizeResult r;
  r.size = p.size;
  r.iters = p.iters;
  r.lat = summarize(std::move(per_msg_us));
  r.bw_window_median_MBps = summarize(std::move(window_MBps)).median;
  if (total_us > 0) {
    r.bw_MBps = static_cast<double>(total_msgs) * p.size / (total_us * 1e-6) / kMB;
    r.msg_rate = static_cast<double>(total_msgs) / (total_us * 1e-6);
  }
  return r;
}

// Two windows are in flight: the server posts the receives of windows k and k+1 before the
// client sends window k, and acks window k once it has posted window k+2, so the client
// streams on while an ack travels. One window at a time drained the pipe for a round trip
// per window (a fifth of the time at 8 B in windows of 32); ucx_perftest's tag_bw has no
// such bubble either.
constexpr size_t kWindowsInFlight = 2;

SizeResult client_tag_bw(Session& s, const SizePlan& p, unsigned window, bool check,
                         CheckState& cs) {
  (void)cs;  // the server checks the data; acks carry none
  const WindowPlan plan = plan_windows(p, window);
  const size_t nwin = plan.counts.size();
  // Without --check every send reads the same buffer, as ucx_perftest does.
  std::vector<std::vector<std::byte>> bufs(check ? kWindowsInFlight * window : 1);
  for (auto& b : bufs) b = make_buffer(p.size);
  std::vector<uint64_t> acks(nwin);
  std::vector<Request*> areqs(nwin), reqs(window);
  std::vector<Status> asts(nwin), sts(window);
  std::vector<Clock::time_point> starts(nwin + 1);
  uint64_t m = 0;
  s.sock().expect("READY", s.socket_timeout());
  for (size_t k = 0; k < nwin; ++k) {
    const uint32_t c = plan.counts[k];
    const size_t base = (k % kWindowsInFlight) * window;
    // Window k's receives are up once window k - 2 is acknowledged.
    if (k >= kWindowsInFlight)
      s.complete(asts[k - kWindowsInFlight], areqs[k - kWindowsInFlight],
                 "tag_recv (window ack)", m);
    if (check)
      for (uint32_t j = 0; j < c; ++j)
        fill_pattern({bufs[base + j].data(), p.size}, pattern_seed(m + j, p.size, 0));
    starts[k] = Clock::now();
    areqs[k] = nullptr;
    asts[k] = s.worker().tag_recv(&acks[k], sizeof(acks[k]), kTagAck, kTagMaskFull, &areqs[k]);
    for (uint32_t j = 0; j < c; ++j) {
      reqs[j] = nullptr;
      sts[j] = s.ep().tag_send(bufs[check ? base + j : 0].data(), p.size, kTagData, &reqs[j]);
      if (is_error(sts[j])) s.complete(sts[j], reqs[j], "tag_send (data)", m + j);
    }
    for (uint32_t j = 0; j < c; ++j) s.complete(sts[j], reqs[j], "tag_send (data)", m + j);
    m += c;
  }
  for (size_t k = nwin > kWindowsInFlight ? nwin - kWindowsInFlight : 0; k < nwin; ++k)
    s.complete(asts[k], areqs[k], "tag_recv (window ack)", m);
  starts[nwin] = Clock::now();
  // A window's time runs from its start to the next one's (the last: to its ack).
  std::vector<double> per_msg_us, window_MBps;
  double total_us = 0;
  uint64_t total_msgs = 0;
  for (size_t k = plan.first_timed; k < nwin; ++k) {
    const uint32_t c = plan.counts[k];
    const double us = us_between(starts[k], starts[k + 1]);
    total_us += us;
    total_msgs += c;
    per_msg_us.push_back(us / c);
    window_MBps.push_back(us > 0 ? static_cast<double>(c) * p.size / (us * 1e-6) / kMB : 0);
  }
  return window_result(p, std::move(per_msg_us), std::move(window_MBps), total_msgs, total_us);
}

void server_tag_bw(Session& s, const SizePlan& p, unsigned window, bool check, CheckState& cs) {
  const WindowPlan plan = plan_windows(p, window);
  const size_t nwin = plan.counts.size();
  // Without --check all receives land in one buffer, as in ucx_perftest.
  std::vector<std::vector<std::byte>> bufs(check ? kWindowsInFlight * window : 1);
  for (auto& b : bufs) b = make_buffer(p.size);
  std::vector<Request*> reqs(kWindowsInFlight * window);
  std::vector<Status> sts(kWindowsInFlight * window);
  std::vector<uint64_t> firsts(nwin + 1, 0);  // the first message of each window
  for (size_t k = 0; k < nwin; ++k) firsts[k + 1] = firsts[k] + plan.counts[k];
  uint64_t ack = 0;
  auto post = [&](size_t k) {
    const size_t base = (k % kWindowsInFlight) * window;
    for (uint32_t j = 0; j < plan.counts[k]; ++j) {
      reqs[base + j] = nullptr;
      sts[base + j] = s.worker().tag_recv(bufs[check ? base + j : 0].data(), p.size, kTagData,
                                          kTagMaskFull, &reqs[base + j]);
      if (is_error(sts[base + j]))
        s.complete(sts[base + j], reqs[base + j], "tag_recv (data)", firsts[k] + j);
    }
  };
  for (size_t k = 0; k < std::min(nwin, kWindowsInFlight); ++k) post(k);
  s.sock().send_text("READY");
  for (size_t k = 0; k < nwin; ++k) {
    const uint32_t c = plan.counts[k];
    const size_t base = (k % kWindowsInFlight) * window;
    const uint64_t m = firsts[k];
    for (uint32_t j = 0; j < c; ++j) {
      RecvInfo info = s.complete(sts[base + j], reqs[base + j], "tag_recv (data)", m + j);
      if (check) check_length(cs, info, m + j, p.size);
    }
    if (check)
      for (uint32_t j = 0; j < c; ++j)
        verify(cs, {bufs[base + j].data(), p.size}, m + j, p.size, 0);
    // Window k + 2 reuses window k's slots; its receives go up before the ack releases it.
    if (k + kWindowsInFlight < nwin) post(k + kWindowsInFlight);
    Request* areq = nullptr;
    Status as = s.ep().tag_send(&ack, sizeof(ack), kTagAck, &areq);
    s.complete(as, areq, "tag_send (window ack)", m + c);
  }
}

// ---- am_lat ----

SizeResult client_am_lat(Session& s, const SizePlan& p, bool check, CheckState& cs) {
  auto sbuf = make_buffer(p.size);
  AmState& am = s.am();
  am = AmState{0, p.size, 1, check, &cs};
  std::vector<double> samples;
  samples.reserve(p.iters);
  s.sock().expect("READY", s.socket_timeout());
  const uint64_t total = p.warmup + p.iters;
  for (uint64_t i = 0; i < total; ++i) {
    if (check) fill_pattern({sbuf.data(), p.size}, pattern_seed(i, p.size, 0));
    uint64_t hdr = i;
    Request* sreq = nullptr;
    auto t0 = Clock::now();
    Status ss = s.ep().am_send(kAmPing, {reinterpret_cast<const std::byte*>(&hdr), sizeof(hdr)},
                               {sbuf.data(), p.size}, &sreq);
    s.complete(ss, sreq, "am_send (ping)", i);
    s.progress_until_received(i + 1, "the am_lat pong", i);
    auto t1 = Clock::now();
    if (i >= p.warmup) samples.push_back(us_between(t0, t1) / 2);
  }
  am = AmState{};
  return latency_result(p, std::move(samples));
}

void server_am_lat(Session& s, const SizePlan& p, bool check, CheckState& cs) {
  auto sbuf = make_buffer(p.size);
  AmState& am = s.am();
  am = AmState{0, p.size, 0, check, &cs};
  s.sock().send_text("READY");
  const uint64_t total = p.warmup + p.iters;
  for (uint64_t i = 0; i < total; ++i) {
    s.progress_until_received(i + 1, "an am_lat ping", i);
    if (check) fill_pattern({sbuf.data(), p.size}, pattern_seed(i, p.size, 1));
    uint64_t hdr = i;
    Request* sreq = nullptr;
    Status ss = s.ep().am_send(kAmPong, {reinterpret_cast<const std::byte*>(&hdr), sizeof(hdr)},
                               {sbuf.data(), p.size}, &sreq);
    s.complete(ss, sreq, "am_send (pong)", i);
  }
  am = AmState{};
}

// ---- put_bw / get_bw ----

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
