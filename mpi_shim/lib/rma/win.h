// One-sided communication: the window table and the state every RMA call shares.
//
// A window owns a private communicator (its context id names the window in active
// messages, the same number on every member) and, per member, the base address, size,
// displacement unit and packed remote key of its memory. Put and Get are torus one-sided
// get/put on the members' registered memory. Accumulates, locks and the general active
// target synchronization are active messages (active_messages.cpp) that the target handles in its
// progress, one at a time, which is what makes accumulates atomic with respect to each
// other. All window state is guarded by one recursive mutex (rma_mutex), never held while
// the worker progresses.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/api/torus.hpp"
#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi {

struct Comm;

// An origin-side operation in flight: its torus transfers and the active-message chunks
// still waiting for their acknowledgement or reply; done once both are finished, when a
// Get's or Get_accumulate's staging is unpacked into the user's buffer.
struct RmaOp {
  int target = 0;
  int world_target = -1;  // set when chunks await answers: a failed peer ends the wait
  std::vector<Request*> reqs;
  size_t awaiting = 0;   // chunks sent whose ack/reply has not come back
  bool sending = false;  // more chunks to come: an early answer must not retire the id
  int error = MPI_SUCCESS;
  SendView origin;       // Put / Accumulate: the bytes that travel
  RecvView into;         // Get / Get_accumulate / CAS: where the bytes land
  std::vector<std::byte> cas;  // Compare_and_swap's payload: compare, then origin bytes
  bool finished = false;
  // True once every part is complete (finishing it then, once); does not progress.
  bool poll();
  ~RmaOp();
};
using RmaOpRef = std::shared_ptr<RmaOp>;

enum class LockState : uint8_t { None, Shared, Exclusive, NoCheck };

struct WinPeer {
  uint64_t base = 0;
  uint64_t size = 0;
  int disp_unit = 1;
  std::vector<std::byte> rkey;
};

// Memory attached to a dynamic window (origin side: a region of a target, with its key).
struct WinRegion {
  uint64_t base = 0;
  uint64_t size = 0;
  MemHandle* mem = nullptr;      // own regions only
  std::vector<std::byte> rkey;   // remote regions only
};

struct Win {
  MPI_Win handle = MPI_WIN_NULL;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate of the user's communicator
  uint32_t id = 0;                // its context id
  int rank = 0, size = 1;
  int flavor = MPI_WIN_FLAVOR_CREATE;
  void* base = nullptr;
  MPI_Aint bytes = 0;
  int disp_unit = 1;
  MemHandle* mem = nullptr;
  std::vector<WinPeer> peers;
  // MPI_Win_allocate's memory: a shared memory object of own_map_bytes, or heap memory
  // (std::free at the end) when own_map_bytes is 0. MPI_Win_allocate_shared's mapping.
  void* allocated = nullptr;
  size_t own_map_bytes = 0;
  // The members whose window memory this process can load and store (itself; the members
  // on this host of a Win_allocate or Win_allocate_shared window): their first byte here,
  // else nullptr. Put and Get to them are copies. local_maps: bytes of the mappings this
  // process made of them (unmapped at the end).
  std::vector<std::byte*> local;
  std::vector<size_t> local_maps;
  // Each member's accumulate lock where its memory is a shared object (else nullptr): an
  // origin that maps the memory applies accumulates itself, holding it, and the target
  // holds its own while it applies those that come as messages.
  std::vector<std::atomic<uint32_t>*> acc_lock;
  void* shared_map = nullptr;
  size_t shared_map_bytes = 0;
  std::vector<MPI_Aint> shared_offsets;  // each member's segment in the mapping
  // Dynamic windows: own attached regions, and the targets' regions seen in this epoch.
  std::vector<WinRegion> attached;
  std::vector<std::vector<WinRegion>> remote_regions;

  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;
  std::vector<std::pair<int, void*>> attrs;  // user attributes in the order set
  MPI_Info info = MPI_INFO_NULL;             // hints as given at creation (may be null)

  // Origin side: epochs and operations in flight.
  bool fence_epoch = false;
  bool lock_all = false;
  bool lock_all_nocheck = false;
  std::vector<LockState> locks;   // per target (passive target)
  std::vector<uint8_t> granted;   // lock grants received, per target
  bool started = false;           // Win_start..Win_complete
  std::vector<int> start_group;   // its targets (window ranks)
  std::vector<RmaOpRef> ops;
  std::unordered_map<uint32_t, RmaOpRef> by_id;  // ops with chunks awaiting ack/reply
  uint32_t next_op_id = 1;
  std::vector<int> region_replies;  // dynamic: region queries answered, per target
  std::vector<WinRegion> region_answer;

