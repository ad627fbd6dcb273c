// The tcp iface: listening sockets on the chosen interfaces, the epoll set behind
// event_fd(), the peers (one connection per remote worker, shared by all endpoints to it),
// the handshake, the frame parser and the software get/put target.
#pragma once

#include <sys/epoll.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>

#include "transports/tcp/tcp_auth.h"
#include "transports/tcp/tcp_conn.h"
#include "transports/tcp/tcp_netif.h"
#include "transports/tcp/tcp_region.h"
#include "transports/tcp/tcp_rma.h"
#include "transports/transport.h"

namespace torus::tcp {

struct Settings {
  std::string ifaces = "all";       // TORUS_TCP_IFACES, else TORUS_NET_DEVICES
  uint64_t sndbuf = 0;              // 0: the kernel's autotuning
  uint64_t rcvbuf = 0;
  double keepalive_s = 10;          // <= 0 or inf: off
  std::string job_key;              // TORUS_JOB_KEY
  // Bulk connections per peer besides the main one (TORUS_TCP_BULK_CONNS): a get or put of
  // at least stripe_min bytes is split over all of them, so several kernel copies run at
  // once. Dialed on the first such transfer. 0: everything on the main connection.
  unsigned bulk_conns = 1;
  uint64_t stripe_min = 512 * 1024;  // TORUS_TCP_STRIPE_MIN
  bool stripe_local = false;         // stripe within the host too (an explicit stripe_min)
  std::string congestion = "auto";   // TORUS_TCP_CONGESTION: auto, system or a name
};

class TcpIface final : public tl::Iface {
 public:
  static Result<std::unique_ptr<TcpIface>> open(const tl::IfaceParams& params,
                                                const Settings& settings);
  TcpIface(const tl::IfaceParams& params, const Settings& settings);
  ~TcpIface() override;
  TcpIface(const TcpIface&) = delete;
  TcpIface& operator=(const TcpIface&) = delete;

  const tl::IfaceAttr& attributes() const override { return attr_; }
  std::span<const std::byte> address() const override { return address_; }
  bool is_reachable(std::span<const std::byte> peer_address, std::string* why) const override;
  Result<std::unique_ptr<tl::Endpoint>> connect(std::span<const std::byte> peer_address) override;
  void set_am_handler(tl::AmId id, tl::AmHandler handler, void* arg) override;
  void set_error_handler(tl::ErrorHandler handler, void* arg) override;
  unsigned progress() override;
  int event_fd() const override { return epoll_fd_; }
  [[nodiscard]] Status arm() override;
  Result<std::unique_ptr<tl::MemRegion>> mem_register(void* addr, size_t length,
                                                      uint32_t access) override;

  // For endpoints: queue or write a frame (dialing first if the peer has no socket).
  // `borrowed` payloads must stay valid until the frame is written (get/put operations).
  // With `comp` (am_zcopy): InProgress when the borrowed payload had to be queued, and comp
  // fires once it is written.
  [[nodiscard]] Status send_frame(Peer& peer, std::span<const std::byte> head,
                                  std::span<const std::byte> payload, bool borrowed,
                                  tl::Completion* comp = nullptr);
  // Active messages are written to the kernel at once or not taken (NoResource, dialing if
  // needed): a message the transport merely queued would need the sender's progress to
  // arrive, and a sender whose send "completed" may never call progress again.
  [[nodiscard]] Status ready_to_send(Peer& peer);
  // Room for `bytes` more copied payload on this peer (back-pressure), dialing if needed.
  [[nodiscard]] Status reserve(Peer& peer, size_t bytes);
  // Software get (into local) or put (from local) of len bytes at the peer's remote_addr
  // (tcp_rma.cpp): one request on the main connection, or, from stripe_min up, pieces on
  // it and on the bulk connections that are ready. InProgress: comp fires once every piece
  // is answered (with the first error, if any). Any other status: comp never fires.
  [[nodiscard]] Status rma(Peer& peer, bool is_get, std::byte* local, size_t len,
                           uint64_t remote_addr, std::span<const std::byte> rkey,
                           tl::Completion* comp);
  void forget_endpoint(TcpEndpoint* ep);
  // Sockets past their handshake, bulk ones included (tests and diagnostics).
  size_t ready_connections() const noexcept;
  std::span<std::byte> scratch() noexcept { return scratch_; }

