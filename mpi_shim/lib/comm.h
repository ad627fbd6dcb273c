// Communicators: a table of handles (MPI_COMM_WORLD, MPI_COMM_SELF, duplicates), each with
// its ranks, context ids and error handler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

struct Comm {
  MPI_Comm handle = MPI_COMM_NULL;
  uint32_t context_id = 0;  // even: point-to-point; context_id + 1: collectives
  int rank = 0;
  int size = 1;
  std::vector<int> world_ranks;  // comm rank -> world rank
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  uint32_t coll_seq = 0;  // collectives started on this communicator (same on every rank)
  uint32_t coll_context() const { return context_id + 1; }

  // Scratch memory for collectives, kept between calls: a fresh buffer per call would cost
  // page faults and a memory registration for every large message. Collectives on one
  // communicator never run concurrently (the standard's rule), so one buffer suffices.
  std::span<std::byte> scratch(size_t bytes) {
    if (scratch_.size() < bytes) scratch_.resize(bytes);
    return {scratch_.data(), bytes};
  }

 private:
  std::vector<std::byte> scratch_;
};

// Creates WORLD and SELF; called by runtime_start.
void comms_init(int world_rank, int world_size);
// Frees every communicator; called by runtime_stop.
void comms_clear();
// The communicator behind a handle, or nullptr for an invalid one.
Comm* comm_get(MPI_Comm handle) noexcept;
// Collective over `parent`: a context id that no member uses yet (the maximum of the members'
// next free ids). Returns an MPI error code.
int comm_agree_context(Comm& parent, uint32_t* context_id);
// Gives `c` a handle (MPI_ERR_INTERN when the table is full).
int comm_install(std::unique_ptr<Comm> c, MPI_Comm* handle);

}  // namespace torus::mpi
