# Sourced by compare.sh: how one measurement of each kind runs and what it records.
#   transport_sweep  torus_perf or ucx_perftest over every size (server and client pairs);
#   mpi_job          one MPI benchmark program under torus's mpirun, Open MPI or MPICH;
#   limits_round     the machine's limits: floor_cacheline, floor_memcpy, floor_tcp.
# Every value goes to $rounds_csv as "round,group,system,size,value" with latency in us
# (one way) and bandwidth in MB/s with MB = 10^6 bytes (torus_perf and ucx_perftest print
# 2^20; they are converted here, so the whole report has one unit). Every process runs under
# `timeout -k 5` (a process that blocks SIGTERM, as a torus_perf server waiting for its client
# does, is killed 5 s later); background servers are killed on exit (the caller's trap runs
# kill_children).
# A failed run is logged, counted in $failures and leaves its point empty.

bg_pids=()
kill_children() {
  local p
  for p in ${bg_pids[@]+"${bg_pids[@]}"}; do kill "$p" 2>/dev/null || true; done
}

record() {  # ROUND GROUP SYSTEM SIZE VALUE
  echo "$1,$2,$3,$4,$5" >>"$rounds_csv"
}

fail() {  # WHAT LOG
  log "FAILED: $1; log: $2"
  tail -5 "$2" >&2 2>/dev/null || true
  failures=$((failures + 1))
}

# ---- ports: a fresh one per server, never one in use or in TIME_WAIT ----
next_port=$((20000 + RANDOM % 20000))
port_hex() { printf '%04X' "$1"; }
port_used() {
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
    sleep 0.02
  done
  return 1
}
reap() {  # PID: waits up to 15 s for a server that should be exiting, then kills it
  local i
  for ((i = 0; i < 300; i++)); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.02
  done
  kill "$1" 2>/dev/null || true
  wait "$1"
}

# ---- transport level: a sweep of sizes, one tool, server on CPU 0 and client on CPU 1 ----
# Iterations: latency counts round trips, bandwidth counts messages; both tools get the same
# count and warm-up (a tenth, at least 20) at every size, scaled so every size moves about the
# same bytes. The warm-up floor matters at the large sizes: ucx_perftest's batch reaches them
# warm from the smaller ones, torus_perf in a fresh process pair, whose first milliseconds
# are slow (tag_lat 4 MiB between far cores: 420-490 us after 2 warm-ups, 230 after 20; see
# docs/performance-history.md, 2026-12-06, dd6e186). ucx_perftest runs the whole sweep as one batch (-b: one
# line per size, given to server and client); torus_perf takes one count for all its sizes
# (-n), so it runs once per group of sizes that share a count (all the small ones, then one
# or two per large size).
transport_iters() {  # TEST SIZE -> "ITERS WARMUP"
  local budget nmax nmin
  if [[ $1 == tag_lat ]]; then
    budget=$lat_bytes nmax=$lat_max nmin=$lat_min
  else
    budget=$bw_bytes nmax=$bw_max nmin=$bw_min
  fi
  awk -v b="$budget" -v s="$2" -v hi="$nmax" -v lo="$nmin" 'BEGIN {n = int(b / s);
    if (n > hi) n = hi; if (n < lo) n = lo; w = int(n / 10); if (w < 20) w = 20; print n, w}'
}

