// The tcp iface: setup (interfaces, listeners, address, costs), endpoints, progress, the
// socket lifecycle and peer failure. Handshake: tcp_handshake.cpp; receive path: tcp_rx.cpp;
// send path: tcp_tx.cpp.
#include "transports/tcp/tcp_iface.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "core/base/coarse_clock.h"
#include "core/base/log.h"
#include "transports/host_identity.h"
#include "transports/tcp/tcp_endpoint.h"

namespace torus::tcp {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// epoll data of listeners: the fd with the top bit set (user-space pointers never have it).
constexpr uint64_t kListenerTag = 1ull << 63;
constexpr size_t kRecvBuffer = 256 * 1024;
// Unauthenticated sockets are closed after this long, so a stranger cannot hold them open.
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
// An iface with no connection polls its listeners only every this many progress() calls,
// and then only once a coarse clock tick (kIdleListenNs) has passed since it last looked:
// torus opens tcp next to shm, and an idle tcp iface must not tax the shm fast path. At
// every 16th poll its epoll_wait cost shm's 8-byte ping-pong 9 % (0.356 against 0.326 us
// without tcp, medians of 5 interleaved runs); at every 1024th (some 30 000 system calls a
// second) MPI's mean 1-256 B latency between far vCPUs still read 11-15 % above TORUS_TLS=^tcp
// (0.44 against 0.39 us at 8 B: the median held, the calls landed in the tail). A first
// connection from another host now waits up to a tick or two to be accepted.
constexpr unsigned kIdlePollEvery = 1024;
constexpr int64_t kIdleListenNs = 1'000'000;

tcp::endpoint to_endpoint(const NetAddr& a) {
  if (a.family == 4) {
    asio::ip::address_v4::bytes_type b;
    std::memcpy(b.data(), a.bytes, 4);
    return {asio::ip::address_v4(b), a.port};
  }
  asio::ip::address_v6::bytes_type b;
  std::memcpy(b.data(), a.bytes, 16);
  return {asio::ip::address_v6(b), a.port};
}

std::string describe_sockaddr(const sockaddr_storage& ss) {
  NetAddr a;
  if (ss.ss_family == AF_INET) {
    const auto* sin = reinterpret_cast<const sockaddr_in*>(&ss);
    a.family = 4;
    std::memcpy(a.bytes, &sin->sin_addr, 4);
    a.port = ntohs(sin->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    a.family = 6;
    std::memcpy(a.bytes, &sin6->sin6_addr, 16);
    a.port = ntohs(sin6->sin6_port);
  } else {
    return "?";
  }
  return a.to_string();
}

}  // namespace

TcpIface::TcpIface(const tl::IfaceParams& params, const Settings& settings)
    : params_(params), settings_(settings), key_(derive_key(settings.job_key)) {
  params_.config = nullptr;  // not kept: the iface may outlive the caller's config
}

Result<std::unique_ptr<TcpIface>> TcpIface::open(const tl::IfaceParams& params,
                                                 const Settings& settings) {
  auto iface = std::make_unique<TcpIface>(params, settings);
  if (auto err = iface->setup()) return std::move(*err);
  return iface;
}

std::optional<Error> TcpIface::setup() {
  auto host = tl::host_identity();
  if (!host) return (host.error());
  auto ifs = list_interfaces(settings_.ifaces);
  if (!ifs) return (ifs.error());
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0)
    return (make_error(Status::IoError,
                                std::string("epoll_create1: ") + std::strerror(errno)));
  self_.worker_uid = params_.worker_uid;
  self_.boot_id = host->boot_id;
  self_.net_ns = host->net_ns;
  for (NetIf& n : *ifs) {
    boost::system::error_code ec;
    auto acc = std::make_unique<tcp::acceptor>(io_);
    const tcp::endpoint ep = to_endpoint(n.addr);
    acc->open(ep.protocol(), ec);
    if (!ec && n.addr.family == 6) acc->set_option(asio::ip::v6_only(true), ec);
    if (!ec) acc->bind(ep, ec);
    if (!ec) acc->listen(asio::socket_base::max_listen_connections, ec);
    if (!ec) acc->non_blocking(true, ec);
    if (ec) {
      // An address may be unusable (IPv6 still in duplicate detection, ...): skip it.
      TORUS_DEBUG("tcp: not listening on %s (%s): %s", n.name.c_str(),
                  n.addr.to_string().c_str(), ec.message().c_str());
      continue;
    }
    n.addr.port = acc->local_endpoint(ec).port();
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenerTag | static_cast<uint64_t>(acc->native_handle());
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, acc->native_handle(), &ev) != 0)
      return (make_error(Status::IoError,
                                  std::string("epoll_ctl: ") + std::strerror(errno)));
    self_.listen.push_back(n.addr);
    netifs_.push_back(n);
    listeners_.push_back(std::move(acc));
  }
  if (listeners_.empty())
    return (make_error(Status::Unreachable,
                                "tcp: could not listen on any interface (TORUS_TCP_IFACES=\"" +
                                    settings_.ifaces + "\")"));
  address_ = pack_address(self_);
  scratch_.resize(kMaxAmPayload);

  // Costs: loopback is a memory copy through the kernel; a NIC is bound by its link. Real
  // NICs get their advertised speed; virtual ones (speed unknown) are taken as 10 Gb/s.
  uint64_t nic_Bps = 0;
  bool have_nic = false;
  for (const NetIf& n : netifs_)
    if (!n.addr.is_loopback()) {
      have_nic = true;
      nic_Bps = std::max(nic_Bps, n.speed_Bps);
    }
  if (have_nic && nic_Bps == 0) nic_Bps = 1250000000ull;
  attr_.caps.am_short = true;
  attr_.caps.am_bcopy = true;
  attr_.caps.am_zcopy = true;
  attr_.caps.get_zcopy = true;
  attr_.caps.put_zcopy = true;
  attr_.caps.connect_to_iface = true;
  attr_.limits.max_short = 1024;
  attr_.limits.max_bcopy = kMaxAmPayload;
  attr_.limits.max_zcopy = kMaxAmPayload;
  attr_.limits.max_iov = 1;
  // Rendezvous moves large messages in 1 MiB gets, pipelined on the connection: the pieces
  // stay cache-sized on both ends (4 MiB at once streamed ~10 % slower on loopback here:
  // medians of 5 interleaved runs, 2.63 vs 2.95 GB/s). The wire still accepts up to
  // kMaxRmaLength from a peer.
  constexpr size_t kRmaPiece = 1 << 20;
  attr_.limits.max_get = kRmaPiece;
  attr_.limits.max_put = kRmaPiece;
  attr_.limits.seg_size = kMaxAmPayload;
  // Loopback's "link" is the kernel's copy between socket buffers.
  const double link = have_nic ? static_cast<double>(nic_Bps) : 4e9;
  // Eager copies the payload twice more than rendezvous does (into our send buffer, out of
  // the receiver's), each at about memcpy speed; a software get costs a round trip before
  // the data flows. With these, eager wins up to ~100-250 KiB, where the peers' tcp
  // paths switch too.
  constexpr double kCopyBps = 10e9;
  const double eager_Bps = 1.0 / (1.0 / link + 2.0 / kCopyBps);
  attr_.am_cost = {have_nic ? 15000.0 : 5000.0, 1500.0, eager_Bps, false};
  attr_.rma_cost = {have_nic ? 30000.0 : 10000.0, 1500.0, link, false};
  attr_.mem_types = tl::mem_type_bit(tl::MemType::Host);
  attr_.reach = tl::Reach::Network;
  attr_.rkey_size = kRkeySize;
  std::string where;
  for (const NetIf& n : netifs_) where += " " + n.name + "=" + n.addr.to_string();
  TORUS_DEBUG("tcp: worker %016llx listening on%s",
              static_cast<unsigned long long>(params_.worker_uid), where.c_str());
  return std::nullopt;
}

