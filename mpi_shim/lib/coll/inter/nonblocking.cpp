// Nonblocking intercommunicator collectives (nonblocking.h). Each call is planned whole when
// it starts, as rounds of transfers (and of combines done before a round's transfers), then
// run by the engine of coll/nonblocking/engine.h; the plan owns the scratch its combines need.
// Transfers of one stage share a phase, so a process's rounds need not line up with its peers'.
#include "mpi_shim/lib/coll/inter/nonblocking.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "core/base/copy.h"
#include "mpi_shim/lib/coll/nonblocking/engine.h"
#include "mpi_shim/lib/coll/nonblocking/icoll.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi::icoll {
namespace {

enum Phase { kUp = 0, kAcross = 1, kDown = 2 };

struct Xfer {
  bool send = false;
  bool remote = false;
  int peer = 0;
  int phase = 0;
  const void* sbuf = nullptr;
  void* rbuf = nullptr;
  size_t len = 0;
};

struct Combine {  // inout = in (op) inout: `in` holds the lower ranks' part
  const void* in;
  void* inout;
};

struct Copy {
  const void* from;
  void* to;
  size_t len;
};

struct Round {
  std::vector<Combine> combines;
  std::vector<Copy> copies;  // after the combines
  std::vector<Xfer> xfers;
};

struct Plan {
  std::vector<Round> rounds;
  std::vector<std::unique_ptr<std::byte[]>> buffers;  // stable addresses, moved with the plan
  MPI_Op op = MPI_OP_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  const TypeInfo* layout = nullptr;
  size_t count = 0;

  std::byte* scratch(size_t bytes) {
    buffers.push_back(std::make_unique<std::byte[]>(std::max<size_t>(bytes, 1)));
    return buffers.back().get();
  }
  // Appends a round; returns its index (a reference would not survive the next one).
  size_t round() {
    rounds.emplace_back();
    return rounds.size() - 1;
  }
  void send(size_t r, bool remote, int peer, int phase, const void* buf, size_t len) {
    rounds[r].xfers.push_back({true, remote, peer, phase, buf, nullptr, len});
  }
  void recv(size_t r, bool remote, int peer, int phase, void* buf, size_t len) {
    rounds[r].xfers.push_back({false, remote, peer, phase, nullptr, buf, len});
  }
  size_t widest() const {
    size_t w = 0;
    for (const Round& r : rounds) w = std::max(w, r.xfers.size());
    return w;
  }
};

class ScheduleOp final : public IcollOp {
 public:
  ScheduleOp(Comm& c, Plan plan)
      : IcollOp(c, plan.widest(), Inter{}), plan_(std::move(plan)) {
    for (const Round& r : plan_.rounds)
      for (const Xfer& x : r.xfers)
        if (x.send && x.remote) connect_remote(c, x.peer);
        else if (x.send) connect(c, x.peer);
  }

 private:
  bool next_round() override {
    if (next_ == plan_.rounds.size()) return false;
    const Round& r = plan_.rounds[next_++];
    for (const Combine& k : r.combines)
      op_apply(plan_.op, plan_.type, k.in, k.inout, k.inout, plan_.count, plan_.layout);
    for (const Copy& k : r.copies) copy_bytes(k.to, k.from, k.len);
    for (const Xfer& x : r.xfers) {
      if (x.send && x.remote) send_remote(x.peer, x.phase, x.sbuf, x.len);
      else if (x.send) send(x.peer, x.phase, x.sbuf, x.len);
      else if (x.remote) recv_remote(x.peer, x.phase, x.rbuf, x.len);
      else recv(x.peer, x.phase, x.rbuf, x.len);
    }
    return true;
  }

