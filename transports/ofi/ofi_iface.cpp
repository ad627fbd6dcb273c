// The ofi iface: opening fabric, domain, CQ, AV and RDM endpoint; the address; attributes
// and costs; endpoints; registration. Receive buffers and the CQ loop: ofi_progress.cpp.
#include "transports/ofi/ofi_iface.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/base/config.h"
#include "core/base/log.h"
#include "core/base/pid_namespace.h"
#include "transports/ofi/ofi_cost.h"
#include "transports/ofi/ofi_endpoint.h"
#include "transports/ofi/ofi_pidfd.h"
#include "transports/ofi/ofi_shm_names.h"
#include "transports/ofi/ofi_wire.h"

namespace torus::ofi {
namespace {

Error fi_error(const char* call, int rc) {
  return make_error(rc == -FI_ENOMEM ? Status::NoMemory : Status::IoError,
                    std::string("ofi: ") + call + ": " + ofi_strerror(-rc));
}

void close_fid(fid* f) noexcept {
  if (f != nullptr) fi_close(f);
}

}  // namespace

OfiIface::OfiIface(const tl::IfaceParams& params, const Settings& settings)
    : params_(params), settings_(settings) {}

Result<std::unique_ptr<OfiIface>> OfiIface::open(const tl::IfaceParams& params,
                                                 const Settings& settings) {
  auto iface = std::make_unique<OfiIface>(params, settings);
  if (auto err = iface->setup()) return std::move(*err);
  return iface;
}

std::optional<Error> OfiIface::setup() {
  auto chosen = choose_provider(settings_.provider);
  if (!chosen) return chosen.error();
  info_ = std::move(chosen.value());
  provider_ = info_->fabric_attr->prov_name;
  fabric_name_ = info_->fabric_attr->name != nullptr ? info_->fabric_attr->name : "";

  int rc = fabric_api()->fabric(info_->fabric_attr, &fabric_, nullptr);
  if (rc != 0) return fi_error("fi_fabric", rc);
  rc = fi_domain(fabric_, info_.get(), &domain_, nullptr);
  if (rc != 0) return fi_error("fi_domain", rc);

  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_DATA;
  cq_attr.size = settings_.tx_bufs + settings_.rx_bufs + 1024;
  cq_attr.wait_obj = settings_.event_fd ? FI_WAIT_FD : FI_WAIT_NONE;
  rc = fi_cq_open(domain_, &cq_attr, &cq_, nullptr);
  if (rc != 0 && cq_attr.wait_obj != FI_WAIT_NONE) {
    // No fd to sleep on: the worker keeps polling this iface.
    TORUS_DEBUG("ofi: %s has no CQ wait fd (%s); polling only", provider_.c_str(),
                ofi_strerror(-rc));
    cq_attr.wait_obj = FI_WAIT_NONE;
    rc = fi_cq_open(domain_, &cq_attr, &cq_, nullptr);
  }
  if (rc != 0) return fi_error("fi_cq_open", rc);
  if (cq_attr.wait_obj == FI_WAIT_FD && fi_control(&cq_->fid, FI_GETWAIT, &wait_fd_) != 0)
    wait_fd_ = -1;

  fi_av_attr av_attr{};
  av_attr.type = info_->domain_attr->av_type != FI_AV_UNSPEC ? info_->domain_attr->av_type
                                                             : FI_AV_TABLE;
  rc = fi_av_open(domain_, &av_attr, &av_, nullptr);
  if (rc != 0) return fi_error("fi_av_open", rc);

  rc = fi_endpoint(domain_, info_.get(), &ep_, nullptr);
  if (rc != 0) return fi_error("fi_endpoint", rc);
  rc = fi_ep_bind(ep_, &av_->fid, 0);
  if (rc == 0) rc = fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV);
  if (rc != 0) return fi_error("fi_ep_bind", rc);

