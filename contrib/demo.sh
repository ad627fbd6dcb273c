#!/bin/sh
# Builds torus and runs the demo: an MPI job of two ranks started by our mpirun (ping-pong and
# allreduce over shared memory, checked and timed), then the transport-level benchmark
# torus_perf (tagged ping-pong latency and streaming bandwidth), printed as measured.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target torus_perf torus_info mpirun pingpong_allreduce \
  >/dev/null
PORT=${PORT:-$((20000 + $$ % 20000))}
"$BUILD/bin/torus_info" -t
echo
echo "mpirun -n 2 pingpong_allreduce: MPI over torus (shared memory between the two ranks)"
"$BUILD/bin/mpirun" -n 2 --timeout 120 "$BUILD/bin/pingpong_allreduce"
echo
"$BUILD/bin/torus_perf" -p "$PORT" --cpu 0 >/dev/null &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
sleep 0.3
echo "tag_lat: one-way latency (ping-pong/2), 2 processes over shared memory"
timeout 120 "$BUILD/bin/torus_perf" 127.0.0.1 -p "$PORT" --cpu 1 -t tag_lat -s 8,4k,64k,1m
wait $SERVER
"$BUILD/bin/torus_perf" -p "$PORT" --cpu 0 >/dev/null &
SERVER=$!
sleep 0.3
echo "tag_bw: streaming bandwidth (window of non-blocking sends), MB = 2^20 bytes"
timeout 120 "$BUILD/bin/torus_perf" 127.0.0.1 -p "$PORT" --cpu 1 -t tag_bw -s 64k,1m,4m
wait $SERVER
