// A non-blocking file descriptor on mpirun's event loop: reads whatever arrives and hands it
// to a callback, queues writes the peer is not ready for. Used for PMI connections and for
// the pipes carrying the ranks' output.
//
// Callbacks run on the event loop thread. drain() reads what is already there without
// waiting, so a rank's last words (output, PMI finalize) are taken in before its exit is
// judged. The object must outlive the io_context's run(); close() stops all I/O.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <functional>
#include <string>
#include <string_view>

namespace torus::launcher {

class FdChannel final {
 public:
  using DataFn = std::function<void(std::string_view)>;
  using EofFn = std::function<void()>;

  // Takes ownership of fd and makes it non-blocking.
  FdChannel(boost::asio::io_context& io, int fd, DataFn on_data, EofFn on_eof);
  FdChannel(const FdChannel&) = delete;
  FdChannel& operator=(const FdChannel&) = delete;

  void start();
  void drain();
  // Queues text; what the socket takes now is written at once.
  void write(std::string_view text);
  void close();
  bool is_open() const noexcept { return open_; }
  // For descriptors read by someone else (a listening socket): calls fn once readable.
  void wait_readable(std::function<void()> fn);
  int native_handle() noexcept { return sd_.native_handle(); }

 private:
  void arm_read();
  void arm_write();
  void flush_out();

  boost::asio::posix::stream_descriptor sd_;
  DataFn on_data_;
  EofFn on_eof_;
  std::string out_;
  bool open_ = true;
  bool reading_ = false;
  bool writing_ = false;
};

}  // namespace torus::launcher
