// Message output for mpirun itself.
#include "mpi_shim/launcher/report.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

namespace torus::launcher {
namespace {
// Set once from argv[0] before anything else runs; "mpirun" or "mpiexec" in messages.
const char* g_program = "mpirun";
}  // namespace

void set_program_name(const char* argv0) {
  const char* slash = std::strrchr(argv0, '/');
  g_program = slash != nullptr ? slash + 1 : argv0;
}

const char* program_name() noexcept { return g_program; }

void say(const char* fmt, ...) {
  char body[4096];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(body, sizeof(body), fmt, ap);
  va_end(ap);
  std::string line = std::string(g_program) + ": " + body + "\n";
  write_all(STDERR_FILENO, line.data(), line.size());
}

bool write_all(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = ::write(fd, data, len);
    if (n > 0) {
      data += n;
      len -= static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // Our stdout may be a non-blocking pipe shared with another program; wait for room.
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 1000);
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace torus::launcher
