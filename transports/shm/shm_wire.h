// Everything the shm transport shares with other processes: the segment header, FIFO cells,
// the registered-region table, packed addresses, rkeys and internal (bounce) message headers.
// Fixed layouts only; every size is pinned by a static_assert. Bump kVersion on any change.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace torus::shm {

inline constexpr uint64_t kMagic = 0x316d687375726f74ull;  // "torushm1", little endian
inline constexpr uint8_t kVersion = 8;
inline constexpr size_t kCacheLine = 64;
inline constexpr size_t kPage = 4096;

// ---- FIFO cells ---------------------------------------------------------------------------
// A cell is five cache lines. The sequence word, the header and the first 48 payload bytes
// share line 0, so a message of up to 48 bytes moves one line from producer to consumer; up to
// 304 bytes stay inline (an MPI message of 256 B plus its headers), which moves fewer lines
// than a cell line plus the lines of the eager segment. Only the lines a message fills are
// touched, so the fifth line costs small messages nothing; with four (240 bytes inline) a
// 256 B MPI message took the segment: 2-rank latency 0.470 against 0.434 us, and 4 ranks'
// allreduce at 256 B 1.05x its 128 B time (2026-12-06, 78abb45, interleaved, far vCPUs).
inline constexpr size_t kCellSize = 320;
inline constexpr size_t kCellHeader = 16;
inline constexpr size_t kMaxInline = kCellSize - kCellHeader;  // am_short limit: 304 bytes
inline constexpr size_t kLine0Inline = kCacheLine - kCellHeader;  // inline bytes in line 0: 48

enum : uint8_t {
  kCellBcopy = 1,     // payload is in the cell's eager segment, not inline
  kCellInternal = 2,  // am_id is an InternalType (bounce protocol), never a user AM id
};

struct alignas(kCacheLine) Cell {
  // == pos + 1: the message of position pos is published (the consumer never writes it back;
  // producers learn which cells are free from SegmentHeader::released).
  std::atomic<uint32_t> seq;
  uint32_t length;   // payload bytes (inline or in the segment)
  int32_t sender;    // producer's pid: to drop the right peer on a malformed cell
  uint8_t am_id;
  uint8_t flags;
  uint16_t seg_offset;  // kCellBcopy: where the payload starts in the segment, < kCacheLine
  std::byte data[kMaxInline];
};
static_assert(sizeof(Cell) == kCellSize);
static_assert(offsetof(Cell, data) == kCellHeader);
static_assert(std::atomic<uint32_t>::is_always_lock_free);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

// Each cell's eager segment holds TORUS_SHM_SEG_SIZE bytes of payload plus kSegSlack: room
// for the protocol's header before it (up to kSegHeadroom bytes, so a payload of exactly the
// setting, 8 KiB by default, still travels in one cell) and for moving the frame up to a line
// so that its payload lines up with the sender's buffer (Cell::seg_offset).
inline constexpr size_t kSegHeadroom = 64;
inline constexpr size_t kSegSlack = kSegHeadroom + kCacheLine;

// ---- segment header -----------------------------------------------------------------------
// Immutable fields first (written once by the owner before its address is published); each
// mutable word on its own cache line so producers, the consumer and attachers never share one.
struct SegmentHeader {
  uint64_t magic;
  uint32_t version;
  int32_t owner_pid;
  uint32_t fifo_size;
  uint32_t seg_size;
  uint32_t region_slots;
  int32_t expected_peers;  // IfaceParams::expected_local_peers; -1: unlink at owner exit
  uint64_t total_size;
  // The owner's pid namespace (pid_namespace_id): a later process judges owner_pid dead only
  // within the same namespace, before it removes a segment a killed owner left.
  uint64_t owner_pid_ns;
  uint32_t lanes;      // per-producer rings after the shared one (LaneHeader), maybe 0
  uint32_t lane_size;  // cells of each lane

