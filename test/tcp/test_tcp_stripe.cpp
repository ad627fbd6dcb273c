// Striped gets and puts across two real processes: a forked child exposes a region and
// serves; the parent gets and puts ranges of many sizes (below and above the stripe
// threshold, not multiples of the piece size, at odd offsets), one by one and all at once,
// with 0, 1 and 3 bulk connections, checking every byte; then the child dies mid-transfer
// and every pending operation ends with an error, with no hang; and a bulk connection that
// cannot be opened (no file descriptor left) leaves transfers on the main one.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "test/fd_io.h"
#include "transports/tcp/tcp_auth.h"
#include "transports/tcp/tcp_iface.h"

using namespace torus;
using namespace torus::tcp;
using namespace std::chrono_literals;
using torus::test_io::read_all;
using torus::test_io::write_all;

namespace {

constexpr size_t kRegion = 24u << 20;
constexpr const char* kKey = "stripe";

std::byte pattern(size_t i) { return static_cast<std::byte>((i * 151 + (i >> 13) * 3) & 0xff); }

std::unique_ptr<TcpIface> open_iface(unsigned bulk_conns) {
  tl::IfaceParams p;
  p.worker_uid = random_u64();
  p.job_id = "tcpstripe";
  Settings s;
  s.ifaces = "lo";
  s.job_key = kKey;
  s.bulk_conns = bulk_conns;
  s.stripe_local = true;  // lo is within the host: stripe anyway, to test it
  auto r = TcpIface::open(p, s);
  if (!r.ok()) return nullptr;
  return std::move(r.value());
}

// What the child tells the parent: its address, its region's rkey and base address.
struct Offer {
  std::vector<std::byte> address, rkey;
  uint64_t base = 0;
};

// The child: serves get/put requests until the parent closes `ctrl` (or 60 s pass).
[[noreturn]] void serve(int out, int ctrl) {
  auto iface = open_iface(0);
  if (!iface) ::_exit(2);
  std::vector<std::byte> region(kRegion);
  for (size_t i = 0; i < kRegion; ++i) region[i] = pattern(i);
  auto mr = iface->mem_register(region.data(), kRegion, tl::kAccessRead | tl::kAccessWrite);
  if (!mr.ok()) ::_exit(2);
  std::vector<std::byte> rkey(iface->attributes().rkey_size);
  mr.value()->pack_rkey(rkey);
  const auto addr = iface->address();
  const uint64_t alen = addr.size(), klen = rkey.size();
  const auto base = reinterpret_cast<uint64_t>(region.data());
  if (!write_all(out, &alen, 8) || !write_all(out, addr.data(), alen) ||
      !write_all(out, &klen, 8) || !write_all(out, rkey.data(), klen) ||
      !write_all(out, &base, 8))
    ::_exit(2);
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd pf[2] = {{iface->event_fd(), POLLIN, 0}, {ctrl, POLLIN, 0}};
    ::poll(pf, 2, 50);
    if ((pf[1].revents & (POLLIN | POLLHUP)) != 0) break;
    for (int i = 0; i < 64; ++i) iface->progress();
  }
  ::_exit(0);
}

struct Child {
  pid_t pid = -1;
  int ctrl = -1;
  Offer offer;
  // Forks the server; false (and a message) when it did not come up.
  bool start() {
    int data[2], ctl[2];
    if (::pipe(data) != 0 || ::pipe(ctl) != 0) return false;
    pid = ::fork();
    if (pid < 0) return false;
    if (pid == 0) {
      ::close(data[0]);
      ::close(ctl[1]);
      serve(data[1], ctl[0]);
    }
    ::close(data[1]);
    ::close(ctl[0]);
    ctrl = ctl[1];
    uint64_t alen = 0, klen = 0;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    bool ok = read_all(data[0], &alen, 8, deadline) && alen < 4096;
    if (ok) offer.address.resize(alen);
    ok = ok && read_all(data[0], offer.address.data(), alen, deadline) &&
         read_all(data[0], &klen, 8, deadline) &&
         klen < 64;
    if (ok) offer.rkey.resize(klen);
    ok = ok && read_all(data[0], offer.rkey.data(), klen, deadline) &&
         read_all(data[0], &offer.base, 8, deadline);
    ::close(data[0]);
    return ok;
  }
  // Ends the child (politely, or with SIGKILL) and reaps it within a deadline.
  void stop(bool kill = false) {
    if (pid <= 0) return;
    if (kill) ::kill(pid, SIGKILL);
    if (ctrl >= 0) ::close(ctrl);
    ctrl = -1;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      ::usleep(1000);
    }
    pid = -1;
  }
  ~Child() { stop(true); }
};

struct Op : tl::Completion {
  int* done = nullptr;
  Status status = Status::InProgress;
};

void on_op(tl::Completion* c, Status s) {
  auto* op = static_cast<Op*>(c);
  op->status = s;
  ++*op->done;
}

