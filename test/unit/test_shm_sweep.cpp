// The sweep of torus shm segments left by killed processes: a segment whose owner pid is gone
// (in our pid namespace) is removed; a live owner, another namespace, an unformatted name,
// libfabric's names and foreign files stay. Runs on a private directory, not /dev/shm.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "core/base/pid_namespace.h"
#include "transports/shm/shm_segment.h"

namespace {

bool exists(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0;
}

// A file that starts like a formatted segment header of this version.
void write_segment(const std::string& path, pid_t owner, uint64_t ns, uint64_t magic) {
  torus::shm::SegmentHeader hdr{};
  hdr.magic = magic;
  hdr.version = torus::shm::kVersion;
  hdr.owner_pid = owner;
  hdr.owner_pid_ns = ns;
  const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, &hdr, sizeof hdr) == static_cast<ssize_t>(sizeof hdr));
  ::close(fd);
}

}  // namespace

TEST_CASE("shm sweep: removes the segments of dead owners of our pid namespace only") {
  char tmpl[] = "/tmp/torus-seg-sweep-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const uint64_t ns = torus::pid_namespace_id();
  REQUIRE(ns != 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(0);
  REQUIRE(::waitpid(child, nullptr, 0) == child);  // gone now
  const std::string dead = dir + "/torus-p1-00000000000000aa-0";
  const std::string live = dir + "/torus-p2-00000000000000bb-0";
  const std::string other_ns = dir + "/torus-job_x-00000000000000cc-0";
  const std::string unformatted = dir + "/torus-job_x-00000000000000dd-0";
  const std::string ofi = dir + "/torus-ofi-1-2-00000000000000ee";
  const std::string foreign = dir + "/not-torus";
  write_segment(dead, child, ns, torus::shm::kMagic);
  write_segment(live, ::getpid(), ns, torus::shm::kMagic);
  write_segment(other_ns, child, ns + 1, torus::shm::kMagic);
  write_segment(unformatted, child, ns, 0);  // its creator has not set the magic yet
  write_segment(ofi, child, ns, torus::shm::kMagic);
  write_segment(foreign, child, ns, torus::shm::kMagic);
  CHECK(torus::shm::remove_dead_segments(dir.c_str()) == 1);
  CHECK_FALSE(exists(dead));
  for (const std::string& p : {live, other_ns, unformatted, ofi, foreign}) {
    CHECK(exists(p));
    ::unlink(p.c_str());
  }
  CHECK(torus::shm::remove_dead_segments(dir.c_str()) == 0);
  ::rmdir(dir.c_str());
}

TEST_CASE("pid_is_gone: only a vanished pid of our own namespace") {
  const uint64_t ns = torus::pid_namespace_id();
  CHECK_FALSE(torus::pid_is_gone(ns, ::getpid()));
  CHECK_FALSE(torus::pid_is_gone(ns, 1));  // init lives, or we may not signal it
  CHECK_FALSE(torus::pid_is_gone(ns, 0));
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(0);
  REQUIRE(::waitpid(child, nullptr, 0) == child);
  CHECK(torus::pid_is_gone(ns, child));
  CHECK_FALSE(torus::pid_is_gone(ns + 1, child));
  CHECK_FALSE(torus::pid_is_gone(0, child));
}
