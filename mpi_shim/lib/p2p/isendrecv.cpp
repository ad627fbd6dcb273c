// MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0): a send and a receive behind one
// request, complete when both are; the status is the receive's. The replacing form sends a
// packed copy of the buffer, which the request keeps, since the receive may land in the
// buffer before the send has left.
#include <memory>
#include <utility>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/p2p/args.h"
#include "mpi_shim/lib/p2p/transfer.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/staged.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

class SendRecvOp final : public PendingOp {
 public:
  // Either part may be null (MPI_PROC_NULL on that side, or a send that could not be
  // posted: `send_error` is then its code, reported when the request completes).
  SendRecvOp(std::unique_ptr<PendingOp> send, std::unique_ptr<PendingOp> recv,
             std::vector<std::byte> copy, int send_error)
      : copy_(std::move(copy)),
        send_(std::move(send)),
        recv_(std::move(recv)),
        send_error_(send_error) {}
  bool poll() override { return (!send_ || send_->poll()) && (!recv_ || recv_->poll()); }
  int finish(MPI_Status* status) override {
    const int sent = send_ ? send_->finish(MPI_STATUS_IGNORE) : send_error_;
    int got = MPI_SUCCESS;
    if (recv_) got = recv_->finish(status);
    else status_empty(status);
    return sent != MPI_SUCCESS ? sent : got;
  }

 private:
  std::vector<std::byte> copy_;  // declared first: destroyed after the send that reads it
  std::unique_ptr<PendingOp> send_;
  std::unique_ptr<PendingOp> recv_;
  int send_error_;
};

// Posts the two halves behind a new request; returns an MPI error code when nothing was
// posted. A send that fails after the receive was posted cancels the receive and is
// reported by the request, so the receive's buffer is not given back while it may land.
int post(Comm& c, SendView sv, int dest, int sendtag, RecvView rv, int source, int recvtag,
         std::vector<std::byte> copy, MPI_Request* request) {
  std::unique_ptr<PendingOp> recv, send;
  if (source != MPI_PROC_NULL) {
    torus::Request* req = nullptr;
    torus::Status s = post_recv(c, c.context_id, rv.data(), rv.bytes(), source, recvtag, &req);
    if (torus::is_error(s)) return error_from_status(s);
    recv = std::make_unique<StagedRecv>(std::move(rv), req);
  }
  int send_error = MPI_SUCCESS;
  if (dest != MPI_PROC_NULL) {
    torus::Request* req = nullptr;
    torus::Status s =
        post_send(c, c.context_id, sv.data(), sv.bytes(), dest, sendtag, false, &req);
    if (torus::is_error(s)) {
      if (!recv) return error_from_status(s);
      send_error = error_from_status(s);
      recv->cancel();
    } else {
      send = std::make_unique<StagedSend>(std::move(sv), req);
    }
  }
  *request = request_create_op(std::make_unique<SendRecvOp>(std::move(send), std::move(recv),
                                                            std::move(copy), send_error),
                               error_scope(c));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Isendrecv";
  Comm* c = comm_get(comm);
  if (int e = p2p_check_typed(c, sendcount, sendtype, dest, sendtag, false))
    return raise_error(c, e, fn);
  if (int e = p2p_check_typed(c, recvcount, recvtype, source, recvtag, true))
    return raise_error(c, e, fn);
  if (!request) return raise_error(c, MPI_ERR_ARG, fn);
  SendView sv;
  RecvView rv;
  if (dest != MPI_PROC_NULL)
    if (int e = sv.init(sendbuf, sendcount, sendtype)) return raise_error(c, e, fn);
  if (source != MPI_PROC_NULL)
    if (int e = rv.init(recvbuf, recvcount, recvtype)) return raise_error(c, e, fn);
  return check(c, post(*c, std::move(sv), dest, sendtag, std::move(rv), source, recvtag, {},
                       request),
               fn);
}

int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  const char* fn = "MPI_Isendrecv_replace";
  Comm* c = comm_get(comm);
  if (int e = p2p_check_typed(c, count, datatype, dest, sendtag, false))
    return raise_error(c, e, fn);
  if (int e = p2p_check_typed(c, count, datatype, source, recvtag, true))
    return raise_error(c, e, fn);
  if (!request) return raise_error(c, MPI_ERR_ARG, fn);
  size_t bytes = 0;
  (void)type_bytes(datatype, count, &bytes);
  std::vector<std::byte> copy;
  SendView sv;
  RecvView rv;
  if (dest != MPI_PROC_NULL) {
    copy.resize(bytes);
    type_pack(buf, static_cast<size_t>(count), datatype, copy.data());
    if (int e = sv.init_elements(copy.data(), bytes, MPI_BYTE)) return raise_error(c, e, fn);
  }
  if (source != MPI_PROC_NULL)
    if (int e = rv.init(buf, count, datatype)) return raise_error(c, e, fn);
  return check(c, post(*c, std::move(sv), dest, sendtag, std::move(rv), source, recvtag,
                       std::move(copy), request),
               fn);
}

TORUS_MPI_ALIAS(MPI_Isendrecv)
TORUS_MPI_ALIAS(MPI_Isendrecv_replace)

}  // extern "C"
