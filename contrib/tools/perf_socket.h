// torus_perf's bootstrap: a plain POSIX TCP connection (not torus) carrying length-prefixed
// messages: worker addresses, test parameters, and per-size start/end handshakes.
// Every failure throws Fatal with the peer's host:port and the errno text.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torus::perf {

class BootstrapSocket final {
 public:
  // Client: connects to host:port, retrying refused connections until connect_timeout
  // (the server may still be starting).
  static BootstrapSocket connect_to(const std::string& host, uint16_t port,
                                    std::chrono::seconds connect_timeout);
  // Server: listens on every address at `port` and accepts one client. A zero
  // accept_timeout waits forever.
  static BootstrapSocket accept_one(uint16_t port, std::chrono::seconds accept_timeout,
                                    bool announce);

  BootstrapSocket(BootstrapSocket&& o) noexcept;
  BootstrapSocket& operator=(BootstrapSocket&&) = delete;
  BootstrapSocket(const BootstrapSocket&) = delete;
  ~BootstrapSocket();

  // Messages are a 4-byte little-endian length, then the bytes.
  void send_msg(std::span<const std::byte> data);
  void send_text(std::string_view text);
  // Waits at most `timeout` for a whole message; EOF, errors and timeouts throw Fatal.
  std::vector<std::byte> recv_msg(std::chrono::milliseconds timeout);
  std::string recv_text(std::chrono::milliseconds timeout);
  // Receives a text message and fails unless it starts with `prefix`; returns the rest.
  std::string expect(std::string_view prefix, std::chrono::milliseconds timeout);
  // False once the peer closed the connection or it broke. Never blocks, never consumes data.
  bool peer_alive();

  // The socket, for poll() next to other descriptors (never read it directly: messages
  // are framed).
  int native_fd() const noexcept { return fd_; }
  const std::string& peer_name() const noexcept { return peer_; }

 private:
  BootstrapSocket(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}
  void read_exact(std::byte* p, size_t n, std::chrono::steady_clock::time_point deadline);
  int fd_ = -1;
  std::string peer_;  // "host:port", for messages
};

}  // namespace torus::perf
