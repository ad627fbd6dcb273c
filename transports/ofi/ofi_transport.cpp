// The ofi transport module: viability (a provider the setting allows) and TORUS_OFI_*.
#include "transports/ofi/ofi_transport.h"

#include <algorithm>
#include <cstdlib>

#include "core/base/config.h"
#include "transports/ofi/ofi_iface.h"
#include "transports/ofi/ofi_provider.h"

namespace torus::ofi {
namespace {

Settings read_settings(const config::Config* cfg) {
  Settings s;
  if (cfg == nullptr) {
    // Built-in defaults, but a provider named in the environment still counts.
    const char* p = std::getenv("TORUS_OFI_PROVIDER");
    s.provider = requested_provider(p != nullptr ? p : "");
    return s;
  }
  s.provider = requested_provider(cfg->get_string("TORUS_OFI_PROVIDER"));
  const uint64_t seg = cfg->get_size("TORUS_OFI_SEG_SIZE");
  if (seg != config::kSizeAuto && seg != config::kSizeInf && seg >= 256)
    s.seg_size = static_cast<size_t>(seg);
  const int64_t tx = cfg->get_int("TORUS_OFI_TX_BUFS");
  const int64_t rx = cfg->get_int("TORUS_OFI_RX_BUFS");
  if (tx > 0) s.tx_bufs = static_cast<size_t>(tx);
  if (rx > 0) s.rx_bufs = static_cast<size_t>(rx);
  s.multi_recv = cfg->get_bool("TORUS_OFI_MULTI_RECV");
  s.event_fd = cfg->get_bool("TORUS_OFI_WAIT_FD");
  s.keepalive_s = cfg->get_duration("TORUS_KEEPALIVE_INTERVAL");
  return s;
}

class OfiTransport final : public tl::Transport {
 public:
  std::string_view name() const override { return "ofi"; }

  // Transport::query() has no configuration: the environment decides which provider is
  // asked for, as it will for the worker's configuration in the common case.
  std::vector<tl::DeviceInfo> query(std::string* why) override {
    const Settings s = read_settings(nullptr);
    auto info = choose_provider(s.provider);
    if (!info) {
      if (why != nullptr) *why = info.error().message;
      return {};
    }
    const fi_info* i = info.value().get();
    return {tl::DeviceInfo{i->fabric_attr->prov_name,
                           std::string("libfabric ") + i->fabric_attr->prov_name + " on " +
                               i->domain_attr->name}};
  }

  Result<std::unique_ptr<tl::Iface>> open(const tl::DeviceInfo& device,
                                          const tl::IfaceParams& params) override {
    // The configuration's provider when it names one, else the one query() found.
    Settings s = read_settings(params.config);
    if (params.config == nullptr || s.provider.empty()) s.provider = device.name;
    auto iface = OfiIface::open(params, s);
    if (!iface) return iface.error();
    return std::unique_ptr<tl::Iface>(std::move(iface.value()));
  }

  // fi_getinfo lists a provider once per capability set: each line once is enough here.
  std::vector<std::string> details() const override {
    std::vector<std::string> out;
    for (std::string& line : provider_report())
      if (std::find(out.begin(), out.end(), line) == out.end()) out.push_back(std::move(line));
    return out;
  }
};

}  // namespace

std::unique_ptr<tl::Transport> make_transport() { return std::make_unique<OfiTransport>(); }

std::vector<std::string> provider_report() {
  std::vector<std::string> out = describe_providers();
  const Settings s = read_settings(nullptr);
  auto info = choose_provider(s.provider);
  const std::string setting = s.provider.empty() ? "default order" : s.provider;
  if (info)
    out.push_back("picked (" + setting + "): " + info.value()->fabric_attr->prov_name +
                  " on " + info.value()->domain_attr->name + ", mr_mode " +
                  mr_mode_string(info.value()->domain_attr->mr_mode));
  else
    out.push_back("picked (" + setting + "): none: " + info.error().message);
  return out;
}

}  // namespace torus::ofi
