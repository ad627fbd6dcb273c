// MPI_Init/Init_thread/Finalize/Abort and the environment queries (Initialized, Finalized,
// Query_thread, Is_thread_main, Get_processor_name, Get_version, Get_library_version, Wtime, Wtick).
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

using namespace torus::mpi;

namespace {

int init(int required, int* provided, const char* fn) {
  if (phase() != Phase::NotStarted) {
    std::fprintf(stderr, "torus MPI: %s called twice (or after MPI_Finalize)\n", fn);
    return MPI_ERR_OTHER;
  }
  // Every level is provided as asked: MULTIPLE turns on the worker's thread-safe mode.
  int level = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE
              : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                               : required;
  int rc = runtime_open(level);
  // A session may have started the library already, at the level it has.
  if (rc == MPI_SUCCESS) level = runtime()->thread_level;
  if (provided) *provided = level;
  if (rc != MPI_SUCCESS) {
    // ERRORS_ARE_FATAL applies to a failed MPI_Init too: there is no job to continue in.
    std::fprintf(stderr, "torus MPI: %s failed; exiting\n", fn);
    std::exit(1);
  }
  set_phase(Phase::Running);
  return rc;
}

}  // namespace

extern "C" {

int PMPI_Init(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  return init(MPI_THREAD_SINGLE, nullptr, "MPI_Init");
}

int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  (void)argc;
  (void)argv;
  return init(required, provided, "MPI_Init_thread");
}

int PMPI_Finalize(void) {
  if (phase() != Phase::Running) return raise_error(nullptr, MPI_ERR_OTHER, "MPI_Finalize");
  set_phase(Phase::Finalized);
  return runtime_close();
}

int PMPI_Initialized(int* flag) {
  *flag = phase() != Phase::NotStarted;
  return MPI_SUCCESS;
}

int PMPI_Finalized(int* flag) {
  *flag = phase() == Phase::Finalized;
  return MPI_SUCCESS;
}

int PMPI_Abort(MPI_Comm comm, int errorcode) {
  (void)comm;  // every communicator's job is the whole job here
  std::fflush(stdout);
  Runtime* rt = runtime();
  if (rt && rt->boot)
    rt->boot->abort(errorcode, "MPI_Abort(" + std::to_string(errorcode) + ") on rank " +
                                   std::to_string(rt->world_rank));
  std::_Exit(errorcode);
}

int PMPI_Query_thread(int* provided) {
  Runtime* rt = runtime();
  *provided = rt ? rt->thread_level : MPI_THREAD_SINGLE;
  return MPI_SUCCESS;
}

int PMPI_Is_thread_main(int* flag) {
  Runtime* rt = runtime();
  *flag = rt && rt->main_thread == std::this_thread::get_id();
  return MPI_SUCCESS;
}

int PMPI_Get_processor_name(char* name, int* resultlen) {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "localhost");
  std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}

int PMPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int PMPI_Get_library_version(char* version, int* resultlen) {
  int n = std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                        "torus MPI %s (MPICH ABI, libmpi.so.12)", TORUS_VERSION_STRING);
  *resultlen = n;
  return MPI_SUCCESS;
}

double PMPI_Wtime(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double PMPI_Wtick(void) {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Profiling control: torus has no profiling levels to switch, so every level is accepted
// and ignored (the standard's behaviour without a profiling library).
int PMPI_Pcontrol(const int /*level*/, ...) { return MPI_SUCCESS; }

TORUS_MPI_ALIAS(MPI_Init)
TORUS_MPI_ALIAS(MPI_Init_thread)
TORUS_MPI_ALIAS(MPI_Finalize)
TORUS_MPI_ALIAS(MPI_Initialized)
TORUS_MPI_ALIAS(MPI_Finalized)
TORUS_MPI_ALIAS(MPI_Abort)
TORUS_MPI_ALIAS(MPI_Query_thread)
TORUS_MPI_ALIAS(MPI_Is_thread_main)
TORUS_MPI_ALIAS(MPI_Get_processor_name)
TORUS_MPI_ALIAS(MPI_Get_version)
TORUS_MPI_ALIAS(MPI_Get_library_version)
TORUS_MPI_ALIAS(MPI_Wtime)
TORUS_MPI_ALIAS(MPI_Wtick)

TORUS_MPI_ALIAS(MPI_Pcontrol)

}  // extern "C"
