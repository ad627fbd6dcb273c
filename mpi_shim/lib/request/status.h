// Filling and reading MPI_Status: MPICH splits the byte count over count_lo and the bits
// above the "cancelled" flag (bit 0) of count_hi_and_cancelled.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

inline void status_set(MPI_Status* st, int source, int tag, size_t bytes, int error) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = source;
  st->MPI_TAG = tag;
  st->MPI_ERROR = error;
  st->count_lo = static_cast<int>(static_cast<uint32_t>(bytes));
  st->count_hi_and_cancelled = static_cast<int>(static_cast<uint32_t>(uint64_t(bytes) >> 32) << 1);
}

inline size_t status_bytes(const MPI_Status& st) {
  return size_t(static_cast<uint32_t>(st.count_lo)) |
         (size_t(static_cast<uint32_t>(st.count_hi_and_cancelled) >> 1) << 32);
}

// What a request on MPI_PROC_NULL, or a send, reports (with `error`: an operation that
// moves no message of its own, such as a nonblocking collective or Comm_idup).
inline void status_empty(MPI_Status* st, int error = MPI_SUCCESS) {
  status_set(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, error);
}

}  // namespace torus::mpi
