// Logging: levels chosen by TORUS_LOG_LEVEL, every line prefixed "[host:pid] torus LEVEL".
// Log once, where an error is first seen, with the facts (syscall, errno text, peer, knob).
#pragma once

#include <cstdlib>

namespace torus {

enum class LogLevel : int { Error = 0, Warn = 1, Info = 2, Debug = 3, Trace = 4 };

// Current threshold; read once from TORUS_LOG_LEVEL on first use (default warn).
LogLevel log_level() noexcept;
void set_log_level(LogLevel level) noexcept;
inline bool log_enabled(LogLevel level) noexcept { return level <= log_level(); }

void log_write(LogLevel level, const char* file, int line, const char* fmt, ...) noexcept
    __attribute__((format(printf, 4, 5)));

[[noreturn]] void assert_fail(const char* expr, const char* file, int line) noexcept;

}  // namespace torus

#define TORUS_LOG(level, ...)                                                 \
  do {                                                                        \
    if (::torus::log_enabled(level))                                          \
      ::torus::log_write(level, __FILE__, __LINE__, __VA_ARGS__);             \
  } while (0)
#define TORUS_ERROR(...) TORUS_LOG(::torus::LogLevel::Error, __VA_ARGS__)
#define TORUS_WARN(...) TORUS_LOG(::torus::LogLevel::Warn, __VA_ARGS__)
#define TORUS_INFO(...) TORUS_LOG(::torus::LogLevel::Info, __VA_ARGS__)
#define TORUS_DEBUG(...) TORUS_LOG(::torus::LogLevel::Debug, __VA_ARGS__)
#define TORUS_TRACE(...) TORUS_LOG(::torus::LogLevel::Trace, __VA_ARGS__)

// Invariants, checked in every build: a broken invariant is a bug, not an input error.
#define TORUS_ASSERT(cond)                                                    \
  do {                                                                        \
    if (__builtin_expect(!(cond), 0))                                         \
      ::torus::assert_fail(#cond, __FILE__, __LINE__);                        \
  } while (0)
