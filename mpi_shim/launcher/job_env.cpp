// Job identity and rank environments.
#include "mpi_shim/launcher/job_env.h"

#include <sys/random.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

extern char** environ;

namespace torus::launcher {
namespace {

std::string random_hex(size_t bytes) {
  unsigned char buf[32];
  size_t got = 0;
  while (got < bytes) {
    ssize_t n = ::getrandom(buf + got, bytes - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
  }
  std::string out;
  char two[3];
  for (size_t i = 0; i < bytes; ++i) {
    std::snprintf(two, sizeof(two), "%02x", buf[i]);
    out += two;
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Variables that describe a rank's place in a job. mpirun may itself run inside a job (under
// srun, Hydra, or our own mpirun); its ranks must not inherit that outer job's identity.
bool is_launcher_var(std::string_view name) {
  static constexpr std::string_view kExact[] = {
      "MPI_LOCALNRANKS", "MPI_LOCALRANKID", "TORUS_RANK",   "TORUS_SIZE",
      "TORUS_LOCAL_RANK", "TORUS_LOCAL_SIZE", "TORUS_JOB_ID", "TORUS_JOB_KEY"};
  for (std::string_view e : kExact)
    if (name == e) return true;
  return starts_with(name, "PMI_") || starts_with(name, "PMIX_");
}

void set_var(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  for (std::string& e : env)
    if (e.size() > name.size() && e[name.size()] == '=' && starts_with(e, name)) {
      e = name + "=" + value;
      return;
    }
  env.push_back(name + "=" + value);
}

}  // namespace

JobIds make_job_ids() {
  JobIds ids;
  // Letters, digits and '_' only: the id becomes part of shm segment names.
  ids.job_id = "mpirun_" + std::to_string(::getpid()) + "_" + random_hex(4);
  ids.job_key = random_hex(16);
  ids.kvsname = "kvs_" + std::to_string(::getpid()) + "_0_" + random_hex(4);
  return ids;
}

Result<EnvVars> user_vars(const Options& opts) {
  EnvVars out;
  for (const std::string& x : opts.exports) {
    size_t eq = x.find('=');
    if (eq != std::string::npos) {
      out.emplace_back(x.substr(0, eq), x.substr(eq + 1));
      continue;
    }
    const char* v = std::getenv(x.c_str());
    if (v == nullptr)
      return make_error(Status::NotFound, "-x " + x + ": " + x + " is not set in this environment");
    out.emplace_back(x, v);
  }
  for (const auto& kv : opts.env_sets) out.push_back(kv);
  return out;
}

std::vector<std::string> local_environment(const EnvVars& user, const EnvVars& rank) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    if (!is_launcher_var(entry.substr(0, entry.find('=')))) env.emplace_back(entry);
  }
  for (const auto& [k, v] : user) set_var(env, k, v);
  for (const auto& [k, v] : rank) set_var(env, k, v);
  return env;
}

EnvVars remote_vars(const EnvVars& user, const EnvVars& rank) {
  EnvVars out;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    std::string_view name = entry.substr(0, eq);
    if (eq != std::string_view::npos && starts_with(name, "TORUS_") && !is_launcher_var(name))
      out.emplace_back(std::string(name), std::string(entry.substr(eq + 1)));
  }
  for (const auto& kv : user) out.push_back(kv);
  for (const auto& kv : rank) out.push_back(kv);
  return out;
}

std::string shell_quote(const std::string& word) {
  bool plain = !word.empty();
  for (char c : word)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          std::strchr("@%_-+=:,./", c) != nullptr))
      plain = false;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace torus::launcher