  alignas(kCacheLine) std::atomic<uint32_t> attached;  // peers that mapped the segment
  std::atomic<uint32_t> unlinked;                      // 1 once someone removed the name
  // Lanes below it were claimed at least once: the consumer polls those. Producers raise it
  // when they claim a lane, so it changes only as peers attach.
  std::atomic<uint32_t> lanes_used;
  alignas(kCacheLine) std::atomic<uint32_t> sleeping;  // consumer armed; producers must wake
  alignas(kCacheLine) std::atomic<uint32_t> tail;      // next position producers claim
  // Positions below it are consumed: their cells are free for the next lap. The consumer
  // stores it once per poll, producers read it only when their cached copy says full.
  alignas(kCacheLine) std::atomic<uint32_t> released;
};
static_assert(sizeof(SegmentHeader) == 5 * kCacheLine);
static_assert(offsetof(SegmentHeader, attached) == kCacheLine);
static_assert(offsetof(SegmentHeader, sleeping) == 2 * kCacheLine);
static_assert(offsetof(SegmentHeader, tail) == 3 * kCacheLine);
static_assert(offsetof(SegmentHeader, released) == 4 * kCacheLine);

// ---- lanes --------------------------------------------------------------------------------
// A lane is a second ring of the same protocol (cells, eager segments, tail, released; the
// segment's `sleeping` word is shared) that one producer claims for its messages to this
// segment: with several producers on one ring, every claim first loads the tail line from
// the core of whichever producer claimed last, a cross-core miss per message that stalls the
// sender (4 ranks' allreduce at 8 B: three quarters of am_short's time, on that one load).
// A producer without a lane uses the shared ring. Each producer keeps to one ring for the
// life of its attachment, so its messages stay in order. A claim is only a hint of
// exclusivity: the ring protocol stays multi-producer, so a lane two producers share by
// mistake is slower, never wrong.
struct LaneHeader {
  alignas(kCacheLine) std::atomic<int32_t> owner;  // pid of the claiming producer, 0 free
  alignas(kCacheLine) std::atomic<uint32_t> tail;
  alignas(kCacheLine) std::atomic<uint32_t> released;
};
static_assert(sizeof(LaneHeader) == 3 * kCacheLine);

// ---- cooperative get slots ----------------------------------------------------------------
// In the rest of the header page (cells start at kPage): one slot per cooperative get this
// segment's owner has in flight (see shm_coop.h). The owner resets a slot for each job; the
// target of the job claims chunks from it and counts the ones it copied.
struct alignas(kCacheLine) CoopSlot {
  std::atomic<uint64_t> claim;        // job generation << 32 | next unclaimed chunk
  std::atomic<uint32_t> target_done;  // chunks the target copied
  std::atomic<uint32_t> orphan;       // 1 + a chunk the target claimed but failed to copy
};
static_assert(sizeof(CoopSlot) == kCacheLine);
inline constexpr size_t kCoopOffset = sizeof(SegmentHeader);
inline constexpr uint32_t kCoopSlots = 32;
static_assert(kCoopOffset + kCoopSlots * sizeof(CoopSlot) <= kPage);

// ---- registered regions -------------------------------------------------------------------
// Written only by the owner, under a seqlock: generation is odd while a slot changes. A live
// slot's generation is what its rkey carries; deregistration moves it on by two.
struct RegionSlot {
  std::atomic<uint32_t> generation;
  std::atomic<uint32_t> access;
  std::atomic<uint64_t> secret;
  std::atomic<uint64_t> addr;
  std::atomic<uint64_t> length;
};
static_assert(sizeof(RegionSlot) == 32);
inline constexpr uint32_t kRegionSlots = 4096;

inline constexpr uint32_t kRkeyMagic = 0x794b6d73;  // "smKy"
struct PackedRkey {
  uint32_t magic;
  uint32_t slot;
  uint32_t generation;
  uint32_t access;
  uint64_t secret;
  uint64_t addr;    // informational: validation uses the owner's table, never these two
  uint64_t length;
};
static_assert(sizeof(PackedRkey) == 40);
static_assert(std::is_trivially_copyable_v<PackedRkey>);