  Plan plan_;
  size_t next_ = 0;
};

// The group's `bytes` reduced up the tree in rank order (plan.op, when `combine`); returns
// where the leader's result will be (nullptr at the others).
const void* reduce_up(Plan& p, const Comm& c, const void* sbuf, size_t bytes, bool combine) {
  int parent;  // the tree is rooted at the leader; children nearest first (rank order)
  std::vector<int> children = binomial_children(c.rank, c.size, &parent);
  std::reverse(children.begin(), children.end());
  const void* acc = sbuf;
  if (children.empty()) {
    if (parent >= 0) p.send(p.round(), false, parent, kUp, acc, bytes);
    return parent < 0 ? acc : nullptr;
  }
  // Every child's part received at once, then combined in rank order and passed on.
  const size_t in = p.round();
  const size_t out = p.round();
  for (int child : children) {
    std::byte* buf = p.scratch(bytes);
    p.recv(in, false, child, kUp, buf, bytes);
    if (combine) {
      p.rounds[out].combines.push_back({acc, buf});
      acc = buf;
    }
  }
  if (parent >= 0) p.send(out, false, parent, kUp, acc, bytes);
  return parent < 0 ? acc : nullptr;
}

// The leader's `buf` to the whole group, down the tree.
void bcast_down(Plan& p, const Comm& c, void* buf, size_t bytes) {
  int parent;
  const std::vector<int> children = binomial_children(c.rank, c.size, &parent);
  if (parent >= 0) p.recv(p.round(), false, parent, kDown, buf, bytes);
  if (children.empty()) return;
  const size_t out = p.round();
  for (int child : children) p.send(out, false, child, kDown, buf, bytes);  // farthest first
}

Plan reduction_plan(MPI_Datatype type, const TypeInfo* layout, MPI_Op op, size_t count) {
  Plan p;
  p.op = op;
  p.type = type;
  p.layout = layout;
  p.count = count;
  return p;
}

std::byte* at(void* base, size_t offset) { return static_cast<std::byte*>(base) + offset; }
const std::byte* at(const void* base, size_t offset) {
  return static_cast<const std::byte*>(base) + offset;
}

}  // namespace

std::unique_ptr<PendingOp> inter_ibarrier(Comm& c) {
  // Nobody leaves before the other group's leader knows its whole group has entered.
  Plan p;
  (void)reduce_up(p, c, nullptr, 0, false);
  if (c.rank == 0) {
    const size_t r = p.round();
    p.send(r, true, 0, kAcross, nullptr, 0);
    p.recv(r, true, 0, kAcross, nullptr, 0);
  }
  bcast_down(p, c, nullptr, 0);
  return launch<ScheduleOp>(c, std::move(p));
}

std::unique_ptr<PendingOp> inter_ibcast(Comm& c, void* buf, size_t bytes, int root) {
  Plan p;
  if (root == MPI_ROOT) {
    p.send(p.round(), true, 0, kAcross, buf, bytes);
  } else if (root != MPI_PROC_NULL) {
    if (c.rank == 0) p.recv(p.round(), true, root, kAcross, buf, bytes);
    bcast_down(p, c, buf, bytes);
  }
  return launch<ScheduleOp>(c, std::move(p));
}

std::unique_ptr<PendingOp> inter_ireduce(Comm& c, const void* sbuf, void* rbuf, size_t count,
                                         MPI_Datatype type, const TypeInfo* layout, MPI_Op op,
                                         int root) {
  const size_t bytes = reduction_bytes(count, type, layout);
  Plan p = reduction_plan(type, layout, op, count);
  if (root == MPI_ROOT) {
    p.recv(p.round(), true, 0, kAcross, rbuf, bytes);
  } else if (root != MPI_PROC_NULL) {
    const void* mine = reduce_up(p, c, sbuf, bytes, true);
    if (c.rank == 0) p.send(p.round(), true, root, kAcross, mine, bytes);
  }
  return launch<ScheduleOp>(c, std::move(p));
}

std::unique_ptr<PendingOp> inter_iallreduce(Comm& c, const void* sbuf, void* rbuf,
                                            size_t count, MPI_Datatype type,
                                            const TypeInfo* layout, MPI_Op op) {
  const size_t bytes = reduction_bytes(count, type, layout);
  Plan p = reduction_plan(type, layout, op, count);
  const void* mine = reduce_up(p, c, sbuf, bytes, true);
  if (c.rank == 0) {
    const size_t r = p.round();
    p.send(r, true, 0, kAcross, mine, bytes);
    p.recv(r, true, 0, kAcross, rbuf, bytes);
  }
  bcast_down(p, c, rbuf, bytes);
  return launch<ScheduleOp>(c, std::move(p));
}

