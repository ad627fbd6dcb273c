// How an MPI message's envelope rides in torus's 64-bit tag: {context id, source rank, tag}.
// Each communicator owns two context ids (even: user point-to-point, odd: its collectives),
// so communicators and collectives never see each other's messages, and the wildcards
// MPI_ANY_SOURCE / MPI_ANY_TAG are just tag masks that clear a field.
#pragma once

#include <cstdint>

#include "core/api/torus.hpp"

namespace torus::mpi {

//  63           48 47                 28 27                       0
// +---------------+---------------------+--------------------------+
// | context id 16 | source rank (20)    | tag (28)                 |
// +---------------+---------------------+--------------------------+
inline constexpr int kContextBits = 16;
inline constexpr int kSourceBits = 20;
inline constexpr int kTagBits = 28;
static_assert(kContextBits + kSourceBits + kTagBits == 64);

inline constexpr int kMaxRanks = 1 << kSourceBits;       // per communicator
inline constexpr int kTagUb = (1 << kTagBits) - 1;       // MPI_TAG_UB
inline constexpr uint32_t kMaxContextIds = 1u << kContextBits;

inline constexpr Tag kTagField = (Tag{1} << kTagBits) - 1;
inline constexpr Tag kSourceField = ((Tag{1} << kSourceBits) - 1) << kTagBits;
inline constexpr Tag kContextField = ~(kTagField | kSourceField);

constexpr Tag make_tag(uint32_t context_id, int source, int tag) {
  return (Tag{context_id} << (kSourceBits + kTagBits)) | (Tag(uint32_t(source)) << kTagBits) |
         (Tag(uint32_t(tag)) & kTagField);
}

// The mask that a receive with these (possibly wildcard) source and tag values uses.
constexpr Tag recv_mask(bool any_source, bool any_tag) {
  Tag m = kTagMaskFull;
  if (any_source) m &= ~kSourceField;
  if (any_tag) m &= ~kTagField;
  return m;
}

constexpr int tag_source(Tag t) { return int((t & kSourceField) >> kTagBits); }
constexpr int tag_user(Tag t) { return int(t & kTagField); }

// Collective messages carry, in the tag field, the communicator's collective sequence number
// and a phase within the collective, so that two collectives in flight on one communicator
// (or two rounds of one) can never match each other's messages.
inline constexpr int kPhaseBits = 6;
constexpr int coll_tag(uint32_t seq, int phase) {
  return int(((seq << kPhaseBits) | uint32_t(phase)) & uint32_t(kTagUb));
}

}  // namespace torus::mpi
