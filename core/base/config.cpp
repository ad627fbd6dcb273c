// Typed parsers for TORUS_* values, the Config snapshot (defaults, then the environment, then
// programmatic overrides) and the markdown rendering of the variable table.
#include "core/base/config.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/base/log.h"

namespace torus::config {
namespace {

// TORUS_* names that launchers export for their own use; they are not configuration, so
// they must not draw an "unknown variable" warning.
constexpr std::string_view kLauncherVars[] = {
    "TORUS_RANK", "TORUS_SIZE", "TORUS_LOCAL_RANK", "TORUS_LOCAL_SIZE",
};

constexpr std::string_view kPrefix = "TORUS_";

char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

// Shell quoting mistakes ("8k ") are common and never meaningful in a number.
std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Error invalid(std::string message) { return make_error(Status::InvalidParam, std::move(message)); }

std::string size_expected(bool allow_auto) {
  return allow_auto ? "expected a size such as 8k, 4m, inf or auto"
                    : "expected a size such as 8k, 4m or inf";
}

std::string duration_expected(bool allow_auto) {
  return std::string("expected a duration such as 10us, 1.5ms, 2s (a bare number is seconds), ") +
         (allow_auto ? "inf or auto" : "or inf");
}

std::string int_expected(bool allow_auto) {
  return allow_auto ? "expected an integer such as 256, or auto" : "expected an integer such as 256";
}

constexpr std::string_view kBoolChoices = "y|n|yes|no|1|0|on|off|true|false";

// Binary shift of a size suffix; "k", "kb" and "kib" all mean 1024. -1: not a size suffix.
int size_shift(std::string_view suffix) noexcept {
  if (suffix.empty() || iequals(suffix, "b")) return 0;
  static constexpr struct { char letter; int shift; } kUnits[] = {
      {'k', 10}, {'m', 20}, {'g', 30}, {'t', 40}};
  for (const auto& u : kUnits) {
    if (ascii_lower(suffix[0]) != u.letter) continue;
    std::string_view rest = suffix.substr(1);
    if (rest.empty() || iequals(rest, "b") || iequals(rest, "ib")) return u.shift;
  }
  return -1;
}

std::string format_size(uint64_t v) {
  if (v == kSizeInf) return "inf";
  if (v == kSizeAuto) return "auto";
  static constexpr struct { int shift; char letter; } kUnits[] = {
      {40, 'T'}, {30, 'G'}, {20, 'M'}, {10, 'K'}};
  if (v != 0)
    for (const auto& u : kUnits)
      if (v % (uint64_t{1} << u.shift) == 0) return std::to_string(v >> u.shift) + u.letter;
  return std::to_string(v);
}

// Exact decimal in the largest unit that keeps an integer part, e.g. 0.0015 -> "1.5ms".
std::string format_duration(double seconds) {
  if (seconds == kDurationAuto) return "auto";
  if (std::isinf(seconds)) return "inf";
  if (seconds * 1e9 >= 9e18) {  // beyond int64 nanoseconds: plain seconds
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), seconds);
    return std::string(buf, r.ptr) + "s";
  }
  const int64_t ns = std::llround(seconds * 1e9);
  if (ns == 0) return "0s";
  static constexpr struct { int64_t scale; int digits; const char* unit; } kUnits[] = {
      {1000000000, 9, "s"}, {1000000, 6, "ms"}, {1000, 3, "us"}, {1, 0, "ns"}};
  for (const auto& u : kUnits) {
    if (ns < u.scale && u.scale != 1) continue;
    std::string out = std::to_string(ns / u.scale);
    if (int64_t frac = ns % u.scale; frac != 0) {
      std::string f = std::to_string(frac);
      f.insert(0, static_cast<size_t>(u.digits) - f.size(), '0');
      f.erase(f.find_last_not_of('0') + 1);
      out += '.' + f;
    }
    return out + u.unit;
  }
  return "0s";  // unreachable: the ns row always matches
}

