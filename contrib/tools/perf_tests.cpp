// torus_perf's tests over one torus endpoint: tag_lat and am_lat (ping-pong, one-way time =
// round trip / 2) and tag_bw (windows of non-blocking sends, one ack per window).
#include "contrib/tools/perf_tests.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
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
  const auto deadline = Clock::now() + timeout_;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - Clock::now());
    Status ws = worker_.wait_request(req, std::min<std::chrono::nanoseconds>(left, kPeerCheck));
    if (ws == Status::Timeout && !req->completed()) {
      check_peer(what, iter);
      if (Clock::now() >= deadline) timed_out(what, iter);
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
  SizeResult r;
  r.size = p.size;
  r.iters = p.iters;
  r.lat = summarize(std::move(samples));
  r.bw_MBps = r.lat.median > 0 ? static_cast<double>(p.size) / (r.lat.median * 1e-6) / kMB : 0;
  return r;
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

SizeResult client_tag_bw(Session& s, const SizePlan& p, unsigned window, bool check,
                         CheckState& cs) {
  (void)cs;  // the server checks the data; acks carry none
  const WindowPlan plan = plan_windows(p, window);
  // Without --check every send reads the same buffer, as ucx_perftest does.
  std::vector<std::vector<std::byte>> bufs(check ? window : 1);
  for (auto& b : bufs) b = make_buffer(p.size);
  uint64_t ack = 0;
  std::vector<Request*> reqs(window);
  std::vector<Status> sts(window);
  std::vector<double> per_msg_us, window_MBps;
  double total_us = 0;
  uint64_t total_msgs = 0, m = 0;
  s.sock().expect("READY", s.socket_timeout());
  for (size_t k = 0; k < plan.counts.size(); ++k) {
    const uint32_t c = plan.counts[k];
    if (check)
      for (uint32_t j = 0; j < c; ++j)
        fill_pattern({bufs[j].data(), p.size}, pattern_seed(m + j, p.size, 0));
    Request* areq = nullptr;
    auto t0 = Clock::now();
    Status as = s.worker().tag_recv(&ack, sizeof(ack), kTagAck, kTagMaskFull, &areq);
    for (uint32_t j = 0; j < c; ++j) {
      reqs[j] = nullptr;
      sts[j] = s.ep().tag_send(bufs[check ? j : 0].data(), p.size, kTagData, &reqs[j]);
      if (is_error(sts[j])) s.complete(sts[j], reqs[j], "tag_send (data)", m + j);
    }
    for (uint32_t j = 0; j < c; ++j) s.complete(sts[j], reqs[j], "tag_send (data)", m + j);
    s.complete(as, areq, "tag_recv (window ack)", m);
    auto t1 = Clock::now();
    m += c;
    if (k >= plan.first_timed) {
      double us = us_between(t0, t1);
      total_us += us;
      total_msgs += c;
      per_msg_us.push_back(us / c);
      window_MBps.push_back(us > 0 ? static_cast<double>(c) * p.size / (us * 1e-6) / kMB : 0);
    }
  }
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

void server_tag_bw(Session& s, const SizePlan& p, unsigned window, bool check, CheckState& cs) {
  const WindowPlan plan = plan_windows(p, window);
  // Without --check all receives of a window land in one buffer, as in ucx_perftest.
  std::vector<std::vector<std::byte>> bufs(check ? window : 1);
  for (auto& b : bufs) b = make_buffer(p.size);
  std::vector<Request*> reqs(window);
  std::vector<Status> sts(window);
  uint64_t ack = 0, m = 0;
  auto post = [&](uint32_t c) {
    for (uint32_t j = 0; j < c; ++j) {
      reqs[j] = nullptr;
      sts[j] = s.worker().tag_recv(bufs[check ? j : 0].data(), p.size, kTagData, kTagMaskFull,
                                   &reqs[j]);
      if (is_error(sts[j])) s.complete(sts[j], reqs[j], "tag_recv (data)", m + j);
    }
  };
  if (!plan.counts.empty()) post(plan.counts[0]);
  s.sock().send_text("READY");
  for (size_t k = 0; k < plan.counts.size(); ++k) {
    const uint32_t c = plan.counts[k];
    for (uint32_t j = 0; j < c; ++j) {
      RecvInfo info = s.complete(sts[j], reqs[j], "tag_recv (data)", m + j);
      if (check) check_length(cs, info, m + j, p.size);
    }
    if (check)
      for (uint32_t j = 0; j < c; ++j) verify(cs, {bufs[j].data(), p.size}, m + j, p.size, 0);
    m += c;
    // Receives for the next window go up before the ack releases the client.
    if (k + 1 < plan.counts.size()) post(plan.counts[k + 1]);
    Request* areq = nullptr;
    Status as = s.ep().tag_send(&ack, sizeof(ack), kTagAck, &areq);
    s.complete(as, areq, "tag_send (window ack)", m);
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
  SizeResult r;
  r.size = p.size;
  r.iters = p.iters;
  r.lat = summarize(std::move(samples));
  r.bw_MBps = r.lat.median > 0 ? static_cast<double>(p.size) / (r.lat.median * 1e-6) / kMB : 0;
  return r;
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

}  // namespace torus::perf
