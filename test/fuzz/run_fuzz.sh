#!/bin/sh
# Builds the libFuzzer targets with clang (when present) and runs each for a bounded time.
# usage: run_fuzz.sh SOURCE_DIR BUILD_DIR [SECONDS]; exit 77 (skipped) without clang.
set -eu
src=$1; out=$2/fuzz; secs=${3:-20}
CXX=${TORUS_FUZZ_CXX:-clang++}
if ! command -v "$CXX" >/dev/null 2>&1; then
  echo "skipped: no $CXX (libFuzzer needs clang)"; exit 77
fi
mkdir -p "$out/corpus-tcp"
"$CXX" -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$src" "$src/test/fuzz/fuzz_tcp_wire.cpp" "$src/transports/tcp/tcp_wire.cpp" \
  "$src/transports/tcp/tcp_netif.cpp" "$src/core/base/status.cpp" -o "$out/fuzz_tcp_wire"
# A seed: one valid AM frame, so the fuzzer starts inside the format.
printf '\001\003\000\000\004\000\000\000abcd' > "$out/corpus-tcp/am"
"$out/fuzz_tcp_wire" -max_total_time="$secs" -rss_limit_mb=1024 -print_final_stats=1 \
  "$out/corpus-tcp" 2>&1 | tail -n 5