 private:
  std::optional<Error> setup();
  Socket* new_socket(int fd, bool outbound, std::string describe);
  Status dial(Peer& peer);
  void accept_all(int listen_fd);
  void on_event(Socket* s, uint32_t events);
  unsigned poll_direct(Socket* s);
  // epoll_wait and the housekeeping, kept out of progress() so that an idle iface's poll
  // saves no registers.
  [[gnu::noinline]] unsigned poll_events();
  bool read_socket(Socket* s);  // false when the socket was closed
  bool parse_frames(Socket* s);
  bool handle_handshake(Socket* s);
  void handle_frame(Socket* s, const ParsedFrame& f, const std::byte* payload);
  bool feed_sink(Socket* s, const std::byte* data, size_t len);
  void finish_sink(Socket* s);
  bool flush_socket(Socket* s);  // writes handshake bytes and queued frames
  void set_want_write(Socket* s, bool want);
  void make_active(Peer& peer, Socket* s);
  // Closes a socket; `why` is logged once (malformed or refused peers) unless empty.
  void close_socket(Socket* s, Status status, const std::string& why);
  // A send or receive failed with err: the connection is lost (ConnectionReset).
  void lose_socket(Socket* s, int err, const char* call);
  // Fails a pair; a bulk lane with pieces in flight fails its whole pair, an idle one is
  // given up alone (give_up_lane) and large transfers stay on the other connections.
  void fail_peer(Peer& peer, Status status);
  void give_up_lane(Peer& lane, Status status);
  void drop_link(Peer& peer, Status status, std::vector<tl::Completion*>* comps);
  void settle(Peer& peer);  // fires flush completions when the peer went quiet
  void tune_socket(int fd) const;
  // Once the connection is up (both addresses known): whether it stays within the host, and
  // TORUS_TCP_CONGESTION.
  void on_connected(Socket* s);
  std::shared_ptr<Peer> shared_of(Peer& peer);
  std::shared_ptr<Peer> lane_of(const std::shared_ptr<Peer>& root, unsigned lane);  // creates
  void open_lanes(Peer& root);  // dials the bulk lanes that have no connection yet
  [[nodiscard]] Status rma_one(Peer& lane, bool is_get, std::byte* local, size_t len,
                               uint64_t remote_addr, std::span<const std::byte> rkey,
                               tl::Completion* comp);

  tl::IfaceParams params_;
  Settings settings_;
  MacKey key_;
  tl::IfaceAttr attr_{};
  std::vector<std::byte> address_;
  IfaceAddress self_;
  std::vector<NetIf> netifs_;
  boost::asio::io_context io_;
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> listeners_;
  int epoll_fd_ = -1;
  std::map<Socket*, std::unique_ptr<Socket>> sockets_;  // every open socket
  std::vector<std::unique_ptr<Socket>> graveyard_;  // closed during this progress()
  std::map<uint64_t, std::shared_ptr<Peer>> peers_;
  RegionTable regions_;
  struct Handler {
    tl::AmHandler fn = nullptr;
    void* arg = nullptr;
  };
  std::array<Handler, tl::kMaxAmId> handlers_{};
  tl::ErrorHandler error_handler_ = nullptr;
  void* error_arg_ = nullptr;
  std::vector<std::byte> scratch_;  // am_bcopy packs here
  unsigned polls_ = 0;
  int64_t last_idle_poll_ns_ = 0;  // coarse clock: when an iface without sockets last looked
  bool congestion_warned_ = false;
  uint64_t reads_ = 0;  // recv() calls that returned data
  unsigned refused_logged_ = 0;
  std::vector<std::shared_ptr<Peer>> to_settle_;
  std::vector<std::unique_ptr<StripeGroup>> stripes_;  // every group, busy or free
  std::vector<StripeGroup*> free_stripes_;
};

}  // namespace torus::tcp