TcpIface::~TcpIface() {
  // Endpoints are gone (they must not outlive the iface); peers may still be referenced by
  // nothing but this table.
  for (auto& [uid, peer] : peers_) {
    peer->active = nullptr;
    peer->dialing = nullptr;
    for (auto& l : peer->lanes) {
      l->active = nullptr;
      l->dialing = nullptr;
    }
  }
  for (const auto& [raw, s] : sockets_)
    if (s->fd >= 0) ::close(s->fd);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

bool TcpIface::is_reachable(std::span<const std::byte> peer_address, std::string* why) const {
  IfaceAddress pa;
  if (!parse_address(peer_address, &pa, why)) return false;
  return choose_address(self_, netifs_, pa, why) >= 0;
}

Result<std::unique_ptr<tl::Endpoint>> TcpIface::connect(std::span<const std::byte> peer_address) {
  IfaceAddress pa;
  std::string why;
  if (!parse_address(peer_address, &pa, &why)) return make_error(Status::InvalidParam, why);
  if (pa.worker_uid == self_.worker_uid)
    return make_error(Status::Unreachable, "tcp: an endpoint to its own worker (use self)");
  const int which = choose_address(self_, netifs_, pa, &why);
  if (which < 0) return make_error(Status::Unreachable, why);
  std::shared_ptr<Peer>& peer = peers_[pa.worker_uid];
  if (!peer) {
    peer = std::make_shared<Peer>();
    peer->uid = pa.worker_uid;
  }
  if (!peer->have_dial_addr) {
    peer->dial_addr = pa.listen[static_cast<size_t>(which)];
    peer->have_dial_addr = true;
  }
  return std::unique_ptr<tl::Endpoint>(std::make_unique<TcpEndpoint>(*this, peer));
}

void TcpIface::forget_endpoint(TcpEndpoint* ep) {
  auto& eps = ep->peer().endpoints;
  eps.erase(std::remove(eps.begin(), eps.end(), ep), eps.end());
}

void TcpIface::set_am_handler(tl::AmId id, tl::AmHandler handler, void* arg) {
  TORUS_ASSERT(id < tl::kMaxAmId);
  handlers_[id] = Handler{handler, arg};
}

void TcpIface::set_error_handler(tl::ErrorHandler handler, void* arg) {
  error_handler_ = handler;
  error_arg_ = arg;
}

Result<std::unique_ptr<tl::MemRegion>> TcpIface::mem_register(void* addr, size_t length,
                                                              uint32_t access) {
  if ((addr == nullptr && length != 0) ||
      (access & ~(tl::kAccessRead | tl::kAccessWrite | tl::kAccessAtomic)) != 0)
    return make_error(Status::InvalidParam, "tcp mem_register: bad address or access bits");
  const auto key = regions_.add(reinterpret_cast<uintptr_t>(addr), length, access);
  return std::unique_ptr<tl::MemRegion>(
      std::make_unique<TcpRegion>(regions_, addr, length, key));
}

void TcpIface::tune_socket(int fd) const {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (settings_.sndbuf > 0) {
    const int v = static_cast<int>(std::min<uint64_t>(settings_.sndbuf, 1u << 30));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
  }
  if (settings_.rcvbuf > 0) {
    const int v = static_cast<int>(std::min<uint64_t>(settings_.rcvbuf, 1u << 30));
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
  }
  if (settings_.keepalive_s > 0 && std::isfinite(settings_.keepalive_s)) {
    // Keepalive finds a dead host on an idle link; TCP_USER_TIMEOUT bounds how long unacked
    // data may wait (a pulled cable would otherwise retransmit for ~15 minutes).
    const int secs = std::max(1, static_cast<int>(std::lround(settings_.keepalive_s)));
    const int count = 3;
    const unsigned timeout_ms = static_cast<unsigned>(secs) * (count + 1) * 1000u;
    ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &secs, sizeof(secs));
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &secs, sizeof(secs));
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
    ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &timeout_ms, sizeof(timeout_ms));
  }
}

