// Partitioned point-to-point (MPI 4.0 chapter 4): MPI_Psend_init, Precv_init, Pready,
// Pready_range, Pready_list, Parrived. The requests are persistent; each Start begins a round
// that a PendingOp tracks, and the completion calls end it. How the sides match and name
// their messages: partitioned.h.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/p2p/args.h"
#include "mpi_shim/lib/p2p/partitioned.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/slot.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

using namespace torus::mpi;
using torus::Endpoint;
using torus::kTagMaskFull;
using torus::Request;
using torus::Status;

namespace {

// What both sides keep: the user's partitions, count elements of `type` each, and a staging
// area of their packed bytes when the type is not dense.
struct Partitions {
  std::byte* buf = nullptr;
  size_t parts = 0;
  size_t count = 0;
  TypeRef type;
  size_t part_bytes = 0;  // packed bytes per partition
  bool dense = true;
  std::unique_ptr<std::byte[]> staging;

  void init(void* user, size_t n, size_t per, MPI_Datatype datatype) {
    buf = static_cast<std::byte*>(user);
    parts = n;
    count = per;
    type = type_hold(datatype);
    part_bytes = per * type->size;
    dense = type_size(datatype) != 0;
    if (!dense) staging = std::make_unique<std::byte[]>(std::max<size_t>(1, n * part_bytes));
  }
  std::byte* user_part(size_t p) const {
    return buf + static_cast<ptrdiff_t>(p * count) * (dense ? type->size : type->extent);
  }
  // Where partition p's packed bytes live while they travel.
  std::byte* wire_part(size_t p) const {
    return dense ? user_part(p) : staging.get() + p * part_bytes;
  }
  size_t total() const { return parts * part_bytes; }
};

// The persistent half keeps each round's state, since Pready and Parrived reach it through
// the handle's persistent op.
class PartitionedOp : public PersistentOp {
 public:
  virtual bool poll_round() = 0;
  virtual int finish_round(MPI_Status* status) = 0;
};

// What a Start hands the request table: Test and Wait poll the round through it.
class PartitionedRound final : public PendingOp {
 public:
  explicit PartitionedRound(PartitionedOp* owner) : owner_(owner) {}
  bool poll() override { return owner_->poll_round(); }
  int finish(MPI_Status* status) override { return owner_->finish_round(status); }

 private:
  PartitionedOp* owner_;
};

class PsendOp final : public PartitionedOp {
 public:
  PsendOp(int dest_world, const Comm& c, int tag) : dest_world_(dest_world) {
    setup_.version = kSetupVersion;
    setup_.context_id = c.context_id;
    setup_.source = c.rank;
    setup_.tag = tag;
  }
  ~PsendOp() override {
    for (Request* r : sends_)
      if (r) r->release();  // a freed active request: the sends still run to their end
    if (setup_req_) {
      (void)wait_for(setup_req_);  // setup_ must outlive its send
      setup_req_->release();
    }
  }
  Partitions& parts() { return parts_; }

  // Sends the setup; an MPI error code.
  int announce(uint32_t channel) {
    channel_ = channel;
    setup_.channel = channel;
    setup_.partitions = static_cast<uint32_t>(parts_.parts);
    setup_.bytes = parts_.total();
    sends_.assign(parts_.parts, nullptr);
    ready_.assign(parts_.parts, 0);
    if (dest_world_ < 0) return MPI_SUCCESS;
    Endpoint* ep = endpoint_to(dest_world_);
    if (!ep) return MPI_ERR_OTHER;
    Status s = ep->tag_send(&setup_, sizeof setup_,
                            partitioned_tag(runtime()->world_rank, kSetupField), &setup_req_, {});
    return is_error(s) ? error_from_status(s) : MPI_SUCCESS;
  }

  int start(Request** req) override {
    *req = nullptr;
    return MPI_ERR_INTERN;  // start_op is the only entry
  }
  int start_op(Request** req, std::unique_ptr<PendingOp>* op) override {
    *req = nullptr;
    std::fill(ready_.begin(), ready_.end(), 0);
    n_ready_ = 0;
    code_ = MPI_SUCCESS;
    *op = std::make_unique<PartitionedRound>(this);
    return MPI_SUCCESS;
  }

