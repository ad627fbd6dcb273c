// torus_perf: option parsing, test parameters on the bootstrap wire, the --check pattern and
// latency statistics.
#include "contrib/tools/perf_options.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

namespace torus::perf {

void fail(std::string message, int code) { throw Fatal{code, std::move(message)}; }

namespace {

struct TestName {
  TestKind kind;
  const char* name;
};
constexpr TestName kTests[] = {
    {TestKind::TagLat, "tag_lat"}, {TestKind::TagBw, "tag_bw"}, {TestKind::AmLat, "am_lat"},
    {TestKind::PutBw, "put_bw"},   {TestKind::GetBw, "get_bw"},
};

template <typename T>
std::optional<T> parse_int(std::string_view s) {
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<size_t> parse_size(std::string_view s) {
  if (s.empty()) return std::nullopt;
  uint64_t mult = 1;
  switch (s.back()) {
    case 'k': case 'K': mult = uint64_t{1} << 10; break;
    case 'm': case 'M': mult = uint64_t{1} << 20; break;
    case 'g': case 'G': mult = uint64_t{1} << 30; break;
    default: break;
  }
  if (mult != 1) s.remove_suffix(1);
  auto v = parse_int<uint64_t>(s);
  if (!v || *v > (uint64_t{1} << 40) / mult) return std::nullopt;
  return static_cast<size_t>(*v * mult);
}

[[noreturn]] void usage_error(const std::string& what) {
  fail(what + "\n" + usage_text(), kExitError);
}

uint64_t splitmix64(uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

const char* test_name(TestKind t) noexcept {
  for (const TestName& n : kTests)
    if (n.kind == t) return n.name;
  return "?";
}

std::optional<TestKind> test_from_name(std::string_view name) noexcept {
  for (const TestName& n : kTests)
    if (name == n.name) return n.kind;
  return std::nullopt;
}


bool is_bandwidth_test(TestKind t) noexcept {
  return t == TestKind::TagBw || t == TestKind::PutBw || t == TestKind::GetBw;
}

bool is_rma_test(TestKind t) noexcept { return t == TestKind::PutBw || t == TestKind::GetBw; }

std::string usage_text() {
  return "usage:\n"
         "  server: torus_perf [-p PORT] [--cpu N] [--timeout SEC] [--accept-timeout SEC] [-v]\n"
         "  client: torus_perf HOST [-p PORT] [-t TEST] [-s SIZES] [-n ITERS] [-w WARMUP]\n"
         "                    [--window W] [--check] [--csv] [--csv-header] [--cpu N]\n"
         "                    [--timeout SEC] [-v]\n"
         "options:\n"
         "  -p PORT          bootstrap TCP port (default 13370)\n"
         "  -t TEST          tag_lat (default), tag_bw, am_lat, put_bw, get_bw\n"
         "  -s SIZES         message sizes, comma-separated, suffixes k/m/g = 2^10/2^20/2^30\n"
         "                   (default 8)\n"
         "  -n ITERS         timed iterations per size (default 10000 up to 64k, then ~1 GiB\n"
         "                   per size, at least 100); messages for bandwidth tests\n"
         "  -w WARMUP        untimed iterations before them (default max(100, ITERS/10))\n"
         "  --window W       bandwidth tests: operations per window (32); tag_bw keeps two\n"
         "                   windows in flight, the server acking each once the receives\n"
         "                   of the one after next are posted; put_bw flushes each window\n"
         "  --check          fill every message with a pattern and verify it on receipt;\n"
         "                   exit 3 on a mismatch (timings then include the checks);\n"
         "                   put_bw: the server verifies one last put; get_bw: the client\n"
         "                   verifies every get (outside the timed windows)\n"
         "  --csv            one line per size: test,size,iters,lat_us_median,lat_us_p99,bw_MBps\n"
         "  --csv-header     also print that header line (implies --csv)\n"
         "  --cpu N          pin this process to CPU N\n"
         "  --timeout SEC    fail when the peer does not answer within SEC seconds (30)\n"
         "  --accept-timeout SEC  server: give up when no client connects in time (0: never)\n"
         "  -v               print the transports and the endpoint's protocol table\n"
         "  -h, --help       this text\n"
         "Latency is one way (round trip / 2); MB = 2^20 bytes. Exit codes: 0 ok, 1 error,\n"
         "2 test not supported here (put/get: Unsupported), 3 --check found corrupted data.\n";
}

Options parse_options(int argc, char** argv) {
  Options o;
  bool client_only_seen = false;
  std::string client_only_name;
  auto value = [&](int& i) -> std::string_view {
    if (i + 1 >= argc) usage_error(std::string("option ") + argv[i] + " needs a value");
    return argv[++i];
  };
  auto client_only = [&](const char* name) {
    client_only_seen = true;
    client_only_name = name;
  };
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(usage_text().c_str(), stdout);
      throw Fatal{0, ""};
    } else if (a == "-p") {
      auto v = parse_int<uint16_t>(value(i));
      if (!v || *v == 0) usage_error("bad port '" + std::string(argv[i]) + "'");
      o.port = *v;
    } else if (a == "-t") {
      auto v = value(i);
      auto t = test_from_name(v);
      if (!t) usage_error("unknown test '" + std::string(v) + "'");
      o.test = *t;
      client_only("-t");
    } else if (a == "-s") {
      auto v = value(i);
      auto s = parse_sizes(v);
      if (!s) usage_error("bad size list '" + std::string(v) + "' (e.g. 8,4k,4m)");
      o.sizes = std::move(*s);
      client_only("-s");
    } else if (a == "-n") {
      auto v = parse_int<int64_t>(value(i));
      if (!v || *v < 1) usage_error("bad iteration count '" + std::string(argv[i]) + "'");
      o.iters = *v;
      client_only("-n");
    } else if (a == "-w") {
      auto v = parse_int<int64_t>(value(i));
      if (!v || *v < 0) usage_error("bad warm-up count '" + std::string(argv[i]) + "'");
      o.warmup = *v;
      client_only("-w");
    } else if (a == "--window") {
      auto v = parse_int<unsigned>(value(i));
      if (!v || *v < 1 || *v > 4096)
        usage_error("bad window '" + std::string(argv[i]) + "' (1..4096)");
      o.window = *v;
      client_only("--window");
    } else if (a == "--csv") {
      o.csv = true;
      client_only("--csv");
    } else if (a == "--csv-header") {
      o.csv = o.csv_header = true;
      client_only("--csv-header");
    } else if (a == "--check") {
      o.check = true;
      client_only("--check");
    } else if (a == "--cpu") {
      auto v = parse_int<int>(value(i));
      if (!v || *v < 0 || *v >= CPU_SETSIZE) usage_error("bad CPU '" + std::string(argv[i]) + "'");
      o.cpu = *v;
    } else if (a == "--timeout" || a == "--accept-timeout") {
      auto v = parse_int<int>(value(i));
      if (!v || *v < 0 || (a == "--timeout" && *v == 0))
        usage_error("bad " + std::string(a) + " '" + std::string(argv[i]) + "'");
      (a == "--timeout" ? o.timeout : o.accept_timeout) = std::chrono::seconds(*v);
    } else if (a == "-v" || a == "--verbose") {
      o.verbose = true;
    } else if (!a.empty() && a[0] == '-') {
      usage_error("unknown option '" + std::string(a) + "'");
    } else if (o.server) {
      o.server = false;
      o.host = std::string(a);
    } else {
      usage_error("unexpected argument '" + std::string(a) + "' (one HOST only)");
    }
  }
  if (o.server && client_only_seen)
    usage_error("option " + client_only_name + " is for the client (give HOST); the server " +
                "gets the test parameters from the client");
  return o;
}

std::optional<std::vector<size_t>> parse_sizes(std::string_view text) {
  std::vector<size_t> out;
  while (true) {
    size_t comma = text.find(',');
    auto s = parse_size(text.substr(0, comma));
    if (!s) return std::nullopt;
    out.push_back(*s);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

uint64_t default_iters(size_t size) noexcept {
  constexpr uint64_t kSmall = 10000;
  if (size <= (size_t{64} << 10)) return kSmall;
  uint64_t n = (uint64_t{1} << 30) / size;
  return std::clamp<uint64_t>(n, 100, kSmall);
}

uint64_t default_warmup(uint64_t iters) noexcept { return std::max<uint64_t>(100, iters / 10); }

TestParams make_params(const Options& o) {
  TestParams p;
  p.test = o.test;
  p.window = o.window;
  p.check = o.check;
  for (size_t s : o.sizes) {
    SizePlan sp;
    sp.size = s;
    sp.iters = o.iters > 0 ? static_cast<uint64_t>(o.iters) : default_iters(s);
    sp.warmup = o.warmup >= 0 ? static_cast<uint64_t>(o.warmup) : default_warmup(sp.iters);
    p.sizes.push_back(sp);
  }
  return p;
}

// "torus_perf/1 test=tag_lat window=32 check=0 sizes=8:10000:1000,4096:10000:1000"
std::string encode_params(const TestParams& p) {
  std::string s = "torus_perf/1 test=";
  s += test_name(p.test);
  s += " window=" + std::to_string(p.window);
  s += " check=" + std::string(p.check ? "1" : "0");
  s += " sizes=";
  for (size_t i = 0; i < p.sizes.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(p.sizes[i].size) + ':' + std::to_string(p.sizes[i].iters) + ':' +
         std::to_string(p.sizes[i].warmup);
  }
  return s;
}

TestParams decode_params(std::string_view text) {
  auto bad = [&](const char* why) -> void {
    fail("bad test parameters from the client (" + std::string(why) + "): '" +
         std::string(text.substr(0, 200)) + "'");
  };
  TestParams p;
  constexpr std::string_view kMagic = "torus_perf/1 ";
  if (text.substr(0, kMagic.size()) != kMagic) bad("version");
  std::string_view rest = text.substr(kMagic.size());
  bool have_sizes = false;
  while (!rest.empty()) {
    size_t sp = rest.find(' ');
    std::string_view kv = rest.substr(0, sp);
    rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) bad("field");
    std::string_view k = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (k == "test") {
      auto t = test_from_name(v);
      if (!t) bad("test");
      p.test = *t;
    } else if (k == "window") {
      auto w = parse_int<unsigned>(v);
      if (!w || *w < 1 || *w > 4096) bad("window");
      p.window = *w;
    } else if (k == "check") {
      p.check = v == "1";
    } else if (k == "sizes") {
      have_sizes = true;
      while (!v.empty()) {
        size_t c = v.find(',');
        std::string_view item = v.substr(0, c);
        v = c == std::string_view::npos ? std::string_view{} : v.substr(c + 1);
        size_t c1 = item.find(':'), c2 = item.rfind(':');
        if (c1 == std::string_view::npos || c1 == c2) bad("size entry");
        auto sz = parse_int<uint64_t>(item.substr(0, c1));
        auto it = parse_int<uint64_t>(item.substr(c1 + 1, c2 - c1 - 1));
        auto wu = parse_int<uint64_t>(item.substr(c2 + 1));
        if (!sz || !it || !wu || *it == 0 || *sz > (uint64_t{1} << 40)) bad("size entry");
        p.sizes.push_back({static_cast<size_t>(*sz), *it, *wu});
      }
    }
    // Unknown keys are ignored: a newer client may send more.
  }
  if (!have_sizes || p.sizes.empty()) bad("no sizes");
  return p;
}

uint64_t pattern_seed(uint64_t iter, size_t size, unsigned dir) noexcept {
  return splitmix64(splitmix64(iter) ^ (static_cast<uint64_t>(size) * 0x100000001b3ULL) ^
                    (dir ? 0xa5a5a5a5a5a5a5a5ULL : 0));
}

std::byte pattern_byte(uint64_t seed, size_t offset) noexcept {
  uint64_t w = splitmix64(seed + offset / 8);
  return static_cast<std::byte>(w >> (8 * (offset % 8)));
}

void fill_pattern(std::span<std::byte> buf, uint64_t seed) noexcept {
  size_t n = buf.size(), i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w = splitmix64(seed + i / 8);
    std::memcpy(buf.data() + i, &w, 8);  // little-endian: byte k is w >> 8k
  }
  for (; i < n; ++i) buf[i] = pattern_byte(seed, i);
}

std::optional<size_t> verify_pattern(std::span<const std::byte> buf, uint64_t seed) noexcept {
  size_t n = buf.size(), i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w = splitmix64(seed + i / 8), got;
    std::memcpy(&got, buf.data() + i, 8);
    if (got != w) break;
  }
  for (; i < n; ++i)
    if (buf[i] != pattern_byte(seed, i)) return i;
  return std::nullopt;
}

Summary summarize(std::vector<double> v) {
  Summary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  auto pct = [&](double p) {  // nearest rank
    size_t r = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(n)));
    return v[std::clamp<size_t>(r, 1, n) - 1];
  };
  s.p90 = pct(90);
  s.p99 = pct(99);
  s.min = v.front();
  s.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(n);
  return s;
}

std::string format_size(size_t b) {
  if (b >= (size_t{1} << 30) && b % (size_t{1} << 30) == 0) return std::to_string(b >> 30) + "g";
  if (b >= (size_t{1} << 20) && b % (size_t{1} << 20) == 0) return std::to_string(b >> 20) + "m";
  if (b >= (size_t{1} << 10) && b % (size_t{1} << 10) == 0) return std::to_string(b >> 10) + "k";
  return std::to_string(b);
}

}  // namespace torus::perf
