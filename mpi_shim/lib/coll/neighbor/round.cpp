// The neighborhood collectives' one round (coll/nonblocking/icoll.h): receives first, so blocks
// rarely wait in the unexpected queue, then the sends. Several edges to one process are told apart
// by the order both ends post them in (and on a grid by the direction's phase,
// comm/topo/neighbors.h).
#include <algorithm>
#include <vector>

#include "mpi_shim/lib/coll/nonblocking/engine.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"

namespace torus::mpi::icoll {
namespace {

struct Block {
  int peer;
  int phase;
  size_t bytes;
  size_t offset;
};

class Ineighbor final : public IcollOp {
 public:
  Ineighbor(Comm& c, const NeighborPlan& plan, const void* sbuf, const size_t* scounts,
            const size_t* soffsets, void* rbuf, const size_t* rcounts, const size_t* roffsets)
      : IcollOp(c, std::max<size_t>(1, plan.sources.size() + plan.destinations.size())),
        sbuf_(static_cast<const std::byte*>(sbuf)),
        rbuf_(static_cast<std::byte*>(rbuf)) {
    for (size_t i = 0; i < plan.sources.size(); ++i)
      if (plan.sources[i] != MPI_PROC_NULL && rcounts[i])
        recvs_.push_back({plan.sources[i], plan.source_phases[i], rcounts[i], roffsets[i]});
    for (size_t j = 0; j < plan.destinations.size(); ++j)
      if (plan.destinations[j] != MPI_PROC_NULL && scounts[j]) {
        sends_.push_back(
            {plan.destinations[j], plan.destination_phases[j], scounts[j], soffsets[j]});
        connect(c, plan.destinations[j]);
      }
  }

 private:
  bool next_round() override {
    if (posted_) return false;
    posted_ = true;
    for (const Block& b : recvs_) recv(b.peer, b.phase, rbuf_ + b.offset, b.bytes);
    for (const Block& b : sends_) send(b.peer, b.phase, sbuf_ + b.offset, b.bytes);
    return true;
  }

  const std::byte* sbuf_;
  std::byte* rbuf_;
  std::vector<Block> recvs_, sends_;
  bool posted_ = false;
};

}  // namespace

std::unique_ptr<PendingOp> ineighbor(Comm& c, const NeighborPlan& plan, const void* sbuf,
                                     const size_t* scounts, const size_t* soffsets, void* rbuf,
                                     const size_t* rcounts, const size_t* roffsets) {
  return launch<Ineighbor>(c, plan, sbuf, scounts, soffsets, rbuf, rcounts, roffsets);
}

}  // namespace torus::mpi::icoll
