/* Compiled with MPICH's mpicc.mpich against MPICH's mpi.h, run on torus's libmpi: the handle
 * values, MPI_Status layout and constants must agree (the MPICH ABI). */
#include <mpi.h>
#include <stdio.h>

#define EXPECT(cond)                                                        \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "abi: %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                         \
    }                                                                       \
  } while (0)

int main(int argc, char** argv) {
  EXPECT(MPI_Init(&argc, &argv) == MPI_SUCCESS);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double out[3] = {rank, rank + 0.5, rank + 0.25}, in[3] = {0, 0, 0};
  MPI_Status st;
  EXPECT(MPI_Sendrecv(out, 3, MPI_DOUBLE, right, 11, in, 3, MPI_DOUBLE, MPI_ANY_SOURCE,
                      MPI_ANY_TAG, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
  int count = -1;
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  EXPECT(st.MPI_SOURCE == left && st.MPI_TAG == 11 && count == 3 && in[1] == left + 0.5);
  long v = rank + 1, sum = 0;
  EXPECT(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  EXPECT(sum == (long)size * (size + 1) / 2);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  EXPECT(MPI_Send(&v, 1, MPI_LONG, size, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
  int flag = 0;
  MPI_Request req;
  MPI_Irecv(&v, 1, MPI_LONG, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
  MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
  EXPECT(flag && req == MPI_REQUEST_NULL);
  if (rank == 0) printf("abi ok: %d ranks, sum %ld\n", size, sum);
  MPI_Finalize();
  return 0;
}
