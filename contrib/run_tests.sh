#!/bin/sh
# Builds torus with warnings as errors and runs the whole test suite (unit, transport
# conformance, multi-process integration), then again under AddressSanitizer and UBSan
# (memory errors that a plain build survives by luck fail there).
# Usage: contrib/run_tests.sh [build-dir]   (TORUS_TEST_SANITIZE=0 skips the second pass)
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
JOBS=$(nproc)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTORUS_WERROR=ON
cmake --build "$BUILD" -j "$JOBS"
(cd "$BUILD" && ctest --output-on-failure --timeout 900)
if [ "${TORUS_TEST_SANITIZE:-1}" != 0 ]; then
  cmake -S . -B "$BUILD-asan" -DCMAKE_BUILD_TYPE=Debug -DTORUS_WERROR=ON -DTORUS_SANITIZE=ON
  cmake --build "$BUILD-asan" -j "$JOBS"
  # The fuzz targets build their own ASan+UBSan binaries with clang: the first pass ran them.
  (cd "$BUILD-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
     ctest --output-on-failure --timeout 900 -E '^fuzz_')
fi
