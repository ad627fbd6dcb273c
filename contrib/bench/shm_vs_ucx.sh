#!/usr/bin/env bash
# torus against UCX on this machine, over shared memory (default) or TCP loopback
# (--transport tcp): interleaved rounds (torus, UCX, torus, UCX, ...) of tag latency and
# bandwidth with torus_perf and ucx_perftest, the machine's limit measured in the same rounds
# (shm: cache-line hand-off and CMA copy rate; tcp: a plain blocking socket), and, for shm,
# 4 processes on 2 cores.
# Writes DIR/NAME.md (a markdown table of medians across rounds with their spread) and
# DIR/NAME-rounds.csv (every measurement), NAME being shm_vs_ucx or tcp_vs_ucx, then prints
# the report. See README.md.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: contrib/bench/shm_vs_ucx.sh [-o DIR] [--transport shm|tcp] [--quick] [--rounds N]
                                   [--build DIR] [--torus-perf PATH] [--ucx-tls TLS]
  -o DIR            where to write the report and the raw logs (default: bench-results/
                    at the repository root, which git ignores)
  --transport T     shm (default): shared memory, report shm_vs_ucx.md;
                    tcp: TCP over 127.0.0.1, TORUS_TLS=tcp and UCX_TLS=tcp, report
                    tcp_vs_ucx.md (no 4-processes-on-2-cores runs)
  --quick           3 rounds with fewer iterations (a few minutes)
  --rounds N        rounds of the interleaved comparison (default 5, --quick 3)
  --build DIR       torus build folder (default build-bench/; configured Release if needed)
  --torus-perf PATH use this torus_perf binary instead of building one
  --ucx-tls TLS     UCX_TLS for ucx_perftest (default: sm for shm, that is posix/sysv
                    shared memory + cma; tcp for tcp)
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
transport=shm
ucx_tls=""
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
    --transport) transport=${2:?--transport needs shm or tcp}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "shm_vs_ucx.sh: unknown option '$1'" >&2; usage >&2; exit 1 ;;
  esac
done

# The transport: what torus and UCX are told, and the names of what the run writes.
# torus_env holds the assignments given (with env) to both torus_perf processes.
case $transport in
  shm) : "${ucx_tls:=sm}"; torus_env=() ;;
  tcp) : "${ucx_tls:=tcp}"; torus_env=(TORUS_TLS=tcp) ;;
  *) echo "shm_vs_ucx.sh: bad --transport '$transport' (shm or tcp)" >&2; exit 1 ;;
esac
name=${transport}_vs_ucx

# Iterations: latency tests count round trips, bandwidth tests count messages. tcp is ~20x
# slower per message than shm (~10 us one way, 1-2 ms per 4 MiB), hence its own counts.
if ((quick)); then
  : "${rounds:=3}"
  if [[ $transport == tcp ]]; then
    declare -A iters=([tag_lat:8]=30000 [tag_lat:4096]=30000 [tag_bw:65536]=30000
                      [tag_bw:4194304]=400)
  else
    declare -A iters=([tag_lat:8]=20000 [tag_lat:4096]=10000 [tag_bw:65536]=5000
                      [tag_bw:4194304]=200)
  fi
  over_iters=200000
else
  : "${rounds:=5}"
  if [[ $transport == tcp ]]; then
    declare -A iters=([tag_lat:8]=100000 [tag_lat:4096]=100000 [tag_bw:65536]=60000
                      [tag_bw:4194304]=1000)
  else
    declare -A iters=([tag_lat:8]=200000 [tag_lat:4096]=50000 [tag_bw:65536]=20000
                      [tag_bw:4194304]=1000)
  fi
  over_iters=1000000
fi
cases=(tag_lat:8 tag_lat:4096 tag_bw:65536 tag_bw:4194304)
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "shm_vs_ucx.sh: bad --rounds '$rounds'" >&2; exit 1; }

