// fork(): the child must not use the parent's registrations, must say so when it tries, and
// can build its own cache (with its own monitor) that invalidates correctly.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "memory/rcache.h"
#include "recording_registrar.h"

using namespace torus;
using namespace torus::mem;
using namespace torus::mem::test;

namespace {

// Where each thread of a stuck child waits (kernel wait channel), for the failure message.
std::string thread_states(pid_t pid) {
  std::string out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& t : std::filesystem::directory_iterator(dir)) {
    std::ifstream wchan(t.path() / "wchan");
    std::string w;
    std::getline(wchan, w);
    out += t.path().filename().string() + ":" + (w.empty() ? "running" : w) + " ";
  }
  return out;
}

// Runs `child` in a fork()ed process; its return value is the exit status. doctest macros are
// not used in the child: it reports through the exit code.
template <typename Fn>
int in_child(Fn&& child) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) _exit(child());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      MESSAGE("child still running: " << thread_states(pid));
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      FAIL("child did not finish within 20 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("fork: the child refuses the parent's cache and builds its own") {
  RecordingRegistrar reg;
  auto cache = make_cache(reg);
  const size_t len = 8 * page();
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  auto held = cache->get(p, len, 1);
  REQUIRE(held.ok());
  const size_t deregs_before = reg.deregs();

  const int rc = in_child([&]() -> int {
    auto r = cache->get(p, len, 1);
    if (r.ok()) return 10;
    if (r.error().message.find("fork()ed child") == std::string::npos) return 11;
    if (r.status() != Status::Unsupported) return 12;
    held->reset();  // the parent's registration: released without deregistering it here
    if (reg.deregs() != deregs_before) return 13;
    if (UnmapMonitor::instance().active() == false) return 14;  // a fresh one for the child
    RecordingRegistrar child_reg;
    auto own = RegCache::create(child_reg, test_config(), "child");
    if (!own.ok() || !own.value()->caching()) return 15;
    void* h = nullptr;
    {
      auto a = own.value()->get(p, len, 1);
      if (!a.ok()) return 16;
      h = a->handle();
    }
    if (munmap(p, len) != 0) return 17;
    if (mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p)
      return 18;
    auto b = own.value()->get(p, len, 1);
    if (!b.ok() || b->handle() == h) return 19;  // invalidated in the child too
    if (child_reg.record(h).live) return 20;
    return 0;
  });
  CHECK(rc == 0);
  // The parent is unaffected.
  auto again = cache->get(p, len, 1);
  REQUIRE(again.ok());
  CHECK(again->handle() == held->handle());
  held->reset();
  again->reset();
  munmap(p, len);
}
