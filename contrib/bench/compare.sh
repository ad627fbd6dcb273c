#!/usr/bin/env bash
# torus against its peers and against the machine, in one command: installs the peers from
# Debian's packages if missing (UCX's ucx_perftest, Open MPI, MPICH, gnuplot), builds torus,
# then runs interleaved rounds so machine drift hits every side alike:
#   - transport level: torus_perf and ucx_perftest, tag latency and tag bandwidth, over shared
#     memory and over TCP loopback, 1 B to 16 MiB;
#   - MPI level: contrib/bench/mpi's latency, bandwidth, bidirectional bandwidth and allreduce
#     programs, one source built by each MPI's own wrapper, at 2 ranks with torus, torus over
#     TCP, Open MPI (default, and TCP only) and MPICH; allreduce also at 4 ranks on 2 cores;
#   - the machine's limits: cache-line hand-off, one core's memcpy, a plain TCP socket.
# Writes DIR/compare.md (medians with their spread, ratios, limits), DIR/*.png (gnuplot),
# DIR/compare-rounds.csv (every measurement) and DIR/compare-logs/. See README.md.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: contrib/bench/compare.sh [-o DIR] [--quick | --smoke] [--rounds N] [--build DIR]
                                [--no-install] [--no-build] [--systems LIST] [--parts LIST]
                                [--cflags FLAGS] [--update-docs] [--report-only]
  -o DIR          where to write the report, plots and logs (default: bench-results/ at the
                  repository root, which git ignores)
  --quick         3 rounds, sizes in powers of four, shorter runs: under 5 minutes on 2 cores
                  (default: 5 rounds, every power of two, under 30 minutes)
  --smoke         1 round, 1 KiB and 4 KiB, torus only unless --systems says more: checks
                  that the whole pipeline works (the CTest smoke test), not a measurement
  --rounds N      rounds (default 5, --quick 3, --smoke 1)
  --build DIR     torus build folder (default build-bench/; configured Release if it has no
                  CMake cache)
  --no-build      use the torus binaries already in the build folder as they are
  --no-install    never call apt-get; missing peers are left out of the report
  --systems LIST  comma-separated subset of torus,torus_tcp,ucx,ompi,ompi_tcp,mpich
                  (default all; torus_tcp is torus with TORUS_TLS=tcp)
  --parts LIST    comma-separated subset of transport,mpi,limits (default all)
  --cflags FLAGS  extra flags for torus's mpicc when building the MPI benchmarks (the
                  sanitizer build's smoke test passes -fsanitize=...)
  --update-docs   also copy the report and plots into docs/performance.md (between its
                  compare.sh markers) and docs/perf/
  --report-only   measure nothing: remake the report and plots from DIR/compare-rounds.csv
Two processes: CPU 0 and CPU 1 (servers and rank 0 on CPU 0). Exit status 1 when a run failed.
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/bench-results
build=$root/build-bench
mode=full
rounds=""
install=1
do_build=1
update_docs=0
systems_arg=torus,torus_tcp,ucx,ompi,ompi_tcp,mpich
parts_arg=transport,mpi,limits
systems_given=0
cflags=""
report_only=0
while (($#)); do
  case $1 in
    -o) out=${2:?-o needs a folder}; shift 2 ;;
    --quick) mode=quick; shift ;;
    --smoke) mode=smoke; shift ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    --build) build=${2:?--build needs a folder}; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --no-install) install=0; shift ;;
    --systems) systems_arg=${2:?--systems needs a list}; systems_given=1; shift 2 ;;
    --parts) parts_arg=${2:?--parts needs a list}; shift 2 ;;
    --cflags) cflags=${2?--cflags needs flags}; shift 2 ;;
    --update-docs) update_docs=1; shift ;;
    --report-only) report_only=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare.sh: unknown option '$1'" >&2; usage >&2; exit 1 ;;
  esac
done
log() { echo "[compare] $*" >&2; }

