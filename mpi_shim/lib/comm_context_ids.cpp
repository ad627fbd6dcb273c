// Context-id allocation: each process keeps a bitmap of the id pairs it does not use; a new
// communicator takes the lowest pair free at all its members (an allreduce-BAND of the
// bitmaps, one window of ids at a time) and Comm_free returns it, so a program that creates
// and frees communicators in a loop never runs out of the 16-bit id space.
//
// Two communicators that share a process never share an id, because that process's bitmap
// took part in both agreements; communicators with no process in common may (Comm_split's
// disjoint groups do by design).
#include <array>
#include <bit>
#include <cstdint>
#include <mutex>

#include "mpi_shim/lib/coll.h"
#include "mpi_shim/lib/comm.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/tag_layout.h"

namespace torus::mpi {
namespace {

constexpr uint32_t kPairs = kMaxContextIds / 2;
constexpr size_t kWords = kPairs / 32;
// One allreduce agrees on a window of 2048 pairs: small enough to cost little more than an
// allreduce of one word, and a process rarely holds so many communicators that the first
// window has nothing free.
constexpr size_t kWindowWords = 64;
static_assert(kWords % kWindowWords == 0);
// Pairs 0 and 1 are WORLD's and SELF's; the last one carries MPI_Comm_create_group's
// agreements (comm_create.cpp).
constexpr uint32_t kGroupAgreementPair = kPairs - 1;

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
}

uint32_t context_id_group_agreement() { return 2 * kGroupAgreementPair; }

int context_id_agree(const BandAllreduce& band, bool take, uint32_t* context_id) {
  for (size_t w = 0; w < kWords; w += kWindowWords) {
    std::array<uint32_t, kWindowWords> mine, common;
    if (take) {
      std::lock_guard lock(g_ids.mutex);
      for (size_t i = 0; i < kWindowWords; ++i) {
        mine[i] = g_ids.free[w + i] & ~g_ids.offered[w + i];
        g_ids.offered[w + i] |= mine[i];
      }
    } else {
      mine.fill(~0u);
    }
    Status s = band(mine.data(), common.data(), kWindowWords);
    // Every member saw the same result, so all stop (or go on) at the same window.
    size_t hit = kWindowWords;
    if (!is_error(s))
      for (size_t i = 0; i < kWindowWords && hit == kWindowWords; ++i)
        if (common[i] != 0) hit = i;
    if (take) {
      std::lock_guard lock(g_ids.mutex);
      for (size_t i = 0; i < kWindowWords; ++i) g_ids.offered[w + i] &= ~mine[i];
      if (!is_error(s) && hit != kWindowWords)
        set_used(uint32_t((w + hit) * 32 + size_t(std::countr_zero(common[hit]))));
    }
    if (is_error(s)) return error_from_status(s);
    if (hit != kWindowWords) {
      *context_id = 2 * uint32_t((w + hit) * 32 + size_t(std::countr_zero(common[hit])));
      return MPI_SUCCESS;
    }
  }
  return MPI_ERR_INTERN;  // every pair is in use at some member
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