void TcpIface::on_connected(Socket* s) {
  s->local = connection_is_local(s->fd);
  const std::string& want = settings_.congestion;
  if (want == "system") return;
  const bool automatic = want == "auto";
  // Within the host there is no bottleneck queue to pace for, and bbr's pacing rate, set
  // from its own bandwidth estimate, held torus_perf tag_bw at 256 KiB to 3.1-3.7 GB/s in
  // most runs (7.7 in the others); reno does not pace: 8.1-8.4 in every run.
  if (automatic && !s->local) return;
  const char* name = automatic ? "reno" : want.c_str();
  if (::setsockopt(s->fd, IPPROTO_TCP, TCP_CONGESTION, name, std::strlen(name)) == 0) return;
  if (automatic || congestion_warned_) {
    TORUS_DEBUG("tcp: TCP_CONGESTION %s: %s", name, std::strerror(errno));
    return;
  }
  congestion_warned_ = true;
  TORUS_WARN("tcp: TORUS_TCP_CONGESTION=%s: %s; keeping the system's choice (accepted: auto, "
             "system, or an algorithm listed in net.ipv4.tcp_allowed_congestion_control)",
             name, std::strerror(errno));
}

Socket* TcpIface::new_socket(int fd, bool outbound, std::string describe) {
  auto s = std::make_unique<Socket>();
  s->fd = fd;
  s->outbound = outbound;
  s->describe = std::move(describe);
  s->rbuf.resize(kRecvBuffer);
  s->born = std::chrono::steady_clock::now();
  Socket* raw = s.get();
  epoll_event ev{};
  ev.events = EPOLLIN | (outbound ? EPOLLOUT : 0u);
  raw->want_write = outbound;
  ev.data.ptr = raw;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    TORUS_WARN("tcp: epoll_ctl(%s): %s", raw->describe.c_str(), std::strerror(errno));
    ::close(fd);
    return nullptr;
  }
  sockets_.emplace(raw, std::move(s));
  return raw;
}

