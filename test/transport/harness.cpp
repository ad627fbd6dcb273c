// The suite's catalog of transports and variants, pair setup and the retrying data helpers.
#include "test/transport/harness.h"

#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace torus::tltest {
namespace {

// Extra runs of a transport under non-default settings, so fallbacks are tested too.
struct ConfigVariant {
  std::string_view transport;
  std::string_view variable;
  std::string_view value;
  std::string_view also_variable = {};  // a second setting of the same variant, if any
  std::string_view also_value = {};
};
constexpr ConfigVariant kConfigVariants[] = {
    {"shm", "TORUS_SHM_CMA", "n"},  // the bounce-buffer path taken where CMA is refused
    // libfabric providers torus's ofi transport opens only when named (they duplicate torus
    // tcp), and the RDMA ones, which report themselves skipped by name where absent.
    {"ofi", "TORUS_OFI_PROVIDER", "tcp"},
    {"ofi", "TORUS_OFI_PROVIDER", "sockets"},
    // One receive buffer per message instead of multi-receive slabs.
    {"ofi", "TORUS_OFI_PROVIDER", "sockets", "TORUS_OFI_MULTI_RECV", "n"},
    // libfabric's shm: FI_MR_VIRT_ADDR, no key checks of its own (get by tagged messages).
    {"ofi", "TORUS_OFI_PROVIDER", "shm"},
    {"ofi", "TORUS_OFI_PROVIDER", "efa"},
    {"ofi", "TORUS_OFI_PROVIDER", "verbs"},
};

// Variables a transport's query() reads from the process environment (Transport::query has
// no configuration): a variant of one is queried with the variable set there.
constexpr std::string_view kQueryVariables[] = {"TORUS_OFI_PROVIDER"};

// libfabric's tcp and sockets providers bind eth0 unless told otherwise; tests use loopback.
const bool kLoopbackFabric = [] {
  setenv("FI_TCP_IFACE", "lo", 0);
  setenv("FI_SOCKETS_IFACE", "lo", 0);
  // sockets' progress thread otherwise sleeps 10 ms between polls: 10 ms per message.
  setenv("FI_SOCKETS_PE_WAITTIME", "0", 0);
  return true;
}();

struct Catalog {
  std::vector<std::unique_ptr<tl::Transport>> transports;
  std::vector<std::unique_ptr<config::Config>> configs;
  std::vector<Variant> viable;
  std::vector<std::string> skipped;
  std::string error;  // TORUS_TLS could not be parsed
};

bool is_query_variable(std::string_view v) {
  return std::find(std::begin(kQueryVariables), std::end(kQueryVariables), v) !=
         std::end(kQueryVariables);
}

// Variants whose variable query() reads: set it in the environment (unless the user set
// it), query, restore; each device found becomes a variant with the variable configured.
void add_query_variants(Catalog& c, const std::string& name, tl::Transport* t,
                        const config::Config* base) {
  (void)kLoopbackFabric;
  for (const ConfigVariant& cv : kConfigVariants) {
    if (cv.transport != name || !is_query_variable(cv.variable)) continue;
    const std::string var(cv.variable), value(cv.value);
    std::string vlabel = name + "[" + var + "=" + value;
    if (!cv.also_variable.empty())
      vlabel += "," + std::string(cv.also_variable) + "=" + std::string(cv.also_value);
    vlabel += "]";
    if (std::getenv(var.c_str()) != nullptr) {
      c.skipped.push_back(vlabel + ": " + var + " is set in the environment");
      continue;
    }
    if (base == nullptr || config::find_var(var) == nullptr) {
      c.skipped.push_back(vlabel + ": " + var + " is not a declared configuration variable");
      continue;
    }
    setenv(var.c_str(), value.c_str(), 1);
    std::string why;
    const auto devices = t->query(&why);
    unsetenv(var.c_str());
    if (devices.empty()) {
      c.skipped.push_back(vlabel + ": " + (why.empty() ? "no device (no reason given)" : why));
      continue;
    }
    auto cfg = std::make_unique<config::Config>(*base);
    std::string err;
    if (cfg->set(var, value, &err) != Status::Ok ||
        (!cv.also_variable.empty() &&
         cfg->set(cv.also_variable, cv.also_value, &err) != Status::Ok)) {
      c.skipped.push_back(vlabel + ": " + err);
      continue;
    }
    c.configs.push_back(std::move(cfg));
    for (const tl::DeviceInfo& dev : devices)
      c.viable.push_back(Variant{vlabel, t, dev, c.configs.back().get()});
  }
}

Catalog build_catalog() {
  Catalog c;
  const char* tls = std::getenv("TORUS_TLS");
  auto enabled = tl::select_transports(tls != nullptr ? tls : "");
  if (!enabled) {
    c.error = enabled.error().message;
    return c;
  }
  // The environment's configuration, as a real worker would load it.
  const config::Config* base = nullptr;
  auto loaded = config::Config::load();
  if (loaded) {
    c.configs.push_back(std::make_unique<config::Config>(std::move(loaded.value())));
    base = c.configs.back().get();
  } else {
    c.skipped.push_back("(environment configuration): " + loaded.error().message +
                        "; running with built-in defaults");
  }

  const auto table = tl::transport_table();
  for (size_t i = 0; i < table.size(); ++i) {
    const std::string name(table[i].name);
    if (!enabled.value()[i]) {
      c.skipped.push_back(name + ": excluded by TORUS_TLS=\"" + tls + "\"");
      continue;
    }
    c.transports.push_back(table[i].factory());
    tl::Transport* t = c.transports.back().get();
    std::string why;
    const auto devices = t->query(&why);
    if (devices.empty())
      c.skipped.push_back(name + ": " + (why.empty() ? "no device (no reason given)" : why));
    add_query_variants(c, name, t, base);
    for (const tl::DeviceInfo& dev : devices) {
      const std::string label = devices.size() == 1 ? name : name + ":" + dev.name;
      c.viable.push_back(Variant{label, t, dev, base});
      for (const ConfigVariant& cv : kConfigVariants) {
        if (cv.transport != name || is_query_variable(cv.variable)) continue;
        const std::string vlabel =
            label + "[" + std::string(cv.variable) + "=" + std::string(cv.value) + "]";
        if (base == nullptr || config::find_var(cv.variable) == nullptr) {
          c.skipped.push_back(vlabel + ": " + std::string(cv.variable) +
                              " is not a declared configuration variable");
          continue;
        }
        auto cfg = std::make_unique<config::Config>(*base);
        std::string err;
        if (cfg->set(cv.variable, cv.value, &err) != Status::Ok) {
          c.skipped.push_back(vlabel + ": " + err);
          continue;
        }
        c.configs.push_back(std::move(cfg));
        c.viable.push_back(Variant{vlabel, t, dev, c.configs.back().get()});
      }
    }
  }
  return c;
}

const Catalog& catalog() {
  static const Catalog c = build_catalog();
  return c;
}

uint64_t random_u64() {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v))
    v = mix(static_cast<uint64_t>(getpid()) ^
            static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  return v;
}

