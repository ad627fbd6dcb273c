// Starting one process of the job: fork/exec into the job's process group with its stdio
// and PMI descriptors in place. A remote rank is the same thing with the remote shell agent
// as the program.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/base/status.h"

namespace torus::launcher {

struct SpawnSpec {
  std::string path;               // what execve runs (already resolved)
  std::vector<std::string> argv;
  std::vector<std::string> env;
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int keep_fd = -1;               // stays open across exec under its own number (PMI_FD), or -1
  pid_t pgid = 0;                 // 0: the child leads a new process group
  std::string what;               // "rank 3", for the exec-failure message
};

// Forks and execs. The child joins the job's process group (not mpirun's) before exec, so
// a terminal's Ctrl-C reaches mpirun alone and mpirun decides what the ranks get. A failed
// exec prints why on the child's stderr and exits 127 (a rank failure).
Result<pid_t> spawn(const SpawnSpec& spec);

// The program's path: as given when it has a '/', else searched in `path_var` (PATH).
// Fails, naming the program and where it looked, when it is not an executable file.
Result<std::string> resolve_program(const std::string& program, const std::string& path_var);

}  // namespace torus::launcher
