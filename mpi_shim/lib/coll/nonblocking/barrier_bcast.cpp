// MPI_Ibarrier (dissemination: round k tells rank r + 2^k we arrived and hears from r - 2^k)
// and MPI_Ibcast (binomial tree: one round receiving from the parent, one sending to every
// child at once), as rounds of engine.h.
#include <vector>

#include "mpi_shim/lib/coll/nonblocking/engine.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"

namespace torus::mpi::icoll {
namespace {

class Ibarrier final : public IcollOp {
 public:
  explicit Ibarrier(Comm& c) : IcollOp(c, 2) {
    for (int dist = 1; dist < size(); dist <<= 1) connect(c, (rank() + dist) % size());
  }

 private:
  bool next_round() override {
    if (dist_ >= size()) return false;
    recv((rank() - dist_ + size()) % size(), phase_, nullptr, 0);
    send((rank() + dist_) % size(), phase_, nullptr, 0);
    dist_ <<= 1;
    ++phase_;
    return true;
  }

  int dist_ = 1;
  int phase_ = 0;
};

class Ibcast final : public IcollOp {
 public:
  Ibcast(Comm& c, void* buf, size_t bytes, int root, std::vector<int> children, int parent)
      : IcollOp(c, children.size() + 1),
        buf_(buf),
        bytes_(bytes),
        parent_(parent),
        children_(std::move(children)) {
    for (int& child : children_) {
      child = (child + root) % size();
      connect(c, child);
    }
    if (parent_ >= 0) parent_ = (parent_ + root) % size();
  }

 private:
  bool next_round() override {
    if (step_ == 0) {
      step_ = 1;
      if (parent_ >= 0) {
        recv(parent_, 0, buf_, bytes_);
        return true;
      }
    }
    if (step_ == 1) {
      step_ = 2;
      for (int child : children_) send(child, 0, buf_, bytes_);
      return !children_.empty();
    }
    return false;
  }

  void* buf_;
  size_t bytes_;
  int parent_;
  std::vector<int> children_;
  int step_ = 0;
};

}  // namespace

// The children of `vr` (rank relative to the root) in the binomial tree, farthest subtree
// first so that it starts early; *parent: its parent relative rank, or -1 for the root.
std::vector<int> binomial_children(int vr, int n, int* parent) {
  int mask = 1;
  *parent = -1;
  for (; mask < n; mask <<= 1) {
    if (vr & mask) {
      *parent = vr - mask;
      break;
    }
  }
  std::vector<int> children;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < n) children.push_back(vr + mask);
  return children;
}

std::unique_ptr<PendingOp> ibarrier(Comm& c) { return launch<Ibarrier>(c); }

std::unique_ptr<PendingOp> ibcast(Comm& c, void* buf, size_t bytes, int root) {
  int parent;
  std::vector<int> children = binomial_children((c.rank - root + c.size) % c.size, c.size,
                                                &parent);
  return launch<Ibcast>(c, buf, bytes, root, std::move(children), parent);
}

}  // namespace torus::mpi::icoll
