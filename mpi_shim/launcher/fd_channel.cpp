// Reactor-style I/O (wait for readiness, then read/write ourselves) so the same read path
// serves both the event loop and a synchronous drain().
#include "mpi_shim/launcher/fd_channel.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace torus::launcher {

namespace asio = boost::asio;

FdChannel::FdChannel(asio::io_context& io, int fd, DataFn on_data, EofFn on_eof)
    : sd_(io, fd), on_data_(std::move(on_data)), on_eof_(std::move(on_eof)) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void FdChannel::start() { arm_read(); }

void FdChannel::arm_read() {
  if (!open_ || reading_) return;
  reading_ = true;
  sd_.async_wait(asio::posix::stream_descriptor::wait_read, [this](boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    reading_ = false;
    drain();
    arm_read();
  });
}

void FdChannel::drain() {
  char buf[65536];
  while (open_) {
    ssize_t n = ::read(sd_.native_handle(), buf, sizeof(buf));
    if (n > 0) {
      on_data_(std::string_view(buf, static_cast<size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    // EOF, or an error that ends the stream just the same (ECONNRESET from a dead rank).
    close();
    if (on_eof_) on_eof_();
    return;
  }
}

void FdChannel::write(std::string_view text) {
  if (!open_) return;
  out_.append(text);
  flush_out();
}

void FdChannel::flush_out() {
  while (open_ && !out_.empty()) {
    ssize_t n = ::send(sd_.native_handle(), out_.data(), out_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == ENOTSOCK) n = ::write(sd_.native_handle(), out_.data(), out_.size());
    if (n > 0) {
      out_.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      arm_write();
      return;
    } else {
      out_.clear();  // the reader is gone; its exit is reported elsewhere
      return;
    }
  }
}

void FdChannel::arm_write() {
  if (!open_ || writing_) return;
  writing_ = true;
  sd_.async_wait(asio::posix::stream_descriptor::wait_write, [this](boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    writing_ = false;
    flush_out();
  });
}

void FdChannel::wait_readable(std::function<void()> fn) {
  sd_.async_wait(asio::posix::stream_descriptor::wait_read,
                 [this, fn = std::move(fn)](boost::system::error_code ec) {
                   if (ec == asio::error::operation_aborted || !open_) return;
                   fn();
                 });
}

void FdChannel::close() {
  if (!open_) return;
  open_ = false;
  boost::system::error_code ignored;
  sd_.close(ignored);
}

}  // namespace torus::launcher
