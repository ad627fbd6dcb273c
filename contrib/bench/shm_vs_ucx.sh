#!/usr/bin/env bash
# torus against UCX over shared memory on this machine: interleaved rounds (torus, UCX,
# torus, UCX, ...) of tag latency and bandwidth with torus_perf and ucx_perftest, the
# hardware floor (cache-line hand-off, CMA copy rate), and 4 processes on 2 cores.
# Writes DIR/shm_vs_ucx.md (a markdown table of medians across rounds with their spread) and
# DIR/shm_vs_ucx-rounds.csv (every measurement), then prints the report. See README.md.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: contrib/bench/shm_vs_ucx.sh [-o DIR] [--quick] [--rounds N] [--build DIR]
                                   [--torus-perf PATH] [--ucx-tls TLS]
  -o DIR            where to write shm_vs_ucx.md and the raw logs (default: bench-results/
                    at the repository root, which git ignores)
  --quick           3 rounds with fewer iterations (a few minutes)
  --rounds N        rounds of the interleaved comparison (default 5, --quick 3)
  --build DIR       torus build folder (default build-bench/; configured Release if needed)
  --torus-perf PATH use this torus_perf binary instead of building one
  --ucx-tls TLS     UCX_TLS for ucx_perftest (default sm: posix/sysv shared memory + cma)
Server processes run on CPU 0 and clients on CPU 1 (taskset / torus_perf --cpu).
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/bench-results
build=$root/build-bench
rounds=""
quick=0
perf=""
ucx_tls=sm
cpu_srv=0
cpu_cli=1
run_timeout=180  # seconds, every single process

while (($#)); do
  case $1 in
    -o) out=${2:?-o needs a folder}; shift 2 ;;
    --quick) quick=1; shift ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    --build) build=${2:?--build needs a folder}; shift 2 ;;
    --torus-perf) perf=${2:?--torus-perf needs a path}; shift 2 ;;
    --ucx-tls) ucx_tls=${2:?--ucx-tls needs a value}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "shm_vs_ucx.sh: unknown option '$1'" >&2; usage >&2; exit 1 ;;
  esac
done

# Iterations: latency tests count round trips, bandwidth tests count messages.
if ((quick)); then
  : "${rounds:=3}"
  declare -A iters=([tag_lat:8]=20000 [tag_lat:4096]=10000 [tag_bw:65536]=5000
                    [tag_bw:4194304]=200)
  over_iters=200000
else
  : "${rounds:=5}"
  declare -A iters=([tag_lat:8]=200000 [tag_lat:4096]=50000 [tag_bw:65536]=20000
                    [tag_bw:4194304]=1000)
  over_iters=1000000
fi
cases=(tag_lat:8 tag_lat:4096 tag_bw:65536 tag_bw:4194304)
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "shm_vs_ucx.sh: bad --rounds '$rounds'" >&2; exit 1; }