struct Errors {
  int count = 0;
};

void on_error(void* arg, tl::Endpoint*, Status) { ++static_cast<Errors*>(arg)->count; }

// A serving child, an iface with `bulk_conns` bulk connections that counts peer errors, and
// an endpoint to the child (declared last, so destroyed before the iface it must not outlive).
struct Link {
  Child child;
  std::unique_ptr<TcpIface> iface;
  Errors errors;
  std::unique_ptr<tl::Endpoint> ep;

  explicit Link(unsigned bulk_conns) {
    REQUIRE(child.start());
    iface = open_iface(bulk_conns);
    REQUIRE(iface);
    iface->set_error_handler(on_error, &errors);
    auto r = iface->connect(child.offer.address);
    REQUIRE(r.ok());
    ep = std::move(r.value());
  }
};

template <typename Cond>
bool pump_until(TcpIface& iface, Cond cond) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    iface.progress();
  }
  return true;
}

// Sizes below and above the stripe threshold, none a multiple of a piece, at odd offsets.
struct Range {
  size_t offset, len;
};
const Range kRanges[] = {
    {0, 1},           {7, 4095},          {4096, 512 * 1024 - 1}, {123, 512 * 1024},
    {1000, 600001},   {3, (1u << 20) + 7}, {(1u << 20) + 1, (4u << 20) - 3},
    {5, (13u << 20) + 5},
};

// Gets every range one by one and then all at once, and puts a range and gets it back.
void exercise(unsigned bulk_conns) {
  Link link(bulk_conns);
  auto& [child, iface, errors, ep] = link;
  const uint64_t base = child.offer.base;
  int done = 0;

  auto get = [&](std::vector<std::byte>& dst, const Range& r, Op& op) {
    op.func = on_op;
    op.done = &done;
    Status s;
    REQUIRE(pump_until(*iface, [&] {
      s = ep->get_zcopy({dst.data(), r.len}, base + r.offset, child.offer.rkey, &op);
      return s != Status::NoResource;
    }));
    REQUIRE(s == Status::InProgress);
  };
  auto intact = [](const std::vector<std::byte>& got, const Range& r) {
    size_t bad = 0;
    for (size_t i = 0; i < r.len; ++i) bad += got[i] != pattern(r.offset + i);
    return bad;
  };

  // The first large get dials the bulk connections; the rest of the test runs on them.
  std::vector<std::byte> warm(1u << 20);
  Op w;
  get(warm, {0, warm.size()}, w);
  REQUIRE(pump_until(*iface, [&] { return done == 1; }));
  CHECK(w.status == Status::Ok);
  REQUIRE(pump_until(*iface, [&] { return iface->ready_connections() == 1 + bulk_conns; }));

  for (const Range& r : kRanges) {
    CAPTURE(r.len);
    std::vector<std::byte> dst(r.len);
    Op op;
    done = 0;
    get(dst, r, op);
    REQUIRE(pump_until(*iface, [&] { return done == 1; }));
    CHECK(op.status == Status::Ok);
    CHECK(intact(dst, r) == 0);
  }

  std::vector<std::vector<std::byte>> dsts;
  std::vector<Op> ops(std::size(kRanges));
  for (const Range& r : kRanges) dsts.emplace_back(r.len);
  done = 0;
  for (size_t k = 0; k < ops.size(); ++k) get(dsts[k], kRanges[k], ops[k]);
  REQUIRE(pump_until(*iface, [&] { return done == static_cast<int>(ops.size()); }));
  for (size_t k = 0; k < ops.size(); ++k) {
    CAPTURE(kRanges[k].len);
    CHECK(ops[k].status == Status::Ok);
    CHECK(intact(dsts[k], kRanges[k]) == 0);
  }

  // A put of 5 MiB + 11 bytes at an odd offset, read back (striped both ways).
  const Range pr{777, (5u << 20) + 11};
  std::vector<std::byte> src(pr.len), back(pr.len);
  for (size_t i = 0; i < pr.len; ++i) src[i] = static_cast<std::byte>((i * 7 + 1) & 0xff);
  Op put;
  put.func = on_op;
  put.done = &done;
  done = 0;
  Status s;
  REQUIRE(pump_until(*iface, [&] {
    s = ep->put_zcopy(src, base + pr.offset, child.offer.rkey, &put);
    return s != Status::NoResource;
  }));
  REQUIRE(s == Status::InProgress);
  REQUIRE(pump_until(*iface, [&] { return done == 1; }));
  CHECK(put.status == Status::Ok);
  Op rb;
  done = 0;
  get(back, pr, rb);
  REQUIRE(pump_until(*iface, [&] { return done == 1; }));
  CHECK(rb.status == Status::Ok);
  CHECK(std::memcmp(back.data(), src.data(), pr.len) == 0);

  CHECK(iface->ready_connections() == 1 + bulk_conns);
  CHECK(errors.count == 0);
  ep.reset();
  child.stop();
}

}  // namespace

