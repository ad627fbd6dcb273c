/* MPI_Abort: the last rank aborts with code 7 while the others wait in a receive that never
 * completes; the job must end with exit status 7 (the test checks mpirun's status). */
#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size, x = 0;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == size - 1) MPI_Abort(MPI_COMM_WORLD, 7);
  MPI_Recv(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  fprintf(stderr, "rank %d: the receive completed, but nobody sent\n", rank);
  return 1;
}
