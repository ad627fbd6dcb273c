// Building and parsing PMI-1 lines and PMI-2 frames.
#include "mpi_shim/bootstrap/pmi_wire.h"

#include <charconv>
#include <cstdio>

namespace torus::boot {
namespace {

Error malformed(std::string_view what, std::string_view text) {
  constexpr size_t kQuote = 120;  // enough to recognise the line in a log
  std::string q(text.substr(0, kQuote));
  for (char& c : q)
    if (c < ' ' || c > '~') c = '?';
  return make_error(Status::ProtocolError, "malformed PMI response (" + std::string(what) + "): '" +
                                               q + (text.size() > kQuote ? "...'" : "'"));
}

}  // namespace

const std::string* Fields::find(std::string_view key) const noexcept {
  for (const auto& [k, v] : items_)
    if (k == key) return &v;
  return nullptr;
}

std::string_view Fields::cmd() const noexcept {
  const std::string* c = find("cmd");
  return c ? std::string_view(*c) : std::string_view();
}

Result<int64_t> Fields::get_int(std::string_view key) const {
  const std::string* v = find(key);
  if (!v)
    return make_error(Status::ProtocolError, "PMI response '" + std::string(cmd()) +
                                                 "' lacks the field '" + std::string(key) + "'");
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (v->empty() || ec != std::errc() || ptr != v->data() + v->size())
    return make_error(Status::ProtocolError, "PMI response '" + std::string(cmd()) + "': field " +
                                                 std::string(key) + "='" + *v +
                                                 "' is not an integer");
  return out;
}

std::string pmi1_line(std::string_view cmd, const FieldList& fields) {
  std::string line = "cmd=";
  line += cmd;
  for (const auto& [k, v] : fields) {
    line += ' ';
    line += k;
    line += '=';
    line += v;
  }
  line += '\n';
  return line;
}

Result<Fields> parse_pmi1_line(std::string_view line) {
  Fields f;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
      ++i;
      continue;
    }
    size_t end = line.find_first_of(" \t\r", i);
    if (end == std::string_view::npos) end = line.size();
    std::string_view token = line.substr(i, end - i);
    size_t eq = token.find('=');
    if (eq == std::string_view::npos || eq == 0) return malformed("a field is not key=value", line);
    f.add(std::string(token.substr(0, eq)), std::string(token.substr(eq + 1)));
    i = end;
  }
  if (f.cmd().empty()) return malformed("no cmd", line);
  return f;
}

std::string pmi2_frame(std::string_view cmd, const FieldList& fields) {
  std::string body = "cmd=";
  body += cmd;
  body += ';';
  for (const auto& [k, v] : fields) {
    body += k;
    body += '=';
    for (char c : v) {
      body += c;
      if (c == ';') body += ';';
    }
    body += ';';
  }
  char header[kPmi2HeaderLen + 1];
  std::snprintf(header, sizeof(header), "%6zu", body.size());
  return std::string(header, kPmi2HeaderLen) + body;
}

Result<size_t> parse_pmi2_length(std::string_view header) {
  if (header.size() != kPmi2HeaderLen) return malformed("short frame header", header);
  size_t b = 0, e = header.size();
  while (b < e && header[b] == ' ') ++b;
  while (e > b && header[e - 1] == ' ') --e;
  size_t len = 0;
  auto [ptr, ec] = std::from_chars(header.data() + b, header.data() + e, len);
  if (b == e || ec != std::errc() || ptr != header.data() + e)
    return malformed("frame length is not a number", header);
  return len;
}

Result<Fields> parse_pmi2_body(std::string_view body) {
  Fields f;
  size_t i = 0;
  while (i < body.size()) {
    size_t eq = body.find('=', i);
    size_t semi = body.find(';', i);
    if (eq == std::string_view::npos || eq == i || (semi != std::string_view::npos && semi < eq))
      return malformed("a field is not key=value;", body);
    std::string key(body.substr(i, eq - i));
    std::string value;
    size_t j = eq + 1;
    for (; j < body.size(); ++j) {
      if (body[j] != ';') {
        value += body[j];
      } else if (j + 1 < body.size() && body[j + 1] == ';') {
        value += ';';  // an escaped ';' inside the value
        ++j;
      } else {
        break;
      }
    }
    f.add(std::move(key), std::move(value));
    i = j + 1;  // past the ';' (or past the end when the last ';' was omitted)
  }
  if (f.cmd().empty()) return malformed("no cmd", body);
  return f;
}

Outcome expect_cmd(const Fields& response, std::string_view expected) {
  if (response.cmd() == expected) return success();
  return make_error(Status::ProtocolError, "PMI server answered '" + std::string(response.cmd()) +
                                               "' where '" + std::string(expected) +
                                               "' was expected");
}

Outcome expect_rc_zero(const Fields& response, std::string_view what) {
  const std::string* rc = response.find("rc");
  if (!rc || *rc == "0") return success();
  std::string msg = "PMI server refused " + std::string(what) + " (rc=" + *rc;
  for (const char* k : {"msg", "errmsg"}) {
    if (const std::string* m = response.find(k)) {
      msg += ", ";
      msg += k;
      msg += "=" + *m;
    }
  }
  msg += ')';
  return make_error(Status::IoError, msg);
}

}  // namespace torus::boot
