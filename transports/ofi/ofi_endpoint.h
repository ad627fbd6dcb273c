// An ofi endpoint: one AV entry (the peer's RDM endpoint) and the operations on it.
#pragma once

#include <rdma/fabric.h>

#include <chrono>
#include <vector>

#include "memory/buffer_pool.h"
#include "transports/transport.h"

namespace torus::ofi {

class OfiIface;

class OfiEndpoint final : public tl::Endpoint {
 public:
  OfiEndpoint(OfiIface& iface, fi_addr_t peer) : iface_(iface), peer_(peer) {}
  ~OfiEndpoint() override;
  OfiEndpoint(const OfiEndpoint&) = delete;
  OfiEndpoint& operator=(const OfiEndpoint&) = delete;

  [[nodiscard]] Status am_short(tl::AmId id, std::span<const std::byte> header,
                                std::span<const std::byte> payload) override;
  [[nodiscard]] Status am_bcopy(tl::AmId id, tl::PackFn pack, void* arg) override;
  [[nodiscard]] Status get_zcopy(std::span<std::byte> local, uint64_t remote_addr,
                                 std::span<const std::byte> rkey,
                                 tl::Completion* comp) override;
  [[nodiscard]] Status put_zcopy(std::span<const std::byte> local, uint64_t remote_addr,
                                 std::span<const std::byte> rkey,
                                 tl::Completion* comp) override;
  [[nodiscard]] Status flush(tl::Completion* comp) override;

  // From the iface when one of this endpoint's operations completed.
  void op_done(Status st);
  fi_addr_t peer() const noexcept { return peer_; }
  // Consecutive keepalive intervals in which the provider refused this peer's probe; reset
  // by any completed operation (the iface's send_keepalives).
  unsigned probe_refusals = 0;
  // Tagged gets posted and not yet completed; a failing endpoint (peer gone) waits for them.
  size_t tagged_gets = 0;
  bool failing = false;
  // The peer's process where the provider reaches only this host (shm), else -1: its exit
  // fails the endpoint on the next keepalive tick (ofi_pidfd.h).
  int pidfd = -1;
  std::chrono::steady_clock::time_point failing_since;
  void count_issued() noexcept { ++outstanding_; }

 private:
  friend class OfiIface;
  Status send_buffered(mem::PoolBuffer* buf, size_t len);
  Status rma(bool read, std::byte* local, size_t len, uint64_t remote_addr,
             std::span<const std::byte> rkey, tl::Completion* comp);

  OfiIface& iface_;
  fi_addr_t peer_;
  size_t outstanding_ = 0;  // sends from bounce buffers and RMA not yet completed
  std::vector<tl::Completion*> flushes_;
};

}  // namespace torus::ofi
