// The ofi iface: one fabric, domain, RDM endpoint, address vector and completion queue per
// worker; the receive buffers, the bounce-buffer pool, operation contexts and the CQ loop.
#pragma once

#include <rdma/fabric.h>

#include <chrono>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/base/secret_pool.h"
#include "memory/rcache.h"
#include "transports/ofi/ofi_mr.h"
#include "memory/buffer_pool.h"
#include "transports/ofi/ofi_provider.h"
#include "transports/transport.h"

namespace torus::ofi {

class OfiEndpoint;

struct Settings {
  std::string provider;         // TORUS_OFI_PROVIDER (or FI_PROVIDER); "" = default order
  size_t seg_size = 0;          // TORUS_OFI_SEG_SIZE: largest AM (header included); 0 = auto
  size_t tx_bufs = 128;         // TORUS_OFI_TX_BUFS: bounce buffers for fi_send
  size_t rx_bufs = 128;         // TORUS_OFI_RX_BUFS: plain receive buffers
  bool multi_recv = true;       // TORUS_OFI_MULTI_RECV: use FI_MULTI_RECV where offered
  bool event_fd = true;         // TORUS_OFI_WAIT_FD: ask the CQ for a wait fd
  double keepalive_s = 10;      // TORUS_KEEPALIVE_INTERVAL: liveness probes; inf = off
};

// One outstanding libfabric operation. The provider gets &ctx (fi_context2 satisfies both
// FI_CONTEXT and FI_CONTEXT2) and hands it back in the completion.
struct Op {
  fi_context2 ctx;
  // TRecv/TSend: the two halves of a tagged get (ofi_tagged.cpp).
  enum class Kind : uint8_t { Send, Recv, Read, Write, TRecv, TSend } kind = Kind::Send;
  OfiEndpoint* ep = nullptr;   // nulled when the endpoint goes first
  tl::Completion* comp = nullptr;
  mem::RegRef ref;             // local registration, held until completion
  int buf = -1;                // receive buffer index
  mem::PoolBuffer* tx = nullptr;  // bounce buffer of a send
  bool probe = false;             // a keepalive: its failure means the peer is gone
  uint64_t tag = 0;               // TRecv: the tag the target answers with
  size_t length = 0;              // TRecv: bytes expected
  Status refused = Status::Ok;    // TRecv: the target's refusal, reported once canceled
};

// A get request the target could not answer yet (no bounce buffer, provider EAGAIN inside
// a handler): retried on every poll, in order.
struct PendingServe {
  uint64_t tag = 0, key = 0, addr = 0, length = 0;
  fi_addr_t peer = FI_ADDR_UNSPEC;
};

class OfiIface final : public tl::Iface {
 public:
  static Result<std::unique_ptr<OfiIface>> open(const tl::IfaceParams& params,
                                                const Settings& settings);
  explicit OfiIface(const tl::IfaceParams& params, const Settings& settings);
  ~OfiIface() override;
  OfiIface(const OfiIface&) = delete;
  OfiIface& operator=(const OfiIface&) = delete;

  const tl::IfaceAttr& attributes() const override { return attr_; }
  std::span<const std::byte> address() const override { return std::as_bytes(std::span(address_)); }
  bool is_reachable(std::span<const std::byte> peer_address, std::string* why) const override;
  Result<std::unique_ptr<tl::Endpoint>> connect(std::span<const std::byte> peer_address) override;
  void set_am_handler(tl::AmId id, tl::AmHandler handler, void* arg) override;
  void set_error_handler(tl::ErrorHandler handler, void* arg) override;
  unsigned progress() override;
  int event_fd() const override { return wait_fd_; }
  [[nodiscard]] Status arm() override;
  Result<std::unique_ptr<tl::MemRegion>> mem_register(void* addr, size_t length,
                                                      uint32_t access) override;

  // For endpoints (ofi_endpoint.cpp).
  fid_ep* ep() const noexcept { return ep_; }
  // 0 where fi_inject must not be used: see use_inject_ in setup().
  size_t inject_size() const noexcept { return use_inject_ ? info_->tx_attr->inject_size : 0; }
  Op* new_op(Op::Kind kind, OfiEndpoint* ep, tl::Completion* comp);
  void free_op(Op* op) noexcept;
  void return_tx(Op* op) noexcept;   // gives back op->tx and the op
  mem::PoolBuffer* take_tx_buf();    // nullptr: none free (TORUS_OFI_TX_BUFS out)
  static std::byte* tx_data(const mem::PoolBuffer* b) noexcept {
    return static_cast<std::byte*>(b->data);
  }
  static void* tx_desc(const mem::PoolBuffer* b) noexcept {
    return fi_mr_desc(static_cast<fid_mr*>(b->handle));
  }
  Result<mem::RegRef> register_local(const void* addr, size_t len);
  // Whether a zero-length fi_read/fi_write completes on this provider (see ofi_cost.h).
  bool zero_length_rma() const noexcept { return zero_length_rma_; }
  // Back-pressure from the provider (-FI_EAGAIN): drive the CQ (unless called from inside
  // progress, where a handler is running) so the retry can succeed; never drops anything.
  void on_eagain();
  void forget_endpoint(OfiEndpoint* ep) noexcept;

