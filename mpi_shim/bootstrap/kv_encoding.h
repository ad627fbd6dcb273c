// How a binary (rank, key, value) becomes text keys and values on a PMI-1/PMI-2 wire: keys get
// the rank as a suffix, values become hex, and values longer than the server's limit are
// split into numbered chunk keys. Pure functions, no I/O.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "mpi_shim/bootstrap/outcome.h"

namespace torus::boot {

// Lowercase hex, two characters per byte.
std::string hex_encode(std::string_view bytes);
// Fails (ProtocolError) on an odd length or a character outside [0-9a-fA-F].
Result<std::string> hex_decode(std::string_view hex);

// A key a caller may use: non-empty, printable ASCII without space, '=' or ';' (the wire's
// separators).
bool is_valid_user_key(std::string_view key) noexcept;

// The wire key of chunk `chunk` of `key` published by `rank`: "<key>-<rank>" for chunk 0,
// "<key>-<rank>.<chunk>" for the others. Distinct (key, rank, chunk) give distinct names.
std::string wire_key(std::string_view key, int rank, size_t chunk = 0);

// The server's limits, as PMI-1 get_maxes reports them. Both count the C string's
// terminating NUL: Hydra keeps at most vallen_max - 1 characters of a value and truncates
// the rest silently, so a chunk never exceeds that.
struct WireLimits {
  size_t keylen_max = 64;
  size_t vallen_max = 1024;
};

// Splits `value` into the wire values of its chunks. Chunk 0 is "<count>:<hex>", the others
// plain hex; each is at most vallen_max - 1 characters. Fails (InvalidParam) when the limits
// are too small to carry anything or the value needs an absurd number of chunks.
Result<std::vector<std::string>> split_value(std::string_view value, const WireLimits& limits);

// The chunk count announced by a chunk-0 wire value, and that chunk's hex.
struct FirstChunk {
  size_t count = 0;
  std::string_view hex;
};
Result<FirstChunk> parse_first_chunk(std::string_view wire_value);

// The whole put/get of one value over a server's raw text put/get, shared by the PMI-1 and
// PMI-2 clients. raw_get fails with NotFound when the server does not have the key.
using RawPut = std::function<Outcome(const std::string& key, const std::string& value)>;
using RawGet = std::function<Result<std::string>(const std::string& key)>;
Outcome put_chunked(const RawPut& raw_put, int rank, std::string_view key, std::string_view value,
                    const WireLimits& limits);
Result<std::string> get_chunked(const RawGet& raw_get, int rank, std::string_view key);

}  // namespace torus::boot
