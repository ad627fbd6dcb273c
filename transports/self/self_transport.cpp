// The self module: always viable, one device ("memory"), one iface per worker.
#include "transports/self/self_transport.h"

#include "transports/self/self_iface.h"

namespace torus::self {
namespace {

constexpr std::string_view kDevice = "memory";

class SelfTransport final : public tl::Transport {
 public:
  std::string_view name() const override { return "self"; }
  std::vector<tl::DeviceInfo> query(std::string* /*why*/) override {
    return {tl::DeviceInfo{std::string(kDevice), "loopback inside one worker"}};
  }
  Result<std::unique_ptr<tl::Iface>> open(const tl::DeviceInfo& device,
                                          const tl::IfaceParams& params) override {
    if (device.name != kDevice)
      return make_error(Status::NotFound,
                        "self: no device '" + device.name + "' (the only one is 'memory')");
    return SelfIface::open(params);
  }
};

}  // namespace

std::unique_ptr<tl::Transport> make_transport() { return std::make_unique<SelfTransport>(); }

}  // namespace torus::self
