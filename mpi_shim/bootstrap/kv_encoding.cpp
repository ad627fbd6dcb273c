// Hex values, rank-suffixed keys and value chunking for the PMI-1/PMI-2 key-value space.
#include "mpi_shim/bootstrap/kv_encoding.h"

#include <algorithm>
#include <charconv>

namespace torus::boot {
namespace {

// A worker address is a few hundred bytes; a megabyte-sized value means a bug, and each
// chunk costs a server round trip.
constexpr size_t kMaxChunks = 4096;
// Below this a server's limit leaves no room for a useful chunk.
constexpr size_t kMinChunkChars = 8;

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

size_t decimal_digits(size_t n) noexcept {
  size_t d = 1;
  while (n >= 10) n /= 10, ++d;
  return d;
}

}  // namespace

std::string hex_encode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(bytes.size() * 2, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kDigits[b >> 4];
    out[2 * i + 1] = kDigits[b & 15];
  }
  return out;
}

Result<std::string> hex_decode(std::string_view hex) {
  if (hex.size() % 2)
    return make_error(Status::ProtocolError,
                      "hex value of odd length " + std::to_string(hex.size()));
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return make_error(Status::ProtocolError,
                        "non-hex character in value at offset " + std::to_string(2 * i));
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

bool is_valid_user_key(std::string_view key) noexcept {
  if (key.empty()) return false;
  for (char c : key)
    if (c <= ' ' || c > '~' || c == '=' || c == ';') return false;
  return true;
}

std::string wire_key(std::string_view key, int rank, size_t chunk) {
  std::string k(key);
  k += '-';
  k += std::to_string(rank);
  if (chunk) {
    k += '.';
    k += std::to_string(chunk);
  }
  return k;
}

Result<std::vector<std::string>> split_value(std::string_view value, const WireLimits& limits) {
  if (limits.vallen_max < kMinChunkChars + 1)
    return make_error(Status::InvalidParam,
                      "the PMI server's vallen_max=" + std::to_string(limits.vallen_max) +
                          " is too small to carry values");
  const size_t budget = limits.vallen_max - 1;
  const std::string hex = hex_encode(value);
  // Smallest count whose capacity (chunk 0 loses its "<count>:" prefix) holds the hex.
  size_t count = 1;
  while (budget - decimal_digits(count) - 1 + (count - 1) * budget < hex.size()) {
    if (++count > kMaxChunks)
      return make_error(Status::InvalidParam, "value of " + std::to_string(value.size()) +
                                                  " bytes needs more than " +
                                                  std::to_string(kMaxChunks) + " PMI chunks of " +
                                                  std::to_string(budget) + " characters");
  }
  std::vector<std::string> chunks;
  chunks.reserve(count);
  size_t first = std::min(hex.size(), budget - decimal_digits(count) - 1);
  chunks.push_back(std::to_string(count) + ":" + hex.substr(0, first));
  for (size_t pos = first; pos < hex.size(); pos += budget)
    chunks.push_back(hex.substr(pos, budget));
  return chunks;
}

Result<FirstChunk> parse_first_chunk(std::string_view wire_value) {
  size_t colon = wire_value.find(':');
  FirstChunk fc;
  const char* begin = wire_value.data();
  const char* end = begin + (colon == std::string_view::npos ? 0 : colon);
  auto [ptr, ec] = std::from_chars(begin, end, fc.count);
  if (colon == std::string_view::npos || colon == 0 || ec != std::errc() || ptr != end ||
      fc.count == 0 || fc.count > kMaxChunks)
    return make_error(Status::ProtocolError,
                      "malformed value from the PMI server (expected <count>:<hex>, got '" +
                          std::string(wire_value.substr(0, 40)) + "')");
  fc.hex = wire_value.substr(colon + 1);
  return fc;
}

Outcome put_chunked(const RawPut& raw_put, int rank, std::string_view key, std::string_view value,
                    const WireLimits& limits) {
  if (!is_valid_user_key(key))
    return make_error(Status::InvalidParam,
                      "bootstrap key '" + std::string(key) +
                          "' is empty or holds a space, '=', ';' or a non-printable character");
  auto chunks = split_value(value, limits);
  if (!chunks) return chunks.error();
  // The last chunk has the longest name.
  std::string longest = wire_key(key, rank, chunks->size() - 1);
  if (longest.size() + 1 > limits.keylen_max)
    return make_error(Status::InvalidParam, "bootstrap key '" + longest +
                                                "' is longer than the PMI server's keylen_max=" +
                                                std::to_string(limits.keylen_max) + " allows");
  for (size_t i = 0; i < chunks->size(); ++i) {
    Outcome o = raw_put(wire_key(key, rank, i), (*chunks)[i]);
    if (!o) return o;
  }
  return success();
}

Result<std::string> get_chunked(const RawGet& raw_get, int rank, std::string_view key) {
  if (!is_valid_user_key(key))
    return make_error(Status::InvalidParam, "bootstrap key '" + std::string(key) + "' is invalid");
  auto first = raw_get(wire_key(key, rank, 0));
  if (!first) return first.error();
  auto fc = parse_first_chunk(*first);
  if (!fc) return fc.error();
  std::string hex(fc->hex);
  for (size_t i = 1; i < fc->count; ++i) {
    auto chunk = raw_get(wire_key(key, rank, i));
    if (!chunk) {
      if (chunk.status() != Status::NotFound) return chunk.error();
      return make_error(Status::ProtocolError,
                        "chunk " + std::to_string(i) + " of " + std::to_string(fc->count) +
                            " of key '" + std::string(key) + "' from rank " + std::to_string(rank) +
                            " is missing on the PMI server");
    }
    hex += *chunk;
  }
  return hex_decode(hex);
}

}  // namespace torus::boot