// ---- iface address ------------------------------------------------------------------------
// Segment names are "/torus-<job>-<uid as 16 hex>-<n>"; job ids are cut to kMaxJobLen so the
// name and the abstract socket name "\0torus-<name>" fit in sockaddr_un.
inline constexpr size_t kMaxJobLen = 56;
inline constexpr size_t kMaxNameLen = 100;

struct AddressHeader {
  uint32_t magic;  // low 32 bits of kMagic
  uint8_t version;
  uint8_t name_len;
  uint16_t reserved;
  int32_t pid;
  uint32_t reserved2;
  uint64_t boot_id;  // hash of /proc/sys/kernel/random/boot_id
  uint64_t ipc_ns;   // inode of /proc/self/ns/ipc
  uint64_t net_ns;   // inode of /proc/self/ns/net (abstract sockets live there)
  uint64_t pid_ns;   // inode of /proc/self/ns/pid (pids, pidfds and CMA name processes)
};
static_assert(sizeof(AddressHeader) == 48);

// ---- bounce protocol (CMA unavailable) ----------------------------------------------------
// Internal messages always travel in a cell's segment: an InternalHeader, then data from
// kBounceDataOffset. The target answers through the initiator's own FIFO, which it attaches
// by reply_name. Every request is answered exactly once, so the target keeps no state.
enum class InternalType : uint8_t {
  GetReq = 1,   // initiator -> target: send me [remote_addr, +length)
  GetData = 2,  // target -> initiator: the bytes, at `offset` within the operation
  GetNack = 3,  // target -> initiator: refused (status), no byte moved
  PutData = 4,  // initiator -> target: write these bytes at remote_addr
  PutAck = 5,   // target -> initiator: written (status Ok) or refused
  CoopGet = 6,  // initiator -> target: help copy a get (a CoopRequest; never answered)
};

struct InternalHeader {
  uint64_t op_id;
  uint64_t offset;       // of this chunk within the operation
  uint64_t remote_addr;  // target address of this chunk
  uint32_t length;       // chunk bytes
  int32_t status;        // Status of a Nack/Ack
  PackedRkey rkey;
  int32_t reply_pid;
  uint8_t reply_name_len;
  uint8_t reserved[3];
  char reply_name[kMaxNameLen + 28];
};
inline constexpr size_t kBounceDataOffset = 256;
static_assert(sizeof(InternalHeader) <= kBounceDataOffset);
static_assert(std::is_trivially_copyable_v<InternalHeader>);

// A cooperative get: the target writes claimed chunks of its [remote_addr, +length) into the
// initiator's [local_addr, +length) with process_vm_writev, chunk i at offset i * chunk.
struct CoopRequest {
  uint32_t generation;
  uint32_t slot;    // in the initiator's segment, < kCoopSlots
  uint32_t chunks;  // ceil(length / chunk)
  uint32_t chunk;
  uint64_t length;
  uint64_t remote_addr;  // in the target
  uint64_t local_addr;   // in the initiator
  PackedRkey rkey;
  int32_t pid;  // the initiator
  uint8_t name_len;
  uint8_t reserved[3];
  char name[kMaxNameLen + 28];  // the initiator's segment, where the slot is
};
static_assert(sizeof(CoopRequest) <= 2 * kBounceDataOffset);  // fits the smallest segment
static_assert(std::is_trivially_copyable_v<CoopRequest>);

// ---- limits on configuration --------------------------------------------------------------
inline constexpr uint32_t kMinFifoSize = 2;
inline constexpr uint32_t kMaxFifoSize = 1u << 16;
inline constexpr uint32_t kMaxLanes = 64;
inline constexpr uint64_t kMinSegSize = 2 * kBounceDataOffset;
inline constexpr uint64_t kMaxSegSize = 64ull << 20;

}  // namespace torus::shm
