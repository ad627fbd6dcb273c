// The shm transport module: viability, TORUS_SHM_* settings, opening ifaces.
#include "transports/shm/shm_transport.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/base/config.h"
#include "core/base/copy.h"
#include "transports/shm/shm_iface.h"
#include "transports/shm/shm_segment.h"

namespace torus::shm {
namespace {

// Reads a count whatever numeric type the registry declares it with; `fallback` for "auto"
// or when the variable is not declared at all.
uint64_t read_count(const config::Config& cfg, std::string_view name, uint64_t fallback) {
  const config::VarDecl* decl = config::find_var(name);
  if (decl == nullptr) return fallback;
  if (decl->type == config::Type::Int) {
    const int64_t v = cfg.get_int(name);
    return v == config::kIntAuto || v < 0 ? fallback : static_cast<uint64_t>(v);
  }
  if (decl->type == config::Type::Size) {
    const uint64_t v = cfg.get_size(name);
    return v == config::kSizeAuto ? fallback : v;
  }
  return fallback;
}

Result<Settings> read_settings(const config::Config* cfg) {
  Settings s;
  if (cfg == nullptr) return s;
  s.fifo_size = read_count(*cfg, "TORUS_SHM_FIFO_SIZE", s.fifo_size);
  s.seg_size = read_count(*cfg, "TORUS_SHM_SEG_SIZE", s.seg_size);
  s.bounce_size = read_count(*cfg, "TORUS_SHM_BOUNCE_SIZE", s.bounce_size);
  s.coop_thresh = read_count(*cfg, "TORUS_SHM_COOP_THRESH", s.coop_thresh);
  s.coop_adaptive = read_count(*cfg, "TORUS_SHM_COOP_ADAPTIVE", s.coop_adaptive);
  s.lanes = read_count(*cfg, "TORUS_SHM_LANES", s.lanes);
  s.lane_size = read_count(*cfg, "TORUS_SHM_LANE_SIZE", s.lane_size);
  const config::VarDecl* decl = config::find_var("TORUS_SHM_CMA");
  if (decl != nullptr) {
    std::string_view v;  // a view: get_string() returns a reference into the config
    if (decl->type == config::Type::Bool)
      v = cfg->get_bool("TORUS_SHM_CMA") ? "y" : "n";
    else if (decl->type == config::Type::Enum || decl->type == config::Type::String)
      v = cfg->get_string("TORUS_SHM_CMA");
    if (v == "y" || v == "yes")
      s.cma = CmaMode::Yes;
    else if (v == "n" || v == "no")
      s.cma = CmaMode::No;
    else if (v.empty() || v == "auto")
      s.cma = CmaMode::Auto;
    else
      return make_error(Status::InvalidParam,
                        "TORUS_SHM_CMA=\"" + std::string(v) +
                            "\" is invalid: accepted values are auto|y|n");
  }
  if (config::find_var("TORUS_SHM_CMA_STAGE") != nullptr) {
    const std::string_view v = cfg->get_string("TORUS_SHM_CMA_STAGE");
    if (v == "y" || v == "yes")
      s.cma_stage = true;
    else if (v == "n" || v == "no")
      s.cma_stage = false;
    else if (v.empty() || v == "auto")
      s.cma_stage = rep_movsb_alias_slow();
    else
      return make_error(Status::InvalidParam,
                        "TORUS_SHM_CMA_STAGE=\"" + std::string(v) +
                            "\" is invalid: accepted values are auto|y|n");
  }
  return s;
}

class ShmTransport final : public tl::Transport {
 public:
  std::string_view name() const override { return "shm"; }

  std::vector<tl::DeviceInfo> query(std::string* why) override {
    struct statvfs st {};
    if (::statvfs("/dev/shm", &st) != 0 || ::access("/dev/shm", W_OK) != 0) {
      if (why != nullptr)
        *why = std::string("shm: /dev/shm is not usable: ") + std::strerror(errno);
      return {};
    }
    return {tl::DeviceInfo{"memory", "POSIX shared memory between processes of this host"}};
  }

  Result<std::unique_ptr<tl::Iface>> open(const tl::DeviceInfo& device,
                                          const tl::IfaceParams& params) override {
    if (device.name != "memory")
      return make_error(Status::NotFound, "shm: no device \"" + device.name + "\"");
    auto settings = read_settings(params.config);
    if (!settings) return settings.error();
    auto iface = ShmIface::open(params, *settings);
    if (!iface) return iface.error();
    return std::unique_ptr<tl::Iface>(std::move(*iface));
  }
};

}  // namespace

std::unique_ptr<tl::Transport> make_transport() { return std::make_unique<ShmTransport>(); }

size_t remove_job_segments(std::string_view job_id) { return remove_segments_of_job(job_id); }

}  // namespace torus::shm