log() { echo "[shm_vs_ucx] $*" >&2; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
raw=$out/$name-logs
rm -rf "$raw"
mkdir -p "$raw"
report=$out/$name.md
rounds_csv=$out/$name-rounds.csv
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
for f in floor_cacheline floor_cma floor_tcp; do
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
    env ${torus_env[@]+"${torus_env[@]}"} timeout "$run_timeout" "$perf" -p "$PORT" \
      --cpu "$cpu_srv" >"$2" 2>&1 &
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
    env ${torus_env[@]+"${torus_env[@]}"} timeout "$run_timeout" "$perf" 127.0.0.1 \
      -p "$port" --cpu "$cpu_cli" -t "$test" -s "$size" -n "$n" ${f[@]+"${f[@]}"}
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
log "transport $transport; torus_perf: $perf${torus_env[0]+ (${torus_env[*]})}; UCX: $ucx_version" \
    "(UCX_TLS=$ucx_tls); $rounds rounds; logs in $raw"
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
  if [[ $transport == tcp ]]; then
    # The kernel's limit: floor_tcp runs the same cases with the same counts; latency both
    # with blocking reads (lat) and with both ends spinning on non-blocking ones (poll).
    fcases=()
    for c in "${cases[@]}"; do
      test=${c%%:*}
      fcases+=("${test#tag_}:${c##*:}:${iters[$c]}")
      [[ $test == *_lat ]] && fcases+=("poll:${c##*:}:${iters[$c]}")
    done
    nf=0
    while read -r what sz v; do
      case $what in
        floor_tcp_lat_us) add "floor:tcp:$sz" "$v"; echo "$r,floor,tcp_lat_blocking,$sz,lat_us,$v" ;;
        floor_tcp_poll_us) add "floor:tcppoll:$sz" "$v"; echo "$r,floor,tcp_lat_polling,$sz,lat_us,$v" ;;
        *) add "floor:tcp:$sz" "$v"; echo "$r,floor,tcp_bw,$sz,MBps_1e6,$v" ;;  # MB = 1e6 here
      esac >>"$rounds_csv"
      nf=$((nf + 1))
    done < <(FLOOR_TCP_TIMEOUT=170 timeout 180 "$floor_dir/floor_tcp" "$cpu_srv" "$cpu_cli" \
               "${fcases[@]}" 2>>"$raw/floor.log" | grep '^floor_tcp_' || true)
    if ((nf != ${#fcases[@]})); then
      log "FAILED: floor_tcp, round $r (got $nf of ${#fcases[@]} numbers); log: $raw/floor.log"
      failures=$((failures + 1))
    fi
    continue  # no 4-processes-on-2-cores runs over tcp
  fi
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
cell() {  # KEY DECIMALS [SCALE] -> "median (min..max)" (each times SCALE) or "n/a"
  local s
  s=$(stats "$1")
  [[ -n $s ]] || { echo "n/a"; return; }
  awk -v s="$s" -v d="$2" -v k="${3:-1}" 'BEGIN {split(s, x, " "); f = "%." d "f";
    if (x[4] > 1) printf(f " (" f ".." f ")", x[1] * k, x[2] * k, x[3] * k); else printf(f, x[1] * k)}'
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

# The limit of a case, in the unit of its row (us one way; MB/s with MB = 2^20).
mib=1048576
limit_num() {  # TEST SIZE -> number or ""
  local v
  if [[ $transport == tcp && $1 == *_lat ]]; then  # the polling ping-pong: no wake-up on its path
    v=$(median_of "floor:tcppoll:$2")
  elif [[ $transport == tcp ]]; then
    v=$(median_of "floor:tcp:$2")
    [[ -n $v ]] && v=$(awk -v v="$v" -v m="$mib" 'BEGIN {print v * 1e6 / m}')
  elif [[ $1 == *_lat ]]; then
    v=$(median_of floor:cacheline)
    [[ -n $v ]] && v=$(awk -v v="$v" 'BEGIN {print v / 1000}')
  else
    v=$(median_of "floor:cma:$2")
    [[ -n $v ]] && v=$(awk -v v="$v" -v m="$mib" 'BEGIN {print v * 1e9 / m}')
  fi
  echo "$v"
}
limit_cell() {  # TEST SIZE -> the limit's cell
  local v g
  v=$(limit_num "$1" "$2")
  [[ -n $v ]] || { echo "n/a"; return; }
  if [[ $transport == tcp && $1 == *_lat ]]; then
    echo "$(cell "floor:tcppoll:$2" 3) (socket, polling; blocking: $(cell "floor:tcp:$2" 3))"
  elif [[ $transport == tcp ]]; then
    g=$(median_of "floor:tcp:$2")
    echo "$(cell "floor:tcp:$2" 0 "$(awk -v m="$mib" 'BEGIN {print 1e6 / m}')")" \
         "(socket, $(awk -v g="$g" 'BEGIN {printf("%.2f", g / 1000)}') GB/s)"
  elif [[ $1 == *_lat ]]; then
    awk -v v="$v" 'BEGIN {printf("%.3f (one cache line)", v)}'
  else
    g=$(median_of "floor:cma:$2")
    awk -v v="$v" -v g="$g" -v s="$(human_size "$2")" 'BEGIN {printf("%.0f (CMA %s, %.1f GB/s)", v, s, g)}'
  fi
}
limit_ratio() {  # TORUSKEY TEST SIZE -> torus / limit
  local t l
  t=$(median_of "$1")
  l=$(limit_num "$2" "$3")
  [[ -n $t && -n $l ]] || { echo "n/a"; return; }
  awk -v t="$t" -v l="$l" 'BEGIN {if (l <= 0) print "n/a"; else printf("%.2f", t / l)}'
}

if [[ $transport == tcp ]]; then
  title="torus vs UCX over TCP (loopback, 127.0.0.1)"
  limit_head="kernel limit"
else
  title="torus vs UCX over shared memory"
  limit_head="hardware limit"
fi
{
  echo "# $title"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(uname -n); kernel $(uname -r); $(nproc) CPUs:" \
       "$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)"
  echo "- torus: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)'), $perf${torus_env[0]+, with ${torus_env[*]} on server and client}"
  echo "- UCX: $ucx_version, ucx_perftest with UCX_TLS=$ucx_tls on server and client"
  echo "- transport: $transport; $rounds interleaved rounds$( ((quick)) && echo ' (--quick)'), $elapsed s; servers on CPU $cpu_srv, clients on CPU $cpu_cli;" \
       "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- each cell: median across rounds (min..max across rounds). Latency: one way = round trip / 2," \
       "median of the iterations within a run. Bandwidth: MB/s with MB = 2^20 bytes (as ucx_perftest prints)," \
       "total bytes / total time of a run. torus / limit: the ratio of medians (latency: how many" \
       "times the limit; bandwidth: the fraction of it reached)."
  echo
  echo "## Two processes, one per core"
  echo
  echo "| test | size | iterations | torus | UCX | torus / UCX | $limit_head | torus / limit |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  for c in "${cases[@]}"; do
    test=${c%%:*}
    size=${c##*:}
    if [[ $test == *_lat ]]; then
      label="$test, us one way (lower is better)"; d=3; kind=lat
    else
      label="$test, MB/s (2^20; higher is better)"; d=0; kind=bw
    fi
    echo "| $label | $(human_size "$size") | ${iters[$c]} | $(cell "torus:$c" "$d") |" \
         "$(cell "ucx:$c" "$d") | $(ratio "torus:$c" "ucx:$c" "$kind") |" \
         "$(limit_cell "$test" "$size") | $(limit_ratio "torus:$c" "$test" "$size") |"
  done
  echo
  if [[ $transport == tcp ]]; then
    echo "Kernel limit: floor_tcp, a plain TCP socket over 127.0.0.1 with TCP_NODELAY" \
         "between two processes pinned like the benchmarks (server CPU $cpu_srv, client CPU $cpu_cli)," \
         "run in every round with the same counts: latency, the median one way of a ping-pong" \
         "(the server echoes) whose two ends spin on non-blocking recv as torus and UCX do (the" \
         "same with blocking recv, which adds a sleep and a wake-up per message, in brackets; it is" \
         "not a limit for a library that polls); bandwidth, a stream of writes of that size acknowledged by one byte" \
         "every 32 messages, total bytes / total time (shown in MB = 2^20, with GB/s = 1e9 bytes/s)." \
         "No transport over TCP can do better than the kernel's socket path on this machine."
    echo
    echo "## 4 processes on 2 cores"
    echo
    echo "Skipped over tcp: this report does not run the oversubscribed pairs. They run in the" \
         "shm report (contrib/bench/shm_vs_ucx.sh without --transport)."
  else
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
      iname=torus
      [[ $impl == ucx ]] && iname="UCX"
      echo "| $iname | $(cell "over:$impl:medA" 3) | $(cell "over:$impl:medB" 3) |" \
           "$(cell "over:$impl:meanA" 3) | $(cell "over:$impl:meanB" 3) |"
    done
  fi
  echo
  if ((failures)); then
    echo "**$failures run(s) failed**; their logs are in $raw."
  else
    echo "All runs succeeded. Per-round values: $(basename "$rounds_csv"); logs: $(basename "$raw")/."
  fi
} >"$report"

cat "$report"
((failures == 0)) || exit 1