# transport_pair IMPL TR LOG_PREFIX CLIENT_ARGS...: one server and one client; the client's
# output in LOG_PREFIX.client.log. Returns the client's exit status (1 if the server did not start).
transport_pair() {
  local impl=$1 tr=$2 prefix=$3 rc=0 spid env_vars=() server_args=()
  shift 3
  if [[ $impl == torus ]]; then
    [[ $tr == tcp ]] && env_vars=(TORUS_TLS=tcp)
  else
    env_vars=(UCX_TLS="$([[ $tr == tcp ]] && echo tcp || echo sm)")
    [[ $1 == -b ]] && server_args=(-b "$2")  # a batch must be given to the server too
  fi
  free_port
  if [[ $impl == torus ]]; then
    env ${env_vars[@]+"${env_vars[@]}"} timeout -k 5 "$run_timeout" "$torus_perf" -p "$PORT" \
      --cpu "$cpu_a" </dev/null >"$prefix.server.log" 2>&1 &
  else
    env "${env_vars[@]}" timeout -k 5 "$run_timeout" taskset -c "$cpu_a" ucx_perftest -p "$PORT" \
      "${server_args[@]}" </dev/null >"$prefix.server.log" 2>&1 &
  fi
  spid=$!
  bg_pids+=("$spid")
  if ! wait_listening "$PORT" "$spid"; then
    kill "$spid" 2>/dev/null || true
    echo "the server did not start (see $prefix.server.log)" >"$prefix.client.log"
    return 1
  fi
  if [[ $impl == torus ]]; then
    env ${env_vars[@]+"${env_vars[@]}"} timeout -k 5 "$run_timeout" "$torus_perf" 127.0.0.1 \
      -p "$PORT" --cpu "$cpu_b" --csv "$@" </dev/null >"$prefix.client.log" 2>&1 || rc=$?
  else
    env "${env_vars[@]}" timeout -k 5 "$run_timeout" taskset -c "$cpu_b" ucx_perftest 127.0.0.1 \
      -p "$PORT" -f -v "$@" </dev/null >"$prefix.client.log" 2>&1 || rc=$?
  fi
  ((rc == 0)) || kill "$spid" 2>/dev/null || true
  reap "$spid" || true
  return "$rc"
}

transport_sweep() {  # ROUND TRANSPORT(shm|tcp) TEST IMPL(torus|ucx)
  local r=$1 tr=$2 test=$3 impl=$4 prefix size n w rc got=0 key list v
  prefix=$raw/r$r.$tr.$test.$impl
  if [[ $impl == ucx ]]; then
    : >"$prefix.batch"
    for size in "${sizes[@]}"; do
      read -r n w <<<"$(transport_iters "$test" "$size")"
      echo "s$size -t $test -s $size -n $n -w $w" >>"$prefix.batch"
    done
    rc=0
    transport_pair ucx "$tr" "$prefix" -b "$prefix.batch" || rc=$?
    # name,iterations,50.0_percentile_lat,avg_lat,overall_lat,avg_bw,overall_bw (2^20),...
    while IFS=, read -r size v; do
      record "$r" "${tr}_$test" ucx "$size" "$v"
      got=$((got + 1))
    done < <(awk -F, -v t="$test" '$1 ~ /^s[0-9]+$/ && NF >= 9 {
               print substr($1, 2) "," ((t ~ /_bw$/) ? $7 * 1.048576 : $3)}' "$prefix.client.log")
    ((rc == 0 && got == ${#sizes[@]})) ||
      fail "ucx $tr $test round $r (exit $rc, $got of ${#sizes[@]} sizes)" "$prefix.client.log"
    return 0
  fi
  # torus_perf: one pair per group of sizes with the same counts, in size order.
  local groups=() g bad=0
  declare -A members=()
  for size in "${sizes[@]}"; do
    key=$(transport_iters "$test" "$size")
    [[ -n ${members[$key]:-} ]] || groups+=("$key")
    members[$key]="${members[$key]:+${members[$key]},}$size"
  done
  for g in "${groups[@]}"; do
    read -r n w <<<"$g"
    list=${members[$g]}
    rc=0
    transport_pair torus "$tr" "$prefix.n$n" -t "$test" -s "$list" -n "$n" -w "$w" || rc=$?
    # test,size,iters,lat_us_median,lat_us_p99,bw_MBps (2^20)
    while IFS=, read -r size v; do
      record "$r" "${tr}_$test" torus "$size" "$v"
      got=$((got + 1))
    done < <(awk -F, -v t="$test" '$1 == t && NF == 6 {
               print $2 "," ((t ~ /_bw$/) ? $6 * 1.048576 : $4)}' "$prefix.n$n.client.log")
    ((rc == 0)) || { fail "torus $tr $test sizes $list round $r (exit $rc)" "$prefix.n$n.client.log"; bad=1; }
  done
  ((bad || got == ${#sizes[@]})) ||
    fail "torus $tr $test round $r ($got of ${#sizes[@]} sizes)" "$prefix.n$n.client.log"
}

# ---- MPI level: one benchmark program, all its sizes, under one MPI ----
# launcher_of SYSTEM NP: the command line that starts NP ranks (each through pin_rank.sh).
launcher_of() {
  case $1 in
    torus|torus_tcp) echo "$torus_mpirun -n $2 --oversubscribe --timeout $run_timeout" ;;
    ompi) echo "mpirun.openmpi -n $2 --oversubscribe --bind-to none $ompi_root" ;;
    ompi_tcp) echo "mpirun.openmpi -n $2 --oversubscribe --bind-to none $ompi_root --mca pml ob1 --mca btl self,tcp --mca btl_tcp_if_include lo" ;;
    mpich) echo "mpiexec.hydra -n $2" ;;
  esac
}
exe_of() {  # SYSTEM BENCH: the program built by that MPI's own wrapper
  case $1 in
    torus|torus_tcp) echo "$bench_bin/torus/mpi_$2" ;;
    ompi|ompi_tcp) echo "$bench_bin/openmpi/mpi_$2" ;;
    mpich) echo "$bench_bin/mpich/mpi_$2" ;;
  esac
}

