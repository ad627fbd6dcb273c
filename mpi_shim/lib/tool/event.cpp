// MPI_T events and sources. torus defines no events (MPI 4.0 allows none), so no index,
// registration or instance is ever valid; the calls still check the interface's state and
// answer with the codes the standard names. One source: the monotonic clock behind
// MPI_Wtime, in nanoseconds, which event timestamps would use.
#include <time.h>

#include <cstdint>
#include <limits>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/tool/tool.h"

using namespace torus::mpi::tool;

namespace {

constexpr int kNumSources = 1;

MPI_Count now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<MPI_Count>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// What every call on a registration or an instance answers: there are none.
int no_handle() {
  Lock l;
  return l.ok ? MPI_T_ERR_INVALID_HANDLE : MPI_T_ERR_NOT_INITIALIZED;
}

}  // namespace

extern "C" {

int PMPI_T_source_get_num(int* num_sources) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!num_sources) return MPI_T_ERR_INVALID;
  *num_sources = kNumSources;
  return MPI_SUCCESS;
}

int PMPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc,
                           int* desc_len, MPI_T_source_order* ordering,
                           MPI_Count* ticks_per_second, MPI_Count* max_ticks, MPI_Info* info) {
  {
    Lock l;
    if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
    if (source_index < 0 || source_index >= kNumSources) return MPI_T_ERR_INVALID_INDEX;
    copy_string("torus_monotonic_clock", name, name_len);
    copy_string("the process's monotonic clock (CLOCK_MONOTONIC, as MPI_Wtime), in "
                "nanoseconds",
                desc, desc_len);
    if (ordering) *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second) *ticks_per_second = 1000000000;
    if (max_ticks) *max_ticks = std::numeric_limits<MPI_Count>::max();
  }
  // The caller frees it; created outside the lock, as the info table has its own.
  if (info && PMPI_Info_create(info) != MPI_SUCCESS) return MPI_T_ERR_MEMORY;
  return MPI_SUCCESS;
}

int PMPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (source_index < 0 || source_index >= kNumSources) return MPI_T_ERR_INVALID_INDEX;
  if (!timestamp) return MPI_T_ERR_INVALID;
  *timestamp = now_ns();
  return MPI_SUCCESS;
}

int PMPI_T_event_get_num(int* num_events) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!num_events) return MPI_T_ERR_INVALID;
  *num_events = 0;
  return MPI_SUCCESS;
}

int PMPI_T_event_get_info(int /*event_index*/, char* /*name*/, int* /*name_len*/,
                          int* /*verbosity*/, MPI_Datatype /*array_of_datatypes*/[],
                          MPI_Aint /*array_of_displacements*/[], int* /*num_elements*/,
                          MPI_T_enum* /*enumtype*/, MPI_Info* /*info*/, char* /*desc*/,
                          int* /*desc_len*/, int* /*bind*/) {
  Lock l;
  return l.ok ? MPI_T_ERR_INVALID_INDEX : MPI_T_ERR_NOT_INITIALIZED;
}

int PMPI_T_event_get_index(const char* name, int* event_index) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!name || !event_index) return MPI_T_ERR_INVALID;
  return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_event_handle_alloc(int /*event_index*/, void* /*obj_handle*/, MPI_Info /*info*/,
                              MPI_T_event_registration* /*event_registration*/) {
  Lock l;
  return l.ok ? MPI_T_ERR_INVALID_INDEX : MPI_T_ERR_NOT_INITIALIZED;
}

int PMPI_T_event_handle_set_info(MPI_T_event_registration, MPI_Info) { return no_handle(); }

int PMPI_T_event_handle_get_info(MPI_T_event_registration, MPI_Info*) { return no_handle(); }

int PMPI_T_event_register_callback(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info, void*,
                                   MPI_T_event_cb_function*) {
  return no_handle();
}

int PMPI_T_event_callback_set_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info) {
  return no_handle();
}

int PMPI_T_event_callback_get_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info*) {
  return no_handle();
}

int PMPI_T_event_handle_free(MPI_T_event_registration, void*, MPI_T_event_free_cb_function*) {
  return no_handle();
}

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration,
                                     MPI_T_event_dropped_cb_function*) {
  return no_handle();
}

int PMPI_T_event_read(MPI_T_event_instance, int, void*) { return no_handle(); }

int PMPI_T_event_copy(MPI_T_event_instance, void*) { return no_handle(); }

int PMPI_T_event_get_timestamp(MPI_T_event_instance, MPI_Count*) { return no_handle(); }

int PMPI_T_event_get_source(MPI_T_event_instance, int*) { return no_handle(); }

TORUS_MPI_ALIAS(MPI_T_source_get_num)
TORUS_MPI_ALIAS(MPI_T_source_get_info)
TORUS_MPI_ALIAS(MPI_T_source_get_timestamp)
TORUS_MPI_ALIAS(MPI_T_event_get_num)
TORUS_MPI_ALIAS(MPI_T_event_get_info)
TORUS_MPI_ALIAS(MPI_T_event_get_index)
TORUS_MPI_ALIAS(MPI_T_event_handle_alloc)
TORUS_MPI_ALIAS(MPI_T_event_handle_set_info)
TORUS_MPI_ALIAS(MPI_T_event_handle_get_info)
TORUS_MPI_ALIAS(MPI_T_event_register_callback)
TORUS_MPI_ALIAS(MPI_T_event_callback_set_info)
TORUS_MPI_ALIAS(MPI_T_event_callback_get_info)
TORUS_MPI_ALIAS(MPI_T_event_handle_free)
TORUS_MPI_ALIAS(MPI_T_event_set_dropped_handler)
TORUS_MPI_ALIAS(MPI_T_event_read)
TORUS_MPI_ALIAS(MPI_T_event_copy)
TORUS_MPI_ALIAS(MPI_T_event_get_timestamp)
TORUS_MPI_ALIAS(MPI_T_event_get_source)

}  // extern "C"
