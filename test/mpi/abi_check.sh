#!/bin/sh
# abi_check.sh LIBDIR EXE EXPECT LAUNCHER...: EXE was built by MPICH's mpicc.mpich against
# MPICH's mpi.h; with LD_LIBRARY_PATH=LIBDIR it must load torus's libmpi (as
# libmpich.so.12), not MPICH's, run under LAUNCHER with status 0 and print the line EXPECT.
libdir=$1
exe=$2
expect=$3
shift 3
resolved=$(LD_LIBRARY_PATH=$libdir ldd "$exe" | awk '/libmpich\.so\.12/ {print $3}')
case $resolved in
  "$libdir"/*) ;;
  *) echo "abi_check: $exe loads libmpich.so.12 from '$resolved', not from $libdir" >&2; exit 1 ;;
esac
out=$(LD_LIBRARY_PATH=$libdir "$@" "$exe")
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "abi_check: the job exited $rc" >&2; exit 1; }
echo "$out" | grep -qF "$expect" || { echo "abi_check: no line '$expect'" >&2; exit 1; }