mpi_job() {  # ROUND GROUP SYSTEM BENCH NP ARGS...
  local r=$1 group=$2 sys=$3 bench=$4 np=$5 log rc=0 env_vars=() launch n
  shift 5
  log=$raw/r$r.$group.$sys.log
  [[ $sys == torus_tcp ]] && env_vars=(TORUS_TLS=tcp)
  read -r -a launch <<<"$(launcher_of "$sys" "$np")"
  # stdin from /dev/null: launchers forward theirs to rank 0, and the caller's loop reads its own.
  env ${env_vars[@]+"${env_vars[@]}"} timeout -k 5 "$run_timeout" "${launch[@]}" "$here/pin_rank.sh" \
    "$(exe_of "$sys" "$bench")" "$@" </dev/null >"$log" 2>&1 || rc=$?
  n=0
  while read -r size v; do
    record "$r" "$group" "$sys" "$size" "$v"
    n=$((n + 1))
  done < <(awk 'NF == 2 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/' "$log")
  if ((rc != 0)) || ((n != nsizes_of[$bench])); then
    fail "$sys $group round $r (exit $rc, $n of ${nsizes_of[$bench]} sizes)" "$log"
  fi
}

# ---- the machine's limits, measured in every round ----
limits_round() {  # ROUND
  local r=$1 v what sz cases=() s n
  v=$(timeout -k 5 60 "$floor_bin/floor_cacheline" "$cpu_a" "$cpu_b" "$cacheline_batches" 2000 \
        2>>"$raw/limits.log" | awk '/^floor_cacheline_oneway_ns/ {print $2 / 1000}' || true)
  if [[ -n $v ]]; then record "$r" limit_cacheline cacheline 64 "$v"; else
    fail "floor_cacheline round $r" "$raw/limits.log"; fi
  n=0
  while read -r _ sz v; do
    record "$r" limit_memcpy memcpy "$sz" "$(awk -v g="$v" 'BEGIN {print g * 1000}')"
    n=$((n + 1))
  done < <(timeout -k 5 120 "$floor_bin/floor_memcpy" "$cpu_b" "${sizes[@]}" 2>>"$raw/limits.log" |
             grep '^floor_memcpy_GBps' || true)
  ((n == ${#sizes[@]})) || fail "floor_memcpy round $r ($n of ${#sizes[@]} sizes)" "$raw/limits.log"
  # floor_tcp: the spinning ping-pong (as torus and UCX poll) and the stream, every size, with
  # the transport tests' counts (the ping-pong's warm-up is floor_tcp's own).
  for s in "${sizes[@]}"; do
    read -r n _ <<<"$(transport_iters tag_lat "$s")"
    cases+=("poll:$s:$n")
    read -r n _ <<<"$(transport_iters tag_bw "$s")"
    cases+=("bw:$s:$n")
  done
  n=0
  while read -r what sz v; do
    case $what in
      floor_tcp_poll_us) record "$r" limit_tcp_lat tcp "$sz" "$v" ;;
      floor_tcp_MBps) record "$r" limit_tcp_bw tcp "$sz" "$v" ;;  # already MB = 10^6
      *) continue ;;
    esac
    n=$((n + 1))
  done < <(FLOOR_TCP_TIMEOUT=$((run_timeout - 10)) timeout -k 5 "$run_timeout" "$floor_bin/floor_tcp" \
             "$cpu_a" "$cpu_b" "${cases[@]}" 2>>"$raw/limits.log" | grep '^floor_tcp_' || true)
  ((n == ${#cases[@]})) || fail "floor_tcp round $r ($n of ${#cases[@]} numbers)" "$raw/limits.log"
}
