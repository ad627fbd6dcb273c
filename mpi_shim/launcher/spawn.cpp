// Process creation with fork/exec. Not posix_spawn: its vfork makes mpirun wait for each
// child's exec, which serialises the start of a large job (64 ranks on 2 cores started in
// about twice the time); after fork, the children exec on the other cores meanwhile.
#include "mpi_shim/launcher/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "mpi_shim/launcher/report.h"


namespace torus::launcher {
namespace {

bool is_executable_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

std::vector<char*> c_array(const std::vector<std::string>& v) {
  std::vector<char*> out;
  for (const std::string& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// Runs in the child between fork and exec. mpirun is single-threaded while it spawns (the
// stdin thread starts after), so the child may use anything; it only makes system calls.
[[noreturn]] void child(const SpawnSpec& s, char* const* argv, char* const* envp,
                        const std::string& fail_prefix, pid_t parent) {
  ::setpgid(0, s.pgid);
  // Should mpirun itself be SIGKILLed, its ranks follow rather than run on as orphans.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  // mpirun's handlers and ignored signals (SIGPIPE) must not leak into the program.
  for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::dup2(s.stdin_fd, STDIN_FILENO);
  ::dup2(s.stdout_fd, STDOUT_FILENO);
  ::dup2(s.stderr_fd, STDERR_FILENO);
  if (s.keep_fd >= 0) ::fcntl(s.keep_fd, F_SETFD, 0);
  ::execve(s.path.c_str(), argv, envp);
  std::string msg = fail_prefix + std::strerror(errno) + "\n";
  ssize_t ignored = ::write(STDERR_FILENO, msg.data(), msg.size());
  (void)ignored;
  ::_exit(127);
}

}  // namespace

Result<pid_t> spawn(const SpawnSpec& spec) {
  std::vector<char*> argv = c_array(spec.argv);
  std::vector<char*> envp = c_array(spec.env);
  const std::string fail_prefix = std::string(program_name()) + ": cannot start " + spec.what +
                                  " (" + spec.path + "): ";
  // Blocked across the fork so no handler of mpirun's runs in the child before exec.
  sigset_t all, old;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, &old);
  const pid_t self = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) child(spec, argv.data(), envp.data(), fail_prefix, self);
  int err = errno;
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) return make_error(Status::NoResource, std::string("fork: ") + std::strerror(err));
  // Also from this side: whichever of the two runs first, the group is set before we signal.
  ::setpgid(pid, spec.pgid == 0 ? pid : spec.pgid);
  return pid;
}

Result<std::string> resolve_program(const std::string& program, const std::string& path_var) {
  if (program.find('/') != std::string::npos) {
    if (is_executable_file(program)) return program;
    return make_error(Status::NotFound, "executable '" + program + "' not found or not executable");
  }
  std::string_view rest = path_var;
  while (true) {
    size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + program;
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return make_error(Status::NotFound,
                    "executable '" + program + "' not found in PATH (" + path_var + ")");
}

}  // namespace torus::launcher
