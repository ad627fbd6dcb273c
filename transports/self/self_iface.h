// The self iface and its endpoint: one AM queue delivered from progress(), an eventfd for
// sleeping, and a registration table that every get/put is checked against.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "core/base/secret_pool.h"
#include "transports/self/self_queue.h"
#include "transports/transport.h"

namespace torus::self {

// Limits and costs advertised in IfaceAttr (README.md explains the choices).
inline constexpr size_t kMaxShort = 256;
inline constexpr size_t kMaxBcopy = 64 * 1024;
// Queued bytes beyond which sends return NoResource: a sender that never progresses must
// see back-pressure instead of growing the heap without bound.
inline constexpr size_t kMaxQueuedBytes = 64 * 1024 * 1024;

// Registered regions, shared with the MemRegion objects so deregistration works even in the
// wrong teardown order. Region ids are never reused: a stale key finds nothing.
struct RegEntry {
  uintptr_t base = 0;
  size_t length = 0;
  uint32_t access = 0;
  uint64_t secret = 0;
};
struct RegTable {
  std::unordered_map<uint64_t, RegEntry> regions;
  uint64_t next_id = 1;
};

class SelfIface final : public tl::Iface {
 public:
  // Creates the eventfd and a random iface id. Self reads no configuration.
  static Result<std::unique_ptr<tl::Iface>> open(const tl::IfaceParams& params);
  // Takes ownership of `event_fd` (an eventfd, non-blocking).
  SelfIface(uint64_t iface_id, int event_fd);
  ~SelfIface() override;

  const tl::IfaceAttr& attributes() const override { return attr_; }
  std::span<const std::byte> address() const override { return address_; }
  bool is_reachable(std::span<const std::byte> peer_address, std::string* why) const override;
  Result<std::unique_ptr<tl::Endpoint>> connect(std::span<const std::byte> peer_address) override;
  void set_am_handler(tl::AmId id, tl::AmHandler handler, void* arg) override;
  void set_error_handler(tl::ErrorHandler handler, void* arg) override;
  unsigned progress() override;
  int event_fd() const override { return event_fd_; }
  [[nodiscard]] Status arm() override;
  Result<std::unique_ptr<tl::MemRegion>> mem_register(void* addr, size_t length,
                                                      uint32_t access) override;

  // The endpoint's data path.
  [[nodiscard]] Status am_short(tl::AmId id, std::span<const std::byte> header,
                                std::span<const std::byte> payload) noexcept;
  [[nodiscard]] Status am_bcopy(tl::AmId id, tl::PackFn pack, void* arg) noexcept;
  // Checks rkey against the registration table for `length` bytes at remote_addr with
  // `right`; on Ok *remote points at them. Refusals are AccessDenied.
  [[nodiscard]] Status resolve(std::span<const std::byte> rkey, uint64_t remote_addr,
                               size_t length, uint32_t right, std::byte** remote) const noexcept;

 private:
  struct Handler {
    tl::AmHandler func = nullptr;
    void* arg = nullptr;
  };
  void after_enqueue() noexcept;
  [[gnu::noinline]] unsigned deliver_queued();

  tl::IfaceAttr attr_;
  uint64_t iface_id_;
  std::array<std::byte, 16> address_{};  // iface id, pid
  int event_fd_;
  // Set by arm() when it returned Ok: only a sleeping worker needs the eventfd written, and
  // skipping the write keeps a loopback send at tens of nanoseconds instead of a syscall.
  bool armed_ = false;
  AmQueue queue_{kMaxQueuedBytes};
  std::array<Handler, tl::kMaxAmId> handlers_{};
  uint32_t warned_ids_ = 0;  // AM ids whose missing handler was already logged
  std::shared_ptr<RegTable> regs_ = std::make_shared<RegTable>();
  SecretPool secrets_;  // region secrets, one per registration (per rendezvous)
};

class SelfEndpoint final : public tl::Endpoint {
 public:
  explicit SelfEndpoint(SelfIface& iface) noexcept : iface_(iface) {}
  [[nodiscard]] Status am_short(tl::AmId id, std::span<const std::byte> header,
                                std::span<const std::byte> payload) override {
    return iface_.am_short(id, header, payload);
  }
  [[nodiscard]] Status am_bcopy(tl::AmId id, tl::PackFn pack, void* arg) override {
    return iface_.am_bcopy(id, pack, arg);
  }
  // Both complete in the call (a copy after the key check), so `comp` never fires.
  [[nodiscard]] Status get_zcopy(std::span<std::byte> local, uint64_t remote_addr,
                                 std::span<const std::byte> rkey, tl::Completion*) override;
  [[nodiscard]] Status put_zcopy(std::span<const std::byte> local, uint64_t remote_addr,
                                 std::span<const std::byte> rkey, tl::Completion*) override;
  // Queued AMs already sit in the destination's memory and RMA is synchronous: nothing to wait.
  [[nodiscard]] Status flush(tl::Completion*) override { return Status::Ok; }

 private:
  SelfIface& iface_;
};

}  // namespace torus::self
