// torus_perf: a two-process benchmark in the style of ucx_perftest.
//   server: torus_perf -p PORT
//   client: torus_perf HOST -p PORT -t tag_lat|tag_bw|am_lat|put_bw|get_bw -s 8,4k,4m [-n N]
//           [--check]
// The bootstrap is a plain TCP connection: the client sends the test parameters, both send
// their torus worker addresses (for put_bw/get_bw the server then sends its registered
// buffer's address and packed key), then per size a BEGIN/READY/END handshake brackets the
// run.
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "contrib/tools/perf_options.h"
#include "contrib/tools/perf_socket.h"
#include "contrib/tools/perf_tests.h"
#include "core/api/torus.hpp"

namespace torus::perf {
namespace {

constexpr std::chrono::seconds kConnectTimeout{10};

void pin_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0)
    fail("sched_setaffinity(CPU " + std::to_string(cpu) + ") failed: " + std::strerror(errno));
}

// The process's torus objects, in destruction order (worker before context).
struct Torus {
  std::unique_ptr<Context> ctx;
  std::unique_ptr<Worker> worker;
};

void on_endpoint_error(void*, Endpoint* ep, Status status) {
  std::fprintf(stderr, "torus_perf: the connection to peer worker %016llx failed: %s\n",
               static_cast<unsigned long long>(ep->peer_uid()), status_string(status));
  // A measurement cannot go on without its peer; waiting for its messages would only time
  // out later.
  std::fflush(nullptr);
  std::_Exit(1);
}

Torus open_torus(bool verbose) {
  Torus t;
  auto ctx = Context::create();
  if (!ctx)
    fail(std::string("Context::create failed: ") + status_string(ctx.status()) + ": " +
         ctx.error().message);
  t.ctx = std::move(ctx.value());
  if (verbose)
    for (const std::string& line : t.ctx->transport_report())
      std::fprintf(stderr, "transport: %s\n", line.c_str());
  auto w = t.ctx->create_worker();
  if (!w)
    fail(std::string("Context::create_worker failed: ") + status_string(w.status()) + ": " +
         w.error().message);
  t.worker = std::move(w.value());
  t.worker->set_error_handler(&on_endpoint_error, nullptr);
  return t;
}

Endpoint& connect_peer(Worker& w, const std::vector<std::byte>& peer_address, bool verbose) {
  auto ep = w.connect(peer_address);
  if (!ep)
    fail(std::string("Worker::connect to the peer failed: ") + status_string(ep.status()) +
         ": " + ep.error().message);
  if (verbose) std::fprintf(stderr, "%s\n", ep.value()->describe().c_str());
  return *ep.value();
}

// ---- output ----

void print_header(const TestParams& p, const Options& o) {
  if (o.csv) {
    if (o.csv_header) std::printf("test,size,iters,lat_us_median,lat_us_p99,bw_MBps\n");
    return;
  }
  const char* checked = "";
  if (p.check)
    checked = is_rma_test(p.test) ? ", data checked (outside the timed windows)"
                                  : ", data checked (timings include the checks)";
  std::printf("torus_perf %s to %s:%u%s%s\n", test_name(p.test), o.host.c_str(), o.port, checked,
              o.cpu >= 0 ? (", client on CPU " + std::to_string(o.cpu)).c_str() : "");
  if (is_bandwidth_test(p.test)) {
    std::printf("window %u; bandwidth in MB/s, MB = 2^20 bytes; per-message times in us\n",
                p.window);
    std::printf("%10s %10s %12s %12s %12s %12s %12s\n", "size", "messages", "MB/s",
                "MB/s_win_med", "msg/s", "us/msg_med", "us/msg_p99");
  } else {
    std::printf("one-way latency = round trip / 2, in us; MB = 2^20 bytes\n");
    std::printf("%10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "size", "iters", "median",
                "mean", "p90", "p99", "min", "max", "MB/s");
  }
  std::fflush(stdout);
}

void print_result(const TestParams& p, const Options& o, const SizeResult& r) {
  if (o.csv) {
    if (r.skipped)
      std::printf("%s,%zu,0,,,\n", test_name(p.test), r.size);
    else
      std::printf("%s,%zu,%llu,%.3f,%.3f,%.2f\n", test_name(p.test), r.size,
                  static_cast<unsigned long long>(r.iters), r.lat.median, r.lat.p99, r.bw_MBps);
  } else if (r.skipped) {
    std::printf("%10zu skipped: %s\n", r.size, r.skip_reason.c_str());
  } else if (is_bandwidth_test(p.test)) {
    std::printf("%10zu %10llu %12.1f %12.1f %12.0f %12.3f %12.3f\n", r.size,
                static_cast<unsigned long long>(r.iters), r.bw_MBps, r.bw_window_median_MBps,
                r.msg_rate, r.lat.median, r.lat.p99);
  } else {
    std::printf("%10zu %10llu %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.1f\n", r.size,
                static_cast<unsigned long long>(r.iters), r.lat.median, r.lat.mean, r.lat.p90,
                r.lat.p99, r.lat.min, r.lat.max, r.bw_MBps);
  }
  std::fflush(stdout);
}

// ---- the two sides ----

// END handshake of a size: each side sends "END ok" or "END bad <what>"; a corruption seen
// by either side fails both with exit code 3.
void end_size(Session& s, const CheckState& cs, size_t size, bool is_server) {
  s.sock().send_text(cs.bad ? "END bad " + cs.first : std::string("END ok"));
  std::string peer = s.sock().expect("END ", s.socket_timeout());
  const char* me = is_server ? "server" : "client";
  const char* other = is_server ? "client" : "server";
  if (cs.bad || peer != "ok") {
    std::string msg = "data check failed at size " + std::to_string(size) + ":";
    if (cs.bad) msg += std::string(" the ") + me + " received corrupted data (" + cs.first + ")";
    if (cs.bad && peer != "ok") msg += ";";
    if (peer != "ok")
      msg += std::string(" the ") + other + " reported corrupted data (" +
             (peer.size() > 4 ? peer.substr(4) : peer) + ")";
    fail(msg, kExitCheckFailed);
  }
}

