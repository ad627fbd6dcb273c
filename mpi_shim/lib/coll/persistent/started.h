// What the persistent collectives share (init.cpp, neighbor.cpp): the
// request whose MPI_Start begins a nonblocking collective with the arguments given at init.
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/slot.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi::persistent {

// An instance: the nonblocking collective's own request, completed through the table.
class Started final : public PendingOp {
 public:
  explicit Started(MPI_Request inner) : inner_(inner) {}
  Started(const Started&) = delete;
  Started& operator=(const Started&) = delete;
  // Destroyed without finish(): MPI_Request_free of an active instance, which waited for it
  // first. Its own request is given back then (not at exit, when the table may be gone).
  ~Started() override {
    if (inner_ == MPI_REQUEST_NULL || !runtime()) return;
    if (Slot* s = slot_of(inner_)) {
      slot_wait(s);
      (void)slot_retire(&inner_, s, MPI_STATUS_IGNORE);
    }
  }
  bool poll() override { return slot_done(slot_of(inner_)); }
  int finish(MPI_Status* status) override { return slot_retire(&inner_, slot_of(inner_), status); }

 private:
  MPI_Request inner_;
};

// The types the request holds: derived ones duplicated, predefined (and invalid, which the
// start reports) as they are.
class HeldTypes {
 public:
  HeldTypes() = default;
  HeldTypes(const HeldTypes&) = delete;
  HeldTypes& operator=(const HeldTypes&) = delete;
  ~HeldTypes() {
    if (!runtime()) return;  // the type table is gone with the library
    for (MPI_Datatype& t : dups_) (void)PMPI_Type_free(&t);
  }
  MPI_Datatype hold(MPI_Datatype t) {
    const TypeInfo* info = type_info(t);
    if (!info || info->predefined != MPI_DATATYPE_NULL) return t;
    MPI_Datatype dup = MPI_DATATYPE_NULL;
    if (PMPI_Type_dup(t, &dup) != MPI_SUCCESS) return t;
    dups_.push_back(dup);
    return dup;
  }
  std::vector<MPI_Datatype> hold(const MPI_Datatype* ts, int n) {
    std::vector<MPI_Datatype> out;
    for (int i = 0; ts && i < n; ++i) out.push_back(hold(ts[i]));
    return out;
  }

 private:
  std::vector<MPI_Datatype> dups_;
};

class PersistentColl final : public PersistentOp {
 public:
  using StartFn = std::function<int(MPI_Request*)>;
  PersistentColl(std::unique_ptr<HeldTypes> types, StartFn start)
      : types_(std::move(types)), start_(std::move(start)) {}
  int start(Request** req) override {
    std::unique_ptr<PendingOp> op;
    return start_op(req, &op);
  }
  int start_op(Request** req, std::unique_ptr<PendingOp>* op) override {
    *req = nullptr;
    MPI_Request inner = MPI_REQUEST_NULL;
    if (int e = start_(&inner)) return e;
    *op = std::make_unique<Started>(inner);
    return MPI_SUCCESS;
  }
  bool raises_own_errors() const override { return true; }

 private:
  std::unique_ptr<HeldTypes> types_;
  StartFn start_;
};

// The n entries of an array argument (none for a null pointer: the start reports it).
inline std::vector<int> copy_of(const int* a, int n) {
  return a && n > 0 ? std::vector<int>(a, a + n) : std::vector<int>{};
}
inline const int* data_or_null(const std::vector<int>& v) { return v.empty() ? nullptr : v.data(); }

// Makes the request; `make(types, comm)` builds the start function, holding its types in
// `types`.
template <typename Make>
int init(MPI_Comm comm, MPI_Request* request, const char* fn, Make&& make) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, fn);
  if (!request) return raise_error(c, MPI_ERR_ARG, fn);
  auto types = std::make_unique<HeldTypes>();
  PersistentColl::StartFn start = make(*types, *c);
  *request = request_create_persistent(
      std::make_unique<PersistentColl>(std::move(types), std::move(start)), false, error_scope(*c));
  return MPI_SUCCESS;
}

}  // namespace torus::mpi::persistent
