// Posting tagged sends and receives for a communicator on one of its context ids: the one
// place where MPI envelopes become torus tags. Used by point-to-point and collectives alike.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/api/torus.hpp"
#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

struct Comm;

// Sends len bytes to comm rank `dest` with `tag` on context `ctx`. *req is nullptr when the
// send finished at once (Ok), set when InProgress.
Status post_send(const Comm& c, uint32_t ctx, const void* buf, size_t len, int dest, int tag,
                 bool sync, Request** req);
// Receives from comm rank `source` (or MPI_ANY_SOURCE) with `tag` (or MPI_ANY_TAG).
Status post_recv(const Comm& c, uint32_t ctx, void* buf, size_t len, int source, int tag,
                 Request** req);
// Blocking forms: post, then wait. recv fills *info when given.
Status send_blocking(const Comm& c, uint32_t ctx, const void* buf, size_t len, int dest, int tag,
                     bool sync = false);
Status recv_blocking(const Comm& c, uint32_t ctx, void* buf, size_t len, int source, int tag,
                     RecvInfo* info = nullptr);
// Both at once (no deadlock whatever the order of the peers' calls).
Status sendrecv_blocking(const Comm& c, uint32_t ctx, const void* sbuf, size_t slen, int dest,
                         int stag, void* rbuf, size_t rlen, int source, int rtag,
                         RecvInfo* info = nullptr);

}  // namespace torus::mpi
