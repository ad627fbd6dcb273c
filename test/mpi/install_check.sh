#!/bin/sh
# install_check.sh CMAKE BUILD_DIR SOURCE_DIR: `cmake --install` into a fresh prefix; an MPI
# program built there by the installed mpicc must load the installed libmpi.so.12 (not the
# build tree's) and pass under the installed mpiexec; torus.h must compile and link against
# the installed libtorus. TORUS_INSTALL_PRELOAD (sanitizer builds: ASan's runtime) is
# preloaded into the job only, not into cmake and the compiler.
cmake=$1
build=$2
src=$3
prefix=$(mktemp -d "${TMPDIR:-/tmp}/torus-install.XXXXXX") || exit 1
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install_check: $*" >&2; exit 1; }
"$cmake" --install "$build" --prefix "$prefix" > "$prefix/install.log" 2>&1 ||
  { cat "$prefix/install.log" >&2; fail "cmake --install failed"; }
for f in bin/mpicc bin/mpicxx bin/mpirun bin/mpiexec lib/libmpi.so.12 lib/libmpich.so.12 \
    lib/libtorus.so include/mpi.h include/torus.h; do
  [ -e "$prefix/$f" ] || fail "$f was not installed"
done
"$prefix/bin/mpicc" -o "$prefix/hello" "$src/test/mpi/abi_hello.c" || fail "mpicc failed"
resolved=$(ldd "$prefix/hello" | awk '/libmpi\.so\.12/ {print $3}')
case $resolved in
  "$prefix"/lib/*) ;;
  *) fail "the program loads libmpi.so.12 from '$resolved', not from $prefix/lib" ;;
esac
out=$(LD_PRELOAD=$TORUS_INSTALL_PRELOAD "$prefix/bin/mpiexec" --timeout 50 -n 2 "$prefix/hello") ||
  fail "the job failed"
echo "$out"
echo "$out" | grep -qF "abi ok: 2 ranks, sum 3" || fail "no 'abi ok' line"
printf '#include <torus.h>\nint main(void) { return 0; }\n' > "$prefix/capi.c"
cc -I"$prefix/include" -o "$prefix/capi" "$prefix/capi.c" -L"$prefix/lib" -ltorus ||
  fail "torus.h does not build against the installed libtorus"
echo "install ok"
