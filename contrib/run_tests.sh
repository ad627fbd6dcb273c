#!/bin/sh
# Builds torus with warnings as errors and runs the whole test suite (unit, transport
# conformance, multi-process integration). Usage: contrib/run_tests.sh [build-dir]
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTORUS_WERROR=ON
cmake --build "$BUILD" -j "$(nproc)"
cd "$BUILD"
ctest --output-on-failure --timeout 900