  // Target side: the lock and the general active target counters.
  int exclusive_holder = -1;
  int shared_holders = 0;
  std::deque<std::pair<int, bool>> lock_queue;  // (origin, exclusive) waiting, in order
  bool posted = false;            // Win_post..Win_wait
  std::vector<int> post_group;    // its origins
  std::vector<int> posts_from;    // Win_post messages received, per target, not yet used
  std::vector<int> completes_from;  // Win_complete messages received, per origin
};

// The lock for every window's state; recursive, since API calls nest. The protocol's
// message handler runs inside the worker's progress, which under MPI_THREAD_MULTIPLE holds
// the worker's own lock, while a thread holding this one may be waiting for the worker's:
// so the handler never waits here. When the lock is taken it queues the message, and the
// holder handles the queue before letting go (unlock).
// Below MPI_THREAD_MULTIPLE one thread at a time is in the library, and the handler runs
// inside its calls: the lock then does nothing (set_threaded(false)).
class RmaMutex {
 public:
  void lock() {
    if (threaded_) lock_threaded();
  }
  bool try_lock() { return !threaded_ || try_lock_threaded(); }
  void unlock() {
    if (threaded_) unlock_threaded();
  }
  // Only while nobody holds it (before the first window).
  void set_threaded(bool on) noexcept { threaded_ = on; }

 private:
  void lock_threaded();
  bool try_lock_threaded();
  void unlock_threaded();
  std::recursive_mutex m_;
  int depth_ = 0;  // the owner's nesting
  bool threaded_ = true;
};
RmaMutex& rma_mutex() noexcept;
using RmaLock = std::unique_lock<RmaMutex>;
// The handler's queue (active_messages.cpp): handled by the lock's holder; whether it is empty.
void rma_inbox_drain();
bool rma_inbox_empty();

// The window behind a handle, nullptr for an invalid one; the one a context id names.
Win* win_get(MPI_Win handle) noexcept;
Win* win_by_id(uint32_t id) noexcept;
// Table entries; win_install gives the window its handle (MPI_ERR_INTERN when full).
int win_install(std::unique_ptr<Win> w, MPI_Win* handle);
std::unique_ptr<Win> win_uninstall(MPI_Win handle);
// Frees every window left at MPI_Finalize (no collective, no callbacks).
void wins_clear();

// Passes an error to the window's handler (nullptr: MPI_COMM_WORLD's); returns the code.
int raise_win(Win* w, int code, const char* fn);
inline int check_win(Win* w, int code, const char* fn) {
  return code == MPI_SUCCESS ? code : raise_win(w, code, fn);
}
ErrorScope win_error_scope(const Win& w);

// The endpoint to window rank r (nullptr when it cannot be reached); its world rank, and
// whether the connection to it failed for good (waits for its answers then give up with
// MPI_ERR_PROC_ABORTED instead of waiting forever).
Endpoint* win_endpoint(const Win& w, int r);
int win_world_rank(const Win& w, int r);
bool win_peer_failed(const Win& w, int r);
// MPI error code for a failed torus transfer on a window.
int rma_error(Status s) noexcept;

// Whether target `r` is in an access epoch (MPI_ERR_RMA_SYNC if not).
bool win_can_access(const Win& w, int r) noexcept;
// Progresses until every operation to target r (-1: all targets) is complete; returns the
// first error among them. Called with rma_mutex held; releases it while progressing.
int win_flush(Win& w, int r, RmaLock& lock);
// One step of `wait`: releases the lock, progresses (or sleeps once the spin time is over),
// takes the lock back.
void win_wait_step(RmaLock& lock, PolledWait& wait);
// Progresses once with the lock released (a test, which never sleeps).
void win_progress_step(RmaLock& lock);
// Progresses until pred() holds (called with the lock held; released while progressing).
template <class Pred>
void win_wait_until(RmaLock& lock, Pred pred) {
  if (pred()) return;  // most flushes: no clock read (30-70 ns in a VM)
  PolledWait wait;
  while (!pred()) win_wait_step(lock, wait);
}

// Applying accumulates (apply.cpp). The accumulate lock: spins (yielding) until it is
// had; a null lock is no lock.
class AccLockGuard {
 public:
  explicit AccLockGuard(std::atomic<uint32_t>* lock);
  ~AccLockGuard();
  AccLockGuard(const AccLockGuard&) = delete;
  AccLockGuard& operator=(const AccLockGuard&) = delete;

