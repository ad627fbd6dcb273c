// The text formats of the PMI-1 and PMI-2 wire protocols: building requests and parsing
// responses. Pure functions, no I/O; every parser rejects malformed input with ProtocolError.
//
// PMI-1: one line per command, space-separated `key=value` fields, "\n"-terminated:
//   "cmd=get kvsname=K key=addr-1\n"  ->  "cmd=get_result rc=0 msg=success value=..."
// PMI-2: a frame of a 6-character decimal length (right- or left-aligned in spaces) and a
// body of `key=value;` fields; a ';' inside a value is doubled:
//   "    27cmd=kvs-fence;"  (or "27    cmd=kvs-fence;")
// Servers order response fields as they like, so fields are looked up by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "mpi_shim/bootstrap/outcome.h"

namespace torus::boot {

// One parsed command: its fields in wire order, `cmd` among them.
class Fields {
 public:
  void add(std::string key, std::string value) {
    items_.emplace_back(std::move(key), std::move(value));
  }
  // The first field named `key`, or nullptr.
  const std::string* find(std::string_view key) const noexcept;
  std::string_view cmd() const noexcept;
  // A decimal integer field; fails naming the field when absent or not a number.
  Result<int64_t> get_int(std::string_view key) const;
  const std::vector<std::pair<std::string, std::string>>& items() const noexcept { return items_; }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

using FieldList = std::vector<std::pair<std::string_view, std::string_view>>;

// "cmd=<cmd> k=v ...\n". Values must hold no space or newline (the caller hex-encodes).
std::string pmi1_line(std::string_view cmd, const FieldList& fields = {});
// A line without its "\n". Needs a cmd field; every token must be key=value.
Result<Fields> parse_pmi1_line(std::string_view line);

inline constexpr size_t kPmi2HeaderLen = 6;
inline constexpr size_t kPmi2MaxBody = 999999;  // what six digits can announce

// The whole frame: right-aligned length, then "cmd=<cmd>;k=v;...;".
std::string pmi2_frame(std::string_view cmd, const FieldList& fields = {});
// The body length announced by a 6-character header: digits padded with spaces on either side.
Result<size_t> parse_pmi2_length(std::string_view header);
// A body; needs a cmd field; a trailing ';' is optional.
Result<Fields> parse_pmi2_body(std::string_view body);

// Fails unless the response's cmd is `expected` (a server answering out of turn is broken).
Outcome expect_cmd(const Fields& response, std::string_view expected);
// Fails unless rc is absent or 0; the message quotes the server's msg/errmsg when it gave one.
Outcome expect_rc_zero(const Fields& response, std::string_view what);

}  // namespace torus::boot