  // The tagged get (ofi_tagged.cpp): where fi_read is unsafe (tcp;ofi_rxm cuts the link on a
  // refused key) but FI_TAGGED is granted, a get is a tagged receive posted by the
  // initiator and a request the target checks against its own region table (key, range,
  // rights) before answering with one fi_tsend of the whole range: the provider moves it
  // with its own rendezvous, and a bad key costs a refusal message, never the link.
  bool tagged_get() const noexcept { return tagged_get_; }
  Status post_tagged_get(OfiEndpoint* ep, std::byte* local, size_t len, uint64_t key,
                         uint64_t addr, tl::Completion* comp);
  void remove_tagged_region(uint64_t key) noexcept;
  // A peer found dead: its posted tagged receives are canceled first, and the error
  // handler runs once they have all completed (transport.h: in-flight operations complete
  // before the handler), so no receive is left writing into a buffer the caller frees.
  void fail_endpoint(OfiEndpoint* ep);

 private:
  std::optional<Error> setup();
  std::optional<Error> setup_rx();
  Status post_rx(int i);
  void repost_rx(int i);  // post_rx, or remember the buffer for the next poll
  unsigned poll_cq();
  void on_completion(Op* op, uint64_t flags, size_t len, void* buf);
  void on_error();
  void send_keepalives();
  void deliver(const std::byte* data, size_t len);
  void finish(Op* op, Status st);
  // ofi_tagged.cpp
  Result<std::unique_ptr<tl::MemRegion>> register_tagged_region(void* addr, size_t length,
                                                                uint32_t access);
  void on_get_request(const std::byte* body, size_t len);
  void on_get_nack(const std::byte* body, size_t len);
  bool serve(const PendingServe& s);  // false: retry later
  Status send_internal(fi_addr_t peer, uint16_t flags, const void* body, size_t len);
  void retry_serves();
  void cancel_tagged_recvs(OfiEndpoint* ep, bool orphan);
  void report_failure(OfiEndpoint* ep);
  void check_failing();

  tl::IfaceParams params_;
  Settings settings_;
  InfoPtr info_;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_av* av_ = nullptr;
  fid_cq* cq_ = nullptr;
  fid_ep* ep_ = nullptr;
  int wait_fd_ = -1;
  MrContext mr_ctx_;
  std::unique_ptr<LocalRegistrar> registrar_;
  std::unique_ptr<mem::RegCache> rcache_;
  std::string address_;
  std::string provider_, fabric_name_;
  tl::IfaceAttr attr_{};
  std::map<uint64_t, fi_addr_t> peers_;  // worker uid -> AV entry
  std::unordered_set<OfiEndpoint*> endpoints_;  // live ones: completions may outlive them

  // Receive side: multi-recv slabs (each at least `seg_size` * 8) or one buffer per message.
  bool multi_ = false;
  size_t rx_buf_size_ = 0;
  std::vector<std::byte> rx_pool_;
  std::vector<Op*> rx_ops_;
  // Receive buffers the provider refused to take back (EAGAIN): retried on every poll, so a
  // busy moment never costs a buffer for good.
  std::vector<int> rx_unposted_;
  fid_mr* rx_mr_ = nullptr;
  void* rx_desc_ = nullptr;
  // Send side: bounce buffers from a pool that grows by registered chunks up to
  // TORUS_OFI_TX_BUFS (an idle iface holds one chunk, not the whole allowance).
  std::unique_ptr<mem::BufferPool> tx_pool_;

  std::deque<Op> ops_;          // stable addresses
  std::vector<Op*> free_ops_;
  struct Handler {
    tl::AmHandler fn = nullptr;
    void* arg = nullptr;
  };
  std::array<Handler, tl::kMaxAmId> handlers_{};
  tl::ErrorHandler error_handler_ = nullptr;
  void* error_arg_ = nullptr;
  bool in_progress_ = false;
  // Liveness: RDM has no connection whose loss would tell us a peer died, so every
  // endpoint gets a small message each keepalive interval; a send error fails the endpoint.
  std::chrono::steady_clock::time_point next_keepalive_;
  unsigned polls_since_clock_ = 0;
  bool use_inject_ = true;
  bool zero_length_rma_ = true;
  bool watch_pids_ = false;  // peers_on_this_host: endpoints watch their peer's pidfd
  uint64_t pid_ns_ = 0;
  size_t busy_ops_ = 0;  // sends and RMA not yet completed: arm() refuses while any are
  unsigned malformed_logged_ = 0;
  // Tagged get state (ofi_tagged.cpp).
  bool tagged_get_ = false;
  std::vector<std::byte> name_;  // fi_getname bytes: sent with each get request
  uint64_t next_tag_ = 0;
  std::unordered_map<uint64_t, Op*> posted_gets_;  // tag -> the initiator's receive
  struct TaggedRegionEntry {
    uintptr_t base = 0;
    size_t length = 0;
    uint32_t access = 0;
  };
  std::unordered_map<uint64_t, TaggedRegionEntry> tagged_regions_;  // key (secret) -> range
  SecretPool secrets_;  // tagged region keys
  std::deque<PendingServe> serves_unsent_;
  std::vector<OfiEndpoint*> failing_;  // endpoints waiting for their receives to end
};

}  // namespace torus::ofi
