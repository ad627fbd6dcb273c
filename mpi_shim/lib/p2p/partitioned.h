// Partitioned point-to-point (MPI_Psend_init, MPI_Precv_init): how the two sides of a pair
// find each other and name their messages.
//
// Each partitioned send request owns a channel: a run of tag values, one per send partition,
// drawn from a per-process counter. Its messages travel on a context id no communicator uses
// (reserved for them, comm/context_ids.cpp), with the sender's world rank in the source
// field and channel + partition in the tag field, so they can never match a user's receive
// (wildcards included) or a collective.
//
// Psend_init sends one setup message to the destination naming the communicator's context
// id, the sender's rank and tag there, the channel and the sender's partitioning. The
// receiver's first Start looks for the first setup from that source whose envelope matches
// its own (setups arrive in the order of the sender's init calls, the standard's matching
// order); the pair then stays matched for every later Start. The receiver posts one receive
// per send partition into the byte range that partition covers, so the two sides may cut the
// same bytes into different partition counts; a receive partition has arrived once every
// send partition overlapping its bytes has.
#pragma once

#include <cstdint>

#include "core/api/torus.hpp"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/p2p/tag_layout.h"

namespace torus::mpi {

inline uint32_t partitioned_context() { return context_id_partitioned(); }

// The tag field of setup messages; data messages use channel values >= 1.
inline constexpr uint32_t kSetupField = 0;

inline Tag partitioned_tag(int sender_world, uint32_t field) {
  return make_tag(partitioned_context(), sender_world, static_cast<int>(field));
}

// Sender to receiver, once per partitioned send request.
struct PartitionSetup {
  uint8_t version;
  uint8_t pad[3];
  uint32_t context_id;  // the communicator's point-to-point context id
  int32_t source;       // the sender's rank in it (as the receiver names its source)
  int32_t tag;
  uint32_t channel;     // data message of send partition i: tag field channel + i
  uint32_t partitions;
  uint64_t bytes;       // packed bytes of all partitions together
};
static_assert(sizeof(PartitionSetup) == 32);
inline constexpr uint8_t kSetupVersion = 1;

// `partitions` consecutive tag field values for a new send request; 0 when the tag field
// cannot hold that many.
uint32_t partitioned_channel(uint32_t partitions);

// The receiving side of a pair, waiting for its sender's setup. A setup arrives during any
// progress of the worker (a completion callback), so a rank blocked in another call still
// matches its partitioned receives and posts their data receives: its sender's Wait, which
// needs them for large partitions, cannot hang on it.
class SetupWaiter {
 public:
  SetupWaiter(int sender_world, uint32_t context_id, int source, int tag)
      : sender_world_(sender_world), context_id_(context_id), source_(source), tag_(tag) {}
  virtual ~SetupWaiter() = default;
  // The matching setup, called once: at once from partitioned_await_setup, or later from
  // progress (any thread), with the inbox's lock held.
  virtual void on_setup(const PartitionSetup& setup) = 0;
  // Receiving setups from the sender failed (an MPI error code); also called once at most.
  virtual void on_setup_failed(int code) = 0;

  bool matches(int sender_world, const PartitionSetup& m) const {
    return sender_world == sender_world_ && m.context_id == context_id_ && m.source == source_ &&
           m.tag == tag_;
  }
  int sender_world() const { return sender_world_; }

 private:
  int sender_world_;
  uint32_t context_id_;
  int source_, tag_;
};

// Gives `w` the first unclaimed setup that matches it, or queues it behind earlier waiters
// for the same sender (the standard's matching order) until one arrives.
void partitioned_await_setup(SetupWaiter* w);
// A waiter going away before its setup came (its request was freed).
void partitioned_cancel_await(SetupWaiter* w);

}  // namespace torus::mpi
