// torus_info: what this build and machine offer — transports and their devices with
// capabilities and costs (default), every configuration variable (-c), the protocol tables
// of loopback endpoints (-p), and removal of a crashed job's shared memory (--clean-shm).
#include <cstdio>
#include <cstring>
#include <string>

#include "core/api/torus.hpp"
#include "core/base/config.h"
#include "core/context.h"
#include "core/endpoint.h"
#include "core/worker.h"
#include "memory/memtype.h"
#include "memory/rcache.h"
#include "memory/unmap_monitor.h"
#include "transports/shm/shm_transport.h"

using namespace torus;

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "usage: torus_info [-t] [-c] [-p] [-m] [--tuning-md] [--clean-shm JOB_ID] [-h]\n"
               "  -t               transports, devices, capabilities and costs (default)\n"
               "  -c               every TORUS_* variable: value, origin, description\n"
               "  -p               protocol tables of loopback endpoints (self, and to a\n"
               "                   second worker of this process over shared memory)\n"
               "  -m               memory: type detection, the unmap monitor, registration\n"
               "                   caches and their statistics\n"
               "  --tuning-md      docs/tuning.md, generated from the registry\n"
               "  --clean-shm JOB  remove /dev/shm segments left by a crashed job JOB\n");
}

const char* source_name(config::Source s) {
  switch (s) {
    case config::Source::Default: return "default";
    case config::Source::Environment: return "environment";
    case config::Source::Override: return "set";
  }
  return "?";
}

void print_config(const Context& ctx) {
  const config::Config& c = ctx.config();
  for (const config::VarDecl& v : config::all_vars()) {
    std::printf("%s=%s  (%s)\n    %.*s\n", std::string(v.name).c_str(), c.show(v.name).c_str(),
                source_name(c.source(v.name)), static_cast<int>(v.doc.size()), v.doc.data());
  }
}

void print_transports(Context& ctx) {
  std::printf("# torus %s\n", "0.1.0");
  for (const std::string& line : ctx.transport_report()) std::printf("# transport %s\n", line.c_str());
  auto w = ctx.create_worker();
  if (!w) {
    std::printf("# no worker: %s\n", w.error().message.c_str());
    return;
  }
  for (const core::IfaceEntry& e : w.value()->impl()->w->ifaces()) {
    const tl::IfaceAttr& a = e.iface->attributes();
    std::printf("#\n# %s/%s\n", e.tl_name.c_str(), e.device.c_str());
    std::printf("#   caps:   %s%s%s%s%s%s\n", a.caps.am_short ? "am_short " : "",
                a.caps.am_bcopy ? "am_bcopy " : "", a.caps.am_zcopy ? "am_zcopy " : "",
                a.caps.get_zcopy ? "get_zcopy " : "", a.caps.put_zcopy ? "put_zcopy " : "",
                a.caps.atomic64 ? "atomic64 " : "");
    std::printf("#   limits: max_short %zu, max_bcopy %zu, max_get %zu, max_put %zu, rkey %zu B\n",
                a.limits.max_short, a.limits.max_bcopy, a.limits.max_get, a.limits.max_put,
                a.rkey_size);
    std::printf("#   am:     latency %.0f ns, overhead %.0f ns, bandwidth %.2f GB/s\n",
                a.am_cost.latency_ns, a.am_cost.overhead_ns, a.am_cost.bandwidth_Bps / 1e9);
    std::printf("#   rma:    latency %.0f ns, overhead %.0f ns, bandwidth %.2f GB/s\n",
                a.rma_cost.latency_ns, a.rma_cost.overhead_ns, a.rma_cost.bandwidth_Bps / 1e9);
    const char* reach = a.reach == tl::Reach::SameWorker ? "same worker"
                        : a.reach == tl::Reach::SameHost ? "same host"
                                                         : "network";
    std::printf("#   reach:  %s\n", reach);
  }
}

int print_protocols(Context& ctx) {
  auto w1 = ctx.create_worker();
  auto w2 = ctx.create_worker();
  if (!w1 || !w2) {
    std::fprintf(stderr, "torus_info: cannot create workers\n");
    return 1;
  }
  auto self_ep = w1.value()->connect(w1.value()->address());
  if (self_ep) std::printf("%s", self_ep.value()->describe().c_str());
  auto peer_ep = w1.value()->connect(w2.value()->address());
  if (peer_ep)
    std::printf("%s", peer_ep.value()->describe().c_str());
  else
    std::printf("# no endpoint to a second worker: %s\n", peer_ep.error().message.c_str());
  return 0;
}

void print_memory() {
  std::printf("%s\n", mem::memtype_status_text().c_str());
  std::printf("%s\n", mem::UnmapMonitor::instance().status_text().c_str());
  const std::string caches = mem::all_rcache_stats_text();
  std::printf("registration caches:%s\n", caches.empty() ? " none open" : "");
  if (!caches.empty()) std::printf("%s\n", caches.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  bool show_t = false, show_c = false, show_p = false, show_m = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-t") {
      show_t = true;
    } else if (a == "-c") {
      show_c = true;
    } else if (a == "-p") {
      show_p = true;
    } else if (a == "-m") {
      show_m = true;
    } else if (a == "--tuning-md") {
      std::string md = config::tuning_markdown();
      std::fwrite(md.data(), 1, md.size(), stdout);
      return 0;
    } else if (a == "--clean-shm" && i + 1 < argc) {
      int n = shm::remove_job_segments(argv[++i]);
      std::printf("removed %d shared-memory segment(s) of job %s\n", n, argv[i]);
      return 0;
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "torus_info: unknown option '%s'\n", a.c_str());
      usage(stderr);
      return 1;
    }
  }
  if (!show_t && !show_c && !show_p && !show_m) show_t = true;
  auto ctx = Context::create();
  if (!ctx) {
    std::fprintf(stderr, "torus_info: %s\n", ctx.error().message.c_str());
    return 1;
  }
  if (show_t) print_transports(*ctx.value());
  if (show_c) print_config(*ctx.value());
  if (show_m) print_memory();
  if (show_p) return print_protocols(*ctx.value());
  return 0;
}
