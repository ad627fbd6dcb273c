// Log sink: one write(2) per line so lines from many ranks never interleave mid-line.
#include "core/base/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <strings.h>

namespace torus {
namespace {

constexpr const char* kLevelNames[] = {"ERROR", "WARN", "INFO", "DEBUG", "TRACE"};
std::atomic<int> g_level{-1};

int level_from_env() noexcept {
  const char* v = std::getenv("TORUS_LOG_LEVEL");
  if (v == nullptr || *v == '\0') return static_cast<int>(LogLevel::Warn);
  static constexpr const char* kNames[] = {"error", "warn", "info", "debug", "trace"};
  for (int i = 0; i < 5; ++i)
    if (strcasecmp(v, kNames[i]) == 0) return i;
  // The config registry reports the bad value with the accepted ones; keep the default here.
  return static_cast<int>(LogLevel::Warn);
}

const char* prefix() noexcept {
  static char buf[128];
  static std::atomic<int> for_pid{0};
  // Rebuilt when the pid changes: a forked child must not log under its parent's pid.
  if (for_pid.load(std::memory_order_acquire) != static_cast<int>(getpid())) {
    char host[64] = "?";
    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    if (char* dot = std::strchr(host, '.')) *dot = '\0';
    std::snprintf(buf, sizeof(buf), "[%s:%d]", host, static_cast<int>(getpid()));
    for_pid.store(static_cast<int>(getpid()), std::memory_order_release);
  }
  return buf;
}

}  // namespace

LogLevel log_level() noexcept {
  int l = g_level.load(std::memory_order_relaxed);
  if (__builtin_expect(l < 0, 0)) {
    l = level_from_env();
    g_level.store(l, std::memory_order_relaxed);
  }
  return static_cast<LogLevel>(l);
}

void set_log_level(LogLevel level) noexcept { g_level.store(static_cast<int>(level)); }

void log_write(LogLevel level, const char* file, int line, const char* fmt, ...) noexcept {
  char msg[1024];
  const char* base = std::strrchr(file, '/');
  base = base ? base + 1 : file;
  int n = std::snprintf(msg, sizeof(msg), "%s torus %-5s %s:%d ", prefix(),
                        kLevelNames[static_cast<int>(level)], base, line);
  if (n < 0) return;
  va_list ap;
  va_start(ap, fmt);
  int m = std::vsnprintf(msg + n, sizeof(msg) - static_cast<size_t>(n) - 1, fmt, ap);
  va_end(ap);
  size_t len = static_cast<size_t>(n) + (m < 0 ? 0 : static_cast<size_t>(m));
  if (len > sizeof(msg) - 2) len = sizeof(msg) - 2;
  msg[len++] = '\n';
  ssize_t w = ::write(STDERR_FILENO, msg, len);
  (void)w;
}

void assert_fail(const char* expr, const char* file, int line) noexcept {
  log_write(LogLevel::Error, file, line, "assertion failed: %s", expr);
  std::abort();
}

}  // namespace torus