# ---- what a run of each mode measures ----
# Transport level: latency round trips and bandwidth messages per size are BYTES / size within
# [MIN, MAX] (transport_iters). MPI level: each size is timed for mpi_seconds after a warm-up
# of a fifth of that (bench.h). Sizes: MIN, then the powers of two up to 16 MiB (--quick:
# every other one, still ending at 16 MiB).
case $mode in
  full) : "${rounds:=5}"; factor=2; min_size=1; max_size=$((16 << 20)); mpi_seconds=0.1
        lat_bytes=$((64 << 20)) lat_max=20000 lat_min=20
        bw_bytes=$((1 << 30)) bw_max=100000 bw_min=64; cacheline_batches=201
        run_timeout=300 ;;
  quick) : "${rounds:=3}"; factor=4; min_size=1; max_size=$((16 << 20)); mpi_seconds=0.02
        lat_bytes=$((16 << 20)) lat_max=5000 lat_min=10
        bw_bytes=$((256 << 20)) bw_max=20000 bw_min=32; cacheline_batches=51
        run_timeout=120 ;;
  smoke) : "${rounds:=1}"; factor=4; min_size=1024; max_size=4096; mpi_seconds=0.005
        lat_bytes=$((1 << 20)) lat_max=500 lat_min=10
        bw_bytes=$((4 << 20)) bw_max=1000 bw_min=32; cacheline_batches=11
        run_timeout=60
        ((systems_given)) || systems_arg=torus ;;
esac
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: bad --rounds '$rounds'" >&2; exit 1; }
sizes=()
for ((s = 1; s <= max_size; s *= 2)); do
  k=0
  for ((q = s; q < max_size; q *= 2)); do k=$((k + 1)); done
  ((s > min_size && k % (factor / 2) == 0)) && sizes+=("$s")
