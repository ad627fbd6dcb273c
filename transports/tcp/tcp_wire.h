// The tcp transport's wire format: a fixed handshake, then frames of one 8-byte header, a
// fixed per-type body and a payload. Every field is validated by the parsers here before the
// connection acts on it (they are the libFuzzer target's entry points).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "core/base/status.h"

namespace torus::tcp {

inline constexpr uint32_t kMagic = 0x31535254;  // "TRS1" little-endian
// 2: the hello names the connection's lane (0 = the main connection, 1.. = bulk ones).
inline constexpr uint16_t kVersion = 2;
inline constexpr size_t kRkeySize = 16;         // {u64 region id, u64 secret}
// An AM frame carries at most this much (the iface's max_bcopy): the receive buffer holds
// one whole AM, so the handler sees contiguous bytes.
inline constexpr size_t kMaxAmPayload = 64 * 1024;
// Header bytes an am_zcopy may carry before its borrowed payload (kept inline when queued).
inline constexpr size_t kMaxZcopyHeader = 56;
// One get/put moves at most this much; the caller fragments larger transfers.
inline constexpr uint64_t kMaxRmaLength = 64ull << 20;
// Connections per pair of workers: the main one (lane 0) and at most kMaxLanes - 1 bulk
// ones that carry only get/put requests and their answers (tcp_rma.cpp).
inline constexpr unsigned kMaxLanes = 8;

enum class FrameType : uint8_t {
  Am = 1,       // id = AM id; payload = header + data of the message
  GetReq = 2,   // body GetReqBody; no payload
  GetResp = 3,  // body RespBody; payload = the bytes read (only when status is Ok)
  PutReq = 4,   // body PutReqBody; payload = the bytes to write
  PutAck = 5,   // body RespBody; no payload
};

#pragma pack(push, 1)
struct FrameHeader {
  uint8_t type;
  uint8_t id;
  uint16_t reserved;  // zero
  uint32_t length;    // bytes after this header: body + payload
};
struct GetReqBody {
  uint64_t op_id;
  uint64_t remote_addr;
  uint64_t length;
  uint8_t rkey[kRkeySize];
};
struct PutReqBody {
  uint64_t op_id;
  uint64_t remote_addr;
  uint8_t rkey[kRkeySize];
};
struct RespBody {
  uint64_t op_id;
  int32_t status;  // torus::Status
  uint32_t reserved;
};

// Handshake: the acceptor speaks first with a challenge, the connector proves it holds the
// job key, the acceptor proves it too and says whether this connection is kept.
struct Challenge {
  uint32_t magic;
  uint16_t version;
  uint16_t reserved;
  uint64_t acceptor_uid;
  uint64_t nonce;
};
struct Hello {
  uint32_t magic;
  uint16_t version;
  uint16_t lane;        // which connection of the pair this is (< kMaxLanes)
  uint64_t connector_uid;
  uint64_t target_uid;  // the worker the connector means to reach (a reused port is caught)
  uint64_t nonce;
  uint64_t mac;
};
enum class Verdict : uint8_t {
  Accept = 1,
  Duplicate = 2,  // a connection between these workers already won the tie-break
};
struct Welcome {
  uint32_t magic;
  uint8_t verdict;
  uint8_t reserved[3];
  uint64_t mac;
};
#pragma pack(pop)

static_assert(sizeof(FrameHeader) == 8);
static_assert(kMaxZcopyHeader >= sizeof(GetReqBody), "a queued get request fits inline");
static_assert(sizeof(Challenge) == 24 && sizeof(Hello) == 40 && sizeof(Welcome) == 16);

// Bytes of the fixed body that follows the header of a frame of this type.
size_t body_size(FrameType type) noexcept;

// A frame header and its body, checked: known type, zero reserved bits, length within the
// type's limits, body present in full. `bytes` may hold more (the next frames).
struct ParsedFrame {
  FrameType type{};
  uint8_t id = 0;
  size_t body_len = 0;     // body_size(type)
  size_t payload_len = 0;  // length - body_len
  const std::byte* body = nullptr;
};
enum class ParseResult : uint8_t { Ok, NeedMore, Malformed };

// A frame's header and fixed body, as written: `length` counts the body and any payload
// that follows it.
template <typename Body>
std::array<std::byte, sizeof(FrameHeader) + sizeof(Body)> frame_head(FrameType type,
                                                                     size_t length,
                                                                     const Body& b) {
  const FrameHeader h{static_cast<uint8_t>(type), 0, 0, static_cast<uint32_t>(length)};
  std::array<std::byte, sizeof(FrameHeader) + sizeof(Body)> out;
  std::memcpy(out.data(), &h, sizeof(h));
  std::memcpy(out.data() + sizeof(h), &b, sizeof(b));
  return out;
}
ParseResult parse_frame(std::span<const std::byte> bytes, size_t max_am_id, ParsedFrame* out,
                        std::string* why);

// Handshake messages, checked for magic and version (a wrong version is reported as such).
bool parse_challenge(std::span<const std::byte, sizeof(Challenge)> bytes, Challenge* out,
                     std::string* why);
bool parse_hello(std::span<const std::byte, sizeof(Hello)> bytes, Hello* out, std::string* why);
bool parse_welcome(std::span<const std::byte, sizeof(Welcome)> bytes, Welcome* out,
                   std::string* why);

}  // namespace torus::tcp