log() { echo "[shm_vs_ucx] $*" >&2; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
raw=$out/shm_vs_ucx-logs
rm -rf "$raw"
mkdir -p "$raw"
report=$out/shm_vs_ucx.md
rounds_csv=$out/shm_vs_ucx-rounds.csv
echo "round,impl,test,size,metric,value" >"$rounds_csv"

# ---- background processes: every one runs under `timeout`; all are killed on exit ----
pids=()
cleanup() {
  local p
  for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

if (($(nproc) < 2)); then
  log "warning: $(nproc) CPU online; client and server share it and numbers mean little"
  cpu_cli=0
fi

# ---- tools: ucx_perftest, torus_perf, the floor programs ----
have_ucx=1
if ! command -v ucx_perftest >/dev/null 2>&1; then
  if [[ $(id -u) == 0 ]]; then
    log "ucx_perftest not found: installing Debian's ucx-utils"
    timeout 600 apt-get install -y ucx-utils >"$raw/apt.log" 2>&1 ||
      { timeout 600 apt-get update >>"$raw/apt.log" 2>&1 &&
        timeout 600 apt-get install -y ucx-utils >>"$raw/apt.log" 2>&1; } || true
  else
    log "ucx_perftest not found and not root: install it with 'sudo apt-get install -y ucx-utils';" \
        "the UCX columns stay empty"
  fi
  command -v ucx_perftest >/dev/null 2>&1 || { have_ucx=0; log "running without UCX"; }
fi
ucx_version=none
((have_ucx)) && ucx_version=$(ucx_info -v 2>/dev/null | sed -n 's/^# Version //p' | head -1)

if [[ -z $perf ]]; then
  if [[ ! -f $build/CMakeCache.txt ]]; then
    log "configuring torus in $build (Release)"
    # Warnings are not errors here: a benchmark build must not stop on a new compiler's warning.
    timeout 600 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTORUS_WERROR=OFF \
      -DTORUS_BUILD_TESTS=OFF >"$raw/cmake.log" 2>&1 ||
      { tail -30 "$raw/cmake.log" >&2; log "cmake failed (log: $raw/cmake.log)"; exit 1; }
  fi
  log "building torus_perf in $build"
  timeout 1800 cmake --build "$build" -j"$(nproc)" --target torus_perf >"$raw/build.log" 2>&1 ||
    { tail -30 "$raw/build.log" >&2; log "build failed (log: $raw/build.log)"; exit 1; }
  perf=$build/bin/torus_perf
fi
[[ -x $perf ]] || { log "no torus_perf at $perf"; exit 1; }
floor_dir=$build/bench-floor
mkdir -p "$floor_dir"
for f in floor_cacheline floor_cma; do
  cc -O2 -Wall -o "$floor_dir/$f" "$here/$f.c" || { log "cannot build $f"; exit 1; }
done

# ---- ports ----
next_port=$((20000 + RANDOM % 20000))
port_hex() { printf '%04X' "$1"; }
port_used() {  # any socket (listening, TIME_WAIT, ...) with this local port
  awk -v h=":$(port_hex "$1")" '$2 ~ h"$" {f = 1} END {exit !f}' /proc/net/tcp /proc/net/tcp6 \
    2>/dev/null
}
free_port() {  # sets PORT
  while port_used "$next_port"; do next_port=$((next_port + 1)); done
  PORT=$next_port
  next_port=$((next_port + 1))
}
wait_listening() {  # PORT PID: until something listens on PORT (up to 15 s) or PID exits
  local h i
  h=":$(port_hex "$1")"
  for ((i = 0; i < 300; i++)); do
    awk -v h="$h" '$2 ~ h"$" && $4 == "0A" {f = 1} END {exit !f}' /proc/net/tcp \
      /proc/net/tcp6 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# reap PID: waits for a server that should be exiting; kills it after 15 s. Returns its status.
reap() {
  local i
  for ((i = 0; i < 300; i++)); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.05
  done
  kill "$1" 2>/dev/null || true
  wait "$1"
}

warmup_of() { local n=$1 w=$(($1 / 10)); ((w < 100)) && w=100; echo "$w"; }

# ---- one measurement: sets VALUE (latency: one-way median us; bandwidth: MB/s, 2^20) ----
# start_server IMPL LOG: sets SPID and PORT.
start_server() {
  free_port
  if [[ $1 == torus ]]; then
    timeout "$run_timeout" "$perf" -p "$PORT" --cpu "$cpu_srv" >"$2" 2>&1 &
  else
    UCX_TLS=$ucx_tls timeout "$run_timeout" taskset -c "$cpu_srv" ucx_perftest -p "$PORT" \
      >"$2" 2>&1 &
  fi
  SPID=$!
  pids+=("$SPID")
  wait_listening "$PORT" "$SPID" || { log "the $1 server did not start (log: $2)"; return 1; }
}

# run_client IMPL TEST SIZE ITERS PORT FORMAT(csv|human): runs a client to completion.
run_client() {
  local impl=$1 test=$2 size=$3 n=$4 port=$5 fmt=$6
  if [[ $impl == torus ]]; then
    local f=(--csv)
    [[ $fmt == human ]] && f=()
    timeout "$run_timeout" "$perf" 127.0.0.1 -p "$port" --cpu "$cpu_cli" -t "$test" \
      -s "$size" -n "$n" ${f[@]+"${f[@]}"}
  else
    UCX_TLS=$ucx_tls timeout "$run_timeout" taskset -c "$cpu_cli" ucx_perftest 127.0.0.1 \
      -p "$port" -t "$test" -s "$size" -n "$n" -w "$(warmup_of "$n")" -f -v
  fi
}

# parse IMPL TEST LOG: the headline number of a client log, or nothing.
parse() {
  if [[ $1 == torus ]]; then
    awk -F, -v t="$2" '$1 == t && NF == 6 {v = (t ~ /_bw$/) ? $6 : $4} END {if (v != "") print v}' "$3"
  else  # iterations,50.0_percentile_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr
    awk -F, -v t="$2" '/^ *[0-9]+,/ && NF >= 8 {v = (t ~ /_bw$/) ? $6 : $2} END {if (v != "") print v}' "$3"
  fi
}

failures=0
measure() {  # IMPL TEST SIZE ROUND
  local impl=$1 test=$2 size=$3 r=$4 tag slog clog rc=0 src=0
  tag="r$r.$impl.$test.$size"
  slog=$raw/$tag.server.log
  clog=$raw/$tag.client.log
  VALUE=""
  if ! start_server "$impl" "$slog"; then failures=$((failures + 1)); return 0; fi
  run_client "$impl" "$test" "$size" "${iters[$test:$size]}" "$PORT" csv >"$clog" 2>&1 || rc=$?
  ((rc == 0)) || kill "$SPID" 2>/dev/null || true
  reap "$SPID" || src=$?
  VALUE=$(parse "$impl" "$test" "$clog")
  if ((rc != 0)) || [[ -z $VALUE ]]; then
    log "FAILED: $impl $test $size round $r (client exit $rc, server exit $src); log: $clog"
    tail -5 "$clog" >&2 || true
    failures=$((failures + 1))
    VALUE=""
  fi
}

# ---- 4 processes on 2 cores: two pairs at once, both servers on CPU 0, both clients on 1 ----
# Sets OVER to "medianA meanA medianB meanB" (one-way us) or "" on failure.
oversubscribed() {  # IMPL ROUND
  local impl=$1 r=$2 p ports=() spids=() cpids=() ok=1 rc
  OVER=""
  for p in A B; do
    start_server "$impl" "$raw/r$r.over.$impl.$p.server.log" || ok=0
    ports+=("$PORT")
    spids+=("$SPID")
  done
  if ((ok)); then
    local i=0
    for p in A B; do
      run_client "$impl" tag_lat 8 "$over_iters" "${ports[$i]}" human \
        >"$raw/r$r.over.$impl.$p.client.log" 2>&1 &
      cpids+=($!)
      pids+=($!)
      i=$((i + 1))
    done
    for p in ${cpids[@]+"${cpids[@]}"}; do rc=0; wait "$p" || rc=$?; ((rc == 0)) || ok=0; done
  fi
  for p in ${spids[@]+"${spids[@]}"}; do reap "$p" || true; done
  local vals=() pair=() f v
  for p in A B; do
    f=$raw/r$r.over.$impl.$p.client.log
    if [[ $impl == torus ]]; then  # size iters median mean p90 p99 min max MB/s
      v=$(awk '$1 == "8" && NF == 9 {print $3, $4}' "$f" 2>/dev/null || true)
    else
      v=$(awk -F, '/^ *[0-9]+,/ && NF >= 8 {print $2, $3}' "$f" 2>/dev/null || true)
    fi
    [[ -n $v ]] || ok=0
    read -r -a pair <<<"$v"
    vals+=(${pair[@]+"${pair[@]}"})
  done
  if ((ok)) && ((${#vals[@]} == 4)); then
    OVER="${vals[*]}"
  else
    log "FAILED: 4 processes on 2 cores, $impl, round $r; logs: $raw/r$r.over.$impl.*"
    failures=$((failures + 1))
  fi
}

# ---- the rounds ----
declare -A V  # "impl:test:size" -> values across rounds
add() { V[$1]="${V[$1]:-} $2"; }
impls=(torus)
((have_ucx)) && impls+=(ucx)
started=$(date +%s)
log "torus_perf: $perf; UCX: $ucx_version (UCX_TLS=$ucx_tls); $rounds rounds; logs in $raw"
for ((r = 1; r <= rounds; r++)); do
  log "round $r/$rounds"
  for c in "${cases[@]}"; do
    test=${c%%:*}
    size=${c##*:}
    for impl in "${impls[@]}"; do
      measure "$impl" "$test" "$size" "$r"
      if [[ -n $VALUE ]]; then
        add "$impl:$c" "$VALUE"
        echo "$r,$impl,$test,$size,$([[ $test == *_bw ]] && echo MBps || echo lat_us),$VALUE" >>"$rounds_csv"
      fi
    done
  done
  v=$(timeout 60 "$floor_dir/floor_cacheline" "$cpu_srv" "$cpu_cli" 2>>"$raw/floor.log" |
      awk '/^floor_cacheline_oneway_ns/ {print $2}' || true)
  if [[ -n $v ]]; then add floor:cacheline "$v"; echo "$r,floor,cacheline,64,oneway_ns,$v" >>"$rounds_csv"; fi
  while read -r _ sz gbps; do
    add "floor:cma:$sz" "$gbps"
    echo "$r,floor,cma,$sz,GBps,$gbps" >>"$rounds_csv"
  done < <(timeout 120 "$floor_dir/floor_cma" "$cpu_cli" "$cpu_srv" 65536 1048576 4194304 \
             2>>"$raw/floor.log" | grep '^floor_cma_GBps' || true)
  for impl in "${impls[@]}"; do
    oversubscribed "$impl" "$r"
    if [[ -n $OVER ]]; then
      read -r ma ea mb eb <<<"$OVER"
      add "over:$impl:medA" "$ma"; add "over:$impl:meanA" "$ea"
      add "over:$impl:medB" "$mb"; add "over:$impl:meanB" "$eb"
      {
        echo "$r,$impl,over_tag_lat,8,pairA_median_us,$ma"
        echo "$r,$impl,over_tag_lat,8,pairA_mean_us,$ea"
        echo "$r,$impl,over_tag_lat,8,pairB_median_us,$mb"
        echo "$r,$impl,over_tag_lat,8,pairB_mean_us,$eb"
      } >>"$rounds_csv"
    fi
  done
done
elapsed=$(($(date +%s) - started))

# ---- the report ----
stats() {  # KEY -> "median min max count" or ""
  # shellcheck disable=SC2086  # the values are a space-separated list
  printf '%s\n' ${V[$1]:-} | awk 'NF {a[++n] = $1 + 0}
    END {if (!n) exit; for (i = 2; i <= n; i++) {x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--)
         a[j + 1] = a[j]; a[j + 1] = x}
         m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2; print m, a[1], a[n], n}'
}
cell() {  # KEY DECIMALS -> "median (min..max)" or "n/a"
  local s
  s=$(stats "$1")
  [[ -n $s ]] || { echo "n/a"; return; }
  awk -v s="$s" -v d="$2" 'BEGIN {split(s, x, " "); f = "%." d "f";
    if (x[4] > 1) printf(f " (" f ".." f ")", x[1], x[2], x[3]); else printf(f, x[1])}'
}
median_of() { local s; s=$(stats "$1"); echo "${s%% *}"; }
ratio() {  # TORUSKEY UCXKEY KIND(lat|bw)
  local t u
  t=$(median_of "$1")
  u=$(median_of "$2")
  [[ -n $t && -n $u ]] || { echo "n/a"; return; }
  awk -v t="$t" -v u="$u" -v k="$3" 'BEGIN {if (u <= 0) {print "n/a"; exit}; r = t / u;
    better = (k == "lat") ? (r < 1) : (r > 1); w = (r == 1) ? "even" : (better ? "torus better" : "UCX better");
    printf("%.2f (%s)", r, w)}'
}
human_size() { case $1 in 8) echo "8 B" ;; 4096) echo "4 KiB" ;; 65536) echo "64 KiB" ;;
  1048576) echo "1 MiB" ;; 4194304) echo "4 MiB" ;; *) echo "$1 B" ;; esac; }