bool open_one(const Variant& v, std::unique_ptr<tl::Iface>* out) {
  auto r = v.transport->open(v.device, make_params(v));
  if (!r) {
    FAIL_CHECK("open(" << v.device.name << ") failed: " << r.error().message);
    return false;
  }
  *out = std::move(r.value());
  return true;
}

bool connect_one(tl::Iface& from, const tl::Iface& to, std::unique_ptr<tl::Endpoint>* out) {
  auto r = from.connect(to.address());
  if (!r) {
    FAIL_CHECK("connect failed: " << r.error().message);
    return false;
  }
  *out = std::move(r.value());
  return true;
}

// Retries `op` while it says NoResource, waits for InProgress; returns how it ended.
template <typename Op>
Status issue(const Pair& p, Op op) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (true) {
    TestCompletion comp;
    Status st = op(&comp);
    if (st == Status::InProgress) {
      if (!wait_until(p, [&] { return comp.done; })) return Status::Timeout;
      return comp.status;
    }
    if (st != Status::NoResource) return st;
    if (std::chrono::steady_clock::now() > deadline) return Status::Timeout;
    p.progress();
  }
}

size_t pack_copy(void* dest, void* arg) {
  const auto* data = static_cast<const std::span<const std::byte>*>(arg);
  if (!data->empty()) std::memcpy(dest, data->data(), data->size());
  return data->size();
}

}  // namespace

void for_each_variant(const std::function<void(const Variant&)>& fn) {
  const Catalog& c = catalog();
  if (!c.error.empty()) {
    FAIL_CHECK(c.error);
    return;
  }
  for (const std::string& s : c.skipped) MESSAGE("skipped: " << s);
  if (c.viable.empty()) MESSAGE("no viable transport here: nothing was tested");
  for (const Variant& v : c.viable) {
    INFO("transport: " << v.label);
    fn(v);
  }
}

const std::string& job_id() {
  static const std::string id = "t" + std::to_string(getpid());
  return id;
}

