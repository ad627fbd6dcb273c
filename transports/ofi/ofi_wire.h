// What crosses the wire on the ofi transport: the iface address, the active-message header
// and the packed remote key. Fixed little-endian layouts with a version byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace torus::ofi {

inline constexpr uint32_t kAddrMagic = 0x3069666f;  // "ofi0"
inline constexpr uint8_t kVersion = 2;

// The iface address: this header, the provider name, the fabric name, then fi_getname's
// bytes. A peer on another provider or fabric is unreachable, with the names in the reason.
// pid and pid namespace let a provider that reaches only this host (shm) watch the peer
// process (ofi_pidfd.h).
struct AddrHeader {
  uint32_t magic;
  uint8_t version;
  uint8_t prov_len;
  uint8_t fabric_len;
  uint8_t reserved;
  uint16_t name_len;  // fi_getname bytes
  uint16_t reserved2;
  uint64_t worker_uid;
  uint64_t pid_ns;  // inode of /proc/self/ns/pid, 0 if unknown
  uint32_t pid;
  uint32_t reserved3;
};
static_assert(sizeof(AddrHeader) == 40);

struct ParsedAddress {
  uint64_t worker_uid = 0;
  uint64_t pid_ns = 0;
  uint32_t pid = 0;
  std::string provider;
  std::string fabric;
  std::span<const std::byte> name;  // fi_getname bytes, inside the parsed buffer
};

std::string pack_address(uint64_t worker_uid, uint64_t pid_ns, uint32_t pid,
                         const std::string& provider, const std::string& fabric,
                         std::span<const std::byte> name);
// False (and why) for a truncated, oversized, wrong-magic or wrong-version address.
bool parse_address(std::span<const std::byte> in, ParsedAddress* out, std::string* why);

// Every active message starts with this header; the rest is the payload.
struct AmHeader {
  uint8_t magic;  // kAmMagic: a buffer that is not ours is dropped, never dispatched
  uint8_t id;
  uint16_t flags;  // kAmFlagKeepalive, else 0
  uint32_t length;  // payload bytes; must equal what was received minus the header
};
static_assert(sizeof(AmHeader) == 8);
inline constexpr uint8_t kAmMagic = 0xA7;
// A liveness probe (no payload, no handler): its only purpose is a send that fails if the
// peer is gone.
inline constexpr uint16_t kAmFlagKeepalive = 1;
// Transport-internal messages of the tagged get (ofi_tagged.cpp), never given to a handler:
// a get request (GetRequest + the initiator's fi_getname bytes) and its refusal (GetNack).
inline constexpr uint16_t kAmFlagGetRequest = 2;
inline constexpr uint16_t kAmFlagGetNack = 4;

// "Send me [addr, addr + length) of the region whose secret is `key`, tagged `tag`": the
// initiator has posted fi_trecv(tag) for it. `initiator_uid` and the name that follows let the
// target address its answer even when it never connected to the initiator.
struct GetRequest {
  uint64_t tag;
  uint64_t key;
  uint64_t addr;
  uint64_t length;
  uint64_t initiator_uid;
  uint16_t name_len;
  uint8_t version;  // kVersion
  uint8_t pad[5];
};
static_assert(sizeof(GetRequest) == 48);

// The target refused the get with `tag` (stale or forged key, range, rights): nothing will
// be sent; the initiator cancels its receive and completes the get with `status`.
struct GetNack {
  uint64_t tag;
  int32_t status;  // torus::Status
  uint32_t pad;
};
static_assert(sizeof(GetNack) == 16);

// The packed remote key. `key` is fi_mr_key's answer (a random 64-bit requested key where
// the provider lets us choose it, so it is also the secret); `base`/`length` is the registered
// range, from which the initiator computes the offset when the provider does not address by
// virtual address, and checks the range before anything is sent. `check` ties the fields
// together so a corrupted key is refused before it reaches the provider.
struct PackedRkey {
  uint64_t key;
  uint64_t base;
  uint64_t length;
  uint32_t flags;  // kRkeyVirtAddr
  uint32_t version;
  uint64_t check;
};
static_assert(sizeof(PackedRkey) == 40);
inline constexpr uint32_t kRkeyVirtAddr = 1;

uint64_t rkey_check(const PackedRkey& k) noexcept;

}  // namespace torus::ofi
