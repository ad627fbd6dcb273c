// SelfIface: the loopback data path (queue, eventfd) and the rkey checks of get/put.
#include "transports/self/self_iface.h"

#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "core/base/log.h"

namespace torus::self {
namespace {

// Packed remote key: which iface, which registration, and the registration's secret.
struct PackedRkey {
  uint64_t iface_id;
  uint64_t region_id;
  uint64_t secret;
};
static_assert(sizeof(PackedRkey) == 24);

// Secrets must be unguessable by a peer, so they come from the kernel, not a seeded PRNG.
uint64_t random_u64() noexcept {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) == static_cast<ssize_t>(sizeof v)) return v;
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

class SelfMemRegion final : public tl::MemRegion {
 public:
  SelfMemRegion(std::shared_ptr<RegTable> table, uint64_t iface_id, uint64_t region_id,
                const RegEntry& entry) noexcept
      : table_(std::move(table)), iface_id_(iface_id), region_id_(region_id), entry_(entry) {}
  ~SelfMemRegion() override { table_->regions.erase(region_id_); }

  void* address() const override { return reinterpret_cast<void*>(entry_.base); }
  size_t length() const override { return entry_.length; }
  void pack_rkey(std::span<std::byte> out) const override {
    TORUS_ASSERT(out.size() >= sizeof(PackedRkey));
    const PackedRkey key{iface_id_, region_id_, entry_.secret};
    std::memcpy(out.data(), &key, sizeof key);
  }

 private:
  std::shared_ptr<RegTable> table_;
  uint64_t iface_id_;
  uint64_t region_id_;
  RegEntry entry_;
};

}  // namespace

Result<std::unique_ptr<tl::Iface>> SelfIface::open(const tl::IfaceParams& /*params*/) {
  const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return make_error(Status::IoError,
                      std::string("self: eventfd() failed: ") + std::strerror(err));
  }
  return std::unique_ptr<tl::Iface>(std::make_unique<SelfIface>(random_u64(), fd));
}

SelfIface::SelfIface(uint64_t iface_id, int event_fd) : iface_id_(iface_id), event_fd_(event_fd) {
  attr_.caps.am_short = true;
  attr_.caps.am_bcopy = true;
  attr_.caps.get_zcopy = true;
  attr_.caps.put_zcopy = true;
  attr_.caps.connect_to_iface = true;
  attr_.limits.max_short = kMaxShort;
  attr_.limits.max_bcopy = kMaxBcopy;
  attr_.limits.max_iov = 1;
  // No per-operation limit on a memcpy; 1 TiB rather than SIZE_MAX keeps callers' sums finite.
  attr_.limits.max_get = size_t{1} << 40;
  attr_.limits.max_put = size_t{1} << 40;
  attr_.limits.seg_size = kMaxBcopy;
  // One copy in, one delivery out, on the calling core; every endpoint shares that core.
  attr_.am_cost = tl::Cost{.latency_ns = 30, .overhead_ns = 10, .bandwidth_Bps = 30e9,
                           .bandwidth_shared = true};
  attr_.rma_cost = tl::Cost{.latency_ns = 30, .overhead_ns = 10, .bandwidth_Bps = 30e9,
                            .bandwidth_shared = true};
  attr_.mem_types = tl::mem_type_bit(tl::MemType::Host);
  attr_.reach = tl::Reach::SameWorker;
  attr_.rkey_size = sizeof(PackedRkey);

  // The pid guards against a forked child that inherited the iface id.
  const uint64_t pid = static_cast<uint64_t>(getpid());
  std::memcpy(address_.data(), &iface_id_, 8);
  std::memcpy(address_.data() + 8, &pid, 8);
}

SelfIface::~SelfIface() {
  if (!queue_.empty())
    TORUS_DEBUG("self: iface closed with %zu undelivered active messages", queue_.records());
  ::close(event_fd_);
}

