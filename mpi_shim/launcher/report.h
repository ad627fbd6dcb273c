// mpirun's own messages: one line (or block) per call, written with a single write(2) to
// stderr so it never splits a forwarded rank line, prefixed with the name mpirun was run as.
#pragma once

#include <string_view>

namespace torus::launcher {

void set_program_name(const char* argv0);
const char* program_name() noexcept;

// Writes "<prog>: <text>\n" to stderr.
void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Writes all of [data, data+len) to fd, retrying on EINTR and waiting out EAGAIN; false when
// the reader is gone (EPIPE) or another error happened.
bool write_all(int fd, const char* data, size_t len);

}  // namespace torus::launcher
