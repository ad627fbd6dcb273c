// The transport interface: Transport (a module) opens Ifaces (one per worker per device);
// an Iface connects Endpoints (one per peer). Transports move active messages and do
// one-sided get/put on registered memory; they know nothing of tags, requests or MPI.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace torus::config { class Config; }

namespace torus::tl {

enum class MemType : uint8_t { Host = 0, Cuda = 1, CudaManaged = 2, CudaHost = 3 };
using MemTypeMask = uint32_t;
constexpr MemTypeMask mem_type_bit(MemType t) { return 1u << static_cast<unsigned>(t); }

// Access rights of a registered region, a bitmask.
enum : uint32_t { kAccessRead = 1, kAccessWrite = 2, kAccessAtomic = 4 };

struct Caps {
  bool am_short = false;
  bool am_bcopy = false;
  bool am_zcopy = false;
  bool get_zcopy = false;
  bool put_zcopy = false;
  bool atomic64 = false;
  bool connect_to_iface = false;  // an endpoint needs only the peer's iface address
};

struct Limits {
  size_t max_short = 0;   // header + payload bytes of am_short
  size_t max_bcopy = 0;   // bytes a pack callback may write
  size_t max_zcopy = 0;   // header + iov bytes of am_zcopy
  size_t max_iov = 1;
  size_t max_get = 0;     // one get_zcopy; larger transfers are fragmented by the caller
  size_t max_put = 0;
  size_t seg_size = 0;    // receive segment size
  // Largest message worth sending eagerly where a rendezvous lane exists (0: no limit): what
  // one message may take of a receive ring that other senders share.
  size_t max_eager = 0;
};

// time(size) = overhead_ns + latency_ns + size / bandwidth_Bps.
struct Cost {
  double latency_ns = 0;
  double overhead_ns = 0;     // CPU time the initiator spends per operation
  double bandwidth_Bps = 0;   // per direction
  bool bandwidth_shared = false;  // shared among all endpoints of the iface
};

enum class Reach : uint8_t { SameWorker, SameHost, Network };

struct IfaceAttr {
  Caps caps;
  Limits limits;
  Cost am_cost;   // active messages (bcopy bandwidth includes the copies)
  Cost rma_cost;  // get_zcopy / put_zcopy
  // Added to a rendezvous's estimate for a message that is not sent alone (others in flight
  // or following it): where the eager path keeps both processes copying at once and a get
  // only the receiver, eager keeps more bandwidth in a stream than one message's latency
  // says. 0: no difference.
  double rma_stream_extra_ns = 0;
  MemTypeMask mem_types = mem_type_bit(MemType::Host);
  Reach reach = Reach::Network;
  size_t rkey_size = 0;  // bytes of a packed remote key
  // Moved on whenever the iface revises its costs from what it measures at run time; the
  // endpoints whose protocol tables came from the older costs rebuild them.
  uint32_t cost_epoch = 0;
};

// Active-message ids: 0..kMaxAmId-1, assigned by the layer above.
using AmId = uint8_t;
inline constexpr unsigned kMaxAmId = 32;

// Runs from Iface::progress() on the worker's thread. `data` is valid only during the call.
// The handler may send (including on the same iface); it must not call progress().
using AmHandler = void (*)(void* arg, const void* data, size_t length);

// Writes at most Limits::max_bcopy bytes to `dest`; returns the number written.
using PackFn = size_t (*)(void* dest, void* arg);

// Embedded in the caller's object; `func` runs once when an InProgress operation ends,
// from progress(), with Ok or the error.
struct Completion {
  void (*func)(Completion* self, Status status) = nullptr;
};

// A registered region. Destroying it deregisters. Must not outlive its Iface.
class MemRegion {
 public:
  virtual ~MemRegion() = default;
  virtual void* address() const = 0;
  virtual size_t length() const = 0;
  // Writes the packed remote key (IfaceAttr::rkey_size bytes) a peer passes to get/put.
  virtual void pack_rkey(std::span<std::byte> out) const = 0;
};

// One connection to a peer's iface. Not thread-safe: the owning worker serializes calls.
// Data-path calls never block. They return Ok (done: buffers reusable), InProgress (the
// Completion fires later), NoResource (nothing was done: queue and retry after progress),
// or an error. Messages on one endpoint are delivered in the order sent.
class Endpoint {
 public:
  virtual ~Endpoint() = default;

