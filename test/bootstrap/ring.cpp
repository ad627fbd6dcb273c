// torus_boot_ring: a job of any size, under any launcher, exchanges worker addresses through
// the bootstrap (one put, one fence, lazy gets of the two neighbours) and passes messages of
// every size class around the ring, checking every byte. Failure options let launcher tests
// make one rank exit, abort, die mid-transfer or hang (usage()).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/api/torus.hpp"
#include "mpi_shim/bootstrap/bootstrap.h"

namespace {

using namespace std::chrono_literals;

constexpr size_t kSizes[] = {0, 8, 4096, 65536, 1 << 20, 4 << 20};
constexpr size_t kKillSize = 64 << 20;
constexpr torus::Tag kKillTag = 100;

// Exit codes, so a launcher test can tell what went wrong.
constexpr int kExitUsage = 2;
constexpr int kExitSetup = 1;
constexpr int kExitTransfer = 3;   // a request failed (a peer died: the endpoint error path)
constexpr int kExitTimeout = 4;    // a request did not complete in time
constexpr int kExitBootstrap = 5;  // the closing fence failed (the launcher is gone)
constexpr int kExitWatchdog = 124;

struct Options {
  int exit_code = -1;
  int abort_code = -1;
  bool kill_self = false;
  bool sleep_forever = false;
  int hold_s = 0;
  int at_rank = 1;
  int timeout_s = 60;
};

void usage() {
  std::fprintf(stderr,
               "usage: torus_boot_ring [options]\n"
               "  --at-rank R       the rank the failure options apply to (default 1)\n"
               "  --exit-code N     that rank exits N after the ring\n"
               "  --abort N         that rank calls the bootstrap's abort(N) after the ring\n"
               "  --kill-self       that rank raises SIGKILL during a 64 MiB rendezvous send\n"
               "  --sleep-forever   that rank sleeps forever after the bootstrap's init\n"
               "  --hold S          every rank sleeps S seconds after the ring\n"
               "  --timeout S       watchdog: any rank still running after S seconds (plus\n"
               "                    the hold) exits %d (default 60; 0: no watchdog)\n",
               kExitWatchdog);
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto number = [&](int& out) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      long v = std::strtol(argv[++i], &end, 10);
      if (*argv[i] == '\0' || *end != '\0' || v < 0 || v > 1000000) return false;
      out = static_cast<int>(v);
      return true;
    };
    bool ok = true;
    if (a == "--exit-code")
      ok = number(o.exit_code);
    else if (a == "--abort")
      ok = number(o.abort_code);
    else if (a == "--at-rank")
      ok = number(o.at_rank);
    else if (a == "--hold")
      ok = number(o.hold_s);
    else if (a == "--timeout")
      ok = number(o.timeout_s);
    else if (a == "--kill-self")
      o.kill_self = true;
    else if (a == "--sleep-forever")
      o.sleep_forever = true;
    else
      ok = false;
    if (!ok) return false;
  }
  return true;
}

// The watchdog's message, formatted before the alarm so the handler only writes it.
char g_watchdog_msg[160];

void on_alarm(int) {
  ssize_t n = ::write(2, g_watchdog_msg, std::strlen(g_watchdog_msg));
  (void)n;
  ::_exit(kExitWatchdog);
}

void arm_watchdog(int seconds, int rank) {
  std::snprintf(g_watchdog_msg, sizeof(g_watchdog_msg),
                "ring: rank %d still running after %d s (watchdog): a peer or the launcher is "
                "stuck\n",
                rank, seconds);
  struct sigaction sa {};
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, nullptr);
  alarm(static_cast<unsigned>(seconds));
}

uint64_t seed_of(int sender, size_t size_class) { return uint64_t(sender) * 64 + size_class + 1; }

void fill(std::vector<std::byte>& buf, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < buf.size(); ++i) {
    if ((i & 7) == 0) x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    buf[i] = static_cast<std::byte>(x >> ((i & 7) * 8));
  }
}

// The offset of the first byte that differs from the pattern, or SIZE_MAX.
size_t first_mismatch(const std::vector<std::byte>& buf, uint64_t seed) {
  std::vector<std::byte> want(buf.size());
  fill(want, seed);
  for (size_t i = 0; i < buf.size(); ++i)
    if (buf[i] != want[i]) return i;
  return SIZE_MAX;
}

void on_endpoint_error(void* arg, torus::Endpoint* ep, torus::Status status) {
  std::fprintf(stderr, "ring: rank %d: connection to peer %016llx failed: %s\n",
               *static_cast<int*>(arg), static_cast<unsigned long long>(ep->peer_uid()),
               torus::status_string(status));
}

