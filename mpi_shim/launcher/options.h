// mpirun's command line: global options, and one AppSpec per program of a colon-separated
// MPMD command (`-n 1 a : -n 2 b`). Parsing only; nothing here touches the system.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"

namespace torus::launcher {

struct AppSpec {
  int nranks = 0;                 // 0: not given (one rank per slot for a single program)
  std::vector<std::string> argv;  // argv[0] is the program as the user wrote it
};

enum class LaunchMode { Auto, Ssh, Fork };

struct Options {
  std::vector<AppSpec> apps;
  std::vector<std::string> host_lists;  // each `--host h1:2,h2`
  std::string hostfile;
  std::vector<std::string> exports;     // -x VAR or -x VAR=VAL
  std::vector<std::pair<std::string, std::string>> env_sets;  // --env VAR=VAL
  bool tag_output = false;
  bool oversubscribe = false;
  double timeout_s = 0;                 // 0: none
  LaunchMode launcher = LaunchMode::Auto;
  bool show_help = false;
  bool show_version = false;
};

// Parses argv[1..]. Errors say which option and what it accepts; the caller prints them with
// the program name and a pointer to --help.
Result<Options> parse_options(int argc, const char* const* argv);

void print_help(const char* prog);
void print_version(const char* prog);

}  // namespace torus::launcher
