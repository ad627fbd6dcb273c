// torus_perf: command-line options, the test parameters the client sends to the server,
// the data pattern of --check, and latency statistics. Shared by every torus_perf file.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torus::perf {

// Exit codes: 0 success, 1 usage / connection / torus error, 2 test not supported here (put
// or get answered Unsupported: no transport to the peer can do it), 3 --check found
// corrupted data.
inline constexpr int kExitError = 1;
inline constexpr int kExitUnsupported = 2;
inline constexpr int kExitCheckFailed = 3;

// A failure that ends the run. Thrown, caught once in main, which prints `message` and
// returns `code`, so that destructors (shared-memory segments, sockets) still run.
struct Fatal {
  int code = kExitError;
  std::string message;
};
[[noreturn]] void fail(std::string message, int code = kExitError);

enum class TestKind { TagLat, TagBw, AmLat, PutBw, GetBw };
const char* test_name(TestKind t) noexcept;
std::optional<TestKind> test_from_name(std::string_view name) noexcept;
bool is_bandwidth_test(TestKind t) noexcept;
// put_bw and get_bw: one-sided, the server only registers memory and progresses.
bool is_rma_test(TestKind t) noexcept;

struct Options {
  bool server = true;  // no HOST given
  std::string host;
  uint16_t port = 13370;
  TestKind test = TestKind::TagLat;
  std::vector<size_t> sizes{8};
  int64_t iters = -1;   // -1: chosen per size (default_iters)
  int64_t warmup = -1;  // -1: max(100, iters / 10)
  unsigned window = 32;
  bool csv = false;
  bool csv_header = false;
  bool check = false;
  bool verbose = false;
  int cpu = -1;
  std::chrono::seconds timeout{30};       // bound on every wait for the peer
  std::chrono::seconds accept_timeout{0};  // server: 0 waits for a client forever
};

// Parses the command line. Throws Fatal{0} after printing the help for -h, and
// Fatal{kExitError} with the usage text for a bad option.
Options parse_options(int argc, char** argv);
std::string usage_text();

// "8,4k,4m" -> {8, 4096, 4194304}; suffixes k, m, g are powers of 1024.
std::optional<std::vector<size_t>> parse_sizes(std::string_view text);
// 10000 up to 64 KiB; above, enough to move about 1 GiB, at least 100.
uint64_t default_iters(size_t size) noexcept;
uint64_t default_warmup(uint64_t iters) noexcept;

// What the client tells the server: everything the server needs beyond its port.
struct SizePlan {
  size_t size = 0;
  uint64_t iters = 0;
  uint64_t warmup = 0;
};
struct TestParams {
  TestKind test = TestKind::TagLat;
  unsigned window = 32;
  bool check = false;
  std::vector<SizePlan> sizes;
};
TestParams make_params(const Options& o);
std::string encode_params(const TestParams& p);
// Throws Fatal when the text is malformed.
TestParams decode_params(std::string_view text);

// --check: the bytes of message `iter` of `size` bytes in direction `dir` (0: client to
// server, 1: back) are a pure function of (iter, size, dir, offset).
uint64_t pattern_seed(uint64_t iter, size_t size, unsigned dir) noexcept;
void fill_pattern(std::span<std::byte> buf, uint64_t seed) noexcept;
// The first offset whose byte differs from the pattern, or nullopt when all match.
std::optional<size_t> verify_pattern(std::span<const std::byte> buf, uint64_t seed) noexcept;
std::byte pattern_byte(uint64_t seed, size_t offset) noexcept;

// Order statistics of a sample set, in the samples' unit.
struct Summary {
  double median = 0, p90 = 0, p99 = 0, min = 0, max = 0, mean = 0;
};
Summary summarize(std::vector<double> samples);

std::string format_size(size_t bytes);  // 4096 -> "4k"

}  // namespace torus::perf
