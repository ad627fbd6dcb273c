// Matching partitioned requests (partitioned.h): the channel counter of the sending side
// and the setup inbox of the receiving side.
#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <mutex>

#include "mpi_shim/lib/p2p/partitioned.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi {
namespace {

// Per sending rank: one posted receive for its next setup while some request waits for one
// (its buffer lives as long as the process, so a callback never meets a freed one), the
// waiting requests in the order they started, and setups no request has claimed yet.
struct Sender {
  explicit Sender(int w) : world(w) {}
  int world;
  PartitionSetup msg{};
  bool armed = false;
  std::deque<SetupWaiter*> waiters;
  std::deque<PartitionSetup> stash;
};

// Recursive: a receive that matches an unexpected message may run its callback inside the
// tag_recv call that posts it, which holds the lock already.
std::recursive_mutex g_mutex;
std::map<int, std::unique_ptr<Sender>> g_senders;  // by world rank

std::mutex g_channel_mutex;
uint32_t g_next_channel = 1;

void arm(int world, Sender& s);

// A setup from `world` is in: to its first waiter that matches, else into the stash.
void deliver(int world, Sender& s, const PartitionSetup& m) {
  auto it = std::find_if(s.waiters.begin(), s.waiters.end(),
                         [&](SetupWaiter* w) { return w->matches(world, m); });
  if (it == s.waiters.end()) {
    s.stash.push_back(m);
  } else {
    SetupWaiter* w = *it;
    s.waiters.erase(it);
    w->on_setup(m);
  }
  arm(world, s);
}

void fail_all(Sender& s, int code) {
  while (!s.waiters.empty()) {
    SetupWaiter* w = s.waiters.front();
    s.waiters.pop_front();
    w->on_setup_failed(code);
  }
}

void on_recv(Request* /*req*/, Status status, const RecvInfo& /*info*/, void* user) {
  std::lock_guard lock(g_mutex);
  auto* s = static_cast<Sender*>(user);
  s->armed = false;
  if (status != Status::Ok) {
    fail_all(*s, error_from_status(status));
    return;
  }
  deliver(s->world, *s, s->msg);
}

// Posts the receive for the sender's next setup, if someone waits and none is posted.
void arm(int world, Sender& s) {
  if (s.armed || s.waiters.empty()) return;
  s.armed = true;
  RecvParams params;
  params.callback = &on_recv;
  params.user = &s;
  Request* req = nullptr;
  Status st = runtime()->worker->tag_recv(&s.msg, sizeof s.msg,
                                          partitioned_tag(world, kSetupField), kTagMaskFull,
                                          &req, params);
  if (st == Status::InProgress) {
    req->release();  // the callback still comes
    return;
  }
  s.armed = false;  // finished or failed at once: no callback will come
  if (is_error(st)) {
    fail_all(s, error_from_status(st));
    return;
  }
  deliver(world, s, s.msg);
}

}  // namespace

uint32_t partitioned_channel(uint32_t partitions) {
  const uint32_t span = static_cast<uint32_t>(kTagUb);  // values 1..kTagUb
  if (partitions == 0 || partitions > span) return 0;
  std::lock_guard lock(g_channel_mutex);
  // Wrapping reuses values of requests created 2^28 partitions ago; a pair that old and still
  // in use would need that many partitions in flight at once.
  if (g_next_channel + partitions - 1 > span) g_next_channel = 1;
  const uint32_t base = g_next_channel;
  g_next_channel += partitions;
  return base;
}

void partitioned_await_setup(SetupWaiter* w) {
  std::lock_guard lock(g_mutex);
  const int world = w->sender_world();
  auto& sp = g_senders[world];
  if (!sp) sp = std::make_unique<Sender>(world);
  Sender& s = *sp;
  auto it = std::find_if(s.stash.begin(), s.stash.end(),
                         [&](const PartitionSetup& m) { return w->matches(world, m); });
  if (it != s.stash.end()) {
    const PartitionSetup m = *it;
    s.stash.erase(it);
    w->on_setup(m);
    return;
  }
  s.waiters.push_back(w);
  arm(world, s);
}

void partitioned_cancel_await(SetupWaiter* w) {
  std::lock_guard lock(g_mutex);
  auto it = g_senders.find(w->sender_world());
  if (it == g_senders.end()) return;
  auto& q = it->second->waiters;
  q.erase(std::remove(q.begin(), q.end(), w), q.end());
}

}  // namespace torus::mpi