void TcpIface::set_want_write(Socket* s, bool want) {
  if (s->want_write == want || s->state == SockState::Closed) return;
  epoll_event ev{};
  ev.events = EPOLLIN | (want ? EPOLLOUT : 0u);
  ev.data.ptr = s;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, s->fd, &ev);
  s->want_write = want;
}

Status TcpIface::dial(Peer& peer) {
  if (!peer.have_dial_addr) {
    // A peer known only from its own connection, which failed: we cannot call back.
    return Status::Unreachable;
  }
  boost::system::error_code ec;
  tcp::socket sock(io_);
  const tcp::endpoint ep = to_endpoint(peer.dial_addr);
  sock.open(ep.protocol(), ec);
  if (!ec) sock.non_blocking(true, ec);
  if (ec) {
    TORUS_WARN("tcp: socket for %s: %s", peer.dial_addr.to_string().c_str(),
               ec.message().c_str());
    fail_peer(peer, Status::IoError);
    return Status::IoError;
  }
  tune_socket(sock.native_handle());
  sock.connect(ep, ec);
  const bool pending = ec == asio::error::in_progress || ec == asio::error::would_block;
  if (ec && !pending) {
    TORUS_WARN("tcp: connect to %s: %s", peer.dial_addr.to_string().c_str(),
               ec.message().c_str());
    fail_peer(peer, Status::Unreachable);
    return Status::Unreachable;
  }
  Socket* s = new_socket(sock.release(), true, peer.dial_addr.to_string());
  if (s == nullptr) {
    fail_peer(peer, Status::IoError);
    return Status::IoError;
  }
  if (!pending) on_connected(s);
  s->state = pending ? SockState::Dialing : SockState::AwaitChallenge;
  s->peer = shared_of(peer);
  s->nonce = random_u64();
  peer.dialing = s;
  return Status::Ok;
}

void TcpIface::accept_all(int listen_fd) {
  for (;;) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        TORUS_WARN("tcp: accept: %s", std::strerror(errno));
      return;
    }
    tune_socket(fd);
    Socket* s = new_socket(fd, false, describe_sockaddr(ss));
    if (s == nullptr) continue;
    on_connected(s);
    s->state = SockState::AwaitHello;
    s->nonce = random_u64();
    Challenge c{kMagic, kVersion, 0, self_.worker_uid, s->nonce};
    const auto* p = reinterpret_cast<const std::byte*>(&c);
    s->hs_out.assign(p, p + sizeof(c));
    flush_socket(s);
  }
}

void TcpIface::make_active(Peer& peer, Socket* s) {
  s->state = SockState::Ready;
  peer.awaiting_incoming = false;
  if (peer.dialing != nullptr && peer.dialing != s) close_socket(peer.dialing, Status::Ok, "");
  peer.dialing = nullptr;
  peer.active = s;
  if (!peer.txq.empty()) flush_socket(s);
  if (peer.wants_lanes && peer.root == nullptr && s->state == SockState::Ready) open_lanes(peer);
}

