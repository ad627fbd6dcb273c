// Buffered sends (MPI_Bsend, Ibsend, Bsend_init's Start): the message is copied into the
// buffer the user attached and sent from there, so the call returns as soon as the copy is
// made.
#pragma once

#include <cstddef>

#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

struct Comm;
struct TypeInfo;

// Packs `count` elements of `type` at buf into the attached buffer (a dense type is copied
// as it is) and posts the send to comm rank `dest` (not MPI_PROC_NULL). Returns an MPI error
// code: MPI_ERR_BUFFER when no buffer is attached or the message (its MPI_Pack_size plus
// MPI_BSEND_OVERHEAD) does not fit in what is free of it.
int bsend_post(const Comm& c, const void* buf, size_t count, const TypeInfo& type, int dest,
               int tag);

}  // namespace torus::mpi
