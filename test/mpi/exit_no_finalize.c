/* A program that leaves with exit() after MPI_Init and never calls MPI_Finalize (an error path
 * of a real application): the job ends with that status, and the library's teardown at exit
 * touches nothing already destroyed (the registry of registration caches outlived a cache
 * once: AddressSanitizer's heap-use-after-free in ~RegCache, run over libfabric, whose
 * iface owns a cache). */
#include <stdlib.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size, x = 0;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Allreduce(&rank, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(x == size * (size - 1) / 2);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  exit(5);
}
