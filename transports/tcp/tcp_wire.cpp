// Validation of everything read from a tcp peer, before any of it is acted on.
#include "transports/tcp/tcp_wire.h"

#include <cstring>

namespace torus::tcp {

size_t body_size(FrameType type) noexcept {
  switch (type) {
    case FrameType::Am: return 0;
    case FrameType::GetReq: return sizeof(GetReqBody);
    case FrameType::GetResp: return sizeof(RespBody);
    case FrameType::PutReq: return sizeof(PutReqBody);
    case FrameType::PutAck: return sizeof(RespBody);
  }
  return 0;
}

namespace {

bool known_type(uint8_t t) noexcept {
  return t >= static_cast<uint8_t>(FrameType::Am) && t <= static_cast<uint8_t>(FrameType::PutAck);
}

ParseResult malformed(std::string* why, const char* text) {
  if (why != nullptr) *why = text;
  return ParseResult::Malformed;
}

bool bad(std::string* why, const std::string& text) {
  if (why != nullptr) *why = text;
  return false;
}

}  // namespace

ParseResult parse_frame(std::span<const std::byte> bytes, size_t max_am_id, ParsedFrame* out,
                        std::string* why) {
  if (bytes.size() < sizeof(FrameHeader)) return ParseResult::NeedMore;
  FrameHeader h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  if (!known_type(h.type)) return malformed(why, "unknown frame type");
  if (h.reserved != 0) return malformed(why, "reserved header bits set");
  const auto type = static_cast<FrameType>(h.type);
  const size_t body = body_size(type);
  if (h.length < body) return malformed(why, "frame shorter than its body");
  const size_t payload = h.length - body;
  switch (type) {
    case FrameType::Am:
      if (h.id >= max_am_id) return malformed(why, "active-message id out of range");
      if (payload > kMaxAmPayload) return malformed(why, "active message longer than allowed");
      break;
    case FrameType::GetReq:
    case FrameType::PutAck:
      if (payload != 0) return malformed(why, "payload on a frame that takes none");
      break;
    case FrameType::GetResp:
    case FrameType::PutReq:
      if (payload > kMaxRmaLength) return malformed(why, "get/put longer than allowed");
      break;
  }
  if (type != FrameType::Am && h.id != 0) return malformed(why, "id set on a non-AM frame");
  if (bytes.size() < sizeof(FrameHeader) + body) return ParseResult::NeedMore;
  out->type = type;
  out->id = h.id;
  out->body_len = body;
  out->payload_len = payload;
  out->body = bytes.data() + sizeof(FrameHeader);
  return ParseResult::Ok;
}

bool parse_challenge(std::span<const std::byte, sizeof(Challenge)> bytes, Challenge* out,
                     std::string* why) {
  std::memcpy(out, bytes.data(), sizeof(*out));
  if (out->magic != kMagic) return bad(why, "not a torus tcp peer (bad magic in challenge)");
  if (out->version != kVersion)
    return bad(why, "peer speaks tcp wire version " + std::to_string(out->version) +
                        ", this build speaks " + std::to_string(kVersion));
  if (out->reserved != 0) return bad(why, "reserved challenge bits set");
  return true;
}

bool parse_hello(std::span<const std::byte, sizeof(Hello)> bytes, Hello* out, std::string* why) {
  std::memcpy(out, bytes.data(), sizeof(*out));
  if (out->magic != kMagic) return bad(why, "not a torus tcp peer (bad magic in hello)");
  if (out->version != kVersion)
    return bad(why, "peer speaks tcp wire version " + std::to_string(out->version) +
                        ", this build speaks " + std::to_string(kVersion));
  if (out->lane >= kMaxLanes) return bad(why, "hello names a connection lane out of range");
  return true;
}

bool parse_welcome(std::span<const std::byte, sizeof(Welcome)> bytes, Welcome* out,
                   std::string* why) {
  std::memcpy(out, bytes.data(), sizeof(*out));
  if (out->magic != kMagic) return bad(why, "bad magic in welcome");
  if (out->verdict != static_cast<uint8_t>(Verdict::Accept) &&
      out->verdict != static_cast<uint8_t>(Verdict::Duplicate))
    return bad(why, "unknown verdict in welcome");
  if (out->reserved[0] != 0 || out->reserved[1] != 0 || out->reserved[2] != 0)
    return bad(why, "reserved welcome bits set");
  return true;
}

}  // namespace torus::tcp
