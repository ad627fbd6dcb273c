// What every point-to-point call shares (p2p/*.cpp, request/staged.cpp): the checks of
// count, datatype, tag and peer, so a bad argument gets the same error class everywhere, and
// the status of a completed receive.
#pragma once

#include <cstddef>

#include "core/api/torus.hpp"
#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

struct Comm;
struct TypeInfo;

// Validates the common arguments; returns an MPI error code and sets *bytes (count times the
// datatype's size). `receiving` admits MPI_ANY_SOURCE and MPI_ANY_TAG.
int p2p_check(const Comm* c, int count, MPI_Datatype type, int peer, int tag, bool receiving,
              size_t* bytes);
// The same for any committed datatype, non-contiguous ones included (the caller moves the
// data through a SendView/RecvView, datatype/view.h).
int p2p_check_typed(const Comm* c, int count, MPI_Datatype type, int peer, int tag,
                    bool receiving);
// p2p_check_typed that also hands out the datatype it looked up (*type, set on success), so
// the nonblocking calls build their view without a second lookup.
int p2p_check_resolved(const Comm* c, int count, MPI_Datatype type, int peer, int tag,
                       bool receiving, const TypeInfo** resolved);
// Only the peer and tag.
int p2p_check_envelope(const Comm* c, int peer, int tag, bool receiving);
// Fills an MPI status from what a receive got (source and tag decoded from the torus tag).
void status_from_recv(MPI_Status* st, const RecvInfo& info, int code);

}  // namespace torus::mpi
