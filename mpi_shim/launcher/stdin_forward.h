// mpirun's stdin goes to rank 0 through a pipe, fed by a thread: a blocking read works on
// every kind of stdin (terminal, pipe, file, /dev/null), which an event loop's epoll does not.
#pragma once

namespace torus::launcher {

// Whether forwarding stdin is safe: not when stdin is the terminal of a background job (a
// read would stop mpirun with SIGTTIN).
bool stdin_forwardable();

// Starts the thread copying fd 0 to write_fd until EOF or until the reader is gone, then
// closes write_fd. The thread is detached: at exit it may still sit in read(0), harmlessly.
void start_stdin_forwarder(int write_fd);

}  // namespace torus::launcher
