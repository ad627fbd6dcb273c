// A tcp endpoint: a handle on the shared Peer connection to one remote worker.
#pragma once

#include <memory>

#include "transports/tcp/tcp_conn.h"
#include "transports/transport.h"

namespace torus::tcp {

class TcpIface;

class TcpEndpoint final : public tl::Endpoint {
 public:
  TcpEndpoint(TcpIface& iface, std::shared_ptr<Peer> peer);
  ~TcpEndpoint() override;
  TcpEndpoint(const TcpEndpoint&) = delete;
  TcpEndpoint& operator=(const TcpEndpoint&) = delete;

  [[nodiscard]] Status am_short(tl::AmId id, std::span<const std::byte> header,
                                std::span<const std::byte> payload) override;
  [[nodiscard]] Status am_bcopy(tl::AmId id, tl::PackFn pack, void* arg) override;
  [[nodiscard]] Status am_zcopy(tl::AmId id, std::span<const std::byte> header,
                                std::span<const iovec> iov, tl::Completion* comp) override;
  [[nodiscard]] Status get_zcopy(std::span<std::byte> local, uint64_t remote_addr,
                                 std::span<const std::byte> rkey,
                                 tl::Completion* comp) override;
  [[nodiscard]] Status put_zcopy(std::span<const std::byte> local, uint64_t remote_addr,
                                 std::span<const std::byte> rkey,
                                 tl::Completion* comp) override;
  [[nodiscard]] Status flush(tl::Completion* comp) override;

  Peer& peer() const noexcept { return *peer_; }

 private:
  TcpIface& iface_;
  std::shared_ptr<Peer> peer_;
};

}  // namespace torus::tcp
