// mpirun / mpiexec: parse the command line, place the ranks, check every program exists
// before starting anything, run the job, clean up its shared memory, exit with its status.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/api/torus.hpp"
#include "mpi_shim/launcher/hostfile.h"
#include "mpi_shim/launcher/job.h"
#include "mpi_shim/launcher/job_env.h"
#include "mpi_shim/launcher/layout.h"
#include "mpi_shim/launcher/options.h"
#include "mpi_shim/launcher/report.h"
#include "mpi_shim/launcher/spawn.h"

using namespace torus::launcher;

namespace {

constexpr int kUsageError = 2;
constexpr int kSetupError = 1;

// Pipes and sockets opened later must not land on 0-2, which the ranks' stdio replaces.
void ensure_std_fds() {
  for (int fd = 0; fd < 3; ++fd)
    if (::fcntl(fd, F_GETFD) < 0) ::open("/dev/null", O_RDWR);
}

int usage_error(const std::string& msg) {
  say("%s\nRun '%s --help' for the options.", msg.c_str(), program_name());
  return kUsageError;
}

}  // namespace

int main(int argc, char** argv) {
  set_program_name(argc > 0 ? argv[0] : "mpirun");
  ensure_std_fds();
  // A rank's output pipe or PMI socket closing under a write is reported as an error there.
  ::signal(SIGPIPE, SIG_IGN);

  torus::Result<Options> parsed = parse_options(argc, argv);
  if (!parsed.ok()) return usage_error(parsed.error().message);
  const Options& opts = *parsed;
  if (opts.show_help) {
    print_help(program_name());
    return 0;
  }
  if (opts.show_version) {
    print_version(program_name());
    return 0;
  }

  std::vector<HostSlots> hosts;
  bool hosts_given = false;
  if (!opts.hostfile.empty()) {
    torus::Result<std::vector<HostSlots>> hf = read_hostfile(opts.hostfile);
    if (!hf.ok()) {
      say("error: %s", hf.error().message.c_str());
      return kSetupError;
    }
    hosts = std::move(hf.value());
    hosts_given = true;
  }
  for (const std::string& list : opts.host_lists) {
    std::string err;
    std::vector<HostSlots> h;
    if (parse_host_list(list, h, &err) != torus::Status::Ok) return usage_error(err);
    // With a hostfile too, the hosts of both count (their slots add up for a repeated name).
    hosts.insert(hosts.end(), h.begin(), h.end());
    hosts_given = true;
  }

  torus::Result<Layout> layout = make_layout(opts, hosts, hosts_given);
  if (!layout.ok()) {
    say("error: %s", layout.error().message.c_str());
    return kSetupError;
  }
  torus::Result<EnvVars> user = user_vars(opts);
  if (!user.ok()) {
    say("error: %s", user.error().message.c_str());
    return kSetupError;
  }

  // Every program that runs here must exist before anything starts.
  const char* path = std::getenv("PATH");
  std::string path_var = path != nullptr ? path : "/usr/bin:/bin";
  for (const auto& [k, v] : *user)
    if (k == "PATH") path_var = v;
  std::vector<std::string> programs(opts.apps.size());
  for (size_t a = 0; a < opts.apps.size(); ++a) {
    bool local = false;
    for (const RankPlace& p : layout->ranks)
      if (p.app == static_cast<int>(a) && !layout->hosts[p.host].via_agent) local = true;
    if (!local) continue;
    torus::Result<std::string> prog = resolve_program(opts.apps[a].argv[0], path_var);
    if (!prog.ok()) {
      say("error: %s; nothing was started", prog.error().message.c_str());
      return kSetupError;
    }
    programs[a] = *prog;
  }

  int code = kSetupError;
  std::string job_id;
  {
    boost::asio::io_context io;
    Job job(io, opts, *layout, std::move(programs), std::move(user.value()));
    job_id = job.job_id();
    std::string err;
    if (job.start(&err) != torus::Status::Ok) {
      say("error: %s", err.c_str());
    } else {
      code = job.run();
    }
  }
  // The ranks are gone; shared memory a crashed rank could not unlink goes now.
  torus::remove_job_resources(job_id);
  return code;
}
