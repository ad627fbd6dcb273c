// Point-to-point: MPI_Send, Ssend, Rsend, Recv, Isend, Issend, Irecv, Sendrecv,
// Sendrecv_replace, Probe, Iprobe. Arguments are checked here; envelopes become torus tags in
// transfer.cpp.
#include <chrono>
#include <cstddef>
#include <vector>

#include "mpi_shim/lib/comm.h"
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/p2p_args.h"
#include "mpi_shim/lib/pmpi.h"
#include "mpi_shim/lib/request.h"
#include "mpi_shim/lib/runtime.h"
#include "mpi_shim/lib/status.h"
#include "mpi_shim/lib/tag_layout.h"
#include "mpi_shim/lib/transfer.h"

using namespace torus::mpi;
using torus::RecvInfo;
using torus::Request;
using torus::Status;

namespace torus::mpi {

int p2p_check(const Comm* c, int count, MPI_Datatype type, int peer, int tag, bool receiving,
              size_t* bytes) {
  if (!c) return MPI_ERR_COMM;
  if (count < 0) return MPI_ERR_COUNT;
  size_t size = type_size(type);
  if (size == 0) return MPI_ERR_TYPE;
  if (tag > kTagUb || (tag < 0 && !(receiving && tag == MPI_ANY_TAG))) return MPI_ERR_TAG;
  if (peer != MPI_PROC_NULL && (peer >= c->size || (peer < 0 && !(receiving &&
                                                                  peer == MPI_ANY_SOURCE))))
    return MPI_ERR_RANK;
  *bytes = size * static_cast<size_t>(count);
  return MPI_SUCCESS;
}

void status_from_recv(MPI_Status* st, const RecvInfo& info, int code) {
  status_set(st, tag_source(info.tag), tag_user(info.tag), info.length, code);
}

}  // namespace torus::mpi

namespace {

int do_send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
            bool sync, const char* fn) {
  Comm* c = comm_get(comm);
  size_t bytes = 0;
  if (int e = p2p_check(c, count, type, dest, tag, false, &bytes)) return raise_error(c, e, fn);
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  return check(c, error_from_status(send_blocking(*c, c->context_id, buf, bytes, dest, tag, sync)),
               fn);
}

int do_isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
             bool sync, MPI_Request* request, const char* fn) {
  Comm* c = comm_get(comm);
  size_t bytes = 0;
  if (int e = p2p_check(c, count, type, dest, tag, false, &bytes)) return raise_error(c, e, fn);
  MPI_Status done{};
  status_empty(&done);
  Request* req = nullptr;
  if (dest != MPI_PROC_NULL) {
    Status s = post_send(*c, c->context_id, buf, bytes, dest, tag, sync, &req);
    if (torus::is_error(s)) return raise_error(c, error_from_status(s), fn);
  }
  *request = request_create(req, false, c->errhandler, done);
  return MPI_SUCCESS;
}

// Blocking probe: progress until a match, spinning first, then sleeping between events.
bool probe_once(const Comm& c, int source, int tag, RecvInfo* info) {
  const bool any_source = source == MPI_ANY_SOURCE;
  const bool any_tag = tag == MPI_ANY_TAG;
  return runtime()->worker->tag_probe(
      make_tag(c.context_id, any_source ? 0 : source, any_tag ? 0 : tag),
      recv_mask(any_source, any_tag), info);
}

}  // namespace

extern "C" {

int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm) {
  return do_send(buf, count, datatype, dest, tag, comm, false, "MPI_Send");
}

int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return do_send(buf, count, datatype, dest, tag, comm, true, "MPI_Ssend");
}

// Ready mode only promises that the receive is posted; a standard send is always correct.
int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return do_send(buf, count, datatype, dest, tag, comm, false, "MPI_Rsend");
}

int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status* status) {
  Comm* c = comm_get(comm);
  size_t bytes = 0;
  if (int e = p2p_check(c, count, datatype, source, tag, true, &bytes))
    return raise_error(c, e, "MPI_Recv");
  if (source == MPI_PROC_NULL) {
    status_empty(status);
    return MPI_SUCCESS;
  }
  RecvInfo info;
  int code = error_from_status(recv_blocking(*c, c->context_id, buf, bytes, source, tag, &info));
  status_from_recv(status, info, code);
  return check(c, code, "MPI_Recv");
}

int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request) {
  return do_isend(buf, count, datatype, dest, tag, comm, false, request, "MPI_Isend");
}

int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request* request) {
  return do_isend(buf, count, datatype, dest, tag, comm, true, request, "MPI_Issend");
}