TEST_CASE("large gets and puts across processes land intact, striped or not") {
  for (unsigned conns : {0u, 1u, 3u}) {
    CAPTURE(conns);
    exercise(conns);
  }
}

TEST_CASE("a peer that dies in the middle of striped gets fails them all, with no hang") {
  Link link(1);
  auto& [child, iface, errors, ep] = link;
  int done = 0;
  constexpr size_t kGet = 4u << 20;
  constexpr size_t kGets = 24;  // 96 MiB: far more than the sockets buffer
  std::vector<std::byte> dst(kGets * kGet);
  std::vector<Op> ops(kGets);
  auto issue = [&](size_t k) {
    Op& op = ops[k];
    op.func = on_op;
    op.done = &done;
    const uint64_t off = (k * kGet) % (kRegion - kGet);
    Status s;
    REQUIRE(pump_until(*iface, [&] {
      s = ep->get_zcopy({dst.data() + k * kGet, kGet}, child.offer.base + off,
                        child.offer.rkey, &op);
      return s != Status::NoResource;
    }));
    REQUIRE(s == Status::InProgress);
  };
  issue(0);
  REQUIRE(pump_until(*iface, [&] { return done == 1 && iface->ready_connections() == 2; }));
  done = 0;
  for (size_t k = 0; k < kGets; ++k) issue(k);
  REQUIRE(pump_until(*iface, [&] { return done >= 1; }));
  child.stop(true);
  REQUIRE(pump_until(*iface, [&] { return done == static_cast<int>(kGets); }));
  int failed = 0;
  for (size_t k = 0; k < kGets; ++k) {
    const Op& op = ops[k];
    CHECK((op.status == Status::Ok || is_error(op.status)));
    if (op.status != Status::Ok) {
      ++failed;
      continue;
    }
    const uint64_t off = (k * kGet) % (kRegion - kGet);
    size_t bad = 0;
    for (size_t i = 0; i < kGet; ++i) bad += dst[k * kGet + i] != pattern(off + i);
    CHECK(bad == 0);
  }
  CHECK(failed > 0);
  CHECK(errors.count == 1);
  CHECK(iface->ready_connections() == 0);
  // The pair stays failed: a new get is refused at once.
  Op late;
  late.func = on_op;
  late.done = &done;
  CHECK(is_error(ep->get_zcopy({dst.data(), kGet}, child.offer.base, child.offer.rkey, &late)));
}

TEST_CASE("a bulk connection that cannot be opened leaves large transfers on the main one") {
  Link link(1);
  auto& [child, iface, errors, ep] = link;
  int done = 0;
  auto get = [&](std::vector<std::byte>& dst, size_t off, Op& op) {
    op.func = on_op;
    op.done = &done;
    done = 0;
    Status s;
    REQUIRE(pump_until(*iface, [&] {
      s = ep->get_zcopy(dst, child.offer.base + off, child.offer.rkey, &op);
      return s != Status::NoResource;
    }));
    REQUIRE(s == Status::InProgress);
    REQUIRE(pump_until(*iface, [&] { return done == 1; }));
  };
  auto intact = [](const std::vector<std::byte>& got, size_t off) {
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) bad += got[i] != pattern(off + i);
    return bad;
  };

  // A small get opens the main connection only.
  std::vector<std::byte> small(4096);
  Op first;
  get(small, 0, first);
  CHECK(first.status == Status::Ok);
  REQUIRE(iface->ready_connections() == 1);

  // Out of file descriptors: the bulk connection's socket() fails (EMFILE) when the first
  // large get dials it. The lowest free descriptor becomes the limit, so none is left.
  struct FdLimit {  // restores the limit however the block below ends
    rlimit saved{};
    bool set = false;
    ~FdLimit() {
      if (set) ::setrlimit(RLIMIT_NOFILE, &saved);
    }
  } limit;
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit.saved) == 0);
  const int lowest_free = ::fcntl(iface->event_fd(), F_DUPFD, 0);
  REQUIRE(lowest_free >= 0);
  ::close(lowest_free);
  rlimit tight = limit.saved;
  tight.rlim_cur = static_cast<rlim_t>(lowest_free);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &tight) == 0);
  limit.set = true;
  std::vector<std::byte> big((4u << 20) + 3);
  Op during;
  get(big, 4099, during);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &limit.saved) == 0);
  limit.set = false;
  CHECK(during.status == Status::Ok);
  CHECK(intact(big, 4099) == 0);

  // The lane stays given up: later large gets and puts go whole on the main connection.
  std::fill(big.begin(), big.end(), std::byte{0});
  Op after;
  get(big, 1, after);
  CHECK(after.status == Status::Ok);
  CHECK(intact(big, 1) == 0);
  for (int i = 0; i < 1000; ++i) iface->progress();
  CHECK(iface->ready_connections() == 1);
  CHECK(errors.count == 0);
  ep.reset();
  child.stop();
}