// Edit distance, ignoring case so that torus_rndv_thresh finds TORUS_RNDV_THRESH.
size_t levenshtein(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t subst = prev[j - 1] + (ascii_lower(a[i - 1]) == ascii_lower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string unknown_var_warning(std::string_view name) {
  std::string msg = "unknown variable " + std::string(name);
  const std::string_view best = closest_var(name);
  // A suggestion two letters away from a short name is noise, not help.
  const size_t tail = name.size() > kPrefix.size() ? name.size() - kPrefix.size() : 0;
  if (!best.empty() && levenshtein(name, best) <= std::max<size_t>(2, tail / 3))
    return msg + "; did you mean " + std::string(best) + "?";
  return msg + "; `torus_info -c` lists the valid ones";
}

size_t index_of(std::string_view name) {
  const VarDecl* d = find_var(name);
  TORUS_ASSERT(d != nullptr);  // reading an undeclared variable is a bug
  return static_cast<size_t>(d - all_vars().data());
}

std::string md_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string md_accepted(const VarDecl& d) {
  const std::string inf_or_auto = d.allow_auto ? ", `inf` or `auto`" : " or `inf`";
  switch (d.type) {
    case Type::Bool: return "`y` or `n` (also yes/no, on/off, true/false, 1/0)";
    case Type::Int: return d.allow_auto ? "an integer or `auto`" : "an integer";
    case Type::Size: return "a size in bytes with suffix k, m, g or t (`8k`, `4m`)" + inf_or_auto;
    case Type::Duration:
      return "a duration with unit ns, us, ms or s (`10us`, `1.5ms`, `2s`)" + inf_or_auto;
    case Type::Enum: return "one of `" + std::string(d.choices) + "`";
    case Type::String: return "";
  }
  return "";
}

}  // namespace

Result<uint64_t> parse_size(std::string_view text, bool allow_auto) {
  const std::string_view t = trim(text);
  if (iequals(t, "inf")) return kSizeInf;
  if (iequals(t, "auto") && allow_auto) return kSizeAuto;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc::result_out_of_range) return invalid("too large; " + size_expected(allow_auto));
  if (ec != std::errc() || end == t.data()) return invalid(size_expected(allow_auto));
  const int shift = size_shift(t.substr(static_cast<size_t>(end - t.data())));
  if (shift < 0) return invalid(size_expected(allow_auto));
  // The two largest values are the inf/auto sentinels, so a real size must stay below them.
  if (v > ((kSizeAuto - 1) >> shift)) return invalid("too large; " + size_expected(allow_auto));
  return v << shift;
}

Result<int64_t> parse_int(std::string_view text, bool allow_auto) {
  std::string_view t = trim(text);
  if (iequals(t, "auto") && allow_auto) return kIntAuto;
  if (t.size() > 1 && t[0] == '+' && t[1] != '-') t.remove_prefix(1);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && v == kIntAuto))
    return invalid("out of range; " + int_expected(allow_auto));
  if (ec != std::errc() || end != t.data() + t.size()) return invalid(int_expected(allow_auto));
  return v;
}

Result<bool> parse_bool(std::string_view text) {
  const std::string_view t = trim(text);
  for (std::string_view yes : {"y", "yes", "1", "on", "true"})
    if (iequals(t, yes)) return true;
  for (std::string_view no : {"n", "no", "0", "off", "false"})
    if (iequals(t, no)) return false;
  return invalid("accepted values are " + std::string(kBoolChoices));
}

Result<double> parse_duration(std::string_view text, bool allow_auto) {
  const std::string_view t = trim(text);
  if (iequals(t, "inf")) return kDurationInf;
  if (iequals(t, "auto") && allow_auto) return kDurationAuto;
  double v = 0;
  // Fixed notation only: an exponent would make "1e3s" legal and "1em" confusing.
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v, std::chars_format::fixed);
  if (ec != std::errc() || end == t.data() || !std::isfinite(v) || std::signbit(v))
    return invalid(duration_expected(allow_auto));
  const std::string_view unit = t.substr(static_cast<size_t>(end - t.data()));
  double scale = 0;
  if (unit.empty() || iequals(unit, "s")) scale = 1;
  else if (iequals(unit, "ms")) scale = 1e3;
  else if (iequals(unit, "us")) scale = 1e6;
  else if (iequals(unit, "ns")) scale = 1e9;
  else return invalid(duration_expected(allow_auto));
  return v / scale;  // dividing by an exact power of ten rounds once
}

Result<std::string> parse_enum(std::string_view text, std::string_view choices) {
  const std::string_view t = trim(text);
  std::string_view rest = choices;
  while (!rest.empty()) {
    const size_t bar = rest.find('|');
    const std::string_view choice = rest.substr(0, bar);
    if (!t.empty() && iequals(t, choice)) return std::string(choice);  // canonical spelling
    rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
  }
  return invalid("accepted values are " + std::string(choices));
}

Status Config::assign(Value& v, std::string_view text, std::string* error) {
  const VarDecl& d = *v.decl;
  const auto fail = [&](const Error& e) {
    if (error != nullptr)
      *error = std::string(d.name) + "=\"" + std::string(text) + "\" is invalid: " + e.message;
    return Status::InvalidParam;
  };
  // Parse before writing so that a rejected value leaves the previous one in place.
  switch (d.type) {
    case Type::Bool: {
      auto r = parse_bool(text);
      if (!r) return fail(r.error());
      v.b = *r;
      break;
    }
    case Type::Int: {
      auto r = parse_int(text, d.allow_auto);
      if (!r) return fail(r.error());
      v.i = *r;
      break;
    }
    case Type::Size: {
      auto r = parse_size(text, d.allow_auto);
      if (!r) return fail(r.error());
      v.size = *r;
      break;
    }
    case Type::Duration: {
      auto r = parse_duration(text, d.allow_auto);
      if (!r) return fail(r.error());
      v.seconds = *r;
      break;
    }
    case Type::Enum: {
      auto r = parse_enum(text, d.choices);
      if (!r) return fail(r.error());
      v.text = std::move(*r);  // canonical spelling, so callers compare exactly
      return Status::Ok;
    }
    case Type::String:
      break;
  }
  v.text = std::string(text);
  return Status::Ok;
}

