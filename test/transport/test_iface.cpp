// Conformance: advertised attributes are coherent, addresses and reachability, opening
// with built-in defaults, and sleeping on event_fd()/arm().
#include <poll.h>

#include <string>

#include "test/transport/harness.h"

namespace torus::tltest {
namespace {

TEST_CASE("attributes: capabilities come with limits and costs") {
  for_each_variant([](const Variant& v) {
    Pair p;
    TL_REQUIRE(open_pair(v, &p));
    const tl::IfaceAttr& a = p.attr();
    const tl::Caps& c = a.caps;
    CHECK_MESSAGE((c.am_short || c.am_bcopy || c.am_zcopy), "no way to send an active message");
    if (c.am_short) CHECK(a.limits.max_short > 0);
    if (c.am_bcopy) CHECK(a.limits.max_bcopy > 0);
    if (c.am_zcopy) CHECK((a.limits.max_zcopy > 0 && a.limits.max_iov >= 1));
    if (c.get_zcopy) CHECK(a.limits.max_get > 0);
    if (c.put_zcopy) CHECK(a.limits.max_put > 0);
    if (c.get_zcopy || c.put_zcopy) {
      CHECK(a.rkey_size > 0);
      CHECK(a.rma_cost.bandwidth_Bps > 0);
      CHECK(a.rma_cost.latency_ns >= 0);
    }
    CHECK(a.am_cost.bandwidth_Bps > 0);
    CHECK(a.am_cost.latency_ns >= 0);
    CHECK(a.am_cost.overhead_ns >= 0);
    CHECK((a.mem_types & tl::mem_type_bit(tl::MemType::Host)) != 0);
    CHECK(std::string(v.transport->name()).size() > 0);
    CHECK(p.b->attributes().caps.am_short == c.am_short);  // one device, one answer
  });
}

TEST_CASE("address: non-empty, reachable by the peer, garbage refused with a reason") {
  for_each_variant([](const Variant& v) {
    Pair p;
    TL_REQUIRE(open_pair(v, &p));
    const auto addr_a = p.a->address();
    const auto addr_b = p.b->address();
    CHECK(!addr_a.empty());
    std::string why;
    CHECK_MESSAGE(p.a->is_reachable(addr_b, &why), why);
    CHECK_MESSAGE(p.b->is_reachable(addr_a, &why), why);
    CHECK(p.a->is_reachable(addr_b, nullptr));  // `why` is optional

    const std::vector<std::byte> garbage(3, std::byte{0xff});
    why.clear();
    CHECK_FALSE(p.a->is_reachable(garbage, &why));
    CHECK(!why.empty());
    CHECK_FALSE(p.a->connect(garbage).ok());
    why.clear();
    CHECK_FALSE(p.a->is_reachable({}, &why));
    CHECK(!why.empty());
    if (addr_b.size() > 1) {
      why.clear();
      CHECK_FALSE(p.a->is_reachable(addr_b.first(addr_b.size() - 1), &why));
      CHECK(!why.empty());
    }

    if (p.attr().reach == tl::Reach::SameWorker) {
      // Another worker's iface, even in this process, is out of reach.
      auto other = v.transport->open(v.device, make_params(v));
      TL_REQUIRE(other.ok());
      why.clear();
      CHECK_FALSE(p.a->is_reachable(other.value()->address(), &why));
      CHECK(!why.empty());
      const auto ep = p.a->connect(other.value()->address());
      CHECK_FALSE(ep.ok());
      if (!ep.ok()) CHECK(ep.error().status == Status::Unreachable);
    }
  });
}

TEST_CASE("open: with config = nullptr (built-in defaults)") {
  for_each_variant([](const Variant& v) {
    Variant defaults = v;
    defaults.config = nullptr;
    Pair p;
    TL_REQUIRE(open_pair(defaults, &p));
    Inbox inbox;
    p.b->set_am_handler(4, &Inbox::handler, &inbox);
    const std::byte x[3] = {std::byte{1}, std::byte{2}, std::byte{3}};
    if (p.attr().caps.am_short) CHECK(send_short(p, *p.ab, 4, {}, x) == Status::Ok);
    else CHECK(send_bcopy(p, *p.ab, 4, x) == Status::Ok);
    CHECK(wait_until(p, [&] { return !inbox.msgs.empty(); }));
  });
}

bool fd_readable(int fd, int timeout_ms) {
  pollfd pfd{fd, POLLIN, 0};
  return ::poll(&pfd, 1, timeout_ms) == 1 && (pfd.revents & POLLIN) != 0;
}

// Drains the receiver until arm() says it is safe to sleep.
bool arm_when_idle(const Pair& p) {
  Status st = Status::NoResource;
  wait_until(p, [&] { return (st = p.b->arm()) != Status::NoResource; });
  CHECK_MESSAGE(st == Status::Ok, "arm() on an idle iface: " << str(st));
  return st == Status::Ok;
}

TEST_CASE("event_fd/arm: idle arms Ok; a peer's send wakes the sleeper") {
  for_each_variant([](const Variant& v) {
    Pair p;
    TL_REQUIRE(open_pair(v, &p));
    const int fd = p.b->event_fd();
    if (fd < 0) {
      MESSAGE(v.label << ": event_fd() is -1: this transport cannot sleep; nothing to test");
      return;
    }
    CHECK(p.b->event_fd() == fd);  // stable
    Inbox inbox;
    p.b->set_am_handler(5, &Inbox::handler, &inbox);
    const std::byte x[8] = {};
    auto send = [&] {
      return p.attr().caps.am_short ? send_short(p, *p.ab, 5, {}, x) : send_bcopy(p, *p.ab, 5, x);
    };

    // Armed first, then the peer sends: the fd must wake a poll.
    TL_REQUIRE(arm_when_idle(p));
    TL_REQUIRE(send() == Status::Ok);
    if (p.a != p.b) p.a->progress();  // the sender may need a turn to push the bytes out
    CHECK_MESSAGE(fd_readable(fd, 10000), "armed, a message sent, event_fd not readable in 10 s");
    CHECK(wait_until(p, [&] { return inbox.msgs.size() == 1; }));

    // Not armed when the peer sends: arm() must refuse, or the fd must wake a poll.
    TL_REQUIRE(arm_when_idle(p));
    p.b->progress();  // disarms, as a worker that went on polling would
    TL_REQUIRE(send() == Status::Ok);
    if (p.a != p.b) p.a->progress();
    const Status st = p.b->arm();
    if (st == Status::Ok)
      CHECK_MESSAGE(fd_readable(fd, 10000), "arm() said idle with a message waiting, and "
                                            "event_fd did not become readable in 10 s");
    else
      CHECK(st == Status::NoResource);
    CHECK(wait_until(p, [&] { return inbox.msgs.size() == 2; }));

    // Everything consumed: arming is Ok again.
    CHECK(arm_when_idle(p));
  });
}

}  // namespace
}  // namespace torus::tltest
