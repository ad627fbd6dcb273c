// Command-line parsing in the style users know from Open MPI and MPICH: single- and
// double-dash spellings, `--opt=value`, `--` before the program, `:` between MPMD programs.
#include "mpi_shim/launcher/options.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace torus::launcher {
namespace {

enum class Opt { Np, Host, Hostfile, Export, Env, TagOutput, Timeout, Oversubscribe, Launcher,
                 Help, Version };

struct OptDecl {
  std::string_view name;
  Opt id;
  bool takes_value;
};

// Every spelling accepted, Open MPI's and MPICH's (Hydra's) side by side.
constexpr OptDecl kOpts[] = {
    {"-n", Opt::Np, true},               {"-np", Opt::Np, true},
    {"--n", Opt::Np, true},              {"--np", Opt::Np, true},
    {"--host", Opt::Host, true},         {"-host", Opt::Host, true},
    {"-H", Opt::Host, true},             {"--hosts", Opt::Host, true},
    {"-hosts", Opt::Host, true},         {"--hostfile", Opt::Hostfile, true},
    {"-hostfile", Opt::Hostfile, true},  {"--machinefile", Opt::Hostfile, true},
    {"-machinefile", Opt::Hostfile, true}, {"-f", Opt::Hostfile, true},
    {"-x", Opt::Export, true},           {"--env", Opt::Env, true},
    {"-env", Opt::Env, true},            {"--tag-output", Opt::TagOutput, false},
    {"-tag-output", Opt::TagOutput, false}, {"--prepend-rank", Opt::TagOutput, false},
    {"-prepend-rank", Opt::TagOutput, false}, {"-l", Opt::TagOutput, false},
    {"--timeout", Opt::Timeout, true},   {"-timeout", Opt::Timeout, true},
    {"--oversubscribe", Opt::Oversubscribe, false},
    {"-oversubscribe", Opt::Oversubscribe, false},
    {"--launcher", Opt::Launcher, true}, {"-launcher", Opt::Launcher, true},
    {"--help", Opt::Help, false},        {"-help", Opt::Help, false},
    {"-h", Opt::Help, false},            {"--version", Opt::Version, false},
    {"-version", Opt::Version, false},   {"-V", Opt::Version, false},
};

const OptDecl* find_opt(std::string_view name) {
  for (const OptDecl& d : kOpts)
    if (d.name == name) return &d;
  return nullptr;
}

Error usage(std::string msg) { return make_error(Status::InvalidParam, std::move(msg)); }

bool valid_var_name(std::string_view v) {
  if (v.empty() || (v[0] >= '0' && v[0] <= '9')) return false;
  for (char c : v)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

Status apply(Options& o, AppSpec& app, const OptDecl& d, std::string_view opt,
             const std::string& v, std::string* err) {
  switch (d.id) {
    case Opt::Np: {
      char* end = nullptr;
      errno = 0;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || errno != 0 || n < 1 || n > 1000000) {
        *err = std::string(opt) + " needs a positive number of ranks, got '" + v + "'";
        return Status::InvalidParam;
      }
      app.nranks = static_cast<int>(n);
      return Status::Ok;
    }
    case Opt::Host: o.host_lists.push_back(v); return Status::Ok;
    case Opt::Hostfile:
      if (!o.hostfile.empty()) {
        *err = "only one hostfile may be given (" + o.hostfile + " and " + v + ")";
        return Status::InvalidParam;
      }
      o.hostfile = v;
      return Status::Ok;
    case Opt::Export: {
      std::string_view name = std::string_view(v).substr(0, v.find('='));
      if (!valid_var_name(name)) {
        *err = "-x needs VAR or VAR=VALUE, got '" + v + "'";
        return Status::InvalidParam;
      }
      o.exports.push_back(v);
      return Status::Ok;
    }
    case Opt::Env: {
      size_t eq = v.find('=');
      if (eq == std::string::npos || !valid_var_name(std::string_view(v).substr(0, eq))) {
        *err = std::string(opt) + " needs VAR=VALUE, got '" + v + "'";
        return Status::InvalidParam;
      }
      o.env_sets.emplace_back(v.substr(0, eq), v.substr(eq + 1));
      return Status::Ok;
    }
    case Opt::TagOutput: o.tag_output = true; return Status::Ok;
    case Opt::Oversubscribe: o.oversubscribe = true; return Status::Ok;
    case Opt::Timeout: {
      char* end = nullptr;
      double s = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !std::isfinite(s) || s <= 0) {
        *err = std::string(opt) + " needs a positive number of seconds, got '" + v + "'";
        return Status::InvalidParam;
      }
      o.timeout_s = s;
      return Status::Ok;
    }
    case Opt::Launcher:
      if (v == "ssh" || v == "rsh") {
        o.launcher = LaunchMode::Ssh;
      } else if (v == "fork") {
        o.launcher = LaunchMode::Fork;
      } else {
        *err = std::string(opt) + " accepts ssh or fork, got '" + v + "'";
        return Status::InvalidParam;
      }
      return Status::Ok;
    case Opt::Help: o.show_help = true; return Status::Ok;
    case Opt::Version: o.show_version = true; return Status::Ok;
  }
  return Status::Ok;
}

}  // namespace