done
sizes=("$min_size" "${sizes[@]}")
# allreduce starts at 8 B (one double, two floats); p2p at min_size.
allreduce_min=$((min_size < 8 ? 8 : min_size))
declare -A nsizes_of=([latency]=${#sizes[@]} [bw]=${#sizes[@]} [bibw]=${#sizes[@]})
n=1  # allreduce_min, then the sizes above it (bench.h's sweep)
for s in "${sizes[@]}"; do ((s > allreduce_min)) && n=$((n + 1)); done
nsizes_of[allreduce]=$n
nsizes_of[put]=${#sizes[@]}
nsizes_of[acc]=$n  # from 8 bytes, as allreduce

has() { [[ ",$1," == *",$2,"* ]]; }
cpu_a=0
cpu_b=1
if (($(nproc) < 2)); then
  log "warning: one CPU online; both sides share it and the numbers mean little"
  cpu_b=0
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
raw=$out/compare-logs
rounds_csv=$out/compare-rounds.csv
failures=0
# shellcheck source=contrib/bench/compare_run.sh
source "$here/compare_run.sh"

# ---- the report and the plots: from $rounds_csv, for $systems, $absent, $elapsed ----
make_report() {
  local ucx_version ompi_version mpich_version commit cpu_model cmdline name title ylabel
  ucx_version=$( ((have_ucx)) && ucx_info -v 2>/dev/null | sed -n 's/^# Version //p' | head -1 || true)
  ompi_version=$(dpkg-query -W -f='${Version}' openmpi-bin 2>/dev/null || true)
  mpich_version=$(dpkg-query -W -f='${Version}' mpich 2>/dev/null || true)
  commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  cpu_model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
  # An if, not `[[ ]] && echo`: a false test would fail the assignment and set -e stop here.
  cmdline=contrib/bench/compare.sh
  if [[ $mode != full ]]; then cmdline+=" --$mode"; fi
  LC_ALL=C awk -F, -f "$here/compare_report.awk" \
    -v out="$out" -v mode="$mode" -v rounds="$rounds" -v elapsed="$elapsed" \
    -v systems="${systems[*]}" -v absent="${absent[*]}" -v failures="$failures" \
    -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" -v host="$(uname -n)" -v kernel="$(uname -r)" \
    -v ncpu="$(nproc)" -v cpu_model="$cpu_model" -v loadavg="$(cut -d' ' -f1-3 /proc/loadavg)" \
    -v commit="$commit" -v ucx_version="${ucx_version:-none}" -v ompi_version="${ompi_version:-none}" \
    -v mpich_version="${mpich_version:-none}" -v cmdline="$cmdline" \
    -v with_plots="$(command -v gnuplot >/dev/null 2>&1 && echo 1 || echo 0)" \
    "$rounds_csv" >"$out/compare.md.tmp"
  # The summary is computed last but printed first: put it in place of its marker.
  [[ -s $out/summary.md ]] || echo "- No peer ran: nothing to compare." >"$out/summary.md"
  awk -v f="$out/summary.md" '$0 == "@SUMMARY@" {while ((getline l < f) > 0) print l; next} {print}' \
    "$out/compare.md.tmp" >"$out/compare.md"
  rm -f "$out/compare.md.tmp" "$out/summary.md"
  plots=0
  if command -v gnuplot >/dev/null 2>&1; then
    while IFS='|' read -r name title ylabel; do
      gnuplot -e "datafile='$out/plot-$name.dat'; outfile='$out/$name.png'; plottitle='$title'; ylab='$ylabel'" \
        "$here/compare_plot.gp" 2>>"$raw/gnuplot.log" && plots=$((plots + 1)) ||
        fail "gnuplot $name" "$raw/gnuplot.log"
    done <"$out/plots.list"
  else
    log "gnuplot not installed: no plots (apt-get install gnuplot-nox)"
  fi
}

finish() {  # the last words of a run; exits
  log "done in $(($(date +%s) - started)) s: $out/compare.md, $plots plots"
  if ((update_docs)); then
    "$here/compare_docs.sh" "$out" "$root/docs/performance.md" "$root/docs/perf" ||
      { log "could not update docs/performance.md"; failures=$((failures + 1)); }
  fi
  cat "$out/compare.md"
  ((failures == 0)) || { log "$failures run(s) failed; see $raw"; exit 1; }
  exit 0
}

if ((report_only)); then
  [[ -s $rounds_csv ]] || { log "no $rounds_csv to report on"; exit 1; }
  mkdir -p "$raw"
  started=$(date +%s)
  rounds=$(awk -F, 'NR > 1 && $1 > r {r = $1} END {print r + 0}' "$rounds_csv")
  elapsed="?"
  systems=$(awk -F, 'NR > 1 && $2 !~ /^limit_/ {print $3}' "$rounds_csv" | sort -u |
            awk '{printf("%s%s", NR > 1 ? " " : "", $0)}')
  absent=""
  have_ucx=0
  command -v ucx_perftest >/dev/null 2>&1 && have_ucx=1
  make_report
  finish
fi
rm -rf "$raw"
mkdir -p "$raw"
echo "round,group,system,size,value" >"$rounds_csv"
trap kill_children EXIT
trap 'log "interrupted"; exit 130' INT TERM

# ---- the peers, from Debian's packages ----
# Installing Open MPI makes it the system's default mpicc/mpirun (update-alternatives); the
# choice that was there before is put back, so other software on the machine sees no change.
pkg_missing() {
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  echo "${missing[*]}"
}
install_packages() {
  local missing apt alt before=()
  missing=$(pkg_missing cmake g++ make libboost-dev ucx-utils openmpi-bin libopenmpi-dev mpich \
                        libmpich-dev gnuplot-nox)
  [[ -n $missing ]] || return 0
  if ((!install)); then log "missing packages (not installing: --no-install): $missing"; return 0; fi
  apt=(env DEBIAN_FRONTEND=noninteractive)
  if [[ $(id -u) != 0 ]]; then
    if sudo -n true 2>/dev/null; then apt=(sudo -n "${apt[@]}"); else
      log "missing packages: $missing; install them with 'sudo apt-get install -y $missing'"
      return 0
    fi
  fi
  for alt in mpi mpirun mpi-x86_64-linux-gnu; do
    before+=("$alt=$(readlink -f "/etc/alternatives/$alt" 2>/dev/null || true)")
  done
  log "installing from Debian: $missing"
  # shellcheck disable=SC2086  # a list of package names
  timeout 900 "${apt[@]}" apt-get install -y --no-install-recommends $missing >"$raw/apt.log" 2>&1 ||
    { timeout 900 "${apt[@]}" apt-get update >>"$raw/apt.log" 2>&1 &&
      timeout 900 "${apt[@]}" apt-get install -y --no-install-recommends $missing \
        >>"$raw/apt.log" 2>&1; } ||
    log "apt-get failed (log: $raw/apt.log); going on with what is installed"
  for alt in "${before[@]}"; do
    [[ -n ${alt#*=} && -e ${alt#*=} ]] || continue
    [[ $(readlink -f "/etc/alternatives/${alt%%=*}" 2>/dev/null) == "${alt#*=}" ]] ||
      "${apt[@]}" update-alternatives --set "${alt%%=*}" "${alt#*=}" >>"$raw/apt.log" 2>&1 || true
  done
}
install_packages

# ---- torus: build (incremental) ----
torus_perf=$build/bin/torus_perf
torus_mpirun=$build/bin/mpirun
if ((do_build)); then
  if [[ ! -f $build/CMakeCache.txt ]]; then
    log "configuring torus in $build (Release)"
    # Warnings are not errors here: a benchmark build must not stop on a new compiler's warning.
    timeout 600 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTORUS_WERROR=OFF \
      -DTORUS_BUILD_TESTS=OFF >"$raw/cmake.log" 2>&1 ||
      { tail -30 "$raw/cmake.log" >&2; log "cmake failed (log: $raw/cmake.log)"; exit 1; }
  fi
  log "building torus_perf, libmpi and mpirun in $build"
  timeout 1800 cmake --build "$build" -j"$(nproc)" --target torus_perf torus_mpi mpirun \
    >"$raw/build.log" 2>&1 ||
    { tail -30 "$raw/build.log" >&2; log "build failed (log: $raw/build.log)"; exit 1; }
fi
for f in "$torus_perf" "$torus_mpirun" "$build/bin/mpicc"; do
  [[ -x $f ]] || { log "missing $f (build torus_perf, torus_mpi and mpirun in $build)"; exit 1; }
done

# ---- the programs: floors with cc, the MPI benchmarks with each MPI's wrapper ----
floor_bin=$build/bench-floor
bench_bin=$build/bench-mpi
mkdir -p "$floor_bin"
for f in floor_cacheline floor_memcpy floor_tcp; do
  cc -O2 -Wall -o "$floor_bin/$f" "$here/$f.c" 2>>"$raw/compile.log" ||
    { log "cannot build $f (log: $raw/compile.log)"; exit 1; }
done
have_ucx=0
command -v ucx_perftest >/dev/null 2>&1 && have_ucx=1
declare -A wrapper=([torus]=$build/bin/mpicc [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
declare -A built=()
for w in torus openmpi mpich; do
  has "$parts_arg" mpi || break
  case $w in  # only the wrappers of the systems asked for
    openmpi) has "$systems_arg" ompi || has "$systems_arg" ompi_tcp || continue ;;
    mpich) has "$systems_arg" mpich || continue ;;
  esac
  command -v "${wrapper[$w]}" >/dev/null 2>&1 || continue
  mkdir -p "$bench_bin/$w"
  ok=1
  extra=()
  [[ $w == torus && -n $cflags ]] && read -r -a extra <<<"$cflags"
  for b in latency bw bibw allreduce put acc; do
    src=$b defs=()
    [[ $b == acc ]] && src=put defs=(-DBENCH_ACCUMULATE)  # one source, two programs
    "${wrapper[$w]}" -O2 ${extra[@]+"${extra[@]}"} ${defs[@]+"${defs[@]}"} \
      -o "$bench_bin/$w/mpi_$b" "$here/mpi/mpi_$src.c" >>"$raw/compile.log" 2>&1 ||
      { ok=0; log "cannot build mpi_$b with ${wrapper[$w]} (log: $raw/compile.log)"; }
  done
  ((ok)) && built[$w]=1
done
if has "$parts_arg" mpi && ! ((${built[torus]:-0})); then
  log "the MPI benchmarks do not build with torus's mpicc (log: $raw/compile.log)"
  exit 1
fi

# The systems that can run here, in the order of the report's columns.
systems=()
absent=()
for s in torus torus_tcp ucx ompi ompi_tcp mpich; do
  has "$systems_arg" "$s" || continue
  case $s in  # a system none of the asked parts runs is neither run nor missing
    ucx) has "$parts_arg" transport || continue ;;
    torus_tcp|ompi|ompi_tcp|mpich) has "$parts_arg" mpi || continue ;;
  esac
  case $s in
    ucx) ok=$have_ucx ;;
    ompi|ompi_tcp) ok=$( ((${built[openmpi]:-0})) && command -v mpirun.openmpi >/dev/null && echo 1 || echo 0) ;;
    mpich) ok=$( ((${built[mpich]:-0})) && command -v mpiexec.hydra >/dev/null && echo 1 || echo 0) ;;
    *) ok=1 ;;
  esac
  if ((ok)); then systems+=("$s"); else absent+=("$s"); fi
