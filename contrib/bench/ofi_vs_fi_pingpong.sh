#!/usr/bin/env bash
# torus's libfabric transport against libfabric itself on the same provider: torus_perf
# (tag ping-pong over TORUS_TLS=ofi) beside fabtests' fi_pingpong (Debian's libfabric-bin),
# interleaved rounds, medians with their spread. Both are ping-pongs of one message each way,
# so latency is one-way time and bandwidth is size / one-way time for both: the raw provider
# is the limit of this transport.
# Usage: contrib/bench/ofi_vs_fi_pingpong.sh [-o DIR] [--provider tcp|sockets] [--rounds N]
#                                            [--sizes "8 4194304"] [--build DIR]
# Writes DIR/ofi_vs_fi_pingpong.md and prints it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/bench-results
build=$root/build-bench
provider=tcp
rounds=5
sizes="8 4096 65536 4194304"

while (($#)); do
  case $1 in
    -o) out=${2:?-o needs a folder}; shift 2 ;;
    --provider) provider=${2:?--provider needs a name}; shift 2 ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    --sizes) sizes=${2:?--sizes needs a list}; shift 2 ;;
    --build) build=${2:?--build needs a folder}; shift 2 ;;
    -h|--help) sed -n 2,9p "$0"; exit 0 ;;
    *) echo "ofi_vs_fi_pingpong.sh: unknown option '$1'" >&2; exit 1 ;;
  esac
done

command -v fi_pingpong >/dev/null || {
  echo "fi_pingpong is missing: apt-get install -y libfabric-bin" >&2; exit 1; }
perf=$build/bin/torus_perf
if [[ ! -x $perf ]]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTORUS_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j "$(nproc)" --target torus_perf >/dev/null
fi
mkdir -p "$out"
raw=$out/ofi_vs_fi_pingpong-rounds.csv
echo "round,system,size,lat_us" > "$raw"

# Loopback for both; sockets' progress thread must not sleep between polls.
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo FI_SOCKETS_PE_WAITTIME=0
iters_for() { if (($1 >= 1048576)); then echo 200; elif (($1 >= 65536)); then echo 1000; else echo 5000; fi; }
port=$((40000 + RANDOM % 20000))

run_fi() {  # size -> one-way µs
  local size=$1 iters; iters=$(iters_for "$size"); port=$((port + 1))
  taskset -c 0 timeout -k 5 120 fi_pingpong -p "$provider" -e rdm -I "$iters" -S "$size" \
    -B "$port" > /dev/null 2>&1 &
  local srv=$!
  sleep 0.3
  taskset -c 1 timeout -k 5 120 fi_pingpong -p "$provider" -e rdm -I "$iters" -S "$size" \
    -P "$port" 127.0.0.1 | awk 'NR == 2 { print $7 }'
  wait "$srv" || true
}

run_torus() {  # size -> one-way µs (median of the run)
  local size=$1 iters; iters=$(iters_for "$size"); port=$((port + 1))
  env TORUS_TLS=ofi,self TORUS_OFI_PROVIDER="$provider" timeout -k 5 120 \
    "$perf" -p "$port" --cpu 0 --accept-timeout 60 > /dev/null 2>&1 &
  local srv=$!
  sleep 0.3
  env TORUS_TLS=ofi,self TORUS_OFI_PROVIDER="$provider" timeout -k 5 120 \
    "$perf" 127.0.0.1 -p "$port" --cpu 1 -t tag_lat -s "$size" -n "$iters" --csv |
    awk -F, 'NF >= 4 && $1 == "tag_lat" { print $4 }'
  wait "$srv" || true
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 1; r <= rounds; ++r)); do
  for size in $sizes; do
    # Alternate which side goes first, so drift within a round hits both alike.
    if ((r % 2)); then order="fi torus"; else order="torus fi"; fi
    for sys in $order; do
      if [[ $sys == fi ]]; then v=$(run_fi "$size"); else v=$(run_torus "$size"); fi
      echo "$r,$sys,$size,${v:-nan}" >> "$raw"
    done
  done
  echo "round $r/$rounds done" >&2
done

report=$out/ofi_vs_fi_pingpong.md
{
  # Other processes on the cores distort both sides, large messages most: say how busy.
  echo "# torus ofi vs fi_pingpong, provider $provider ($(date -u +%F), $(nproc) cores, $rounds rounds, load at start $load0, at end $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  echo "One-way latency in µs (median, min..max over rounds); bandwidth = size / latency."
  echo
  echo "| size | fi_pingpong µs | torus µs | torus/fi latency | fi MB/s | torus MB/s | torus/fi bandwidth |"
  echo "|---:|---:|---:|---:|---:|---:|---:|"
  for size in $sizes; do
    awk -F, -v s="$size" '
      function median(a, n,   i, j, t) {
        for (i = 2; i <= n; ++i) for (j = i; j > 1 && a[j-1] > a[j]; --j) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
      }
      $3 == s && $4 != "nan" { if ($2 == "fi") f[++nf] = $4; else t[++nt] = $4 }
      END {
        if (!nf || !nt) { printf "| %d | missing | missing | | | | |\n", s; exit }
        mf = median(f, nf); mt = median(t, nt)
        printf "| %d | %.2f (%.2f..%.2f) | %.2f (%.2f..%.2f) | %.2fx | %.1f | %.1f | %.2fx |\n",
          s, mf, f[1], f[nf], mt, t[1], t[nt], mt / mf, s / mf, s / mt, mf / mt
      }' "$raw"
  done
  echo
  echo "Command: \`contrib/bench/ofi_vs_fi_pingpong.sh --provider $provider --rounds $rounds\`"
} > "$report"
cat "$report"