std::unique_ptr<PendingOp> inter_igatherv(Comm& c, const void* sbuf, size_t sbytes, void* rbuf,
                                          const size_t* rcounts, const size_t* roffsets,
                                          int root) {
  Plan p;
  if (root == MPI_ROOT) {
    const size_t r = p.round();
    for (int i = 0; i < c.remote_size(); ++i)
      p.recv(r, true, i, kAcross, at(rbuf, roffsets[i]), rcounts[i]);
  } else if (root != MPI_PROC_NULL) {
    p.send(p.round(), true, root, kAcross, sbuf, sbytes);
  }
  return launch<ScheduleOp>(c, std::move(p));
}

std::unique_ptr<PendingOp> inter_iscatterv(Comm& c, const void* sbuf, const size_t* scounts,
                                           const size_t* soffsets, void* rbuf, size_t rbytes,
                                           int root) {
  Plan p;
  if (root == MPI_ROOT) {
    const size_t r = p.round();
    for (int i = 0; i < c.remote_size(); ++i)
      p.send(r, true, i, kAcross, at(sbuf, soffsets[i]), scounts[i]);
  } else if (root != MPI_PROC_NULL) {
    p.recv(p.round(), true, root, kAcross, rbuf, rbytes);
  }
  return launch<ScheduleOp>(c, std::move(p));
}

std::unique_ptr<PendingOp> inter_ialltoallv(Comm& c, const void* sbuf, const size_t* scounts,
                                            const size_t* soffsets, void* rbuf,
                                            const size_t* rcounts, const size_t* roffsets) {
  Plan p;
  const size_t r = p.round();
  const int n = c.remote_size();
  for (int i = 0; i < n; ++i) p.recv(r, true, i, kAcross, at(rbuf, roffsets[i]), rcounts[i]);
  // Each process starts at a different remote peer, so none gets every first message.
  for (int k = 0; k < n; ++k) {
    const int i = (c.rank + k) % n;
    p.send(r, true, i, kAcross, at(sbuf, soffsets[i]), scounts[i]);
  }
  return launch<ScheduleOp>(c, std::move(p));
}

std::unique_ptr<PendingOp> inter_ireduce_scatter(Comm& c, const void* sbuf, void* rbuf,
                                                 const size_t* counts, MPI_Datatype type,
                                                 const TypeInfo* layout, MPI_Op op) {
  const size_t n = static_cast<size_t>(c.size);
  std::vector<size_t> sizes(n), offsets(n);
  size_t elements = 0;
  for (size_t i = 0; i < n; ++i) {
    elements += counts[i];
    sizes[i] = reduction_bytes(counts[i], type, layout);
  }
  std::exclusive_scan(sizes.begin(), sizes.end(), offsets.begin(), size_t{0});
  const size_t total = offsets[n - 1] + sizes[n - 1];
  // The group's reduction meets at the leader, which swaps it for the other group's and
  // hands each member its part.
  Plan p = reduction_plan(type, layout, op, elements);
  const void* mine = reduce_up(p, c, sbuf, total, true);
  if (c.rank == 0) {
    std::byte* theirs = p.scratch(total);
    const size_t across = p.round();
    p.send(across, true, 0, kAcross, mine, total);
    p.recv(across, true, 0, kAcross, theirs, total);
    const size_t out = p.round();
    p.rounds[out].copies.push_back({theirs, rbuf, sizes[0]});
    for (size_t i = 1; i < n; ++i)
      p.send(out, false, int(i), kDown, theirs + offsets[i], sizes[i]);
  } else {
    p.recv(p.round(), false, 0, kDown, rbuf, sizes[size_t(c.rank)]);
  }
  return launch<ScheduleOp>(c, std::move(p));
}

}  // namespace torus::mpi::icoll
