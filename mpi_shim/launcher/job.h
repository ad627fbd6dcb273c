// One job from start to exit status: starts every rank, serves PMI, forwards output, and
// ends the job cleanly whatever happens — a rank failing or aborting, a signal to mpirun,
// the timeout — so that no process of the job outlives mpirun.
//
// Every rank (or the remote-shell agent standing for a remote rank) is in the job's own
// process group, which mpirun is not in: one killpg reaches them all, grandchildren too.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <string>
#include <vector>

#include "mpi_shim/launcher/fd_channel.h"
#include "mpi_shim/launcher/job_env.h"
#include "mpi_shim/launcher/layout.h"
#include "mpi_shim/launcher/options.h"
#include "mpi_shim/launcher/output.h"
#include "mpi_shim/launcher/pmi_server.h"

namespace torus::launcher {

// The exit status of mpirun after --timeout fired, as GNU timeout(1) uses.
inline constexpr int kTimeoutExitCode = 124;

class Job final {
 public:
  // programs: the resolved path of each app's program (empty for apps run only remotely).
  Job(boost::asio::io_context& io, const Options& opts, const Layout& layout,
      std::vector<std::string> programs, EnvVars user_vars);
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Starts every rank. On an error, whatever started is killed and the error returned.
  Status start(std::string* error);
  // Runs until every rank is gone; returns mpirun's exit status.
  int run();
  const std::string& job_id() const noexcept { return ids_.job_id; }

 private:
  enum class State { Running, Terminating, Done };
  struct Rank {
    pid_t pid = -1;
    bool exited = false;
    std::unique_ptr<LineForwarder> out_fwd, err_fwd;
    std::unique_ptr<FdChannel> out, err;
  };

  Status setup_remote(std::string* error);
  Status start_rank(int r, int stdin_fd, std::string* error);
  void wait_signals();
  void reap();
  void on_rank_exit(int r, int status);
  void fail(int code, const std::string& message);
  void terminate(int sig, double grace_s);
  void finish();
  void maybe_stop();
  std::string where(int r) const;
  int alive() const;

  boost::asio::io_context& io_;
  const Options& opts_;
  const Layout& layout_;
  const std::vector<std::string> programs_;
  const EnvVars user_vars_;
  const JobIds ids_;
  const std::string rsh_;
  std::string agent_path_;             // rsh_'s program, found in PATH
  std::vector<std::string> pmi_port_;  // per remote host index: "addr:port"
  std::unique_ptr<PmiServer> pmi_;
  std::vector<Rank> ranks_;
  boost::asio::signal_set signals_;
  boost::asio::steady_timer timeout_timer_;
  boost::asio::steady_timer kill_timer_;
  boost::asio::steady_timer drain_timer_;
  pid_t pgid_ = 0;
  State state_ = State::Running;
  int exit_code_ = 0;
};

}  // namespace torus::launcher
