// MPI_Igatherv and MPI_Iscatterv (linear: the root posts every transfer in one round),
// MPI_Iallgatherv (ring: n - 1 rounds, each forwarding the block received last) and
// MPI_Ialltoallv (every pairwise exchange posted in one round), as rounds of engine.h: the
// blocking versions' algorithms (coll/algo/vector.cpp) with byte counts and offsets. The
// operation keeps its own copies of the counts and offsets.
#include <vector>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/nonblocking/engine.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"

namespace torus::mpi::icoll {
namespace {

std::byte* at(void* base, size_t offset) { return static_cast<std::byte*>(base) + offset; }
const std::byte* at(const void* base, size_t offset) {
  return static_cast<const std::byte*>(base) + offset;
}

std::vector<size_t> copy_of(const size_t* v, int n) {
  return v ? std::vector<size_t>(v, v + n) : std::vector<size_t>(size_t(n), 0);
}

// Gatherv (scatter = false) or Scatterv: the root exchanges block i with rank i; the others
// move `own_bytes` between their buffer and the root.
class Ilinearv final : public IcollOp {
 public:
  Ilinearv(Comm& c, bool scatter, const void* sbuf, void* rbuf, size_t own_bytes,
           const size_t* counts, const size_t* offsets, int root)
      : IcollOp(c, static_cast<size_t>(c.rank == root ? c.size : 1)),
        scatter_(scatter), sbuf_(sbuf), rbuf_(rbuf), own_bytes_(own_bytes), root_(root) {
    if (rank() == root) {
      counts_ = copy_of(counts, size());
      offsets_ = copy_of(offsets, size());
      if (scatter)
        for (int i = 0; i < size(); ++i)
          if (i != root) connect(c, i);
    } else if (!scatter) {
      connect(c, root);
    }
  }

 private:
  bool next_round() override {
    if (posted_) return false;
    posted_ = true;
    if (rank() != root_) {
      if (scatter_) recv(root_, 0, rbuf_, own_bytes_);
      else send(root_, 0, sbuf_, own_bytes_);
      return true;
    }
    for (int i = 0; i < size(); ++i) {
      if (i == root_) continue;
      if (scatter_) send(i, 0, at(sbuf_, offsets_[size_t(i)]), counts_[size_t(i)]);
      else recv(i, 0, at(rbuf_, offsets_[size_t(i)]), counts_[size_t(i)]);
    }
    // The root's own block, while the others travel.
    const size_t mine = counts_[size_t(root_)], off = offsets_[size_t(root_)];
    if (scatter_ && rbuf_ != MPI_IN_PLACE && mine) copy_bytes(rbuf_, at(sbuf_, off), mine);
    if (!scatter_ && sbuf_ != MPI_IN_PLACE && mine) copy_bytes(at(rbuf_, off), sbuf_, mine);
    return size() > 1;
  }

  bool scatter_;
  const void* sbuf_;
  void* rbuf_;
  size_t own_bytes_;
  int root_;
  std::vector<size_t> counts_, offsets_;
  bool posted_ = false;
};

class Iallgatherv final : public IcollOp {
 public:
  Iallgatherv(Comm& c, const void* sbuf, void* rbuf, const size_t* counts,
              const size_t* offsets)
      : IcollOp(c, 2), sbuf_(sbuf), rbuf_(rbuf), counts_(copy_of(counts, c.size)),
        offsets_(copy_of(offsets, c.size)) {
    connect(c, (rank() + 1) % size());
  }

 private:
  bool next_round() override {
    const int n = size(), r = rank();
    const size_t mine = counts_[size_t(r)];
    if (step_ == 0 && sbuf_ != MPI_IN_PLACE && mine)
      copy_bytes(at(rbuf_, offsets_[size_t(r)]), sbuf_, mine);
    if (step_ >= n - 1) return false;
    // Non-overtaking keeps the steps from one neighbour in order when the phase wraps.
    const auto sb = size_t((r - step_ + n) % n), rb = size_t((r - step_ - 1 + n) % n);
    recv((r - 1 + n) % n, step_ & 63, at(rbuf_, offsets_[rb]), counts_[rb]);
    send((r + 1) % n, step_ & 63, at(rbuf_, offsets_[sb]), counts_[sb]);
    ++step_;
    return true;
  }

  const void* sbuf_;
  void* rbuf_;
  std::vector<size_t> counts_, offsets_;
  int step_ = 0;
};

class Ialltoallv final : public IcollOp {
 public:
  Ialltoallv(Comm& c, const void* sbuf, const size_t* scounts, const size_t* soffsets,
             void* rbuf, const size_t* rcounts, const size_t* roffsets)
      : IcollOp(c, 2 * static_cast<size_t>(c.size)), sbuf_(sbuf), rbuf_(rbuf),
        scounts_(copy_of(scounts, c.size)), soffsets_(copy_of(soffsets, c.size)),
        rcounts_(copy_of(rcounts, c.size)), roffsets_(copy_of(roffsets, c.size)) {
    for (int step = 1; step < size(); ++step) connect(c, (rank() + step) % size());
  }

 private:
  bool next_round() override {
    if (posted_) return false;
    posted_ = true;
    const int n = size(), r = rank();
    // One message per ordered pair of ranks: phase 0 identifies each.
    for (int step = 1; step < n; ++step) {
      const auto dst = size_t((r + step) % n), src = size_t((r - step + n) % n);
      recv(int(src), 0, at(rbuf_, roffsets_[src]), rcounts_[src]);
      send(int(dst), 0, at(sbuf_, soffsets_[dst]), scounts_[dst]);
    }
    const auto me = size_t(r);
    if (scounts_[me]) copy_bytes(at(rbuf_, roffsets_[me]), at(sbuf_, soffsets_[me]), scounts_[me]);
    return n > 1;
  }

  const void* sbuf_;
  void* rbuf_;
  std::vector<size_t> scounts_, soffsets_, rcounts_, roffsets_;
  bool posted_ = false;
};

}  // namespace

std::unique_ptr<PendingOp> igatherv(Comm& c, const void* sbuf, size_t sbytes, void* rbuf,
                                    const size_t* rcounts, const size_t* roffsets, int root) {
  return launch<Ilinearv>(c, false, sbuf, rbuf, sbytes, rcounts, roffsets, root);
}

std::unique_ptr<PendingOp> iscatterv(Comm& c, const void* sbuf, const size_t* scounts,
                                     const size_t* soffsets, void* rbuf, size_t rbytes,
                                     int root) {
  return launch<Ilinearv>(c, true, sbuf, rbuf, rbytes, scounts, soffsets, root);
}

std::unique_ptr<PendingOp> iallgatherv(Comm& c, const void* sbuf, void* rbuf,
                                       const size_t* counts, const size_t* offsets) {
  return launch<Iallgatherv>(c, sbuf, rbuf, counts, offsets);
}

std::unique_ptr<PendingOp> ialltoallv(Comm& c, const void* sbuf, const size_t* scounts,
                                      const size_t* soffsets, void* rbuf,
                                      const size_t* rcounts, const size_t* roffsets) {
  return launch<Ialltoallv>(c, sbuf, scounts, soffsets, rbuf, rcounts, roffsets);
}

}  // namespace torus::mpi::icoll
