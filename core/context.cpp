// Context and Worker construction: configuration, transport discovery, interface opening.
#include "core/context.h"

#include <sys/random.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/worker.h"
#include "memory/memtype.h"
#include "transports/registry.h"

namespace torus {

struct Context::Impl {
  core::ContextImpl ctx;
};

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::~Context() = default;

Result<std::unique_ptr<Context>> Context::create(const ContextParams& params) {
  auto cfg = config::Config::load(params.envp);
  if (!cfg) return cfg.error();
  for (const std::string& w : cfg->warnings()) TORUS_WARN("%s", w.c_str());

  auto impl = std::make_unique<Impl>();
  core::ContextImpl& c = impl->ctx;
  c.config = std::move(cfg.value());
  c.expected_local_peers = params.expected_local_peers;
  c.job_id = c.config.get_string("TORUS_JOB_ID");
  // CUDA may have been loaded since the last look: detection must know before any send.
  mem::reprobe_cuda_driver();
  if (c.job_id.empty()) c.job_id = "p" + std::to_string(getpid());

  auto enabled = tl::select_transports(c.config.get_string("TORUS_TLS"));
  if (!enabled) return enabled.error();
  auto table = tl::transport_table();
  for (size_t i = 0; i < table.size(); ++i) {
    if (!(*enabled)[i]) continue;
    core::TransportSlot slot;
    slot.name = std::string(table[i].name);
    slot.transport = table[i].factory();
    slot.devices = slot.transport->query(&slot.why);
    if (slot.devices.empty())
      TORUS_DEBUG("transport %s not viable: %s", slot.name.c_str(), slot.why.c_str());
    c.transports.push_back(std::move(slot));
  }
  return std::unique_ptr<Context>(new Context(std::move(impl)));
}

const config::Config& Context::config() const noexcept { return impl_->ctx.config; }

std::vector<std::string> Context::transport_report() const {
  std::vector<std::string> out;
  for (const core::TransportSlot& s : impl_->ctx.transports) {
    std::string line = s.name + ": ";
    if (s.devices.empty()) {
      line += "skipped: " + s.why;
    } else {
      for (size_t i = 0; i < s.devices.size(); ++i)
        line += (i ? ", " : "") + s.devices[i].name;
    }
    out.push_back(std::move(line));
    for (const std::string& d : s.transport->details()) out.push_back("  " + d);
  }
  return out;
}

Result<std::unique_ptr<Worker>> Context::create_worker(const WorkerParams& params) {
  uint64_t uid = 0;
  while (uid == 0) {
    if (getrandom(&uid, sizeof(uid), 0) != sizeof(uid))
      return make_error(Status::IoError, "getrandom failed for the worker id");
  }
  auto w = std::make_unique<core::WorkerImpl>(&impl_->ctx, uid);
  Status s = w->open_ifaces(params);
  if (s != Status::Ok)
    return make_error(s, std::string("no transport could open an interface: ") +
                             status_string(s));
  auto impl = std::make_unique<Worker::Impl>();
  impl->w = std::move(w);
  return std::unique_ptr<Worker>(new Worker(std::move(impl)));
}

Worker::Worker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Worker::~Worker() = default;

}  // namespace torus