struct Pending {
  torus::Request* req = nullptr;
  std::string what;
  torus::RecvInfo* info = nullptr;  // receives: where to store what arrived
};

// Waits for every request until a shared deadline; returns an exit code (0: all succeeded).
int wait_all(torus::Worker& w, std::vector<Pending>& pending, int rank,
             std::chrono::steady_clock::time_point deadline) {
  int rc = 0;
  for (Pending& p : pending) {
    if (!p.req) continue;
    auto left = deadline - std::chrono::steady_clock::now();
    if (left < 0s) left = 0s;
    torus::Status s = w.wait_request(p.req, left);
    if (s == torus::Status::Timeout && !p.req->completed()) {
      std::fprintf(stderr, "ring: rank %d: %s did not complete in time\n", rank, p.what.c_str());
      rc = rc ? rc : kExitTimeout;
      continue;  // still owned by the worker; the process is about to exit
    }
    if (torus::is_error(s)) {
      std::fprintf(stderr, "ring: rank %d: %s failed: %s\n", rank, p.what.c_str(),
                   torus::status_string(s));
      rc = kExitTransfer;
    }
    if (p.info) *p.info = p.req->info();
    p.req->release();
    p.req = nullptr;
  }
  return rc;
}

// Every size class around the ring: receive from the left, send to the right.
int ring_pass(torus::Worker& w, torus::Endpoint* right, int rank, int size) {
  const int left_rank = (rank + size - 1) % size;
  constexpr size_t kClasses = std::size(kSizes);
  std::vector<std::vector<std::byte>> out(kClasses), in(kClasses);
  std::vector<torus::RecvInfo> info(kClasses);
  std::vector<Pending> pending;
  for (size_t c = 0; c < kClasses; ++c) {
    in[c].assign(kSizes[c], std::byte{0xee});
    Pending p{
        nullptr,
        "receive of " + std::to_string(kSizes[c]) + " bytes from rank " + std::to_string(left_rank),
        &info[c]};
    torus::Status s = w.tag_recv(in[c].data(), in[c].size(), c, torus::kTagMaskFull, &p.req);
    if (torus::is_error(s)) {
      std::fprintf(stderr, "ring: rank %d: %s: %s\n", rank, p.what.c_str(),
                   torus::status_string(s));
      return kExitTransfer;
    }
    pending.push_back(std::move(p));
  }
  for (size_t c = 0; c < kClasses; ++c) {
    out[c].resize(kSizes[c]);
    fill(out[c], seed_of(rank, c));
    Pending p{nullptr, "send of " + std::to_string(kSizes[c]) + " bytes to rank " +
                           std::to_string((rank + 1) % size)};
    torus::Status s = right->tag_send(out[c].data(), out[c].size(), c, &p.req);
    if (torus::is_error(s)) {
      std::fprintf(stderr, "ring: rank %d: %s: %s\n", rank, p.what.c_str(),
                   torus::status_string(s));
      return kExitTransfer;
    }
    pending.push_back(std::move(p));
  }
  if (int rc = wait_all(w, pending, rank, std::chrono::steady_clock::now() + 30s)) return rc;
  for (size_t c = 0; c < kClasses; ++c) {
    if (info[c].length != kSizes[c] || info[c].tag != c) {
      std::fprintf(stderr, "ring: rank %d: size class %zu from rank %d: got %zu bytes, tag %llu\n",
                   rank, c, left_rank, info[c].length,
                   static_cast<unsigned long long>(info[c].tag));
      return kExitTransfer;
    }
    size_t bad = first_mismatch(in[c], seed_of(left_rank, c));
    if (bad != SIZE_MAX) {
      std::fprintf(stderr, "ring: rank %d: %zu bytes from rank %d differ at offset %zu\n", rank,
                   kSizes[c], left_rank, bad);
      return kExitTransfer;
    }
  }
  return 0;
}

// 64 MiB to the right, from the left; the chosen rank dies while its send is in flight.
int kill_pass(torus::Worker& w, torus::Endpoint* right, int rank, int size, bool die) {
  std::vector<std::byte> out(kKillSize), in(kKillSize);
  fill(out, seed_of(rank, 63));
  std::vector<Pending> pending(2);
  pending[0].what = "64 MiB receive from rank " + std::to_string((rank + size - 1) % size);
  pending[1].what = "64 MiB send to rank " + std::to_string((rank + 1) % size);
  torus::Status s =
      w.tag_recv(in.data(), in.size(), kKillTag, torus::kTagMaskFull, &pending[0].req);
  if (!torus::is_error(s)) s = right->tag_send(out.data(), out.size(), kKillTag, &pending[1].req);
  if (torus::is_error(s)) {
    std::fprintf(stderr, "ring: rank %d: posting the 64 MiB transfer: %s\n", rank,
                 torus::status_string(s));
    return kExitTransfer;
  }
  if (die) {
    // The request-to-send is out, so the neighbour is committed to reading our buffer; a
    // few milliseconds more and a CMA copy of 64 MiB would already be over.
    w.progress();
    std::fprintf(stderr, "ring: rank %d raises SIGKILL during its 64 MiB send\n", rank);
    std::fflush(stderr);
    raise(SIGKILL);
  }
  return wait_all(w, pending, rank, std::chrono::steady_clock::now() + 20s);
}

