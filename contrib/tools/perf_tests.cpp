// torus_perf's two-sided tests over one torus endpoint: tag_lat and am_lat (ping-pong,
// one-way time = round trip / 2), tag_bw (windows of non-blocking sends, one ack per window).
#include "contrib/tools/perf_tests.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "contrib/tools/perf_measure.h"

namespace torus::perf {
namespace {

constexpr Tag kTagPing = 0x746f'7275'7000'0001ULL;
constexpr Tag kTagPong = 0x746f'7275'7000'0002ULL;
constexpr Tag kTagData = 0x746f'7275'7000'0003ULL;
constexpr Tag kTagAck = 0x746f'7275'7000'0004ULL;

void check_length(CheckState& cs, const RecvInfo& info, uint64_t iter, size_t size) {
  if (info.length != SIZE_MAX && info.length != size && !cs.bad)
    cs.record_length(iter, size, info.length);
}

}  // namespace

WindowPlan plan_windows(const SizePlan& p, unsigned window) {
  WindowPlan w;
  for (uint64_t m = 0; m < p.warmup; m += window) w.counts.push_back(window);
  w.first_timed = w.counts.size();
  for (uint64_t m = 0; m < p.iters; m += window)
    w.counts.push_back(static_cast<uint32_t>(std::min<uint64_t>(window, p.iters - m)));
  return w;
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

}  // namespace torus::perf
