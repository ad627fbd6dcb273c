// Context-id allocation: each process keeps a bitmap of the id pairs it does not use; a new
// communicator takes the lowest pair free at all its members (an allreduce-BAND of the
// bitmaps, one window of ids at a time) and Comm_free returns it, so a program that creates
// and frees communicators in a loop never runs out of the 16-bit id space.
//
// Two communicators that share a process never share an id, because that process's bitmap
// took part in both agreements; communicators with no process in common may (Comm_split's
// disjoint groups do by design).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <mutex>

#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/runtime/errors.h"

namespace torus::mpi {
namespace {

constexpr uint32_t kPairs = kMaxContextIds / 2;
constexpr size_t kWords = kPairs / 32;
static_assert(kWords == kContextWindows * kContextWindowWords);
// Pairs 0 and 1 are WORLD's and SELF's; the last one carries MPI_Comm_create_group's
// agreements (create.cpp), the one before it those of communicators made from groups
// alone (from_group.cpp), the one before that partitioned point-to-point's messages
// (p2p/partitioned.h).
constexpr uint32_t kGroupAgreementPair = kPairs - 1;
constexpr uint32_t kSessionAgreementPair = kPairs - 2;
constexpr uint32_t kPartitionedPair = kPairs - 3;

struct ContextIds {
  std::mutex mutex;
  std::array<uint32_t, kWords> free{};  // bit set: this process does not use the pair
  // Bits offered by agreements in flight on other threads of this process. They are not
  // offered again until that agreement ends, so two concurrent agreements cannot both take
  // one pair; one of them moves on to the next window instead.
  std::array<uint32_t, kWords> offered{};
};
ContextIds g_ids;

void set_used(uint32_t pair) { g_ids.free[pair / 32] &= ~(1u << (pair % 32)); }

}  // namespace

void context_ids_reset() {
  std::lock_guard lock(g_ids.mutex);
  g_ids.free.fill(~0u);
  g_ids.offered.fill(0);
  set_used(0);
  set_used(1);
  set_used(kGroupAgreementPair);
  set_used(kSessionAgreementPair);
  set_used(kPartitionedPair);
}

uint32_t context_id_group_agreement() { return 2 * kGroupAgreementPair; }
uint32_t context_id_session_agreement() { return 2 * kSessionAgreementPair; }
uint32_t context_id_partitioned() { return 2 * kPartitionedPair; }

void context_window_offer(size_t window, bool take, uint32_t* mine) {
  if (!take) {
    std::fill(mine, mine + kContextWindowWords, ~0u);
    return;
  }
  const size_t w = window * kContextWindowWords;
  std::lock_guard lock(g_ids.mutex);
  for (size_t i = 0; i < kContextWindowWords; ++i) {
    mine[i] = g_ids.free[w + i] & ~g_ids.offered[w + i];
    g_ids.offered[w + i] |= mine[i];
  }
}

int context_window_conclude(size_t window, bool take, const uint32_t* mine,
                            const uint32_t* common, int band_error, uint32_t* context_id) {
  const size_t w = window * kContextWindowWords;
  // Every member saw the same result, so all stop (or go on) at the same window.
  size_t hit = kContextWindowWords;
  if (band_error == MPI_SUCCESS)
    for (size_t i = 0; i < kContextWindowWords && hit == kContextWindowWords; ++i)
      if (common[i] != 0) hit = i;
  const uint32_t pair = hit == kContextWindowWords
                            ? 0
                            : uint32_t((w + hit) * 32 + size_t(std::countr_zero(common[hit])));
  if (take) {
    std::lock_guard lock(g_ids.mutex);
    for (size_t i = 0; i < kContextWindowWords; ++i) g_ids.offered[w + i] &= ~mine[i];
    if (band_error == MPI_SUCCESS && hit != kContextWindowWords) set_used(pair);
  }
  if (band_error != MPI_SUCCESS) return band_error;
  if (hit != kContextWindowWords) {
    *context_id = 2 * pair;
    return MPI_SUCCESS;
  }
  // Every pair of the window is in use at some member.
  return window + 1 < kContextWindows ? kContextNextWindow : MPI_ERR_INTERN;
}

int context_id_agree(const BandAllreduce& band, bool take, uint32_t* context_id) {
  for (size_t window = 0;; ++window) {
    std::array<uint32_t, kContextWindowWords> mine, common;
    context_window_offer(window, take, mine.data());
    Status s = band(mine.data(), common.data(), kContextWindowWords);
    int e = context_window_conclude(window, take, mine.data(), common.data(),
                                    error_from_status(s), context_id);
    if (e != kContextNextWindow) return e;
  }
}

int context_id_agree(Comm& over, bool take, uint32_t* context_id) {
  return context_id_agree(
      [&over](const uint32_t* mine, uint32_t* common, size_t words) {
        return coll::allreduce(over, mine, common, words, MPI_UNSIGNED, MPI_BAND);
      },
      take, context_id);
}

void context_id_release(uint32_t context_id) {
  const uint32_t pair = context_id / 2;
  if (pair <= 1 || pair >= kGroupAgreementPair) return;  // never handed out
  std::lock_guard lock(g_ids.mutex);
  g_ids.free[pair / 32] |= 1u << (pair % 32);
}

int comm_agree_context(Comm& parent, uint32_t* context_id) {
  return context_id_agree(parent, true, context_id);
}

}  // namespace torus::mpi