void TcpIface::close_socket(Socket* s, Status status, const std::string& why) {
  if (s->state == SockState::Closed) return;
  if (!why.empty()) {
    // Strangers and broken peers are logged, but a flood of them must not flood the log.
    if (refused_logged_ < 16)
      TORUS_WARN("tcp: closing connection %s: %s", s->describe.c_str(), why.c_str());
    else if (refused_logged_ == 16)
      TORUS_WARN("tcp: more connections refused; not logging them any more");
    ++refused_logged_;
  }
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, s->fd, nullptr);
  ::close(s->fd);
  s->fd = -1;
  s->state = SockState::Closed;
  std::shared_ptr<Peer> peer = std::move(s->peer);
  // Freed at the end of progress(): epoll events of this round may still name it.
  if (auto it = sockets_.find(s); it != sockets_.end()) {
    graveyard_.push_back(std::move(it->second));
    sockets_.erase(it);
  }
  if (!peer) return;
  if (peer->active == s) {
    peer->active = nullptr;
    if (status != Status::Ok) fail_peer(*peer, status);
  } else if (peer->dialing == s) {
    peer->dialing = nullptr;
    if (status != Status::Ok && peer->active == nullptr) fail_peer(*peer, status);
  }
}

void TcpIface::lose_socket(Socket* s, int err, const char* call) {
  // A reset or broken pipe is the peer going away, which the error callback reports. A
  // timeout or an unreachable network says something about the link that the status alone
  // hides (TCP_USER_TIMEOUT under loss, a cut cable), so it is worth one line.
  std::string why;
  if (err != ECONNRESET && err != EPIPE) why = std::string(call) + ": " + std::strerror(err);
  close_socket(s, Status::ConnectionReset, why);
}

void TcpIface::drop_link(Peer& peer, Status status, std::vector<tl::Completion*>* comps) {
  peer.failed = true;
  peer.failure = status;
  if (peer.active != nullptr) close_socket(peer.active, Status::Ok, "");
  if (peer.dialing != nullptr) close_socket(peer.dialing, Status::Ok, "");
  for (const TxEntry& e : peer.txq)
    if (e.comp != nullptr) comps->push_back(e.comp);
  peer.txq.clear();
  peer.owned_bytes = 0;
  for (const RmaOp& op : peer.ops)
    if (op.comp != nullptr) comps->push_back(op.comp);
  peer.ops.clear();
}

void TcpIface::fail_peer(Peer& peer, Status status) {
  if (peer.root != nullptr) {
    // A lane with pieces in flight fails the whole pair: those pieces' transfers would wait
    // for ever. A lane carrying nothing (its dial or handshake failed, or an idle connection
    // was lost) costs only bandwidth.
    if (peer.ops.empty() && peer.txq.empty() && !peer.root->failed)
      return give_up_lane(peer, status);
    return fail_peer(*peer.root, status);
  }
  if (peer.failed) return;
  // Keep the peer alive through the callbacks below, which may destroy endpoints.
  std::shared_ptr<Peer> keep;
  if (auto it = peers_.find(peer.uid); it != peers_.end() && it->second.get() == &peer) {
    keep = it->second;
    peers_.erase(it);
  }
  // Every connection is closed and every queue emptied before a completion runs: they may
  // issue new operations, which must find the pair failed.
  std::vector<tl::Completion*> comps;
  drop_link(peer, status, &comps);
  for (const auto& l : peer.lanes) drop_link(*l, status, &comps);
  for (tl::Completion* c : comps) c->func(c, status);
  std::vector<tl::Completion*> flushes;
  flushes.swap(peer.flushes);
  for (tl::Completion* c : flushes) c->func(c, status);
  const std::vector<TcpEndpoint*> eps = peer.endpoints;
  for (TcpEndpoint* ep : eps) {
    if (std::find(peer.endpoints.begin(), peer.endpoints.end(), ep) == peer.endpoints.end())
      continue;  // destroyed by an earlier callback
    if (error_handler_ != nullptr) error_handler_(error_arg_, ep, status);
  }
}

void TcpIface::give_up_lane(Peer& lane, Status status) {
  if (lane.failed) return;
  // A dial or handshake that failed says something about the network or the peer's
  // configuration worth a line; a lost idle connection is most likely the peer leaving.
  if (status != Status::ConnectionReset)
    TORUS_WARN("tcp: bulk connection %u to worker %016llx failed (%s); large transfers to it "
               "use the other connections",
               lane.lane, static_cast<unsigned long long>(lane.uid), status_string(status));
  std::vector<tl::Completion*> none;  // nothing is queued on it
  drop_link(lane, status, &none);
}