  // Active messages never exceed one segment: the largest a provider may be asked to carry.
  // Auto: as large as the provider keeps in order (fewer fragments per message), else 8 KiB,
  // an eager size every RDMA provider handles in one packet or close.
  const size_t ordered = ordered_msg_limit(provider_.c_str());
  if (settings_.seg_size == 0) settings_.seg_size = ordered != 0 ? ordered : 8192;
  settings_.seg_size = std::min<size_t>(settings_.seg_size, info_->ep_attr->max_msg_size);
  if (ordered != 0 && settings_.seg_size > ordered) {
    TORUS_DEBUG("ofi: %s keeps send order only up to %zu bytes: segments capped there",
                provider_.c_str(), ordered);
    settings_.seg_size = ordered;
  }
  multi_ = settings_.multi_recv && (info_->caps & FI_MULTI_RECV) != 0 &&
           multi_recv_usable(provider_);
  if (multi_) {
    size_t min = settings_.seg_size;
    rc = fi_setopt(&ep_->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof(min));
    if (rc != 0) multi_ = false;
  }
  if (provider_ == "shm") {
    // libfabric's shm names its region "pid:domain:endpoint" and refuses (EBUSY) a name
    // whose region exists: one left in /dev/shm by a killed process whose pid came round
    // again (pid_max is 32768 here; CI met it on 2026-12-01). The worker id makes ours unique,
    // and the pid namespace and pid in it let us remove the regions of dead processes.
    sweep_dead_shm_regions();
    const std::string name = shm_endpoint_name(params_.worker_uid);
    if (const int r = fi_setname(&ep_->fid, const_cast<char*>(name.c_str()), name.size() + 1);
        r != 0)
      TORUS_DEBUG("ofi: shm fi_setname: %s; keeping libfabric's name", ofi_strerror(-r));
  }
  rc = fi_enable(ep_);
  if (rc != 0) return fi_error("fi_enable", rc);

  mr_ctx_.domain = domain_;
  mr_ctx_.ep = ep_;
  mr_ctx_.mr_mode = info_->domain_attr->mr_mode;
  mr_ctx_.key_size = info_->domain_attr->mr_key_size;
  mr_ctx_.hmem = (info_->caps & FI_HMEM) != 0;
  registrar_ = std::make_unique<LocalRegistrar>(mr_ctx_);
  mem::RcacheConfig rc_cfg =
      params_.config != nullptr ? mem::RcacheConfig::from(*params_.config) : mem::RcacheConfig{};
  // Only this iface uses its cache, and an Iface is single-threaded (the worker serialises
  // it in multi-thread mode): no lock on a hit.
  rc_cfg.serialised_by_caller = true;
  auto cache = mem::RegCache::create(*registrar_, rc_cfg, "ofi/" + provider_);
  if (!cache) return cache.error();
  rcache_ = std::move(cache.value());
  params_.config = nullptr;  // not kept: the iface may outlive the caller's config

  mem::BufferPoolConfig pool_cfg;
  pool_cfg.buffer_size = settings_.seg_size;
  pool_cfg.buffers_per_chunk = std::min<size_t>(settings_.tx_bufs, 32);
  pool_cfg.max_buffers = settings_.tx_bufs;
  pool_cfg.access = kLocalAccess;
  auto pool = mem::BufferPool::create(pool_cfg, registrar_.get(), nullptr, "ofi-tx/" + provider_);
  if (!pool) return pool.error();
  tx_pool_ = std::move(pool.value());
  // The first chunk now: a provider that cannot register it fails the iface at open, not
  // the first send.
  auto first = tx_pool_->get();
  if (!first) return first.error();
  tx_pool_->put(first.value());
  if (auto err = setup_rx()) return err;

  std::vector<std::byte> name(256);
  size_t len = name.size();
  rc = fi_getname(&ep_->fid, name.data(), &len);
  if (rc == -FI_ETOOSMALL) {
    name.resize(len);
    rc = fi_getname(&ep_->fid, name.data(), &len);
  }
  if (rc != 0) return fi_error("fi_getname", rc);
  name_.assign(name.begin(), name.begin() + static_cast<ptrdiff_t>(len));
  pid_ns_ = pid_namespace_id();  // a pid from an address is ours only if both agree
  address_ = pack_address(params_.worker_uid, pid_ns_, static_cast<uint32_t>(::getpid()),
                          provider_, fabric_name_, std::span(name).first(len));

