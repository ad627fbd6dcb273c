// Job control: starting ranks, reaping them, judging how each ended, and taking the job
// down (SIGTERM, then SIGKILL after a grace period) when one fails or mpirun is told to stop.
#include "mpi_shim/launcher/job.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>
#include <vector>

#include "core/base/config.h"
#include "mpi_shim/launcher/host_net.h"
#include "mpi_shim/launcher/report.h"
#include "mpi_shim/launcher/spawn.h"
#include "mpi_shim/launcher/stdin_forward.h"

namespace torus::launcher {

namespace asio = boost::asio;

namespace {

// How long ranks get to exit after SIGTERM (or a forwarded SIGINT) before SIGKILL.
constexpr double kGraceSeconds = 1.5;
// How long, once every rank is gone, output pipes still held open by escaped processes are
// waited for.
constexpr auto kOutputDrain = std::chrono::milliseconds(500);

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string read_rsh() {
  Result<config::Config> cfg = config::Config::load();
  if (!cfg.ok()) return "ssh";
  return cfg->get_string("TORUS_RSH");
}

struct Pipe {
  int r = -1, w = -1;
};

Result<Pipe> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return make_error(Status::NoResource, std::string("pipe: ") + std::strerror(errno));
  return Pipe{fds[0], fds[1]};
}

}  // namespace

Job::Job(asio::io_context& io, const Options& opts, const Layout& layout,
         std::vector<std::string> programs, EnvVars user_vars)
    : io_(io),
      opts_(opts),
      layout_(layout),
      programs_(std::move(programs)),
      user_vars_(std::move(user_vars)),
      ids_(make_job_ids()),
      rsh_(read_rsh()),
      ranks_(layout.ranks.size()),
      signals_(io, SIGINT, SIGTERM, SIGCHLD),
      timeout_timer_(io),
      kill_timer_(io),
      drain_timer_(io) {
  // A hang-up ends the job like SIGTERM, unless mpirun runs under nohup (SIGHUP ignored).
  struct sigaction hup {};
  if (::sigaction(SIGHUP, nullptr, &hup) == 0 && hup.sa_handler != SIG_IGN) signals_.add(SIGHUP);
  PmiServer::Handlers h;
  h.on_abort = [this](int rank, int code, const std::string& msg) {
    fail(code, "rank " + std::to_string(rank) + " called abort with code " + std::to_string(code) +
                   (msg.empty() ? "" : ": " + msg));
  };
  h.on_error = [this](int rank, const std::string& why) {
    fail(1, "rank " + std::to_string(rank) + " " + where(rank) + " " + why);
  };
  pmi_ = std::make_unique<PmiServer>(io, layout, ids_.kvsname, std::move(h));
}

Job::~Job() = default;

std::string Job::where(int r) const {
  const Host& h = layout_.hosts[layout_.ranks[r].host];
  return "(pid " + std::to_string(ranks_[r].pid) + " on " +
         (h.local ? this_host_name() : h.name) + ")";
}

int Job::alive() const {
  int n = 0;
  for (const Rank& r : ranks_) n += (r.pid > 0 && !r.exited) ? 1 : 0;
  return n;
}

Status Job::setup_remote(std::string* error) {
  // Remote ranks reach the PMI server over TCP at an address of ours that faces them.
  pmi_port_.assign(layout_.hosts.size(), "");
  std::string bind_addr;
  bool any_remote = false, mixed = false;
  for (size_t h = 0; h < layout_.hosts.size(); ++h) {
    if (!layout_.hosts[h].via_agent) continue;
    if (opts_.launcher == LaunchMode::Fork) {
      *error = "host " + layout_.hosts[h].name + " is not this machine, and --launcher fork "
               "starts ranks here only";
      return Status::InvalidParam;
    }
    Result<std::string> a = address_facing(layout_.hosts[h].name);
    if (!a.ok()) {
      *error = a.error().message;
      return a.status();
    }
    if (any_remote && *a != bind_addr) mixed = true;
    bind_addr = *a;
    pmi_port_[h] = *a;
    any_remote = true;
  }
  if (!any_remote) return Status::Ok;
  // The agent must exist before any rank starts.
  std::vector<std::string> words = split_words(rsh_);
  const char* path = ::getenv("PATH");
  Result<std::string> agent =
      words.empty() ? Result<std::string>(make_error(Status::NotFound, "TORUS_RSH is empty"))
                    : resolve_program(words[0], path != nullptr ? path : "");
  if (!agent.ok()) {
    *error = "remote shell (TORUS_RSH=" + rsh_ + "): " + agent.error().message;
    return Status::NotFound;
  }
  agent_path_ = *agent;
  // One address faces every remote host: listen there only; else on every interface.
  Result<int> port = pmi_->listen(mixed ? "" : bind_addr);
  if (!port.ok()) {
    *error = "PMI_PORT listener: " + port.error().message;
    return port.status();
  }
  for (std::string& p : pmi_port_)
    if (!p.empty()) p += ":" + std::to_string(*port);
  return Status::Ok;
}