  int ready(size_t p) {
    if (p >= parts_.parts || ready_[p]) return MPI_ERR_ARG;
    ready_[p] = 1;
    ++n_ready_;
    if (dest_world_ < 0) return MPI_SUCCESS;
    if (!parts_.dense)
      type_pack(parts_.user_part(p), parts_.count, *parts_.type, parts_.wire_part(p));
    Endpoint* ep = endpoint_to(dest_world_);
    if (!ep) return MPI_ERR_OTHER;
    Status s = ep->tag_send(parts_.wire_part(p), parts_.part_bytes,
                            partitioned_tag(runtime()->world_rank,
                                            channel_ + static_cast<uint32_t>(p)),
                            &sends_[p], {});
    if (is_error(s)) {
      if (code_ == MPI_SUCCESS) code_ = error_from_status(s);
      return code_;
    }
    return MPI_SUCCESS;
  }

  bool poll_round() override {
    if (setup_req_ && setup_req_->completed()) {
      if (Status s = setup_req_->status(); s != Status::Ok && code_ == MPI_SUCCESS)
        code_ = error_from_status(s);
      setup_req_->release();
      setup_req_ = nullptr;
    }
    if (n_ready_ < parts_.parts) return false;
    for (Request*& r : sends_) {
      if (!r) continue;
      if (!r->completed()) return false;
      if (Status s = r->status(); s != Status::Ok && code_ == MPI_SUCCESS)
        code_ = error_from_status(s);
      r->release();
      r = nullptr;
    }
    return true;
  }
  int finish_round(MPI_Status* status) override {
    status_empty(status, code_);
    return code_;
  }

 private:
  Partitions parts_;
  int dest_world_;  // -1: MPI_PROC_NULL
  uint32_t channel_ = 0;
  PartitionSetup setup_{};
  Request* setup_req_ = nullptr;
  std::vector<Request*> sends_;
  std::vector<uint8_t> ready_;
  size_t n_ready_ = 0;
  int code_ = MPI_SUCCESS;
};

// The round state is shared with the setup's callback (progress, maybe on another thread):
// `mutex_` guards it. Lock order: the inbox's lock, then this one.
class PrecvOp final : public PartitionedOp, public SetupWaiter {
 public:
  PrecvOp(int source_world, const Comm& c, int source, int tag)
      : SetupWaiter(source_world, c.context_id, source, tag), source_world_(source_world),
        source_(source), tag_(tag) {}
  ~PrecvOp() override {
    partitioned_cancel_await(this);  // under the inbox's lock: no callback is delivering
    for (Request* r : recvs_) {
      if (!r) continue;
      // The receives target the user's memory or the staging area: none may outlive this.
      if (runtime()->worker->cancel(r) == Status::Ok || !r->completed()) (void)wait_for(r);
      r->release();
    }
  }
  Partitions& parts() { return parts_; }

  int start(Request** req) override {
    *req = nullptr;
    return MPI_ERR_INTERN;
  }
  int start_op(Request** req, std::unique_ptr<PendingOp>* op) override {
    *req = nullptr;
    bool await = false;
    {
      std::lock_guard lock(mutex_);
      arrived_.assign(parts_.parts, source_world_ < 0 ? 1 : 0);
      std::fill(got_.begin(), got_.end(), 0);
      n_got_ = 0;
      code_ = match_error_;
      if (matched_ && code_ == MPI_SUCCESS) {
        if (int e = post_all()) return e;
      }
      await = source_world_ >= 0 && !matched_ && !awaiting_;
      awaiting_ = await;
    }
    *op = std::make_unique<PartitionedRound>(this);
    // The first round: matched now or, from progress, when the sender's setup comes.
    if (await) partitioned_await_setup(this);
    return MPI_SUCCESS;
  }

  void on_setup(const PartitionSetup& m) override {
    std::lock_guard lock(mutex_);
    awaiting_ = false;
    matched_ = true;
    if (m.bytes != parts_.total() || m.partitions == 0 || m.bytes % m.partitions != 0) {
      // The standard requires both sides to describe the same bytes; every round fails.
      match_error_ = code_ = MPI_ERR_TRUNCATE;
      return;
    }
    channel_ = m.channel;
    send_bytes_ = m.bytes / m.partitions;
    recvs_.assign(m.partitions, nullptr);
    got_.assign(m.partitions, 0);
    (void)post_all();
  }
  void on_setup_failed(int code) override {
    std::lock_guard lock(mutex_);
    awaiting_ = false;
    code_ = code;
  }

