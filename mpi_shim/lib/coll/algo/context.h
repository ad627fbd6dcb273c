// What one collective call uses to talk: the communicator, its collective context id and the
// call's sequence number; each message also names its phase within the call.
#pragma once

#include <cstdint>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/p2p/transfer.h"

namespace torus::mpi::coll {

class CollContext {
 public:
  explicit CollContext(Comm& c) : c_(c), seq_(c.coll_seq++) {}

  const Comm& comm() const { return c_; }
  int rank() const { return c_.rank; }
  int size() const { return c_.size; }

  Status send(int peer, int phase, const void* buf, size_t len) const {
    return send_blocking(c_, c_.coll_context(), buf, len, peer, coll_tag(seq_, phase));
  }
  Status recv(int peer, int phase, void* buf, size_t len) const {
    return recv_blocking(c_, c_.coll_context(), buf, len, peer, coll_tag(seq_, phase));
  }
  Status sendrecv(int dest, const void* sbuf, size_t slen, int source, void* rbuf, size_t rlen,
                  int phase) const {
    int tag = coll_tag(seq_, phase);
    return sendrecv_blocking(c_, c_.coll_context(), sbuf, slen, dest, tag, rbuf, rlen, source,
                             tag);
  }
  Status post_send(int peer, int phase, const void* buf, size_t len, Request** req) const {
    return mpi::post_send(c_, c_.coll_context(), buf, len, peer, coll_tag(seq_, phase), false,
                          req);
  }
  Status post_recv(int peer, int phase, void* buf, size_t len, Request** req) const {
    return mpi::post_recv(c_, c_.coll_context(), buf, len, peer, coll_tag(seq_, phase), req);
  }

 private:
  Comm& c_;
  uint32_t seq_;
};

}  // namespace torus::mpi::coll