cl=$(median_of floor:cacheline)
floor_lat="n/a"
[[ -n $cl ]] && floor_lat=$(awk -v n="$cl" 'BEGIN {printf("%.3f (one cache line)", n / 1000)}')
floor_bw() {  # SIZE -> CMA rate in MB/s (2^20) and GB/s (1e9)
  local g
  g=$(median_of "floor:cma:$1")
  [[ -n $g ]] || { echo "n/a"; return; }
  awk -v g="$g" -v s="$(human_size "$1")" 'BEGIN {printf("%.0f (CMA %s, %.1f GB/s)", g * 1e9 / 1048576, s, g)}'
}

{
  echo "# torus vs UCX over shared memory"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(uname -n); kernel $(uname -r); $(nproc) CPUs:" \
       "$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)"
  echo "- torus: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)'), $perf"
  echo "- UCX: $ucx_version, ucx_perftest with UCX_TLS=$ucx_tls"
  echo "- $rounds interleaved rounds$( ((quick)) && echo ' (--quick)'), $elapsed s; servers on CPU $cpu_srv, clients on CPU $cpu_cli;" \
       "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- each cell: median across rounds (min..max across rounds). Latency: one way = round trip / 2," \
       "median of the iterations within a run. Bandwidth: MB/s with MB = 2^20 bytes (as ucx_perftest prints)," \
       "total bytes / total time of a run."
  echo
  echo "## Two processes, one per core"
  echo
  echo "| test | size | iterations | torus | UCX | torus / UCX | hardware limit |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for c in "${cases[@]}"; do
    test=${c%%:*}
    size=${c##*:}
    if [[ $test == *_lat ]]; then
      label="$test, us one way (lower is better)"; d=3; kind=lat; limit=$floor_lat
    else
      label="$test, MB/s (2^20; higher is better)"; d=0; kind=bw; limit=$(floor_bw "$size")
    fi
    echo "| $label | $(human_size "$size") | ${iters[$c]} | $(cell "torus:$c" "$d") |" \
         "$(cell "ucx:$c" "$d") | $(ratio "torus:$c" "ucx:$c" "$kind") | $limit |"
  done
  echo
  echo "Hardware limits: a cache line handed between the two CPUs, one way (floor_cacheline); one" \
       "process_vm_readv copy (floor_cma), the best a single-copy large message can do." \
       "CMA at 64 KiB / 1 MiB / 4 MiB, GB/s (1e9): $(cell floor:cma:65536 1) / $(cell floor:cma:1048576 1) / $(cell floor:cma:4194304 1)."
  echo
  echo "## 4 processes on 2 cores"
  echo
  echo "Two tag_lat 8 B pairs at once, both servers on CPU $cpu_srv and both clients on CPU $cpu_cli," \
       "$over_iters iterations each; one-way us. The mean counts the stalls when a process that" \
       "busy-polls holds the core its peer needs; the target is microseconds, not milliseconds."
  echo
  echo "| | pair A median | pair B median | pair A mean | pair B mean |"
  echo "|---|---:|---:|---:|---:|"
  for impl in "${impls[@]}"; do
    name=torus
    [[ $impl == ucx ]] && name="UCX"
    echo "| $name | $(cell "over:$impl:medA" 3) | $(cell "over:$impl:medB" 3) |" \
         "$(cell "over:$impl:meanA" 3) | $(cell "over:$impl:meanB" 3) |"
  done
  echo
  if ((failures)); then
    echo "**$failures run(s) failed**; their logs are in $raw."
  else
    echo "All runs succeeded. Per-round values: $(basename "$rounds_csv"); logs: $(basename "$raw")/."
  fi
} >"$report"

cat "$report"
((failures == 0)) || exit 1
