// Block splitting, ordered combines and the in-flight request set of util.h.
#include "mpi_shim/lib/coll/algo/util.h"

#include "mpi_shim/lib/op/op.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi::coll {

std::vector<size_t> even_blocks(size_t count, int parts, size_t esize) {
  std::vector<size_t> off(size_t(parts) + 1);
  const size_t base = count / size_t(parts), extra = count % size_t(parts);
  for (size_t i = 0; i < size_t(parts); ++i)
    off[i + 1] = off[i] + (base + (i < extra ? 1 : 0)) * esize;
  return off;
}

void combine(MPI_Op op, MPI_Datatype type, bool commutative, const void* lower,
             const void* higher, void* out, size_t count) {
  if (commutative && out == lower && out != higher && is_user_op(op))
    op_apply(op, type, higher, lower, out, count);
  else
    op_apply(op, type, lower, higher, out, count);
}

InFlight::~InFlight() {
  for (Entry& e : reqs_) {
    if (!e.req) continue;
    // A receive nobody will match (the peer failed or returned early) would never
    // complete; one that matched already completes normally.
    if (e.is_recv) (void)runtime()->worker->cancel(e.req);
    (void)wait_for(e.req);
    e.req->release();
  }
}

Status InFlight::send(int peer, int phase, const void* buf, size_t len, size_t* index) {
  Request* req = nullptr;
  Status s = cc_.post_send(peer, phase, buf, len, &req);
  if (index) *index = reqs_.size();
  reqs_.push_back({req, false});
  return s;
}

Status InFlight::recv(int peer, int phase, void* buf, size_t len, size_t* index) {
  Request* req = nullptr;
  Status s = cc_.post_recv(peer, phase, buf, len, &req);
  if (index) *index = reqs_.size();
  reqs_.push_back({req, true});
  return s;
}

Status InFlight::wait(size_t index) {
  Request*& req = reqs_[index].req;
  if (!req) return Status::Ok;
  Status s = wait_for(req);
  req->release();
  req = nullptr;
  return s;
}

Status InFlight::wait_all() {
  Status first = Status::Ok;
  for (size_t i = 0; i < reqs_.size(); ++i) {
    Status s = wait(i);
    if (is_error(s) && !is_error(first)) first = s;
  }
  reqs_.clear();
  return first;
}

}  // namespace torus::mpi::coll
