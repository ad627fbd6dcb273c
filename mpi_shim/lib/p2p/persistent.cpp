// Persistent requests: MPI_Send_init, Ssend_init, Rsend_init, Bsend_init, Recv_init, Start,
// Startall, for any committed datatype. The arguments are checked once, at init; each Start
// posts the operation again through the same paths as Isend/Irecv/Ibsend.
#include <memory>
#include <utility>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/p2p/args.h"
#include "mpi_shim/lib/p2p/bsend.h"
#include "mpi_shim/lib/p2p/transfer.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/slot.h"
#include "mpi_shim/lib/request/staged.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;
using torus::Request;
using torus::Status;

namespace {

enum class Mode { Standard, Sync, Buffered };

// The communicator is looked up again at each Start (by handle), so a request outliving its
// communicator fails with MPI_ERR_COMM instead of touching freed memory. The datatype is held
// (TypeRef), so MPI_Type_free while the request exists is safe; a non-dense one is packed (or
// unpacked) anew by each instance, a dense one moves from the user's memory.
class SendOp final : public PersistentOp {
 public:
  SendOp(const void* buf, int count, TypeRef type, int dest, int tag, MPI_Comm comm, Mode mode)
      : buf_(buf), count_(size_t(count)), type_(std::move(type)), dest_(dest), tag_(tag),
        comm_(comm), mode_(mode) {}
  int start(Request** req) override {
    std::unique_ptr<PendingOp> op;
    return start_op(req, &op);  // never sets op for dense types, the only ones start() meets
  }
  int start_op(Request** req, std::unique_ptr<PendingOp>* op) override {
    *req = nullptr;
    op->reset();
    Comm* c = comm_get(comm_);
    if (!c) return MPI_ERR_COMM;
    if (dest_ == MPI_PROC_NULL) return MPI_SUCCESS;
    if (mode_ == Mode::Buffered) return bsend_post(*c, buf_, count_, *type_, dest_, tag_);
    SendView v;
    if (int e = v.init_typed(buf_, count_, *type_)) return e;
    Status s = post_send(*c, c->context_id, v.data(), v.bytes(), dest_, tag_,
                         mode_ == Mode::Sync, req);
    if (is_error(s)) return error_from_status(s);
    if (v.staged()) {
      *op = std::make_unique<StagedSend>(std::move(v), *req);
      *req = nullptr;
    }
    return MPI_SUCCESS;
  }

 private:
  const void* buf_;
  size_t count_;
  TypeRef type_;
  int dest_, tag_;
  MPI_Comm comm_;
  Mode mode_;
};

class RecvOp final : public PersistentOp {
 public:
  RecvOp(void* buf, int count, TypeRef type, int source, int tag, MPI_Comm comm)
      : buf_(buf), count_(size_t(count)), type_(std::move(type)), source_(source), tag_(tag),
        comm_(comm) {}
  int start(Request** req) override {
    std::unique_ptr<PendingOp> op;
    return start_op(req, &op);
  }
  int start_op(Request** req, std::unique_ptr<PendingOp>* op) override {
    *req = nullptr;
    op->reset();
    Comm* c = comm_get(comm_);
    if (!c) return MPI_ERR_COMM;
    if (source_ == MPI_PROC_NULL) return MPI_SUCCESS;
    RecvView v;
    if (int e = v.init_held(buf_, count_, type_)) return e;
    Status s = post_recv(*c, c->context_id, v.data(), v.bytes(), source_, tag_, req);
    if (is_error(s)) return error_from_status(s);
    if (v.staged()) {
      *op = std::make_unique<StagedRecv>(std::move(v), *req);
      *req = nullptr;
    }
    return MPI_SUCCESS;
  }

 private:
  void* buf_;
  size_t count_;
  TypeRef type_;
  int source_, tag_;
  MPI_Comm comm_;
};

int send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, Mode mode, MPI_Request* request, const char* fn) {
  Comm* c = comm_get(comm);
  if (int e = p2p_check_typed(c, count, datatype, dest, tag, false)) return raise_error(c, e, fn);
  *request = request_create_persistent(
      std::make_unique<SendOp>(buf, count, type_hold(datatype), dest, tag, comm, mode), false,
      error_scope(*c));
  return MPI_SUCCESS;
}

// Starts one request; errors go to the request's communicator's handler.
int start_one(MPI_Request* request, const char* fn) {
  // An invalid request leaves the scope as it is: MPI_COMM_WORLD's handler.
  ErrorScope errors = error_scope(nullptr);
  int code = request_start(*request, &errors);
  return request_error(errors, code, fn);
}

}  // namespace

extern "C" {

int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  return send_init(buf, count, datatype, dest, tag, comm, Mode::Standard, request,
                   "MPI_Send_init");
}

int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return send_init(buf, count, datatype, dest, tag, comm, Mode::Sync, request, "MPI_Ssend_init");
}

// Ready mode only promises that the receive is posted; a standard send is always correct.
int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return send_init(buf, count, datatype, dest, tag, comm, Mode::Standard, request,
                   "MPI_Rsend_init");
}

int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return send_init(buf, count, datatype, dest, tag, comm, Mode::Buffered, request,
                   "MPI_Bsend_init");
}

int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  Comm* c = comm_get(comm);
  if (int e = p2p_check_typed(c, count, datatype, source, tag, true))
    return raise_error(c, e, "MPI_Recv_init");
  *request = request_create_persistent(
      std::make_unique<RecvOp>(buf, count, type_hold(datatype), source, tag, comm), true,
      error_scope(*c));
  return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request* request) { return start_one(request, "MPI_Start"); }

int PMPI_Startall(int count, MPI_Request* requests) {
  if (count < 0) return raise_error(nullptr, MPI_ERR_COUNT, "MPI_Startall");
  for (int i = 0; i < count; ++i) {
    if (int code = start_one(&requests[i], "MPI_Startall")) return code;
  }
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Send_init)
TORUS_MPI_ALIAS(MPI_Ssend_init)
TORUS_MPI_ALIAS(MPI_Rsend_init)
TORUS_MPI_ALIAS(MPI_Bsend_init)
TORUS_MPI_ALIAS(MPI_Recv_init)
TORUS_MPI_ALIAS(MPI_Start)
TORUS_MPI_ALIAS(MPI_Startall)

}  // extern "C"