done
((${#absent[@]} == 0)) || log "not installed, left out: ${absent[*]}"
ompi_root=""
[[ $(id -u) == 0 ]] && ompi_root=--allow-run-as-root
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The launchers' own variables must come from the launcher that starts each job.
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE MPI_LOCALRANKID MPI_LOCALNRANKS TORUS_TLS
sel() {  # LIST...: those of the arguments that are in $systems, in that order
  local s t
  for s in "$@"; do for t in "${systems[@]}"; do [[ $s == "$t" ]] && echo "$s"; done; done
}
rotate() {  # N ITEMS...: the items starting at index N mod count, so no one always runs first
  local n=$1 i
  shift
  for ((i = 0; i < $#; i++)); do echo "${@:$(((n + i) % $# + 1)):1}"; done
}
mapfile -t transport_impls < <(sel torus ucx)
mapfile -t mpi2_systems < <(sel torus torus_tcp ompi ompi_tcp mpich)
mapfile -t mpi4_systems < <(sel torus ompi mpich)
mpi_args=(-f "$factor" -t "$mpi_seconds" -n 100000)

# ---- the rounds ----
started=$(date +%s)
log "$mode run: $rounds rounds, sizes ${sizes[0]} B to $max_size B; systems: ${systems[*]};" \
    "logs in $raw"
for ((r = 1; r <= rounds; r++)); do
  log "round $r/$rounds ($(($(date +%s) - started)) s so far)"
  t0=$(date +%s)
  if has "$parts_arg" transport && ((${#transport_impls[@]})); then
    for tr in shm tcp; do
      for test in tag_lat tag_bw; do
        while read -r impl; do
          transport_sweep "$r" "$tr" "$test" "$impl"
        done < <(rotate "$r" "${transport_impls[@]}")
      done
    done
  fi
  t1=$(date +%s)
  if has "$parts_arg" limits; then limits_round "$r"; fi
  t2=$(date +%s)
  if has "$parts_arg" mpi; then
    for b in latency bw bibw allreduce; do
      lo=$min_size
      [[ $b == allreduce ]] && lo=$allreduce_min
      while read -r sys; do
        mpi_job "$r" "mpi_$b" "$sys" "$b" 2 -m "$lo:$max_size" "${mpi_args[@]}"
      done < <(rotate "$r" "${mpi2_systems[@]}")
    done
    while read -r sys; do
      mpi_job "$r" mpi4_allreduce "$sys" allreduce 4 -m "$allreduce_min:$max_size" "${mpi_args[@]}"
    done < <(rotate "$r" "${mpi4_systems[@]}")
    # One-sided, over shared memory only: a put or an accumulate, then a flush.
    for b in put acc; do
      lo=$min_size
      [[ $b == acc ]] && lo=$allreduce_min
      while read -r sys; do
        mpi_job "$r" "mpi_$b" "$sys" "$b" 2 -m "$lo:$max_size" "${mpi_args[@]}"
      done < <(rotate "$r" "${mpi4_systems[@]}")
    done
  fi
  log "round $r: transport $((t1 - t0)) s, limits $((t2 - t1)) s, MPI $(($(date +%s) - t2)) s"
done
elapsed=$(($(date +%s) - started))
make_report
finish
