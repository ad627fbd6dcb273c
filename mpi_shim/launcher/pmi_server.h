// mpirun's PMI-1 server: the key-value space and barrier of one job, served over a
// socketpair per local rank (PMI_FD) and a TCP listener for remote ranks (PMI_PORT + PMI_ID,
// with Hydra's `cmd=initack pmiid=N` handshake). Speaks the wire protocol of MPICH's Hydra,
// so MPICH's own PMI client and torus's are both served.
//
// Single-threaded: everything runs on the io_context's thread. The server reports an abort
// or a misbehaving rank through Handlers and never kills anything itself.
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/status.h"
#include "mpi_shim/launcher/fd_channel.h"
#include "mpi_shim/launcher/layout.h"

namespace torus::launcher {

class PmiServer final {
 public:
  struct Handlers {
    std::function<void(int rank, int code, const std::string& message)> on_abort;
    // A rank broke the protocol (malformed line, barrier twice, ...): the job should fail.
    std::function<void(int rank, const std::string& why)> on_error;
  };

  PmiServer(boost::asio::io_context& io, const Layout& layout, std::string kvsname,
            Handlers handlers);
  ~PmiServer();
  PmiServer(const PmiServer&) = delete;
  PmiServer& operator=(const PmiServer&) = delete;

  // A socketpair for a local rank; returns the rank's end (close-on-exec: the spawner clears
  // that flag in the child and closes the fd in mpirun after the fork).
  Result<int> open_local(int rank);
  // Listens for remote ranks on bind_addr ("" = every interface); returns the port.
  Result<int> listen(const std::string& bind_addr);

  // Handles every command `rank` has already sent, without waiting.
  void drain(int rank);
  bool initialized(int rank) const { return state_[rank].initialized; }
  bool finalized(int rank) const { return state_[rank].finalized; }
  // Stops serving (closes every connection and the listener).
  void close();

 private:
  struct Conn;
  struct RankState {
    Conn* conn = nullptr;
    bool initialized = false;
    bool finalized = false;
    bool in_barrier = false;
  };

  void on_accept();
  void on_bytes(Conn& c, std::string_view data);
  void on_line(Conn& c, std::string_view line);
  void on_initack(Conn& c, std::string_view line);
  void handle(Conn& c, int rank, std::string_view line);
  void fail(Conn& c, const std::string& why);

  boost::asio::io_context& io_;
  const Layout& layout_;
  const std::string kvsname_;
  Handlers handlers_;
  std::vector<RankState> state_;
  std::vector<std::unique_ptr<Conn>> conns_;  // kept until the server dies: handlers point in
  std::unique_ptr<FdChannel> listener_;
  std::unordered_map<std::string, std::string> kvs_;
  int in_barrier_ = 0;
};

}  // namespace torus::launcher
