// MPI 4.0's large-count one-sided calls (Put_c ... Rget_accumulate_c): origin, result and
// target counts converted each on its own as in large_count.h; errors go to the window's
// handler.
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/large_count.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/rma/win.h"

using namespace torus::mpi;

namespace {

int win_error(MPI_Win win, int e, const char* fn) { return raise_win(win_get(win), e, fn); }

}  // namespace

extern "C" {

int PMPI_Put_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win) {
  BigCount a, b;
  if (int e = a.init(origin_count, origin_datatype)) return win_error(win, e, "MPI_Put_c");
  if (int e = b.init(target_count, target_datatype)) return win_error(win, e, "MPI_Put_c");
  return PMPI_Put(origin_addr, a.count(), a.type(), target_rank, target_disp, b.count(), b.type(),
                  win);
}
int PMPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win) {
  BigCount a, b;
  if (int e = a.init(origin_count, origin_datatype)) return win_error(win, e, "MPI_Get_c");
  if (int e = b.init(target_count, target_datatype)) return win_error(win, e, "MPI_Get_c");
  return PMPI_Get(origin_addr, a.count(), a.type(), target_rank, target_disp, b.count(), b.type(),
                  win);
}
int PMPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  BigCount a, b;
  if (int e = a.init(origin_count, origin_datatype)) return win_error(win, e, "MPI_Accumulate_c");
  if (int e = b.init(target_count, target_datatype)) return win_error(win, e, "MPI_Accumulate_c");
  return PMPI_Accumulate(origin_addr, a.count(), a.type(), target_rank, target_disp, b.count(),
                         b.type(), op, win);
}
int PMPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win) {
  BigCount a, b, c;
  if (int e = a.init(origin_count, origin_datatype))
    return win_error(win, e, "MPI_Get_accumulate_c");
  if (int e = b.init(result_count, result_datatype))
    return win_error(win, e, "MPI_Get_accumulate_c");
  if (int e = c.init(target_count, target_datatype))
    return win_error(win, e, "MPI_Get_accumulate_c");
  return PMPI_Get_accumulate(origin_addr, a.count(), a.type(), result_addr, b.count(), b.type(),
                             target_rank, target_disp, c.count(), c.type(), op, win);
}
int PMPI_Rput_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(origin_count, origin_datatype)) return win_error(win, e, "MPI_Rput_c");
  if (int e = b.init(target_count, target_datatype)) return win_error(win, e, "MPI_Rput_c");
  return PMPI_Rput(origin_addr, a.count(), a.type(), target_rank, target_disp, b.count(), b.type(),
                   win, request);
}
int PMPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(origin_count, origin_datatype)) return win_error(win, e, "MPI_Rget_c");
  if (int e = b.init(target_count, target_datatype)) return win_error(win, e, "MPI_Rget_c");
  return PMPI_Rget(origin_addr, a.count(), a.type(), target_rank, target_disp, b.count(), b.type(),
                   win, request);
}
int PMPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                       MPI_Request* request) {
  BigCount a, b;
  if (int e = a.init(origin_count, origin_datatype)) return win_error(win, e, "MPI_Raccumulate_c");
  if (int e = b.init(target_count, target_datatype)) return win_error(win, e, "MPI_Raccumulate_c");
  return PMPI_Raccumulate(origin_addr, a.count(), a.type(), target_rank, target_disp, b.count(),
                          b.type(), op, win, request);
}
int PMPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                           MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request* request) {
  BigCount a, b, c;
  if (int e = a.init(origin_count, origin_datatype))
    return win_error(win, e, "MPI_Rget_accumulate_c");
  if (int e = b.init(result_count, result_datatype))
    return win_error(win, e, "MPI_Rget_accumulate_c");
  if (int e = c.init(target_count, target_datatype))
    return win_error(win, e, "MPI_Rget_accumulate_c");
  return PMPI_Rget_accumulate(origin_addr, a.count(), a.type(), result_addr, b.count(), b.type(),
                              target_rank, target_disp, c.count(), c.type(), op, win, request);
}

TORUS_MPI_ALIAS(MPI_Put_c)
TORUS_MPI_ALIAS(MPI_Get_c)
TORUS_MPI_ALIAS(MPI_Accumulate_c)
TORUS_MPI_ALIAS(MPI_Get_accumulate_c)
TORUS_MPI_ALIAS(MPI_Rput_c)
TORUS_MPI_ALIAS(MPI_Rget_c)
TORUS_MPI_ALIAS(MPI_Raccumulate_c)
TORUS_MPI_ALIAS(MPI_Rget_accumulate_c)

}  // extern "C"