Status Job::start(std::string* error) {
  const int size = static_cast<int>(layout_.ranks.size());
  if (Status st = setup_remote(error); st != Status::Ok) return st;

  int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  Pipe in{};
  if (stdin_forwardable()) {
    Result<Pipe> p = make_pipe();
    if (p.ok()) in = *p;
  }
  Status st = Status::Ok;
  for (int r = 0; r < size && st == Status::Ok; ++r)
    st = start_rank(r, (r == 0 && in.r >= 0) ? in.r : devnull, error);
  if (in.r >= 0) ::close(in.r);
  ::close(devnull);
  if (st != Status::Ok) {
    if (in.w >= 0) ::close(in.w);
    state_ = State::Terminating;
    exit_code_ = 1;
    if (pgid_ > 0) ::killpg(pgid_, SIGKILL);
    return st;
  }
  if (in.w >= 0) start_stdin_forwarder(in.w);

  if (opts_.timeout_s > 0) {
    timeout_timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(opts_.timeout_s)));
    timeout_timer_.async_wait([this](boost::system::error_code ec) {
      if (ec || state_ != State::Running) return;
      say("the job timed out after %g seconds (--timeout); killing its %d running ranks",
          opts_.timeout_s, alive());
      state_ = State::Terminating;
      exit_code_ = kTimeoutExitCode;
      terminate(SIGTERM, kGraceSeconds);
    });
  }
  return Status::Ok;
}

Status Job::start_rank(int r, int stdin_fd, std::string* error) {
  const RankPlace& place = layout_.ranks[r];
  const Host& host = layout_.hosts[place.host];
  const int size = static_cast<int>(layout_.ranks.size());
  EnvVars vars = {
      {"PMI_RANK", std::to_string(r)},
      {"PMI_SIZE", std::to_string(size)},
      {"MPI_LOCALRANKID", std::to_string(place.local_rank)},
      {"MPI_LOCALNRANKS", std::to_string(place.local_size)},
      {"TORUS_RANK", std::to_string(r)},
      {"TORUS_SIZE", std::to_string(size)},
      {"TORUS_LOCAL_RANK", std::to_string(place.local_rank)},
      {"TORUS_LOCAL_SIZE", std::to_string(place.local_size)},
      {"TORUS_JOB_ID", ids_.job_id},
      {"TORUS_JOB_KEY", ids_.job_key},
  };
  Result<Pipe> out = make_pipe();
  Result<Pipe> err = make_pipe();
  if (!out.ok() || !err.ok()) {
    *error = (out.ok() ? err : out).error().message;
    return Status::NoResource;
  }
  const std::vector<std::string>& app_argv = opts_.apps[place.app].argv;
  SpawnSpec spec;
  spec.what = "rank " + std::to_string(r);
  spec.stdin_fd = stdin_fd;
  spec.stdout_fd = out->w;
  spec.stderr_fd = err->w;
  spec.pgid = pgid_;
  if (!host.via_agent) {
    Result<int> pmi_fd = pmi_->open_local(r);
    if (!pmi_fd.ok()) {
      *error = pmi_fd.error().message;
      return pmi_fd.status();
    }
    vars.emplace_back("PMI_FD", std::to_string(*pmi_fd));
    spec.keep_fd = *pmi_fd;
    spec.path = programs_[place.app];
    spec.argv = app_argv;
    spec.env = local_environment(user_vars_, vars);
  } else {
    vars.emplace_back("PMI_PORT", pmi_port_[place.host]);
    vars.emplace_back("PMI_ID", std::to_string(r));
    // `<agent> <host> <command line>`: the remote shell parses the command line, as ssh's
    // does, so every word is quoted for it.
    std::string line;
    char cwd[4096];
    if (::getcwd(cwd, sizeof(cwd)) != nullptr)
      line = "cd " + shell_quote(cwd) + " 2>/dev/null; ";
    line += "exec env";
    for (const auto& [k, v] : remote_vars(user_vars_, vars)) line += " " + shell_quote(k + "=" + v);
    for (const std::string& a : app_argv) line += " " + shell_quote(a);
    spec.argv = split_words(rsh_);
    spec.path = agent_path_;
    spec.argv.push_back(host.name);
    spec.argv.push_back(line);
    spec.env = local_environment(user_vars_, {});
  }
  Result<pid_t> pid = spawn(spec);
  ::close(out->w);
  ::close(err->w);
  if (spec.keep_fd >= 0) ::close(spec.keep_fd);
  if (!pid.ok()) {
    ::close(out->r);
    ::close(err->r);
    *error = "starting rank " + std::to_string(r) + ": " + pid.error().message;
    return pid.status();
  }
  if (pgid_ == 0) pgid_ = *pid;
  Rank& rk = ranks_[r];
  rk.pid = *pid;
  const std::string tag = "[1," + std::to_string(r) + "]";
  rk.out_fwd = std::make_unique<LineForwarder>(STDOUT_FILENO,
                                               opts_.tag_output ? tag + "<stdout>:" : "");
  rk.err_fwd = std::make_unique<LineForwarder>(STDERR_FILENO,
                                               opts_.tag_output ? tag + "<stderr>:" : "");
  LineForwarder* of = rk.out_fwd.get();
  LineForwarder* ef = rk.err_fwd.get();
  rk.out = std::make_unique<FdChannel>(
      io_, out->r, [of](std::string_view d) { of->feed(d); },
      [this, of] { of->finish(); maybe_stop(); });
  rk.err = std::make_unique<FdChannel>(
      io_, err->r, [ef](std::string_view d) { ef->feed(d); },
      [this, ef] { ef->finish(); maybe_stop(); });
  rk.out->start();
  rk.err->start();
  return Status::Ok;
}

