// The conformance suite's fixture: every viable transport (and configuration variant), a
// pair of ifaces with endpoints both ways, sends that absorb back-pressure, bounded waits.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/base/config.h"
#include "transports/registry.h"
#include "transports/transport.h"

namespace torus::tltest {

// Generous: a loaded CI machine with 2 cores must never fail a correct transport.
inline constexpr std::chrono::seconds kWait{30};

// Like REQUIRE, but ends only the current function: REQUIRE would throw out of the whole
// test case and silently skip the remaining transports.
#define TL_REQUIRE(cond)                     \
  do {                                       \
    if (!(cond)) {                           \
      FAIL_CHECK("required: " #cond);        \
      return;                                \
    }                                        \
  } while (0)

// One transport device under one configuration.
struct Variant {
  std::string label;  // "shm", "shm[TORUS_SHM_CMA=n]"
  tl::Transport* transport = nullptr;
  tl::DeviceInfo device;
  const config::Config* config = nullptr;  // nullptr: built-in defaults
};

// Runs fn for every viable variant, with the label in the failure context. Non-viable
// transports, and variants that cannot be configured here, are reported by name with
// MESSAGE("skipped: <name>: <why>").
void for_each_variant(const std::function<void(const Variant&)>& fn);

// Random worker uid, job id "t<pid of the test run>" (the same in forked children).
tl::IfaceParams make_params(const Variant& v);
const std::string& job_id();

// a sends to b over ab; b answers over ba. A SameWorker transport talks to itself: a == b.
struct Pair {
  std::unique_ptr<tl::Iface> a_owned, b_owned;
  tl::Iface* a = nullptr;
  tl::Iface* b = nullptr;
  std::unique_ptr<tl::Endpoint> ab, ba_owned;
  tl::Endpoint* ba = nullptr;

  const tl::IfaceAttr& attr() const { return a->attributes(); }
  unsigned progress() const { return a->progress() + (b != a ? b->progress() : 0u); }
};
// Records a failure and returns false when the pair cannot be set up.
bool open_pair(const Variant& v, Pair* pair);

// Progresses the pair until pred() holds or `timeout` passes; returns pred().
template <typename Pred>
bool wait_until(const Pair& p, Pred pred, std::chrono::steady_clock::duration timeout = kWait) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return pred();
    p.progress();
  }
  return true;
}

// Embedded completion that remembers how the operation ended.
struct TestCompletion : tl::Completion {
  bool done = false;
  Status status = Status::Ok;
  TestCompletion() { func = &on_complete; }
  static void on_complete(tl::Completion* self, Status s);
};

// Sends one AM, retrying NoResource after progress until the deadline (then Timeout).
Status send_short(const Pair& p, tl::Endpoint& ep, tl::AmId id, std::span<const std::byte> header,
                  std::span<const std::byte> payload);
Status send_bcopy(const Pair& p, tl::Endpoint& ep, tl::AmId id, std::span<const std::byte> data);
Status send_bcopy_aligned(const Pair& p, tl::Endpoint& ep, tl::AmId id,
                          std::span<const std::byte> data, uintptr_t align);
tl::PackFn copy_packer();  // arg: a std::span<const std::byte>*

// One-sided transfers split by max_get/max_put, each fragment retried on NoResource and
// waited for when InProgress. Returns the first status that is not Ok.
Status do_get(const Pair& p, tl::Endpoint& ep, std::span<std::byte> local, uint64_t remote_addr,
              std::span<const std::byte> rkey);
Status do_put(const Pair& p, tl::Endpoint& ep, std::span<const std::byte> local,
              uint64_t remote_addr, std::span<const std::byte> rkey);
Status do_flush(const Pair& p, tl::Endpoint& ep);

// Stores every message it receives (only for small volumes).
struct Inbox {
  std::vector<std::vector<std::byte>> msgs;
  static void handler(void* arg, const void* data, size_t length);
};

// Deterministic data: byte i of stream `seed`.
uint64_t mix(uint64_t x);
void fill_pattern(std::span<std::byte> buf, uint64_t seed);
// Index of the first byte that differs from the pattern, or buf.size().
size_t find_mismatch(std::span<const std::byte> buf, uint64_t seed);
size_t find_not_byte(std::span<const std::byte> buf, std::byte value);

inline uint64_t addr_of(const void* p) { return reinterpret_cast<uint64_t>(p); }

// doctest streams a const char* as a pointer: failure messages use this instead.
inline std::string str(Status s) { return status_string(s); }

}  // namespace torus::tltest

// So that CHECK(st == Status::Ok) prints the statuses by name.
template <>
struct doctest::StringMaker<torus::Status> {
  static doctest::String convert(torus::Status s) { return torus::status_string(s); }
};