void TcpIface::settle(Peer& lane) {
  Peer& peer = lane.root != nullptr ? *lane.root : lane;  // flushes wait on the main Peer
  if (!peer.quiet() || peer.flushes.empty()) return;
  std::vector<tl::Completion*> flushes;
  flushes.swap(peer.flushes);
  for (tl::Completion* c : flushes) c->func(c, Status::Ok);
}

void TcpIface::on_event(Socket* s, uint32_t events) {
  if (s->state == SockState::Closed) return;
  if (s->state == SockState::Dialing) {
    if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) == 0) return;
    int err = 0;
    socklen_t len = sizeof(err);
    ::getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      close_socket(s, Status::Unreachable,
                   std::string("connect: ") + std::strerror(err));
      return;
    }
    s->state = SockState::AwaitChallenge;
    set_want_write(s, false);
    on_connected(s);
  }
  if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0 && !read_socket(s)) return;
  if ((events & EPOLLOUT) != 0 && s->state != SockState::Closed) flush_socket(s);
}

unsigned TcpIface::progress() {
  ++polls_;
  if (polls_ % kIdlePollEvery != 0) {
    if (sockets_.empty()) return 0;
    // A single connection with nothing queued to write is polled by reading it: recv()
    // brings the data in the same call that finds it, where epoll_wait() would only say
    // it is there, one more system call before the recv().
    if (sockets_.size() == 1) {
      Socket* s = sockets_.begin()->first;
      if (s->state == SockState::Ready && !s->want_write) return poll_direct(s);
    }
  } else if (sockets_.empty()) {
    const int64_t now = coarse_now_ns();
    if (now - last_idle_poll_ns_ < kIdleListenNs) return 0;
    last_idle_poll_ns_ = now;
  }
  return poll_events();
}

unsigned TcpIface::poll_events() {
  epoll_event evs[32];
  const int n = ::epoll_wait(epoll_fd_, evs, 32, 0);
  unsigned count = 0;
  for (int i = 0; i < n; ++i) {
    if ((evs[i].data.u64 & kListenerTag) != 0) {
      accept_all(static_cast<int>(evs[i].data.u64 & ~kListenerTag));
    } else {
      on_event(static_cast<Socket*>(evs[i].data.ptr), evs[i].events);
    }
    ++count;
  }
  // Housekeeping every 1024 calls, idle or not (a stranded peer may have no socket left).
  if ((polls_ & 1023) == 0) {
    const auto now = std::chrono::steady_clock::now();
    std::vector<Socket*> stale;
    for (const auto& [raw, s] : sockets_)
      if (s->state != SockState::Ready && now - s->born > kHandshakeTimeout)
        stale.push_back(raw);
    for (Socket* s : stale)
      close_socket(s, Status::Timeout, "no handshake within 10 s");
    std::vector<std::shared_ptr<Peer>> stranded;
    const auto is_stranded = [&](const Peer& p) {
      return p.awaiting_incoming && p.active == nullptr && !p.failed &&
             now - p.awaiting_since > 2 * kHandshakeTimeout;
    };
    for (const auto& [uid, peer] : peers_) {
      if (is_stranded(*peer)) stranded.push_back(peer);
      for (const auto& l : peer->lanes)
        if (is_stranded(*l)) stranded.push_back(l);
    }
    for (const auto& peer : stranded) {
      if (peer->failed) continue;  // its pair failed through an earlier one
      TORUS_WARN("tcp: worker %016llx won a simultaneous dial but never connected back",
                 static_cast<unsigned long long>(peer->uid));
      fail_peer(*peer, Status::Unreachable);
    }
  }
  graveyard_.clear();
  return count;
}

unsigned TcpIface::poll_direct(Socket* s) {
  const uint64_t before = reads_;
  read_socket(s);
  graveyard_.clear();
  return reads_ != before ? 1u : 0u;
}

Status TcpIface::arm() {
  epoll_event ev;
  return ::epoll_wait(epoll_fd_, &ev, 1, 0) > 0 ? Status::NoResource : Status::Ok;
}

}  // namespace torus::tcp