int run(const Options& opt) {
  auto boot_r = torus::boot::open_bootstrap();
  if (!boot_r) {
    std::fprintf(stderr, "ring: bootstrap: %s\n", boot_r.error().message.c_str());
    return kExitSetup;
  }
  torus::boot::Bootstrap& boot = *boot_r.value();
  const torus::boot::JobInfo job = boot.job();
  const bool chosen = job.rank == opt.at_rank;
  arm_watchdog(opt.timeout_s + opt.hold_s, job.rank);

  if (opt.sleep_forever && chosen) {
    alarm(0);
    std::fprintf(stderr, "ring: rank %d sleeps forever\n", job.rank);
    std::fflush(stderr);
    for (;;) pause();
  }

  torus::ContextParams cp;
  cp.expected_local_peers = job.local_size - 1;
  auto ctx = torus::Context::create(cp);
  if (!ctx) {
    std::fprintf(stderr, "ring: rank %d: context: %s\n", job.rank, ctx.error().message.c_str());
    return kExitSetup;
  }
  auto worker_r = ctx.value()->create_worker();
  if (!worker_r) {
    std::fprintf(stderr, "ring: rank %d: worker: %s\n", job.rank, worker_r.error().message.c_str());
    return kExitSetup;
  }
  std::unique_ptr<torus::Worker> worker = std::move(worker_r.value());
  int my_rank = job.rank;
  worker->set_error_handler(on_endpoint_error, &my_rank);

  std::vector<std::byte> addr = worker->address();
  if (torus::is_error(boot.put(
          "addr", std::string_view(reinterpret_cast<const char*>(addr.data()), addr.size()))) ||
      torus::is_error(boot.fence())) {
    std::fprintf(stderr, "ring: rank %d: publishing the worker address failed\n", job.rank);
    return kExitSetup;
  }
  // Only the neighbours' addresses: a ring needs two gets per rank, whatever the job size.
  torus::Endpoint* right = nullptr;
  for (int peer : {(job.rank + 1) % job.size, (job.rank + job.size - 1) % job.size}) {
    auto a = boot.get(peer, "addr");
    if (!a) {
      std::fprintf(stderr, "ring: rank %d: address of rank %d: %s\n", job.rank, peer,
                   a.error().message.c_str());
      return kExitSetup;
    }
    auto ep = worker->connect(std::span(reinterpret_cast<const std::byte*>(a->data()), a->size()));
    if (!ep) {
      std::fprintf(stderr, "ring: rank %d: connect to rank %d: %s\n", job.rank, peer,
                   ep.error().message.c_str());
      return kExitSetup;
    }
    if (!right) right = ep.value();
  }

  if (int rc = ring_pass(*worker, right, job.rank, job.size)) return rc;
  if (opt.kill_self)
    if (int rc = kill_pass(*worker, right, job.rank, job.size, chosen)) return rc;
  if (opt.hold_s) std::this_thread::sleep_for(std::chrono::seconds(opt.hold_s));

  // Closing barrier: nobody tears its worker down while a neighbour may still read from it.
  if (torus::is_error(boot.fence())) {
    std::fprintf(stderr, "ring: rank %d: closing fence failed (launcher gone?)\n", job.rank);
    return kExitBootstrap;
  }
  std::printf("ring ok: rank %d of %d (local %d of %d) via %.*s\n", job.rank, job.size,
              job.local_rank, job.local_size, static_cast<int>(boot.name().size()),
              boot.name().data());
  std::fflush(stdout);

  if (chosen && opt.abort_code >= 0) boot.abort(opt.abort_code, "torus_boot_ring --abort");
  worker.reset();
  if (chosen && opt.exit_code >= 0) {
    std::fprintf(stderr, "ring: rank %d exits %d as asked\n", job.rank, opt.exit_code);
    return opt.exit_code;
  }
  if (torus::is_error(boot.finalize())) return kExitBootstrap;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse_args(argc, argv, opt)) {
    usage();
    return kExitUsage;
  }
  // Re-armed with the rank once the bootstrap knows it; this covers a stuck init.
  arm_watchdog(opt.timeout_s + opt.hold_s, -1);
  return run(opt);
}
