// MPI_Igather and MPI_Iscatter (the linear Igatherv/Iscatterv with equal blocks),
// MPI_Iallgather (ring: n - 1 rounds, each forwarding the block received last) and
// MPI_Ialltoall (every pairwise exchange posted in one round, in the pairwise order: in a
// nonblocking call nothing is gained by waiting between the steps), as rounds of engine.h.
#include <cstring>
#include <vector>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/nonblocking/engine.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"

namespace torus::mpi::icoll {
namespace {

std::byte* block_at(void* base, size_t block, int i) {
  return static_cast<std::byte*>(base) + block * static_cast<size_t>(i);
}
const std::byte* block_at(const void* base, size_t block, int i) {
  return static_cast<const std::byte*>(base) + block * static_cast<size_t>(i);
}

// Igather/Iscatter are Igatherv/Iscatterv (vector.cpp) with every block the same: the
// counts and offsets those copy are built at the root only, where they are read.
struct UniformBlocks {
  std::vector<size_t> counts, offsets;
  UniformBlocks(const Comm& c, size_t block, int root) {
    if (c.rank != root) return;
    counts.assign(static_cast<size_t>(c.size), block);
    offsets.resize(counts.size());
    for (size_t i = 0; i < offsets.size(); ++i) offsets[i] = i * block;
  }
};

class Iallgather final : public IcollOp {
 public:
  Iallgather(Comm& c, const void* sbuf, void* rbuf, size_t block)
      : IcollOp(c, 2), sbuf_(sbuf), rbuf_(rbuf), block_(block) {
    connect(c, (rank() + 1) % size());
  }

 private:
  bool next_round() override {
    const int n = size(), r = rank();
    if (step_ == 0 && sbuf_ != MPI_IN_PLACE && block_)
      copy_bytes(block_at(rbuf_, block_, r), sbuf_, block_);
    if (step_ >= n - 1) return false;
    // Non-overtaking keeps the steps from one neighbour in order when the phase wraps.
    const int send_block = (r - step_ + n) % n, recv_block = (r - step_ - 1 + n) % n;
    recv((r - 1 + n) % n, step_ & 63, block_at(rbuf_, block_, recv_block), block_);
    send((r + 1) % n, step_ & 63, block_at(rbuf_, block_, send_block), block_);
    ++step_;
    return true;
  }

  const void* sbuf_;
  void* rbuf_;
  size_t block_;
  int step_ = 0;
};

class Ialltoall final : public IcollOp {
 public:
  Ialltoall(Comm& c, const void* sbuf, void* rbuf, size_t block)
      : IcollOp(c, 2 * static_cast<size_t>(c.size)), sbuf_(sbuf), rbuf_(rbuf), block_(block) {
    if (sbuf == MPI_IN_PLACE) {  // the send blocks are the receive buffer's old contents
      copy_.assign(block_at(rbuf, block, 0), block_at(rbuf, block, size()));
      sbuf_ = copy_.data();
    }
    for (int step = 1; step < size(); ++step) connect(c, (rank() + step) % size());
  }

 private:
  bool next_round() override {
    if (posted_) return false;
    posted_ = true;
    const int n = size(), r = rank();
    // One message per ordered pair of ranks: phase 0 identifies each.
    for (int step = 1; step < n; ++step) {
      const int dst = (r + step) % n, src = (r - step + n) % n;
      recv(src, 0, block_at(rbuf_, block_, src), block_);
      send(dst, 0, block_at(sbuf_, block_, dst), block_);
    }
    if (block_) copy_bytes(block_at(rbuf_, block_, r), block_at(sbuf_, block_, r), block_);
    return n > 1;
  }

  const void* sbuf_;
  void* rbuf_;
  size_t block_;
  std::vector<std::byte> copy_;
  bool posted_ = false;
};

}  // namespace

std::unique_ptr<PendingOp> igather(Comm& c, const void* sbuf, void* rbuf, size_t block,
                                   int root) {
  const UniformBlocks b(c, block, root);
  return igatherv(c, sbuf, block, rbuf, b.counts.data(), b.offsets.data(), root);
}

std::unique_ptr<PendingOp> iscatter(Comm& c, const void* sbuf, void* rbuf, size_t block,
                                    int root) {
  const UniformBlocks b(c, block, root);
  return iscatterv(c, sbuf, b.counts.data(), b.offsets.data(), rbuf, block, root);
}

std::unique_ptr<PendingOp> iallgather(Comm& c, const void* sbuf, void* rbuf, size_t block) {
  return launch<Iallgather>(c, sbuf, rbuf, block);
}

std::unique_ptr<PendingOp> ialltoall(Comm& c, const void* sbuf, void* rbuf, size_t block) {
  return launch<Ialltoall>(c, sbuf, rbuf, block);
}

}  // namespace torus::mpi::icoll