tl::IfaceParams make_params(const Variant& v) {
  tl::IfaceParams params;
  params.config = v.config;
  params.worker_uid = random_u64();
  params.job_id = job_id();
  return params;
}

bool open_pair(const Variant& v, Pair* p) {
  if (!open_one(v, &p->a_owned)) return false;
  p->a = p->a_owned.get();
  if (p->a->attributes().reach == tl::Reach::SameWorker) {
    p->b = p->a;
  } else {
    if (!open_one(v, &p->b_owned)) return false;
    p->b = p->b_owned.get();
  }
  if (!connect_one(*p->a, *p->b, &p->ab)) return false;
  if (p->b == p->a) {
    p->ba = p->ab.get();
    return true;
  }
  if (!connect_one(*p->b, *p->a, &p->ba_owned)) return false;
  p->ba = p->ba_owned.get();
  return true;
}

void TestCompletion::on_complete(tl::Completion* self, Status s) {
  auto* c = static_cast<TestCompletion*>(self);
  // A second call would be a transport bug; make it visible as a failed status.
  c->status = c->done ? Status::ProtocolError : s;
  c->done = true;
}

Status send_short(const Pair& p, tl::Endpoint& ep, tl::AmId id, std::span<const std::byte> header,
                  std::span<const std::byte> payload) {
  return issue(p, [&](tl::Completion*) { return ep.am_short(id, header, payload); });
}

Status send_bcopy(const Pair& p, tl::Endpoint& ep, tl::AmId id, std::span<const std::byte> data) {
  return issue(p, [&](tl::Completion*) { return ep.am_bcopy(id, &pack_copy, &data); });
}

Status send_bcopy_aligned(const Pair& p, tl::Endpoint& ep, tl::AmId id,
                          std::span<const std::byte> data, uintptr_t align) {
  return issue(p, [&](tl::Completion*) { return ep.am_bcopy_aligned(id, &pack_copy, &data, align); });
}

tl::PackFn copy_packer() { return &pack_copy; }

Status do_get(const Pair& p, tl::Endpoint& ep, std::span<std::byte> local, uint64_t remote_addr,
              std::span<const std::byte> rkey) {
  const size_t max = p.attr().limits.max_get;
  if (max == 0) return Status::Unsupported;
  size_t off = 0;
  do {  // once even for 0 bytes: an empty transfer must work too
    const size_t n = std::min(max, local.size() - off);
    Status st = issue(p, [&](tl::Completion* c) {
      return ep.get_zcopy(local.subspan(off, n), remote_addr + off, rkey, c);
    });
    if (st != Status::Ok) return st;
    off += n;
  } while (off < local.size());
  return Status::Ok;
}

Status do_put(const Pair& p, tl::Endpoint& ep, std::span<const std::byte> local,
              uint64_t remote_addr, std::span<const std::byte> rkey) {
  const size_t max = p.attr().limits.max_put;
  if (max == 0) return Status::Unsupported;
  size_t off = 0;
  do {
    const size_t n = std::min(max, local.size() - off);
    Status st = issue(p, [&](tl::Completion* c) {
      return ep.put_zcopy(local.subspan(off, n), remote_addr + off, rkey, c);
    });
    if (st != Status::Ok) return st;
    off += n;
  } while (off < local.size());
  return Status::Ok;
}

Status do_flush(const Pair& p, tl::Endpoint& ep) {
  return issue(p, [&](tl::Completion* c) { return ep.flush(c); });
}

void Inbox::handler(void* arg, const void* data, size_t length) {
  const auto* bytes = static_cast<const std::byte*>(data);
  static_cast<Inbox*>(arg)->msgs.emplace_back(bytes, bytes + length);
}

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Every 8-byte word differs, so a shifted or misplaced copy never matches by accident.
static std::byte pattern_byte(uint64_t seed, size_t i) {
  return static_cast<std::byte>(mix(seed * 0x100000001b3ull + i / 8) >> (8 * (i % 8)));
}

void fill_pattern(std::span<std::byte> buf, uint64_t seed) {
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = pattern_byte(seed, i);
}

size_t find_mismatch(std::span<const std::byte> buf, uint64_t seed) {
  for (size_t i = 0; i < buf.size(); ++i)
    if (buf[i] != pattern_byte(seed, i)) return i;
  return buf.size();
}

size_t find_not_byte(std::span<const std::byte> buf, std::byte value) {
  for (size_t i = 0; i < buf.size(); ++i)
    if (buf[i] != value) return i;
  return buf.size();
}

}  // namespace torus::tltest
