// Dynamic process management. A torus job is the fixed set of ranks its launcher started
// (mpirun, Slurm, Hydra): nothing spawned it, it cannot spawn more, and it has no port or
// name service through which two jobs could meet. So MPI_Comm_get_parent gives
// MPI_COMM_NULL, and the calls that would start or join processes fail with the error class
// the standard names for them (MPI_ERR_SPAWN, MPI_ERR_PORT, MPI_ERR_NAME, MPI_ERR_SERVICE),
// after their output arguments are set to their null values. MPI_Comm_disconnect works on
// any communicator of the job.
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

extern "C" {

int PMPI_Comm_get_parent(MPI_Comm* parent) {
  if (!parent) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Comm_get_parent");
  *parent = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

// Waits for the communicator's traffic to end (a barrier: each peer's earlier messages were
// delivered before its part of it), then frees it.
int PMPI_Comm_disconnect(MPI_Comm* comm) {
  constexpr const char* fn = "MPI_Comm_disconnect";
  if (!comm) return raise_error(nullptr, MPI_ERR_ARG, fn);
  Comm* c = comm_get(*comm);
  if (!c || *comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return raise_error(c, MPI_ERR_COMM, fn);
  if (int e = PMPI_Barrier(*comm)) return e;  // raised on the communicator already
  return PMPI_Comm_free(comm);
}

int PMPI_Comm_spawn(const char* /*command*/, char* /*argv*/[], int maxprocs, MPI_Info /*info*/,
                    int root, MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[]) {
  constexpr const char* fn = "MPI_Comm_spawn";
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, fn);
  if (intercomm) *intercomm = MPI_COMM_NULL;
  // maxprocs and the codes' array count only at the root.
  if (c->rank == root && array_of_errcodes != MPI_ERRCODES_IGNORE)
    for (int i = 0; i < maxprocs; ++i) array_of_errcodes[i] = MPI_ERR_SPAWN;
  return raise_error(c, MPI_ERR_SPAWN, fn);
}

int PMPI_Comm_spawn_multiple(int count, char* /*array_of_commands*/[], char** /*array_of_argv*/[],
                             const int array_of_maxprocs[], const MPI_Info /*array_of_info*/[],
                             int root, MPI_Comm comm, MPI_Comm* intercomm,
                             int array_of_errcodes[]) {
  constexpr const char* fn = "MPI_Comm_spawn_multiple";
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, fn);
  if (intercomm) *intercomm = MPI_COMM_NULL;
  if (c->rank == root && array_of_errcodes != MPI_ERRCODES_IGNORE && array_of_maxprocs) {
    int total = 0;
    for (int i = 0; i < count; ++i) total += array_of_maxprocs[i] > 0 ? array_of_maxprocs[i] : 0;
    for (int i = 0; i < total; ++i) array_of_errcodes[i] = MPI_ERR_SPAWN;
  }
  return raise_error(c, MPI_ERR_SPAWN, fn);
}

int PMPI_Open_port(MPI_Info /*info*/, char* port_name) {
  if (port_name) port_name[0] = '\0';
  return raise_error(nullptr, MPI_ERR_PORT, "MPI_Open_port");
}

int PMPI_Close_port(const char* /*port_name*/) {
  return raise_error(nullptr, MPI_ERR_PORT, "MPI_Close_port");
}

int PMPI_Comm_accept(const char* /*port_name*/, MPI_Info /*info*/, int /*root*/, MPI_Comm comm,
                     MPI_Comm* newcomm) {
  if (newcomm) *newcomm = MPI_COMM_NULL;
  return raise_error(comm_get(comm), MPI_ERR_PORT, "MPI_Comm_accept");
}

int PMPI_Comm_connect(const char* /*port_name*/, MPI_Info /*info*/, int /*root*/, MPI_Comm comm,
                      MPI_Comm* newcomm) {
  if (newcomm) *newcomm = MPI_COMM_NULL;
  return raise_error(comm_get(comm), MPI_ERR_PORT, "MPI_Comm_connect");
}

int PMPI_Comm_join(int /*fd*/, MPI_Comm* intercomm) {
  if (intercomm) *intercomm = MPI_COMM_NULL;
  return raise_error(nullptr, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Comm_join");
}

int PMPI_Publish_name(const char* /*service_name*/, MPI_Info /*info*/,
                      const char* /*port_name*/) {
  return raise_error(nullptr, MPI_ERR_SERVICE, "MPI_Publish_name");
}

int PMPI_Unpublish_name(const char* /*service_name*/, MPI_Info /*info*/,
                        const char* /*port_name*/) {
  return raise_error(nullptr, MPI_ERR_SERVICE, "MPI_Unpublish_name");
}

int PMPI_Lookup_name(const char* /*service_name*/, MPI_Info /*info*/, char* port_name) {
  if (port_name) port_name[0] = '\0';
  return raise_error(nullptr, MPI_ERR_NAME, "MPI_Lookup_name");
}

TORUS_MPI_ALIAS(MPI_Comm_get_parent)
TORUS_MPI_ALIAS(MPI_Comm_disconnect)
TORUS_MPI_ALIAS(MPI_Comm_spawn)
TORUS_MPI_ALIAS(MPI_Comm_spawn_multiple)
TORUS_MPI_ALIAS(MPI_Open_port)
TORUS_MPI_ALIAS(MPI_Close_port)
TORUS_MPI_ALIAS(MPI_Comm_accept)
TORUS_MPI_ALIAS(MPI_Comm_connect)
TORUS_MPI_ALIAS(MPI_Comm_join)
TORUS_MPI_ALIAS(MPI_Publish_name)
TORUS_MPI_ALIAS(MPI_Unpublish_name)
TORUS_MPI_ALIAS(MPI_Lookup_name)

}  // extern "C"