int Job::run() {
  wait_signals();
  reap();  // a rank may have exited before the signal handler was waited on
  io_.run();
  pmi_->close();
  return exit_code_;
}

void Job::wait_signals() {
  signals_.async_wait([this](boost::system::error_code ec, int sig) {
    if (ec) return;
    if (sig == SIGCHLD) {
      reap();
    } else if (state_ == State::Running) {
      say("received %s; sending it to the %d running ranks", signal_name(sig).c_str(), alive());
      state_ = State::Terminating;
      exit_code_ = 128 + sig;
      terminate(sig, kGraceSeconds);
    } else if (state_ == State::Terminating) {
      say("received %s again; killing the job now", signal_name(sig).c_str());
      if (pgid_ > 0) ::killpg(pgid_, SIGKILL);
    }
    if (state_ != State::Done) wait_signals();
  });
}

void Job::reap() {
  // Every rank already gone, deaths by signal first: a rank killed by a signal is usually
  // why another one exited with an error (its peer reset), and waitpid hands back the older
  // child first, so the verdict would otherwise name the wrong rank.
  std::vector<std::pair<int, int>> gone;  // rank, status
  while (true) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) break;
    for (size_t r = 0; r < ranks_.size(); ++r)
      if (ranks_[r].pid == pid) gone.emplace_back(static_cast<int>(r), status);
  }
  std::stable_partition(gone.begin(), gone.end(),
                        [](const auto& g) { return WIFSIGNALED(g.second); });
  for (const auto& [r, status] : gone) on_rank_exit(r, status);
}

void Job::on_rank_exit(int r, int status) {
  Rank& rk = ranks_[r];
  // Take in what the rank said before dying (its last lines, a PMI finalize or abort) so
  // it is judged on all of it and its output comes before our verdict.
  pmi_->drain(r);
  if (rk.out) rk.out->drain();
  if (rk.err) rk.err->drain();
  rk.exited = true;
  if (state_ == State::Running) {
    const Host& host = layout_.hosts[layout_.ranks[r].host];
    const std::string who = "rank " + std::to_string(r) + " " + where(r);
    if (WIFSIGNALED(status)) {
      int sig = WTERMSIG(status);
      fail(128 + sig, who + " was killed by signal " + std::to_string(sig) + " (" +
                          signal_name(sig) + ")");
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
      int code = WEXITSTATUS(status);
      std::string hint;
      if (code == 255 && host.via_agent)
        hint = " (255 is also what the remote shell '" + rsh_ + "' returns when it fails)";
      fail(code, who + " exited with code " + std::to_string(code) + hint);
    } else if (pmi_->initialized(r) && !pmi_->finalized(r)) {
      fail(1, who + " exited with code 0 without calling PMI finalize (MPI_Finalize); the "
                    "other ranks could wait for it forever");
    }
  }
  if (alive() == 0) finish();
}

void Job::fail(int code, const std::string& message) {
  if (state_ != State::Running) return;
  state_ = State::Terminating;
  exit_code_ = code;
  say("%s", message.c_str());
  int n = alive();
  if (n > 0) say("terminating the %d rank%s still running", n, n == 1 ? "" : "s");
  terminate(SIGTERM, kGraceSeconds);
}

void Job::terminate(int sig, double grace_s) {
  if (pgid_ > 0) ::killpg(pgid_, sig);
  kill_timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(grace_s)));
  kill_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || state_ == State::Done) return;
    if (int n = alive(); n > 0) say("%d rank%s still running; sending SIGKILL", n, n == 1 ? "" : "s");
    if (pgid_ > 0) ::killpg(pgid_, SIGKILL);
  });
}

void Job::finish() {
  state_ = State::Done;
  timeout_timer_.cancel();
  kill_timer_.cancel();
  // Whatever the ranks left behind in their group (background children) goes too.
  if (pgid_ > 0) ::killpg(pgid_, SIGKILL);
  pmi_->close();
  drain_timer_.expires_after(kOutputDrain);
  drain_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    for (Rank& rk : ranks_) {
      if (rk.out && rk.out->is_open()) { rk.out->close(); rk.out_fwd->finish(); }
      if (rk.err && rk.err->is_open()) { rk.err->close(); rk.err_fwd->finish(); }
    }
    io_.stop();
  });
  maybe_stop();
}

void Job::maybe_stop() {
  if (state_ != State::Done) return;
  for (const Rank& rk : ranks_)
    if ((rk.out && rk.out->is_open()) || (rk.err && rk.err->is_open())) return;
  io_.stop();
}

}  // namespace torus::launcher