int run_client(const Options& o) {
  TestParams params = make_params(o);
  Torus t = open_torus(o.verbose);
  BootstrapSocket sock = BootstrapSocket::connect_to(o.host, o.port, kConnectTimeout);
  sock.send_text(encode_params(params));
  std::string answer = sock.recv_text(o.timeout);
  if (answer != "OK") fail("the server at " + sock.peer_name() + " refused the test: " + answer);
  std::vector<std::byte> mine = t.worker->address();
  sock.send_msg(mine);
  std::vector<std::byte> theirs = sock.recv_msg(o.timeout);
  Endpoint& ep = connect_peer(*t.worker, theirs, o.verbose);
  Session s(*t.worker, ep, sock, o.timeout);
  RemoteBuffer rb;
  if (is_rma_test(params.test)) rb = RemoteBuffer::receive(sock, o.timeout);

  print_header(params, o);
  for (size_t i = 0; i < params.sizes.size(); ++i) {
    const SizePlan& p = params.sizes[i];
    SizeResult r;
    CheckState cs;
    bool skip = params.test == TestKind::AmLat && !s.am_size_supported(p.size);
    sock.send_text("BEGIN " + std::to_string(i) + (skip ? " skip" : " run"));
    if (skip) {
      r.size = p.size;
      r.skipped = true;
      r.skip_reason = "Endpoint::am_send returned Unsupported: the payload exceeds the "
                      "transport's active-message limit";
      std::fprintf(stderr, "am_lat: size %zu skipped: %s\n", p.size, r.skip_reason.c_str());
      print_result(params, o, r);
      continue;
    }
    switch (params.test) {
      case TestKind::TagLat: r = client_tag_lat(s, p, params.check, cs); break;
      case TestKind::TagBw: r = client_tag_bw(s, p, params.window, params.check, cs); break;
      case TestKind::AmLat: r = client_am_lat(s, p, params.check, cs); break;
      case TestKind::PutBw: r = client_put_bw(s, p, params.window, params.check, rb, cs); break;
      case TestKind::GetBw: r = client_get_bw(s, p, params.window, params.check, rb, cs); break;
    }
    end_size(s, cs, p.size, false);
    print_result(params, o, r);
  }
  sock.send_text("BYE");
  sock.expect("BYE", o.timeout);
  return 0;
}

int run_server(const Options& o) {
  Torus t = open_torus(o.verbose);
  BootstrapSocket sock = BootstrapSocket::accept_one(o.port, o.accept_timeout, true);
  TestParams params = decode_params(sock.recv_text(o.timeout));
  sock.send_text("OK");
  std::vector<std::byte> theirs = sock.recv_msg(o.timeout);
  sock.send_msg(t.worker->address());
  Endpoint& ep = connect_peer(*t.worker, theirs, o.verbose);
  Session s(*t.worker, ep, sock, o.timeout);
  // put_bw/get_bw: one buffer of the largest size for the whole run; get_bw --check fills it
  // once with the pattern every get of the client verifies.
  std::optional<RmaTarget> target;
  if (is_rma_test(params.test)) {
    size_t largest = 0;
    for (const SizePlan& p : params.sizes) largest = std::max(largest, p.size);
    target.emplace(*t.worker, largest);
    if (params.check && params.test == TestKind::GetBw)
      fill_pattern(target->bytes(), get_bw_seed());
    target->send_to(sock);
  }
  std::printf("torus_perf server: client %s, test %s, %s, %zu size(s)\n",
              sock.peer_name().c_str(), test_name(params.test),
              params.check ? "data checked" : "data not checked", params.sizes.size());
  std::fflush(stdout);

  for (size_t i = 0; i < params.sizes.size(); ++i) {
    const SizePlan& p = params.sizes[i];
    // The client may spend a while in the previous size's output: wait generously.
    std::string begin = sock.expect("BEGIN ", o.timeout * 2);
    if (begin != std::to_string(i) + " run" && begin != std::to_string(i) + " skip")
      fail("bootstrap out of step: expected BEGIN " + std::to_string(i) + ", got BEGIN " + begin);
    if (begin.ends_with(" skip")) continue;
    CheckState cs;
    switch (params.test) {
      case TestKind::TagLat: server_tag_lat(s, p, params.check, cs); break;
      case TestKind::TagBw: server_tag_bw(s, p, params.window, params.check, cs); break;
      case TestKind::AmLat: server_am_lat(s, p, params.check, cs); break;
      case TestKind::PutBw:
      case TestKind::GetBw: server_rma_bw(s, p, *target, cs); break;
    }
    end_size(s, cs, p.size, true);
  }
  sock.expect("BYE", o.timeout);
  sock.send_text("BYE");
  std::printf("torus_perf server: done\n");
  return 0;
}

}  // namespace
}  // namespace torus::perf

int main(int argc, char** argv) {
  using namespace torus::perf;
  signal(SIGPIPE, SIG_IGN);  // a dead peer shows as EPIPE on the bootstrap socket
  try {
    Options o = parse_options(argc, argv);
    if (o.cpu >= 0) pin_cpu(o.cpu);
    return o.server ? run_server(o) : run_client(o);
  } catch (const Fatal& f) {
    std::fflush(stdout);
    if (!f.message.empty()) std::fprintf(stderr, "torus_perf: %s\n", f.message.c_str());
    return f.code;
  }
}