  bool poll_round() override {
    std::lock_guard lock(mutex_);
    if (source_world_ < 0 || code_ != MPI_SUCCESS) return true;
    if (!matched_) return false;
    for (size_t i = 0; i < recvs_.size(); ++i) {
      Request*& r = recvs_[i];
      if (!r || !r->completed()) continue;
      const Status s = r->status();
      r->release();
      r = nullptr;
      if (s != Status::Ok) {
        code_ = error_from_status(s);
        return true;
      }
      mark_got(i);
    }
    return n_got_ == got_.size();
  }
  int finish_round(MPI_Status* status) override {
    std::lock_guard lock(mutex_);
    if (source_world_ < 0) {
      status_empty(status);
      return MPI_SUCCESS;
    }
    status_set(status, source_, tag_, code_ == MPI_SUCCESS ? parts_.total() : 0, code_);
    return code_;
  }

  bool arrived(size_t p) {
    std::lock_guard lock(mutex_);
    return arrived_[p] != 0;
  }

 private:
  // Posts this round's receive of every send partition; under mutex_.
  int post_all() {
    std::byte* base = parts_.dense ? parts_.user_part(0) : parts_.staging.get();
    for (size_t i = 0; i < recvs_.size(); ++i) {
      Status s = runtime()->worker->tag_recv(
          base + i * send_bytes_, send_bytes_,
          partitioned_tag(source_world_, channel_ + static_cast<uint32_t>(i)), kTagMaskFull,
          &recvs_[i]);
      if (is_error(s)) {
        code_ = error_from_status(s);
        return code_;
      }
      if (!recvs_[i]) mark_got(i);
    }
    return MPI_SUCCESS;
  }

  // Send partition i is in: every receive partition whose bytes are now all here has arrived
  // (and is unpacked into the user's buffer when staged).
  void mark_got(size_t i) {
    got_[i] = 1;
    ++n_got_;
    const size_t rb = parts_.part_bytes;
    if (rb == 0) {  // no bytes to map: every partition arrives with the last message
      if (n_got_ == got_.size()) std::fill(arrived_.begin(), arrived_.end(), 1);
      return;
    }
    const size_t lo = i * send_bytes_ / rb;
    const size_t hi = std::min(parts_.parts, ((i + 1) * send_bytes_ + rb - 1) / rb);
    for (size_t j = lo; j < hi; ++j) {
      if (arrived_[j]) continue;
      const size_t first = j * rb / send_bytes_, last = ((j + 1) * rb - 1) / send_bytes_;
      bool all = true;
      for (size_t k = first; k <= last && all; ++k) all = got_[k] != 0;
      if (!all) continue;
      if (!parts_.dense)
        (void)type_unpack(parts_.wire_part(j), rb, parts_.user_part(j), parts_.count,
                          *parts_.type);
      arrived_[j] = 1;
    }
  }

  std::mutex mutex_;
  Partitions parts_;
  int source_world_;  // -1: MPI_PROC_NULL
  int source_, tag_;
  bool awaiting_ = false;  // registered with the setup inbox
  bool matched_ = false;
  uint32_t channel_ = 0;
  size_t send_bytes_ = 0;          // per send partition
  std::vector<Request*> recvs_;    // per send partition
  std::vector<uint8_t> got_;       // per send partition, this round
  size_t n_got_ = 0;
  std::vector<uint8_t> arrived_;   // per receive partition, this round
  int code_ = MPI_SUCCESS;
  int match_error_ = MPI_SUCCESS;
};

int check_init(Comm* c, int partitions, MPI_Count count, MPI_Datatype datatype, int peer,
               int tag) {
  if (!c) return MPI_ERR_COMM;
  if (int e = p2p_check_typed(c, 0, datatype, peer, tag, false)) return e;
  if (partitions < 1) return MPI_ERR_ARG;
  if (count < 0) return MPI_ERR_COUNT;
  return MPI_SUCCESS;
}

// The send request behind a handle, with its slot (for errors); MPI_ERR_REQUEST when the
// handle is not an active partitioned send.
int active_send(MPI_Request request, Slot** slot, PsendOp** op) {
  Slot* s = slot_of(request);
  *slot = s;
  *op = s ? dynamic_cast<PsendOp*>(s->persistent.get()) : nullptr;
  if (!*op || !s->active || !s->op) return MPI_ERR_REQUEST;
  return MPI_SUCCESS;
}

int fail(Slot* s, int code, const char* fn) {
  return s ? request_error(s->errors, code, fn) : raise_error(nullptr, code, fn);
}

}  // namespace