Result<Config> Config::load(const char* const* envp) {
  Config c;
  const std::span<const VarDecl> vars = all_vars();
  c.values_.resize(vars.size());
  std::string error;
  for (size_t i = 0; i < vars.size(); ++i) {
    c.values_[i].decl = &vars[i];
    if (assign(c.values_[i], vars[i].default_value, &error) != Status::Ok)
      return invalid(error + " (declared default in core/base/config_vars.cpp)");
  }

  if (envp == nullptr) envp = environ;
  for (; *envp != nullptr; ++envp) {
    const std::string_view entry = *envp;
    if (!entry.starts_with(kPrefix)) continue;
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = entry.substr(0, eq);
    const std::string_view text = entry.substr(eq + 1);
    if (find_var(name) == nullptr) {
      if (std::find(std::begin(kLauncherVars), std::end(kLauncherVars), name) ==
          std::end(kLauncherVars))
        c.warnings_.push_back(unknown_var_warning(name));
      continue;
    }
    Value& v = c.values_[index_of(name)];
    // getenv() returns the first of duplicate entries; agree with it. An empty value means
    // unset, as `TORUS_X= cmd` is how a shell user clears a variable for one command.
    if (v.source == Source::Environment || text.empty()) continue;
    if (assign(v, text, &error) != Status::Ok) return invalid(error);
    v.source = Source::Environment;
  }
  return c;
}

const Config::Value& Config::value(std::string_view name, Type type) const {
  const size_t i = index_of(name);
  TORUS_ASSERT(i < values_.size());  // a Config that load() did not build
  TORUS_ASSERT(values_[i].decl->type == type);
  return values_[i];
}

bool Config::get_bool(std::string_view name) const { return value(name, Type::Bool).b; }
int64_t Config::get_int(std::string_view name) const { return value(name, Type::Int).i; }
uint64_t Config::get_size(std::string_view name) const { return value(name, Type::Size).size; }

double Config::get_duration(std::string_view name) const {
  return value(name, Type::Duration).seconds;
}

const std::string& Config::get_string(std::string_view name) const {
  const VarDecl* d = find_var(name);
  TORUS_ASSERT(d != nullptr);
  return value(name, d->type == Type::Enum ? Type::Enum : Type::String).text;
}

std::string Config::show(std::string_view name) const {
  const VarDecl* d = find_var(name);
  TORUS_ASSERT(d != nullptr);
  const Value& v = value(name, d->type);
  switch (d->type) {
    case Type::Bool: return v.b ? "y" : "n";
    case Type::Int: return v.i == kIntAuto ? "auto" : std::to_string(v.i);
    case Type::Size: return format_size(v.size);
    case Type::Duration: return format_duration(v.seconds);
    case Type::Enum:
    case Type::String: return v.text;
  }
  return v.text;
}

Source Config::source(std::string_view name) const {
  const size_t i = index_of(name);
  TORUS_ASSERT(i < values_.size());
  return values_[i].source;
}

Status Config::set(std::string_view name, std::string_view text, std::string* error) {
  if (find_var(name) == nullptr) {
    if (error != nullptr) *error = unknown_var_warning(name);
    return Status::NotFound;
  }
  const size_t i = index_of(name);
  TORUS_ASSERT(i < values_.size());
  const Status s = assign(values_[i], text, error);
  if (s == Status::Ok) values_[i].source = Source::Override;
  return s;
}

std::string_view closest_var(std::string_view name) noexcept {
  std::string_view best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const VarDecl& d : all_vars()) {
    const size_t dist = levenshtein(name, d.name);
    if (dist < best_distance) {  // ties go to the earlier declaration: deterministic
      best = d.name;
      best_distance = dist;
    }
  }
  return best;
}

std::string tuning_markdown() {
  std::string md =
      "# Tuning torus: every TORUS_* variable\n"
      "\n"
      "This file is generated from core/base/config_vars.cpp by `torus_info --tuning-md`, and "
      "a unit test fails when they drift: change the table there, then regenerate with "
      "`build/bin/torus_info --tuning-md > docs/tuning.md`. Sizes are bytes with an optional "
      "suffix k, m, g or t (powers of 1024); durations take a unit ns, us, ms or s (a bare "
      "number is seconds); `auto` lets torus decide, and an empty value means the default. "
      "`torus_info -c` prints the effective value of each variable and where it came from.\n"
      "\n"
      "| Variable | Default | Unit | Description |\n"
      "|---|---|---|---|\n";
  for (const VarDecl& d : all_vars()) {
    const std::string def =
        d.default_value.empty() ? "*(empty)*" : "`" + std::string(d.default_value) + "`";
    std::string desc = std::string(d.doc);
    // Docs are written as lowercase fragments for torus_info; a table cell reads as a sentence.
    if (!desc.empty() && desc[0] >= 'a' && desc[0] <= 'z') desc[0] = char(desc[0] - 'a' + 'A');
    if (const std::string acc = md_accepted(d); !acc.empty()) desc += ". Accepted: " + acc + ".";
    md += "| `" + std::string(d.name) + "` | " + md_escape(def) + " | " + md_escape(d.unit) +
          " | " + md_escape(desc) + " |\n";
  }
  return md;
}

}  // namespace torus::config
