// The byte stream to a PMI server: the inherited PMI_FD or a TCP connection to PMI_PORT.
// Blocking reads and writes; the launcher closes the stream when it dies, so every read ends
// (EOF becomes ConnectionReset). Not thread-safe: one client owns it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "core/base/status.h"
#include "mpi_shim/bootstrap/outcome.h"

namespace torus::boot {

class PmiConn final {
 public:
  // Adopts an inherited descriptor (PMI_FD="6"); `origin` names it in messages.
  static Result<std::unique_ptr<PmiConn>> adopt_fd(std::string_view fd_text, std::string origin);
  // Connects to "host:port" (PMI_PORT).
  static Result<std::unique_ptr<PmiConn>> connect_port(std::string_view host_port);

  // Owns fd from here on.
  PmiConn(int fd, std::string origin) : fd_(fd), origin_(std::move(origin)) {}
  ~PmiConn();
  PmiConn(const PmiConn&) = delete;
  PmiConn& operator=(const PmiConn&) = delete;

  Outcome write_all(std::string_view data);
  // One line without its "\n".
  Result<std::string> read_line();
  Result<std::string> read_exact(size_t n);
  // Blocks until the server closes the stream (after an abort) or `seconds` pass.
  void wait_for_close(int seconds);
  const std::string& origin() const noexcept { return origin_; }

 private:
  // Appends what one read() returns to buf_.
  Outcome fill();

  int fd_;
  std::string origin_;
  std::string buf_;  // received, not yet consumed
};

}  // namespace torus::boot
