// The configuration registry: every TORUS_* variable is declared once (config_vars.cpp) with
// its type, default, unit and documentation; Config is one parsed snapshot of them.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace torus::config {

enum class Type : uint8_t {
  Bool,      // y|n|yes|no|1|0|on|off|true|false
  Int,       // decimal integer, or "auto" when allowed
  Size,      // bytes with suffix k/m/g/t (powers of 1024), "inf", or "auto" when allowed
  Duration,  // number with unit ns|us|ms|s (bare number = seconds), "inf", or "auto"
  Enum,      // one of `choices` ("a|b|c")
  String,    // free text
};

struct VarDecl {
  std::string_view name;           // "TORUS_RNDV_THRESH"
  Type type;
  std::string_view default_value;  // text, parsed exactly like the environment's
  std::string_view unit;           // "bytes", "seconds", "" ...
  std::string_view doc;            // one line
  std::string_view choices = {};   // Enum: "auto|y|n"
  bool allow_auto = false;         // Int/Size/Duration: accept "auto"
};

// Every declared variable, in documentation order.
std::span<const VarDecl> all_vars() noexcept;
const VarDecl* find_var(std::string_view name) noexcept;

// Special values of Size, Int and Duration variables.
inline constexpr uint64_t kSizeInf = std::numeric_limits<uint64_t>::max();
inline constexpr uint64_t kSizeAuto = std::numeric_limits<uint64_t>::max() - 1;
inline constexpr int64_t kIntAuto = std::numeric_limits<int64_t>::min();
inline constexpr double kDurationInf = std::numeric_limits<double>::infinity();
inline constexpr double kDurationAuto = -1.0;

// Parsers used for the environment and for defaults; errors say what is accepted.
Result<uint64_t> parse_size(std::string_view text, bool allow_auto);
Result<int64_t> parse_int(std::string_view text, bool allow_auto);
Result<bool> parse_bool(std::string_view text);
Result<double> parse_duration(std::string_view text, bool allow_auto);  // seconds
Result<std::string> parse_enum(std::string_view text, std::string_view choices);

enum class Source : uint8_t { Default, Environment, Override };

class Config {
 public:
  // Parses every declared variable from envp (nullptr: the process environment). A bad value
  // fails with a message naming the variable, the value and what it accepts. Unknown
  // TORUS_* variables are collected in warnings() with the closest declared name.
  static Result<Config> load(const char* const* envp = nullptr);

  // Typed reads; the name must be declared with that type (checked by TORUS_ASSERT).
  bool get_bool(std::string_view name) const;
  int64_t get_int(std::string_view name) const;     // kIntAuto for auto
  uint64_t get_size(std::string_view name) const;   // kSizeAuto / kSizeInf
  double get_duration(std::string_view name) const; // seconds; kDurationAuto / kDurationInf
  const std::string& get_string(std::string_view name) const;  // String and Enum

  // The value as text and where it came from, for torus_info -c.
  std::string show(std::string_view name) const;
  Source source(std::string_view name) const;

  // Set a value programmatically (embedders, tests); parsed like the environment.
  Status set(std::string_view name, std::string_view text, std::string* error = nullptr);

  const std::vector<std::string>& warnings() const noexcept { return warnings_; }

 private:
  struct Value {
    const VarDecl* decl = nullptr;
    Source source = Source::Default;
    bool b = false;
    int64_t i = 0;
    uint64_t size = 0;
    double seconds = 0;
    std::string text;  // raw text for show(); the value for String/Enum
  };
  const Value& value(std::string_view name, Type type) const;
  static Status assign(Value& v, std::string_view text, std::string* error);

  std::vector<Value> values_;  // parallel to all_vars()
  std::vector<std::string> warnings_;
};

// Closest declared name by edit distance, for "did you mean" warnings.
std::string_view closest_var(std::string_view name) noexcept;

// Markdown documentation of every variable (docs/tuning.md is this text).
std::string tuning_markdown();

}  // namespace torus::config