bool SelfIface::is_reachable(std::span<const std::byte> peer_address, std::string* why) const {
  auto say = [why](std::string text) {
    if (why != nullptr) *why = std::move(text);
    return false;
  };
  if (peer_address.size() != address_.size())
    return say("self: not a self address (" + std::to_string(peer_address.size()) +
               " bytes, expected " + std::to_string(address_.size()) + ")");
  uint64_t id = 0;
  uint64_t pid = 0;
  std::memcpy(&id, peer_address.data(), 8);
  std::memcpy(&pid, peer_address.data() + 8, 8);
  if (pid != static_cast<uint64_t>(getpid()))
    return say("self: reaches only its own worker; the peer is process " + std::to_string(pid));
  if (id != iface_id_)
    return say("self: reaches only its own worker; the peer is another worker of this process");
  return true;
}

Result<std::unique_ptr<tl::Endpoint>> SelfIface::connect(std::span<const std::byte> peer_address) {
  std::string why;
  if (!is_reachable(peer_address, &why)) return make_error(Status::Unreachable, why);
  return std::unique_ptr<tl::Endpoint>(std::make_unique<SelfEndpoint>(*this));
}

void SelfIface::set_am_handler(tl::AmId id, tl::AmHandler handler, void* arg) {
  TORUS_ASSERT(id < tl::kMaxAmId);
  handlers_[id] = Handler{handler, arg};
}

// Self endpoints never fail, so there is nothing to report.
void SelfIface::set_error_handler(tl::ErrorHandler, void*) {}

void SelfIface::after_enqueue() noexcept {
  if (!armed_) return;
  armed_ = false;
  const uint64_t one = 1;
  // EAGAIN means the counter is already non-zero: the fd is readable either way.
  if (::write(event_fd_, &one, sizeof one) < 0 && errno != EAGAIN)
    TORUS_WARN("self: write(eventfd) failed: %s", std::strerror(errno));
}

Status SelfIface::am_short(tl::AmId id, std::span<const std::byte> header,
                           std::span<const std::byte> payload) noexcept {
  const size_t length = header.size() + payload.size();
  if (id >= tl::kMaxAmId || length > kMaxShort) return Status::InvalidParam;
  Status st = Status::Ok;
  std::byte* dest = queue_.reserve(length, &st);
  if (dest == nullptr) return st;
  if (!header.empty()) std::memcpy(dest, header.data(), header.size());
  if (!payload.empty()) std::memcpy(dest + header.size(), payload.data(), payload.size());
  queue_.commit(id, length);
  after_enqueue();
  return Status::Ok;
}

Status SelfIface::am_bcopy(tl::AmId id, tl::PackFn pack, void* arg) noexcept {
  if (id >= tl::kMaxAmId) return Status::InvalidParam;
  Status st = Status::Ok;
  std::byte* dest = queue_.reserve(kMaxBcopy, &st);
  if (dest == nullptr) return st;
  const size_t length = pack(dest, arg);
  // A packer that wrote past max_bcopy has already corrupted memory: stop here.
  TORUS_ASSERT(length <= kMaxBcopy);
  queue_.commit(id, length);
  after_enqueue();
  return Status::Ok;
}

unsigned SelfIface::progress() {
  armed_ = false;
  // Most calls find nothing, and return before the delivery loop's register saves.
  if (queue_.empty()) return 0;
  return deliver_queued();
}

unsigned SelfIface::deliver_queued() {
  // Only what was queued on entry: a handler that sends to itself must not make this call
  // deliver forever.
  const size_t n = queue_.records();
  for (size_t i = 0; i < n; ++i) {
    queue_.pop([this](tl::AmId id, const void* data, size_t length) {
      const Handler& h = handlers_[id];
      if (h.func != nullptr) {
        h.func(h.arg, data, length);
      } else if ((warned_ids_ & (1u << id)) == 0) {
        warned_ids_ |= 1u << id;
        TORUS_WARN("self: dropped an active message with id %u: no handler set", id);
      }
    });
  }
  return static_cast<unsigned>(n);
}

