// Status codes shared by every layer, and Result<T> for control-path calls.
// Codes are grouped by blast radius so a caller knows what to tear down (docs/errors.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace torus {

enum class Status : int8_t {
  // Not errors.
  Ok = 0,
  InProgress = 1,   // a completion will fire later
  NoResource = 2,   // back-pressure: queue and retry from progress
  // Local misuse: fix the call, nothing to tear down.
  InvalidParam = -1,
  Unsupported = -2,
  NoMemory = -3,
  BufferTooSmall = -4,  // receive buffer shorter than the message (truncated)
  NotFound = -5,
  Canceled = -6,
  Timeout = -7,
  // Link failure: the operation failed, the endpoint may still work.
  AccessDenied = -8,    // stale or forged remote key, range or rights refused
  IoError = -9,
  // Endpoint failure: tear the endpoint down; its pending requests failed.
  Unreachable = -10,
  ConnectionReset = -11,  // peer died or dropped the connection
  ProtocolError = -12,    // malformed message from a peer; connection dropped
};

const char* status_string(Status s) noexcept;

constexpr bool is_error(Status s) noexcept { return static_cast<int8_t>(s) < 0; }

// The error half of Result<T>: a status plus a message with the facts (syscall, errno text,
// variable name) for the log line the caller writes once.
struct Error {
  Status status = Status::InvalidParam;
  std::string message;
};

// Shaped like std::expected<T, Error> (C++23), which g++ 12 lacks.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error e) : v_(std::move(e)) {}
  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return value(); }
  const Error& error() const { return std::get<1>(v_); }
  Status status() const noexcept { return ok() ? Status::Ok : error().status; }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(Status s, std::string msg) { return Error{s, std::move(msg)}; }

}  // namespace torus
