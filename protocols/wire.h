// Wire headers of the tag, rendezvous and active-message protocol family. Every message is
// one transport AM whose id says which header follows; every field is validated on receipt.
#pragma once

#include <cstddef>
#include <cstdint>

namespace torus::proto {

inline constexpr uint8_t kWireVersion = 1;

// Transport AM ids used by the core (transports see only numbers).
enum AmId : uint8_t {
  kAmWireup = 0,       // WireupHdr + packed worker address: lets the peer reply
  kAmEagerOnly = 1,    // EagerHdr + whole payload
  kAmEagerSync = 2,    // EagerSyncHdr + whole payload; receiver answers kAmSyncAck on match
  kAmEagerFirst = 3,   // EagerFirstHdr + first fragment
  kAmEagerMiddle = 4,  // EagerMiddleHdr + later fragment
  kAmSyncAck = 5,      // AckHdr
  kAmRts = 6,          // RtsHdr + packed rkey (rndv_get) or none (rndv_put)
  kAmAts = 7,          // AckHdr: receiver finished reading (rndv_get)
  kAmRtr = 8,          // RtrHdr + packed rkey: receiver's buffer for rndv_put
  kAmFin = 9,          // AckHdr: sender finished writing (rndv_put)
  kAmUser = 10,        // UserAmHdr + user header + payload
  kAmCount = 11,
};

#pragma pack(push, 1)
struct WireupHdr {
  uint64_t sender_uid;
  uint8_t version;
  uint8_t pad[3];
  uint32_t address_length;  // bytes of packed worker address that follow
};
static_assert(sizeof(WireupHdr) == 16);

struct EagerHdr {
  uint64_t tag;
};
static_assert(sizeof(EagerHdr) == 8);

struct EagerSyncHdr {
  uint64_t tag;
  uint64_t sender_uid;
  uint64_t sreq_id;
};
static_assert(sizeof(EagerSyncHdr) == 24);

// First of several fragments; fragments of one message arrive in order on one lane and are
// not interleaved with other messages of the same sender.
struct EagerFirstHdr {
  uint64_t tag;
  uint64_t sender_uid;
  uint64_t sreq_id;     // nonzero when the sender waits for kAmSyncAck
  uint64_t total_length;
};
static_assert(sizeof(EagerFirstHdr) == 32);

struct EagerMiddleHdr {
  uint64_t sender_uid;
  uint64_t offset;
};
static_assert(sizeof(EagerMiddleHdr) == 16);

struct AckHdr {
  uint64_t req_id;
  int32_t status;  // torus::Status of the peer's side
  uint32_t pad;
};
static_assert(sizeof(AckHdr) == 16);

enum RtsFlags : uint8_t { kRtsGet = 1, kRtsPut = 2, kRtsSync = 4 };

struct RtsHdr {
  uint64_t tag;
  uint64_t sender_uid;
  uint64_t sreq_id;
  uint64_t total_length;
  uint64_t address;     // sender's buffer (rndv_get)
  uint32_t rma_tl;      // hash of the transport name whose rkey follows
  uint16_t rkey_length;
  uint8_t flags;
  uint8_t pad;
};
static_assert(sizeof(RtsHdr) == 48);

struct RtrHdr {
  uint64_t sreq_id;
  uint64_t rreq_id;
  uint64_t address;     // receiver's buffer
  uint64_t length;      // bytes the receiver accepts (<= the message)
  uint32_t rma_tl;
  uint16_t rkey_length;
  uint16_t pad;
};
static_assert(sizeof(RtrHdr) == 40);

struct UserAmHdr {
  uint64_t sender_uid;
  uint8_t id;
  uint8_t header_length;
  uint8_t pad[6];
};
static_assert(sizeof(UserAmHdr) == 16);
#pragma pack(pop)

// Transport names travel as a 32-bit FNV-1a hash (RTS/RTR name the RMA lane's transport).
constexpr uint32_t tl_hash(const char* s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<uint8_t>(s[i])) * 16777619u;
  return h;
}

}  // namespace torus::proto