Status SelfIface::arm() {
  if (!queue_.empty()) return Status::NoResource;
  uint64_t count = 0;
  // Clear a stale wake-up so the caller's poll does not return at once; EAGAIN = nothing.
  if (::read(event_fd_, &count, sizeof count) < 0 && errno != EAGAIN)
    TORUS_WARN("self: read(eventfd) failed: %s", std::strerror(errno));
  armed_ = true;
  return Status::Ok;
}

Result<std::unique_ptr<tl::MemRegion>> SelfIface::mem_register(void* addr, size_t length,
                                                                uint32_t access) {
  constexpr uint32_t kAll = tl::kAccessRead | tl::kAccessWrite | tl::kAccessAtomic;
  if (access == 0 || (access & ~kAll) != 0)
    return make_error(Status::InvalidParam,
                      "self: mem_register: bad access mask " + std::to_string(access));
  const auto base = reinterpret_cast<uintptr_t>(addr);
  if ((addr == nullptr && length != 0) || base + length < base)
    return make_error(Status::InvalidParam, "self: mem_register: bad range");
  Result<uint64_t> secret = secrets_.next();
  if (!secret) return secret.error();
  const RegEntry entry{base, length, access, *secret};
  const uint64_t region_id = regs_->next_id++;
  regs_->regions.emplace(region_id, entry);
  return std::unique_ptr<tl::MemRegion>(
      std::make_unique<SelfMemRegion>(regs_, iface_id_, region_id, entry));
}

Status SelfIface::resolve(std::span<const std::byte> rkey, uint64_t remote_addr, size_t length,
                          uint32_t right, std::byte** remote) const noexcept {
  if (rkey.size() != sizeof(PackedRkey)) {
    TORUS_DEBUG("self: refused an rkey of %zu bytes", rkey.size());
    return Status::AccessDenied;
  }
  PackedRkey key;
  std::memcpy(&key, rkey.data(), sizeof key);
  const auto it = regs_->regions.find(key.region_id);
  if (key.iface_id != iface_id_ || it == regs_->regions.end() ||
      it->second.secret != key.secret) {
    TORUS_DEBUG("self: refused a stale or forged rkey (region %llu)",
                static_cast<unsigned long long>(key.region_id));
    return Status::AccessDenied;
  }
  const RegEntry& r = it->second;
  // Written so that no sum can wrap: offset first, then the room left after it.
  if ((r.access & right) == 0 || remote_addr < r.base || remote_addr - r.base > r.length ||
      length > r.length - (remote_addr - r.base)) {
    TORUS_DEBUG("self: refused %zu bytes at 0x%llx (region 0x%llx+%zu, access %u, need %u)",
                length, static_cast<unsigned long long>(remote_addr),
                static_cast<unsigned long long>(r.base), r.length, r.access, right);
    return Status::AccessDenied;
  }
  *remote = reinterpret_cast<std::byte*>(remote_addr);
  return Status::Ok;
}

// memmove, not memcpy: both sides live in this process and may overlap.
Status SelfEndpoint::get_zcopy(std::span<std::byte> local, uint64_t remote_addr,
                               std::span<const std::byte> rkey, tl::Completion*) {
  std::byte* remote = nullptr;
  const Status st = iface_.resolve(rkey, remote_addr, local.size(), tl::kAccessRead, &remote);
  if (st == Status::Ok && !local.empty()) std::memmove(local.data(), remote, local.size());
  return st;
}

Status SelfEndpoint::put_zcopy(std::span<const std::byte> local, uint64_t remote_addr,
                               std::span<const std::byte> rkey, tl::Completion*) {
  std::byte* remote = nullptr;
  const Status st = iface_.resolve(rkey, remote_addr, local.size(), tl::kAccessWrite, &remote);
  if (st == Status::Ok && !local.empty()) std::memmove(remote, local.data(), local.size());
  return st;
}

}  // namespace torus::self
