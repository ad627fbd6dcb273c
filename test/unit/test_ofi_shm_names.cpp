// The sweep of libfabric shm regions left by killed processes: only names of our pid
// namespace whose pid is gone are removed; a live pid, another namespace and foreign names
// stay. Runs on a private directory, not /dev/shm.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "transports/ofi/ofi_shm_names.h"

namespace {

bool exists(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0;
}

void touch(const std::string& p) {
  FILE* f = std::fopen(p.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fclose(f);
}

}  // namespace

TEST_CASE("ofi shm names: the sweep removes the regions of dead pids of our namespace only") {
  char tmpl[] = "/tmp/torus-shm-sweep-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const std::string mine = torus::ofi::shm_endpoint_name(0x1234);
  // "torus-ofi-<ns>-<pid>-<uid>": the same name with another pid or namespace.
  const size_t ns_start = std::string("torus-ofi-").size();
  const size_t ns_end = mine.find('-', ns_start);
  const std::string ns = mine.substr(ns_start, ns_end - ns_start);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(0);
  REQUIRE(::waitpid(child, nullptr, 0) == child);  // gone now
  const std::string dead = "torus-ofi-" + ns + "-" + std::to_string(child) + "-00000000000000aa";
  const std::string other_ns =
      "torus-ofi-" + std::to_string(std::strtoull(ns.c_str(), nullptr, 10) + 1) + "-" +
      std::to_string(child) + "-00000000000000bb";
  const std::string foreign = "torus-ofi-" + ns + "-notapid-cc";
  for (const std::string& n : {mine, dead, other_ns, foreign}) touch(dir + "/" + n);
  CHECK(torus::ofi::sweep_dead_shm_regions(dir.c_str()) == 1);
  CHECK_FALSE(exists(dir + "/" + dead));
  CHECK(exists(dir + "/" + mine));
  CHECK(exists(dir + "/" + other_ns));
  CHECK(exists(dir + "/" + foreign));
  for (const std::string& n : {mine, other_ns, foreign}) ::unlink((dir + "/" + n).c_str());
  ::rmdir(dir.c_str());
}