extern "C" {

int PMPI_Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info /*info*/, MPI_Request* request) {
  constexpr const char* fn = "MPI_Psend_init";
  Comm* c = comm_get(comm);
  if (int e = check_init(c, partitions, count, datatype, dest, tag)) return raise_error(c, e, fn);
  const int world = dest == MPI_PROC_NULL ? -1 : c->peer_world(dest);
  auto op = std::make_unique<PsendOp>(world, *c, tag);
  op->parts().init(const_cast<void*>(buf), size_t(partitions), size_t(count), datatype);
  const uint32_t channel = partitioned_channel(static_cast<uint32_t>(partitions));
  if (channel == 0) return raise_error(c, MPI_ERR_ARG, fn);
  if (int e = op->announce(channel)) return raise_error(c, e, fn);
  *request = request_create_persistent(std::move(op), false, error_scope(*c));
  return MPI_SUCCESS;
}

int PMPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Info /*info*/,
                    MPI_Request* request) {
  constexpr const char* fn = "MPI_Precv_init";
  Comm* c = comm_get(comm);
  // No wildcards: the standard matches a partitioned pair on an exact envelope.
  if (int e = check_init(c, partitions, count, datatype, source, tag))
    return raise_error(c, e, fn);
  const int world = source == MPI_PROC_NULL ? -1 : c->peer_world(source);
  auto op = std::make_unique<PrecvOp>(world, *c, source, tag);
  op->parts().init(buf, size_t(partitions), size_t(count), datatype);
  *request = request_create_persistent(std::move(op), true, error_scope(*c));
  return MPI_SUCCESS;
}

int PMPI_Pready(int partition, MPI_Request request) {
  Slot* s;
  PsendOp* op;
  if (int e = active_send(request, &s, &op)) return fail(s, e, "MPI_Pready");
  if (partition < 0) return fail(s, MPI_ERR_ARG, "MPI_Pready");
  return request_error(s->errors, op->ready(size_t(partition)), "MPI_Pready");
}

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  Slot* s;
  PsendOp* op;
  if (int e = active_send(request, &s, &op)) return fail(s, e, "MPI_Pready_range");
  if (partition_low < 0 || partition_high < partition_low)
    return fail(s, MPI_ERR_ARG, "MPI_Pready_range");
  for (int p = partition_low; p <= partition_high; ++p)
    if (int e = op->ready(size_t(p))) return fail(s, e, "MPI_Pready_range");
  return MPI_SUCCESS;
}

int PMPI_Pready_list(int length, int array_of_partitions[], MPI_Request request) {
  Slot* s;
  PsendOp* op;
  if (int e = active_send(request, &s, &op)) return fail(s, e, "MPI_Pready_list");
  if (length < 0) return fail(s, MPI_ERR_ARG, "MPI_Pready_list");
  for (int k = 0; k < length; ++k) {
    if (array_of_partitions[k] < 0) return fail(s, MPI_ERR_ARG, "MPI_Pready_list");
    if (int e = op->ready(size_t(array_of_partitions[k]))) return fail(s, e, "MPI_Pready_list");
  }
  return MPI_SUCCESS;
}

int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  constexpr const char* fn = "MPI_Parrived";
  if (request == MPI_REQUEST_NULL) {  // the standard: a null request has arrived
    *flag = 1;
    return MPI_SUCCESS;
  }
  Slot* s = slot_of(request);
  auto* op = s ? dynamic_cast<PrecvOp*>(s->persistent.get()) : nullptr;
  if (!op) return fail(s, MPI_ERR_REQUEST, fn);
  if (partition < 0 || size_t(partition) >= op->parts().parts) return fail(s, MPI_ERR_ARG, fn);
  // An inactive request's last round is over: all its data is in the buffer.
  if (!s->active || !s->op) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (!op->arrived(size_t(partition))) {
    runtime()->worker->progress();
    (void)s->op->poll();
  }
  *flag = op->arrived(size_t(partition)) ? 1 : 0;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Psend_init)
TORUS_MPI_ALIAS(MPI_Precv_init)
TORUS_MPI_ALIAS(MPI_Pready)
TORUS_MPI_ALIAS(MPI_Pready_range)
TORUS_MPI_ALIAS(MPI_Pready_list)
TORUS_MPI_ALIAS(MPI_Parrived)

}  // extern "C"