  // An injected message may still sit in a software provider's queue (tcp, udp and shm
  // progress manually) with no completion to tell us; a sender that then sleeps would never
  // push it out. There every AM is a send with a completion, and arm() refuses to sleep
  // until all have completed. Hardware providers hand an inject to the NIC.
  const std::string core = core_name(provider_.c_str());
  zero_length_rma_ = zero_length_rma_completes(core);
  watch_pids_ = peers_on_this_host(core);
  use_inject_ = info_->domain_attr->data_progress == FI_PROGRESS_AUTO ||
                !(core == "tcp" || core == "udp" || core == "shm");
  // am_short is injected up to the provider's size, else sent from a bounce buffer.
  const size_t inject =
      std::min<size_t>(std::max<size_t>(info_->tx_attr->inject_size, 64), 256 + sizeof(AmHeader));
  attr_.caps.am_short = inject > sizeof(AmHeader);
  attr_.caps.am_bcopy = true;
  // fi_read/fi_write only where the provider refuses a bad key and the link survives it;
  // elsewhere (tcp cuts the link, shm checks nothing) get goes by tagged messages, keys
  // checked by torus on the target (ofi_tagged.cpp).
  const bool rma_ok = rma_refusal_keeps_peer(core) && rma_keys_enforced(core);
  tagged_get_ = !rma_ok && (info_->caps & FI_TAGGED) != 0;
  next_tag_ = (static_cast<uint64_t>(params_.worker_uid) * 0x9E3779B97F4A7C15ull) >> 4;
  attr_.caps.get_zcopy =
      tagged_get_ ||
      (rma_ok && (info_->caps & (FI_RMA | FI_READ)) != 0 && rma_read_native(*info_, ep_));
  attr_.caps.put_zcopy = rma_ok && (info_->caps & (FI_RMA | FI_WRITE)) != 0;
  attr_.caps.connect_to_iface = true;
  attr_.limits.max_short = attr_.caps.am_short ? inject - sizeof(AmHeader) : 0;
  attr_.limits.max_bcopy = settings_.seg_size - sizeof(AmHeader);
  attr_.limits.max_iov = 1;
  const size_t max_rma = std::min<size_t>(info_->ep_attr->max_msg_size, size_t{1} << 30);
  attr_.limits.max_get = attr_.caps.get_zcopy ? max_rma : 0;
  attr_.limits.max_put = attr_.caps.put_zcopy ? max_rma : 0;
  attr_.limits.seg_size = settings_.seg_size;
  const ProviderCost cost = provider_cost(core_name(provider_.c_str()));
  attr_.am_cost = cost.am;
  attr_.rma_cost = cost.rma;
  attr_.mem_types = tl::mem_type_bit(tl::MemType::Host);
  if (mr_ctx_.hmem) attr_.mem_types |= tl::mem_type_bit(tl::MemType::Cuda);
  attr_.reach = tl::Reach::Network;
  attr_.rkey_size = sizeof(PackedRkey);
  TORUS_DEBUG("ofi: %s on %s: mr_mode %s, inject %zu, %s receive, wait fd %d, get by %s",
              provider_.c_str(), info_->domain_attr->name,
              mr_mode_string(info_->domain_attr->mr_mode).c_str(), inject,
              multi_ ? "multi" : "plain", wait_fd_,
              tagged_get_ ? "tagged messages" : attr_.caps.get_zcopy ? "fi_read" : "nothing");
  return std::nullopt;
}

OfiIface::~OfiIface() {
  // The endpoint first: no completion may reference buffers freed below.
  close_fid(ep_ ? &ep_->fid : nullptr);
  for (Op& op : ops_) {
    op.ref.reset();
    if (op.tx != nullptr && tx_pool_) tx_pool_->put(op.tx);  // sends that never completed
    op.tx = nullptr;
  }
  rcache_.reset();
  tx_pool_.reset();  // deregisters its chunks: before the domain goes
  close_fid(rx_mr_ ? &rx_mr_->fid : nullptr);
  close_fid(av_ ? &av_->fid : nullptr);
  close_fid(cq_ ? &cq_->fid : nullptr);
  close_fid(domain_ ? &domain_->fid : nullptr);
  close_fid(fabric_ ? &fabric_->fid : nullptr);
}

bool OfiIface::is_reachable(std::span<const std::byte> peer_address, std::string* why) const {
  ParsedAddress pa;
  if (!parse_address(peer_address, &pa, why)) return false;
  if (pa.provider != provider_ || pa.fabric != fabric_name_) {
    if (why != nullptr)
      *why = "ofi: peer uses provider " + pa.provider + " on fabric " + pa.fabric +
             ", this iface " + provider_ + " on " + fabric_name_;
    return false;
  }
  return true;
}

