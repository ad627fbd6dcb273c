// torus_perf's side of a run (Session): completing requests within the timeout while
// watching the bootstrap socket for the peer's death, am_lat's handlers, and the record of
// the first corruption --check finds (CheckState).
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "contrib/tools/perf_measure.h"
#include "contrib/tools/perf_tests.h"

namespace torus::perf {
namespace {

// How long to poll before sleeping in Worker::wait, as Worker::wait_request does by default.
const std::chrono::nanoseconds kSpin = sysconf(_SC_NPROCESSORS_ONLN) > 1
                                           ? std::chrono::microseconds(50)
                                           : std::chrono::microseconds(2);
constexpr std::chrono::milliseconds kPeerCheck{1000};

// The AM handler of am_lat, for pings (server) and pongs (client): the header carries the
// iteration number; with --check the payload is verified here, while it is valid.
void on_am(void* arg, std::span<const std::byte> header, std::span<const std::byte> payload,
           Endpoint* /*reply_ep*/) {
  auto* am = static_cast<AmState*>(arg);
  uint64_t iter = am->received;
  if (header.size() == sizeof(iter)) std::memcpy(&iter, header.data(), sizeof(iter));
  if (am->check && am->cs != nullptr) {
    if (payload.size() != am->size && !am->cs->bad)
      am->cs->record_length(iter, am->size, payload.size());
    else
      verify(*am->cs, payload, iter, am->size, am->dir);
  }
  ++am->received;
}

void on_probe(void*, std::span<const std::byte>, std::span<const std::byte>, Endpoint*) {}

}  // namespace

std::vector<std::byte> make_buffer(size_t size) {
  return std::vector<std::byte>(size == 0 ? 1 : size, std::byte{0x5a});
}

void verify(CheckState& cs, std::span<const std::byte> got, uint64_t iter, size_t size,
            unsigned dir) {
  if (cs.bad) return;  // report the first corruption only
  uint64_t seed = pattern_seed(iter, size, dir);
  if (auto off = verify_pattern(got, seed))
    cs.record(iter, *off, pattern_byte(seed, *off), got[*off]);
}

void CheckState::record(uint64_t iter, size_t offset, std::byte expected, std::byte got) {
  if (bad) return;
  bad = true;
  char b[160];
  std::snprintf(b, sizeof(b),
                "iteration %" PRIu64 ", first bad offset %zu: expected 0x%02x, got 0x%02x", iter,
                offset, static_cast<unsigned>(expected), static_cast<unsigned>(got));
  first = b;
}

void CheckState::record_length(uint64_t iter, size_t expected, size_t got) {
  if (bad) return;
  bad = true;
  first = "iteration " + std::to_string(iter) + ": received " + std::to_string(got) +
          " bytes, expected " + std::to_string(expected);
}

Session::Session(Worker& worker, Endpoint& ep, BootstrapSocket& sock,
                 std::chrono::seconds timeout)
    : worker_(worker), ep_(ep), sock_(sock), timeout_(timeout) {
  worker_.set_am_handler(kAmPing, &on_am, &am_);
  worker_.set_am_handler(kAmPong, &on_am, &am_);
  worker_.set_am_handler(kAmProbe, &on_probe, nullptr);
}

Session::~Session() {
  for (unsigned id : {kAmPing, kAmPong, kAmProbe}) worker_.set_am_handler(id, nullptr, nullptr);
}

void Session::check_peer(const char* what, uint64_t iter) {
  if (!sock_.peer_alive())
    fail(std::string("the peer closed the bootstrap connection (it exited or died) while this "
                     "side waited for ") + what + " at iteration " + std::to_string(iter));
}

void Session::timed_out(const char* what, uint64_t iter) {
  fail(std::string("timed out after ") + std::to_string(timeout_.count() / 1000) +
       " s waiting for " + what + " at iteration " + std::to_string(iter) +
       " (peer stuck, or a torus bug: a message lost?)");
}

RecvInfo Session::complete(Status s, Request* req, const char* what, uint64_t iter) {
  if (s == Status::Ok) return RecvInfo{0, SIZE_MAX};
  if (s != Status::InProgress || req == nullptr)
    fail(std::string(what) + " failed at iteration " + std::to_string(iter) + ": " +
         status_string(s));
  // The clock is read only once a wait has run out: a read costs 30-70 ns in a VM, as much
  // as a small message, and a receiver completes one request per message. The first wait's
  // slice counts towards the deadline.
  bool have_deadline = false;
  Clock::time_point deadline{};
  std::chrono::nanoseconds slice = kPeerCheck;
  while (true) {
    Status ws = worker_.wait_request(req, slice);
    if (ws == Status::Timeout && !req->completed()) {
      const auto now = Clock::now();
      if (!have_deadline) {
        deadline = now - kPeerCheck + timeout_;
        have_deadline = true;
      }
      check_peer(what, iter);
      if (now >= deadline) timed_out(what, iter);
      slice = std::min<std::chrono::nanoseconds>(deadline - now, kPeerCheck);
      continue;
    }
    if (ws != Status::Ok) {
      // Waiting itself failed, or the request completed with an error.
      Status rs = req->completed() ? req->status() : ws;
      req->release();
      fail(std::string(what) + " failed at iteration " + std::to_string(iter) + ": " +
           status_string(rs));
    }
    RecvInfo info = req->info();
    req->release();
    return info;
  }
}

void Session::progress_until_received(uint64_t count, const char* what, uint64_t iter) {
  auto start = Clock::now(), last_check = start;
  const auto deadline = start + timeout_;
  unsigned polls = 0;
  while (am_.received < count) {
    worker_.progress();
    if (am_.received >= count || (++polls & 63) != 0) continue;
    auto now = Clock::now();
    if (now - start < kSpin) continue;
    if (now - last_check >= kPeerCheck) {
      check_peer(what, iter);
      last_check = now;
    }
    if (now >= deadline) timed_out(what, iter);
    Status ws = worker_.wait(std::chrono::milliseconds(100));
    if (is_error(ws) && ws != Status::Timeout)
      fail(std::string("Worker::wait failed while waiting for ") + what + ": " +
           status_string(ws));
  }
}

std::string Session::serve_until_message(const char* what) {
  const int sfd = sock_.native_fd();
  auto socket_readable = [&](int timeout_ms) {
    pollfd pf{sfd, POLLIN, 0};
    int r = poll(&pf, 1, timeout_ms);
    if (r < 0 && errno != EINTR)
      fail(std::string("poll on the bootstrap socket failed while waiting for ") + what + ": " +
           std::strerror(errno));
    return r > 0;
  };
  // A readable socket is a message, or the peer's EOF when it failed or died.
  auto receive = [&] {
    if (!sock_.peer_alive())
      fail(std::string("the peer closed the bootstrap connection (it exited or died) while this "
                       "side waited for ") + what);
    return sock_.recv_text(timeout_);
  };
  auto last_event = Clock::now();
  bool busy = false;
  unsigned polls = 0;
  while (true) {
    if (worker_.progress() != 0) busy = true;
    if ((++polls & 63) != 0) continue;
    if (socket_readable(0)) return receive();
    auto now = Clock::now();
    if (busy) {
      busy = false;
      last_event = now;
      continue;
    }
    if (now - last_event < kSpin || worker_.arm() != Status::Ok) continue;
    // Nothing happened for a while (CMA needs no target progress): sleep until the worker
    // has an event or the client speaks.
    pollfd fds[2] = {{sfd, POLLIN, 0}, {worker_.event_fd(), POLLIN, 0}};
    int r = poll(fds, fds[1].fd >= 0 ? 2 : 1, fds[1].fd >= 0 ? 1000 : 1);
    if (r < 0 && errno != EINTR)
      fail(std::string("poll on the worker and the bootstrap socket failed while waiting for ") +
           what + ": " + std::strerror(errno));
    if (r > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) return receive();
    if (r > 0) last_event = Clock::now();
  }
}

bool Session::am_size_supported(size_t size) {
  probe_bufs_.push_back(make_buffer(size));
  uint64_t h = 0;
  Request* req = nullptr;
  Status s = ep_.am_send(kAmProbe, {reinterpret_cast<const std::byte*>(&h), sizeof(h)},
                         {probe_bufs_.back().data(), size}, &req);
  if (s == Status::Unsupported) return false;
  if (s == Status::InProgress) {
    req->release();  // completes in the background; its buffer lives as long as the session
  } else if (s != Status::Ok) {
    fail(std::string("am_send (probe of ") + std::to_string(size) + " bytes) failed: " +
         status_string(s));
  }
  return true;
}

}  // namespace torus::perf
