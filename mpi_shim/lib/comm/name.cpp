// MPI_Comm_set_name / MPI_Comm_get_name (names are local to the process, for tools and
// messages) and MPI_Comm_test_inter.
#include <cstring>
#include <mutex>
#include <string>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {
// A name is read and written by the threads that share its communicator.
std::mutex g_name_mutex;
}  // namespace

extern "C" {

// Longer names are cut to MPI_MAX_OBJECT_NAME - 1 characters, as MPICH does.
int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_set_name");
  if (!comm_name) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_set_name");
  std::lock_guard lock(g_name_mutex);
  c->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_get_name");
  if (!comm_name || !resultlen) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_get_name");
  std::lock_guard lock(g_name_mutex);
  std::memcpy(comm_name, c->name.c_str(), c->name.size() + 1);
  *resultlen = static_cast<int>(c->name.size());
  return MPI_SUCCESS;
}

int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_test_inter");
  if (!flag) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_test_inter");
  *flag = c->inter() ? 1 : 0;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Comm_set_name)
TORUS_MPI_ALIAS(MPI_Comm_get_name)
TORUS_MPI_ALIAS(MPI_Comm_test_inter)

}  // extern "C"