Result<std::unique_ptr<tl::Endpoint>> OfiIface::connect(std::span<const std::byte> peer_address) {
  std::string why;
  if (!is_reachable(peer_address, &why)) return make_error(Status::Unreachable, why);
  ParsedAddress pa;
  (void)parse_address(peer_address, &pa, nullptr);
  if (pa.worker_uid == params_.worker_uid)
    return make_error(Status::Unreachable, "ofi: an endpoint to its own worker (use self)");
  auto it = peers_.find(pa.worker_uid);
  if (it == peers_.end()) {
    fi_addr_t addr = FI_ADDR_UNSPEC;
    const int n = fi_av_insert(av_, pa.name.data(), 1, &addr, 0, nullptr);
    if (n != 1) return make_error(Status::Unreachable, "ofi: fi_av_insert refused the address");
    it = peers_.emplace(pa.worker_uid, addr).first;
  }
  auto ep = std::make_unique<OfiEndpoint>(*this, it->second);
  // A pid from another pid namespace names some other process: not watched there.
  if (watch_pids_ && pa.pid != 0 && pid_ns_ != 0 && pa.pid_ns == pid_ns_) {
    ep->pidfd = open_pidfd(static_cast<pid_t>(pa.pid));
    if (ep->pidfd < 0 && errno == ESRCH)
      return make_error(Status::Unreachable,
                        "ofi: peer process " + std::to_string(pa.pid) + " has exited");
  }
  endpoints_.insert(ep.get());
  return std::unique_ptr<tl::Endpoint>(std::move(ep));
}

void OfiIface::set_am_handler(tl::AmId id, tl::AmHandler handler, void* arg) {
  TORUS_ASSERT(id < tl::kMaxAmId);
  handlers_[id] = Handler{handler, arg};
}

void OfiIface::set_error_handler(tl::ErrorHandler handler, void* arg) {
  error_handler_ = handler;
  error_arg_ = arg;
}

Result<std::unique_ptr<tl::MemRegion>> OfiIface::mem_register(void* addr, size_t length,
                                                              uint32_t access) {
  if ((addr == nullptr && length != 0) ||
      (access & ~(tl::kAccessRead | tl::kAccessWrite | tl::kAccessAtomic)) != 0)
    return make_error(Status::InvalidParam, "ofi mem_register: bad address or access bits");
  if (tagged_get_) return register_tagged_region(addr, length, access);
  // Exactly the rights asked: the provider refuses a write to a read-only region.
  uint64_t fi_access = 0;
  if ((access & tl::kAccessRead) != 0) fi_access |= FI_REMOTE_READ;
  if ((access & (tl::kAccessWrite | tl::kAccessAtomic)) != 0) fi_access |= FI_REMOTE_WRITE;
  // A zero-length region still gets a key (that refuses every non-empty access).
  static std::byte empty;
  auto mr = register_mr(mr_ctx_, length != 0 ? addr : &empty, length != 0 ? length : 1,
                        fi_access);
  if (!mr) return mr.error();
  return std::unique_ptr<tl::MemRegion>(std::make_unique<RemoteRegion>(
      mr.value(), addr, length, (info_->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0));
}

Result<mem::RegRef> OfiIface::register_local(const void* addr, size_t len) {
  return rcache_->get(addr, len, static_cast<uint32_t>(kLocalAccess));
}

Op* OfiIface::new_op(Op::Kind kind, OfiEndpoint* ep, tl::Completion* comp) {
  Op* op;
  if (free_ops_.empty()) {
    op = &ops_.emplace_back();
  } else {
    op = free_ops_.back();
    free_ops_.pop_back();
  }
  op->kind = kind;
  op->ep = ep;
  op->comp = comp;
  op->buf = -1;
  op->tx = nullptr;
  op->probe = false;
  op->tag = 0;
  op->length = 0;
  op->refused = Status::Ok;
  if (kind != Op::Kind::Recv) ++busy_ops_;
  return op;
}

void OfiIface::free_op(Op* op) noexcept {
  if (op->kind != Op::Kind::Recv && busy_ops_ > 0) --busy_ops_;
  op->ref.reset();
  op->ep = nullptr;
  op->comp = nullptr;
  free_ops_.push_back(op);
}

mem::PoolBuffer* OfiIface::take_tx_buf() {
  auto b = tx_pool_->get();
  return b ? b.value() : nullptr;
}

void OfiIface::return_tx(Op* op) noexcept {
  if (op->tx != nullptr) tx_pool_->put(op->tx);
  op->tx = nullptr;
  free_op(op);
}

void OfiIface::forget_endpoint(OfiEndpoint* ep) noexcept {
  // Its tagged receives are taken back and will report to no one.
  cancel_tagged_recvs(ep, true);
  std::erase(failing_, ep);
  endpoints_.erase(ep);
  for (Op& op : ops_)
    if (op.ep == ep) op.ep = nullptr;
}

void OfiIface::on_eagain() {
  if (!in_progress_) (void)progress();
}

Status OfiIface::arm() {
  if (wait_fd_ < 0 || busy_ops_ > 0) return Status::NoResource;
  fid* f = &cq_->fid;
  return fi_trywait(fabric_, &f, 1) == 0 ? Status::Ok : Status::NoResource;
}

}  // namespace torus::ofi