 private:
  std::atomic<uint32_t>* lock_;
};
// Whether an accumulate may use op on type (predefined ops, MPI_REPLACE, MPI_NO_OP).
bool rma_op_valid(MPI_Op op, MPI_Datatype type) noexcept;
// length bytes of packed `type` elements at `at`: old bytes into `old` (when given), then
// at = data op at. CAS: data holds the compare bytes then the new ones. MPI error codes.
int rma_apply(std::byte* at, size_t length, MPI_Op op, MPI_Datatype type,
              std::span<const std::byte> data, std::byte* old);
int rma_compare_and_swap(std::byte* at, size_t length, std::span<const std::byte> data,
                         std::byte* old);

// Active messages of the RMA protocol (active_messages.cpp).
enum class RmaAm : uint8_t {
  Acc = 1,      // apply op to target bytes, then Ack
  GetAcc,       // reply Result with the old bytes, then apply op
  Cas,          // compare-and-swap one element; reply Result with the old one
  Ack,          // aux: MPI error code
  Result,       // payload: old bytes at stream offset aux2; aux: MPI error code
  LockReq,      // aux: 1 exclusive, 0 shared
  LockGrant,
  Unlock,
  Post,
  Complete,
  RegionQuery,  // dynamic window: which attached region holds [offset, offset + length)?
  RegionReply,  // offset/length: the region (length 0: none); payload: its key
};

struct RmaAmHdr {
  RmaAm kind;
  uint8_t pad[3];
  uint32_t win_id;
  int32_t origin;      // sender's rank in the window
  uint32_t op_id;      // the origin's operation that acks and replies name
  int32_t mpi_op;      // accumulates: the op and the basic type
  int32_t type;
  uint64_t offset;     // target byte offset in the window (dynamic: absolute address)
  uint64_t length;     // target bytes
  int64_t aux;
  uint64_t aux2;
};

// The active-message id the RMA protocol uses on the MPI library's worker; installs the
// handler on first use.
void rma_am_install();
// Sends a protocol message. The payload is copied for a send that cannot finish at once,
// unless `stable`: it stays untouched until the target has answered this message.
int rma_am_send(const Win& w, int r, const RmaAmHdr& h, std::span<const std::byte> payload,
                bool stable = false);
// The largest payload an accumulate chunk carries (elements never split).
size_t rma_chunk_bytes(size_t element_bytes) noexcept;
// Halves the chunk size after a transport refused one as too large; false at the floor.
bool rma_chunk_shrink() noexcept;

// Registers an op whose chunks will await answers; returns the id the answers name.
uint32_t win_track(Win& w, const RmaOpRef& op);

// Target ranges: the byte blocks [offset, offset + length) of count elements of a type
// placed at byte displacement `disp` of the target window, adjacent blocks merged.
struct RmaBlock {
  uint64_t offset;
  uint64_t length;
};

// Sends one chunk of op to its target, counted as awaiting its answer. Returns an MPI code.
int rma_send_chunk(Win& w, RmaOp& op, const RmaAmHdr& h, std::span<const std::byte> payload);
// Sends op.origin's bytes (none for MPI_NO_OP) as chunks of `kind` over the target blocks,
// each chunk naming its offset in the origin's stream (where a result lands).
int rma_send_chunks(Win& w, RmaOp& op, uint32_t id, RmaAm kind, MPI_Op mpi_op,
                    MPI_Datatype basic, const std::vector<RmaBlock>& blocks);

// count elements of a type placed at byte displacement `disp` of the target window as
// RmaBlocks, adjacent ones merged (into `out`, which is cleared first).
void target_blocks(const TypeInfo& t, size_t count, MPI_Aint disp, std::vector<RmaBlock>& out);
// Checks a target access: rank, disp, count, type, that the window is open to it and
// the bytes lie inside the target's memory; fills the blocks and their total. Returns an
// MPI error code.
int rma_target(Win& w, int rank, MPI_Aint disp, int count, MPI_Datatype type,
               std::vector<RmaBlock>* blocks, size_t* bytes);
// Where target block offsets point on the remote side and with which key (dynamic windows
// look the region up, asking the target on a miss). Returns an MPI error code.
int rma_remote(Win& w, int r, const RmaBlock& b, uint64_t* addr,
               std::span<const std::byte>* rkey, RmaLock& lock);

// A request for an RMA operation (Rput, Rget, ...): complete when the op is; one already
// complete (a target of MPI_PROC_NULL).
MPI_Request rma_request(Win& w, RmaOpRef op);
MPI_Request rma_request_done(const Win& w);

}  // namespace torus::mpi
