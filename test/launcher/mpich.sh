#!/bin/sh
# Conformance of mpirun's PMI-1 server with MPICH's own client: an MPI program compiled
# with mpicc.mpich (MPI_Init, Allreduce, Finalize) runs under our mpirun.
# usage: mpich.sh MPIRUN
MPIRUN=$1
. "$(dirname "$0")/lib.sh"
command -v mpicc.mpich >/dev/null 2>&1 || { echo "skipped: mpicc.mpich is not installed"; exit 77; }
cat > "$tmp/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int r, n, x, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  x = r + 1;
  MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("mpich hello: rank %d of %d sum %d\n", r, n, sum);
  MPI_Finalize();
  return sum == n * (n + 1) / 2 ? 0 : 1;
}
C
mpicc.mpich -O2 -o "$tmp/hello" "$tmp/hello.c" || fail "mpicc.mpich failed"
for np in 2 4; do
  run_mpirun --oversubscribe -n $np "$tmp/hello"
  expect_rc 0
  r=0
  while [ $r -lt $np ]; do
    expect_msg "^mpich hello: rank $r of $np sum $((np * (np + 1) / 2))\$"
    r=$((r + 1))
  done
done
assert_no_leftovers
echo "ok: MPICH programs run under mpirun"