int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  Comm* c = comm_get(comm);
  size_t bytes = 0;
  if (int e = p2p_check(c, count, datatype, source, tag, true, &bytes))
    return raise_error(c, e, "MPI_Irecv");
  MPI_Status done{};
  status_empty(&done);
  Request* req = nullptr;
  if (source != MPI_PROC_NULL) {
    Status s = post_recv(*c, c->context_id, buf, bytes, source, tag, &req);
    if (torus::is_error(s)) return raise_error(c, error_from_status(s), "MPI_Irecv");
  }
  *request = request_create(req, true, c->errhandler, done);
  return MPI_SUCCESS;
}

int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status* status) {
  Comm* c = comm_get(comm);
  size_t sbytes = 0, rbytes = 0;
  if (int e = p2p_check(c, sendcount, sendtype, dest, sendtag, false, &sbytes))
    return raise_error(c, e, "MPI_Sendrecv");
  if (int e = p2p_check(c, recvcount, recvtype, source, recvtag, true, &rbytes))
    return raise_error(c, e, "MPI_Sendrecv");
  if (dest == MPI_PROC_NULL || source == MPI_PROC_NULL) {
    // One side only: the blocking call of that side does the work.
    int code = dest == MPI_PROC_NULL
                   ? PMPI_Recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status)
                   : PMPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    if (source == MPI_PROC_NULL) status_empty(status);
    return code;
  }
  RecvInfo info;
  int code = error_from_status(sendrecv_blocking(*c, c->context_id, sendbuf, sbytes, dest,
                                                 sendtag, recvbuf, rbytes, source, recvtag,
                                                 &info));
  status_from_recv(status, info, code);
  return check(c, code, "MPI_Sendrecv");
}

// The message to send is copied out first: the receive lands in the same buffer and may
// overwrite it before the send has left.
int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  Comm* c = comm_get(comm);
  size_t sbytes = 0, rbytes = 0;
  if (int e = p2p_check(c, count, datatype, dest, sendtag, false, &sbytes))
    return raise_error(c, e, "MPI_Sendrecv_replace");
  if (int e = p2p_check(c, count, datatype, source, recvtag, true, &rbytes))
    return raise_error(c, e, "MPI_Sendrecv_replace");
  if (dest == MPI_PROC_NULL || source == MPI_PROC_NULL)  // one side only: no copy needed
    return PMPI_Sendrecv(buf, count, datatype, dest, sendtag, buf, count, datatype, source,
                         recvtag, comm, status);
  std::vector<std::byte> copy(static_cast<const std::byte*>(buf),
                              static_cast<const std::byte*>(buf) + sbytes);
  RecvInfo info;
  int code = error_from_status(sendrecv_blocking(*c, c->context_id, copy.data(), sbytes, dest,
                                                 sendtag, buf, rbytes, source, recvtag, &info));
  status_from_recv(status, info, code);
  return check(c, code, "MPI_Sendrecv_replace");
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  Comm* c = comm_get(comm);
  size_t bytes = 0;
  if (int e = p2p_check(c, 0, MPI_BYTE, source, tag, true, &bytes))
    return raise_error(c, e, "MPI_Iprobe");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    status_empty(status);
    return MPI_SUCCESS;
  }
  RecvInfo info;
  if (!probe_once(*c, source, tag, &info)) {
    runtime()->worker->progress();
    if (!probe_once(*c, source, tag, &info)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  status_from_recv(status, info, MPI_SUCCESS);
  return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  Comm* c = comm_get(comm);
  size_t bytes = 0;
  if (int e = p2p_check(c, 0, MPI_BYTE, source, tag, true, &bytes))
    return raise_error(c, e, "MPI_Probe");
  if (source == MPI_PROC_NULL) {
    status_empty(status);
    return MPI_SUCCESS;
  }
  const auto since = std::chrono::steady_clock::now();
  RecvInfo info;
  while (!probe_once(*c, source, tag, &info)) progress_or_sleep(since);
  status_from_recv(status, info, MPI_SUCCESS);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Send)
TORUS_MPI_ALIAS(MPI_Ssend)
TORUS_MPI_ALIAS(MPI_Recv)
TORUS_MPI_ALIAS(MPI_Rsend)
TORUS_MPI_ALIAS(MPI_Isend)
TORUS_MPI_ALIAS(MPI_Issend)
TORUS_MPI_ALIAS(MPI_Irecv)
TORUS_MPI_ALIAS(MPI_Sendrecv)
TORUS_MPI_ALIAS(MPI_Sendrecv_replace)
TORUS_MPI_ALIAS(MPI_Iprobe)
TORUS_MPI_ALIAS(MPI_Probe)

}  // extern "C"
