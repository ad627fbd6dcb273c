// The stdin-to-rank-0 thread.
#include "mpi_shim/launcher/stdin_forward.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "mpi_shim/launcher/report.h"

namespace torus::launcher {

bool stdin_forwardable() {
  if (!::isatty(STDIN_FILENO)) return true;
  return ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();
}

void start_stdin_forwarder(int write_fd) {
  // Writes must block (rank 0 reads at its own pace), whatever the pipe was created with.
  ::fcntl(write_fd, F_SETFL, ::fcntl(write_fd, F_GETFL) & ~O_NONBLOCK);
  std::thread([write_fd] {
    char buf[65536];
    while (true) {
      ssize_t n = ::read(STDIN_FILENO, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {  // an inherited O_NONBLOCK stdin
        pollfd p{STDIN_FILENO, POLLIN, 0};
        ::poll(&p, 1, -1);
        continue;
      }
      if (n <= 0) break;
      if (!write_all(write_fd, buf, static_cast<size_t>(n))) break;
    }
    ::close(write_fd);
  }).detach();
}

}  // namespace torus::launcher