Result<Options> parse_options(int argc, const char* const* argv) {
  Options o;
  AppSpec app;
  bool in_program = false;  // past the program name: every word belongs to the program
  bool force_program = false;  // after `--`: the next word is the program, dashes or not
  auto close_app = [&]() -> Status {
    if (app.argv.empty()) return Status::InvalidParam;
    o.apps.push_back(std::move(app));
    app = AppSpec{};
    in_program = false;
    return Status::Ok;
  };
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == ":" ) {
      if (close_app() != Status::Ok) return usage("':' must follow a program (-n N prog : -n M prog2)");
      continue;
    }
    if (in_program) {
      app.argv.emplace_back(a);
      continue;
    }
    if (force_program || a.empty() || a[0] != '-' || a == "-") {
      app.argv.emplace_back(a);
      in_program = true;
      force_program = false;
      continue;
    }
    if (a == "--") {
      force_program = true;
      continue;
    }
    std::string_view name = a;
    std::string value;
    bool inline_value = false;
    if (size_t eq = a.find('='); eq != std::string_view::npos && a.substr(0, 2) == "--") {
      name = a.substr(0, eq);
      value = std::string(a.substr(eq + 1));
      inline_value = true;
    }
    const OptDecl* d = find_opt(name);
    if (d == nullptr) return usage("unknown option '" + std::string(a) + "'");
    if (d->takes_value && !inline_value) {
      if (i + 1 >= argc) return usage("option '" + std::string(name) + "' needs a value");
      value = argv[++i];
    } else if (!d->takes_value && inline_value) {
      return usage("option '" + std::string(name) + "' takes no value");
    }
    std::string err;
    if (apply(o, app, *d, name, value, &err) != Status::Ok) return usage(err);
  }
  if (o.show_help || o.show_version) return o;
  if (app.argv.empty()) {
    if (!o.apps.empty()) return usage("a program is missing after the last ':'");
    return usage("no program to run was given");
  }
  if (close_app() != Status::Ok) return usage("no program to run was given");
  if (o.apps.size() > 1)
    for (size_t k = 0; k < o.apps.size(); ++k)
      if (o.apps[k].nranks == 0)
        return usage("program " + std::to_string(k + 1) + " of the MPMD job (" +
                     o.apps[k].argv[0] + ") needs -n N");
  return o;
}

void print_help(const char* prog) {
  std::printf(
      "Usage: %s [OPTION]... PROGRAM [ARG]... [: [OPTION]... PROGRAM [ARG]...]...\n"
      "Start a parallel job of PROGRAM with torus's launcher (PMI-1 server).\n"
      "\n"
      "   -n, -np N              number of ranks (default: one per slot)\n"
      "   --host H1[:N],H2[:N]   hosts and their slot counts (default slots: 1)\n"
      "   --hostfile FILE        hosts, one a line: 'host slots=N', 'host:N' or 'host'\n"
      "                          ('#' starts a comment); also -machinefile, -f\n"
      "   -x VAR[=VALUE]         export VAR (from this environment, or set to VALUE) to\n"
      "                          every rank, remote ones included\n"
      "   --env VAR=VALUE        set VAR=VALUE in every rank's environment\n"
      "   --tag-output           prefix every output line with [1,RANK]<stdout>: or\n"
      "                          [1,RANK]<stderr>: (also -l, --prepend-rank)\n"
      "   --timeout SECONDS      kill the job after SECONDS; exit code 124\n"
      "   --oversubscribe        allow more ranks than slots (localhost has one slot per\n"
      "                          core when no host is given)\n"
      "   --launcher ssh|fork    fork: ranks on this machine only; ssh: every rank through\n"
      "                          the remote shell TORUS_RSH (default \"ssh\"), this host's\n"
      "                          too. Default: fork here, the remote shell for other hosts\n"
      "   --                     end of options: the next word is the program\n"
      "   -h, --help             this help\n"
      "   -V, --version          the version\n"
      "\n"
      "Ranks get PMI_FD (local) or PMI_PORT+PMI_ID (remote), PMI_RANK, PMI_SIZE,\n"
      "MPI_LOCALRANKID, MPI_LOCALNRANKS, TORUS_RANK, TORUS_SIZE, TORUS_LOCAL_RANK,\n"
      "TORUS_LOCAL_SIZE, TORUS_JOB_ID and TORUS_JOB_KEY. Rank 0 reads %s's stdin.\n"
      "Exit status: 0 when every rank exits 0; else the code of the first rank that failed\n"
      "(128+N for signal N), the code given to abort, 124 on --timeout, 128+N when %s\n"
      "itself gets signal N.\n",
      prog, prog, prog);
}

void print_version(const char* prog) {
  std::printf("%s (torus) %s\n\nPMI-1 server over PMI_FD and PMI_PORT; remote ranks through "
              "TORUS_RSH (default ssh).\n",
              prog, TORUS_VERSION_STRING);
}

}  // namespace torus::launcher
