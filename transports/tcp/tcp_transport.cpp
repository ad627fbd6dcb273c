// The tcp transport module: viability (an interface to listen on), TORUS_TCP_* settings.
#include "transports/tcp/tcp_transport.h"

#include <algorithm>

#include "core/base/config.h"
#include "transports/tcp/tcp_iface.h"
#include "transports/tcp/tcp_netif.h"

namespace torus::tcp {
namespace {

Settings read_settings(const config::Config* cfg) {
  Settings s;
  if (cfg == nullptr) return s;
  s.ifaces = cfg->get_string("TORUS_TCP_IFACES");
  if (s.ifaces.empty()) s.ifaces = cfg->get_string("TORUS_NET_DEVICES");
  const uint64_t snd = cfg->get_size("TORUS_TCP_SNDBUF");
  const uint64_t rcv = cfg->get_size("TORUS_TCP_RCVBUF");
  s.sndbuf = snd == config::kSizeAuto || snd == config::kSizeInf ? 0 : snd;
  s.rcvbuf = rcv == config::kSizeAuto || rcv == config::kSizeInf ? 0 : rcv;
  s.keepalive_s = cfg->get_duration("TORUS_KEEPALIVE_INTERVAL");
  s.job_key = cfg->get_string("TORUS_JOB_KEY");
  // An enum of 0..kMaxLanes-1, so a value out of range is refused with the accepted ones.
  const std::string& bulk = cfg->get_string("TORUS_TCP_BULK_CONNS");
  if (!bulk.empty() && bulk[0] >= '0' && bulk[0] < '0' + static_cast<int>(kMaxLanes))
    s.bulk_conns = static_cast<unsigned>(bulk[0] - '0');
  // auto: 512 KiB between hosts, never within one; a size: every connection alike.
  const uint64_t stripe = cfg->get_size("TORUS_TCP_STRIPE_MIN");  // inf: never striped
  s.stripe_local = stripe != config::kSizeAuto;
  if (stripe != config::kSizeAuto) s.stripe_min = stripe;
  s.congestion = cfg->get_string("TORUS_TCP_CONGESTION");
  if (s.congestion.empty()) s.congestion = "auto";
  return s;
}

class TcpTransport final : public tl::Transport {
 public:
  std::string_view name() const override { return "tcp"; }

  std::vector<tl::DeviceInfo> query(std::string* why) override {
    auto ifs = list_interfaces("all");
    if (!ifs) {
      if (why != nullptr) *why = ifs.error().message;
      return {};
    }
    if (ifs->empty()) {
      if (why != nullptr) *why = "no network interface is up";
      return {};
    }
    std::string desc = "TCP sockets on";
    for (const NetIf& n : *ifs) desc += " " + n.name;
    return {tl::DeviceInfo{"tcp", desc}};
  }

  Result<std::unique_ptr<tl::Iface>> open(const tl::DeviceInfo& device,
                                          const tl::IfaceParams& params) override {
    (void)device;
    auto iface = TcpIface::open(params, read_settings(params.config));
    if (!iface) return iface.error();
    return std::unique_ptr<tl::Iface>(std::move(iface.value()));
  }
};

}  // namespace

std::unique_ptr<tl::Transport> make_transport() { return std::make_unique<TcpTransport>(); }

}  // namespace torus::tcp