  // header and payload are concatenated; header.size() + payload.size() <= max_short.
  [[nodiscard]] virtual Status am_short(AmId id, std::span<const std::byte> header,
                                        std::span<const std::byte> payload) = 0;
  // Calls pack(dest, arg) into a transport buffer; Ok when sent (or queued in the transport).
  [[nodiscard]] virtual Status am_bcopy(AmId id, PackFn pack, void* arg) = 0;
  // am_bcopy of a frame whose copy runs fastest from an address congruent to `align` modulo
  // 64 (the caller's source address minus its header's length). A transport whose buffer
  // another core reads may place the frame there: a copy whose source and destination sit a
  // few bytes apart within a page takes a slow path in the CPU's string copy
  // (core/base/copy.h), and on lines another core holds that path costs a round trip per
  // line. The default ignores the hint.
  [[nodiscard]] virtual Status am_bcopy_aligned(AmId id, PackFn pack, void* arg,
                                                uintptr_t align) {
    (void)align;
    return am_bcopy(id, pack, arg);
  }
  [[nodiscard]] virtual Status am_zcopy(AmId id, std::span<const std::byte> header,
                                        std::span<const iovec> iov, Completion* comp) {
    (void)id; (void)header; (void)iov; (void)comp;
    return Status::Unsupported;
  }
  // One-sided read of remote [remote_addr, remote_addr + local.size()) described by rkey
  // into local. A key that is stale, forged, out of range or lacks the right is refused
  // with AccessDenied and no byte is moved.
  [[nodiscard]] virtual Status get_zcopy(std::span<std::byte> local, uint64_t remote_addr,
                                         std::span<const std::byte> rkey, Completion* comp) = 0;
  [[nodiscard]] virtual Status put_zcopy(std::span<const std::byte> local, uint64_t remote_addr,
                                         std::span<const std::byte> rkey, Completion* comp) = 0;
  // Ok when every operation issued so far has completed remotely; else InProgress + comp.
  [[nodiscard]] virtual Status flush(Completion* comp) = 0;

  // Owned by the layer above (the core's endpoint); passed back in error callbacks.
  void* user_data = nullptr;
};

// Called from progress() when an endpoint fails for good (peer died, connection reset).
// Operations in flight on it complete with the error before this runs.
using ErrorHandler = void (*)(void* arg, Endpoint* ep, Status status);

// What the iface knows of its worker and job.
struct IfaceParams {
  const config::Config* config = nullptr;
  uint64_t worker_uid = 0;     // unique per worker, random
  std::string job_id;          // names shared resources so jobs never collide
  int expected_local_peers = -1;  // peers on this host that will attach, if known (-1 = unknown)
};

// One per worker per device. Single-threaded, like Endpoint.
class Iface {
 public:
  virtual ~Iface() = default;
  virtual const IfaceAttr& attributes() const = 0;
  // What a peer needs to connect: opaque bytes, carried inside the worker address.
  virtual std::span<const std::byte> address() const = 0;
  // False when the peer is on a different host/namespace/fabric; `why` gets the reason.
  virtual bool is_reachable(std::span<const std::byte> peer_address, std::string* why) const = 0;
  virtual Result<std::unique_ptr<Endpoint>> connect(std::span<const std::byte> peer_address) = 0;

  virtual void set_am_handler(AmId id, AmHandler handler, void* arg) = 0;
  virtual void set_error_handler(ErrorHandler handler, void* arg) = 0;

  // Polls for arrivals and completions; returns how many events it handled.
  virtual unsigned progress() = 0;
  // A file descriptor that becomes readable when progress() has work; -1 if none.
  virtual int event_fd() const = 0;
  // Prepares to sleep on event_fd(): Ok when nothing is pending (safe to sleep), NoResource
  // when events are already waiting (call progress instead).
  [[nodiscard]] virtual Status arm() = 0;

  virtual Result<std::unique_ptr<MemRegion>> mem_register(void* addr, size_t length,
                                                          uint32_t access) = 0;
};

struct DeviceInfo {
  std::string name;         // "memory", "lo", "mlx5_0"
  std::string description;
};

// A transport module. query() lists usable devices; an empty list with `why` set means the
// transport is not viable here (no hardware, no driver) and says why.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::string_view name() const = 0;
  virtual std::vector<DeviceInfo> query(std::string* why) = 0;
  virtual Result<std::unique_ptr<Iface>> open(const DeviceInfo& device,
                                              const IfaceParams& params) = 0;
  // Extra lines for `torus_info -t` (what the transport saw and why it chose as it did).
  virtual std::vector<std::string> details() const { return {}; }
};

}  // namespace torus::tl
