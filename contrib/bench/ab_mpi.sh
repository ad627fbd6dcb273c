#!/bin/bash
# Interleaved A/B of torus variants on one MPI benchmark at 2 ranks (or -n N), each run tagged with the
# vCPU placement measured just before and after it, then medians per placement, variant and
# size. The placement flips within minutes on these VMs; untagged medians mix the two states.
#
# usage: contrib/bench/ab_mpi.sh [-b BUILD] [-r ROUNDS] [-t SECS] [-n RANKS] [-o] [-O] [-p]
#                               BENCH MIN:MAX VARIANT...
#   BENCH    latency, bw, bibw, allreduce, ... (BUILD/bench-mpi/torus/mpi_BENCH)
#   VARIANT  label[:VAR=value[,VAR=value...]]: environment for that variant's mpirun, e.g.
#            base:LD_LIBRARY_PATH=/other/build/lib (another libmpi for the same binaries)
#            or spin:TORUS_SPIN_MAX=5us
#   -o       also run Open MPI's build of the benchmark in each round (label ompi)
#   -O       also run Open MPI with only its TCP BTL over loopback (label ompi_tcp), the peer
#            of a torus variant with TORUS_TLS=tcp
#   -p       also run MPICH's build under its Hydra in each round (label mpich)
#   -b BUILD a build from compare.sh (default build-bench/); -r rounds (5); -t secs a size (0.3)
#   -n RANKS ranks per run (2), each pinned to CPU (local rank mod CPUs), as compare.sh does
# Output: the raw lines "placement label size value" on stdout, then the summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build-bench rounds=5 secs=0.3 np=2 ompi=0 ompi_tcp=0 mpich=0
while getopts "b:r:t:n:oOp" opt; do
  case $opt in
    b) build=$OPTARG ;;
    r) rounds=$OPTARG ;;
    t) secs=$OPTARG ;;
    n) np=$OPTARG ;;
    o) ompi=1 ;;
    O) ompi_tcp=1 ;;
    p) mpich=1 ;;
    *) sed -n '6,18p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [[ $# -lt 3 ]]; then sed -n '6,18p' "$0" >&2; exit 2; fi
bench=$1 range=$2; shift 2
pin=$root/contrib/bench/pin_rank.sh
floor=$build/bench-floor/floor_cacheline
for f in "$floor" "$build/bin/mpirun" "$build/bench-mpi/torus/mpi_$bench"; do
  [[ -x $f ]] || { echo "ab_mpi.sh: $f missing: build it with contrib/bench/compare.sh --smoke" >&2; exit 1; }
done
if [[ $ompi$ompi_tcp == *1* ]] && ! command -v mpirun.openmpi >/dev/null; then
  echo "ab_mpi.sh: -o and -O need Open MPI (contrib/bench/compare.sh installs it)" >&2; exit 1
fi
if [[ $mpich == 1 ]] && ! command -v mpiexec.hydra >/dev/null; then
  echo "ab_mpi.sh: -p needs MPICH's mpiexec.hydra (contrib/bench/compare.sh installs it)" >&2; exit 1
fi

placement() {  # far when a cache line takes over 100 ns one way between the two CPUs
  "$floor" 0 1 20 2000 2>/dev/null | awk '/oneway/ {print ($2 > 100) ? "far" : "near"}'
}
run_tagged() {  # label command...
  local label=$1; shift
  local before after out
  before=$(placement)
  out=$("$@" </dev/null 2>&1 | awk 'NF == 2 && $1 ~ /^[0-9]+$/ {print $1, $2}') || true
  after=$(placement)
  [[ $before == "$after" ]] || before=mixed
  awk -v l="$label" -v p="$before" 'NF == 2 {print p, l, $1, $2}' <<<"$out"
}

raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for r in $(seq 1 "$rounds"); do
  echo "# round $r/$rounds" >&2
  if [[ $ompi == 1 ]]; then
    run_tagged ompi timeout 300 mpirun.openmpi -n "$np" --oversubscribe --bind-to none \
      --allow-run-as-root "$pin" "$build/bench-mpi/openmpi/mpi_$bench" -m "$range" -t "$secs" |
      tee -a "$raw"
  fi
  if [[ $ompi_tcp == 1 ]]; then
    run_tagged ompi_tcp timeout 300 mpirun.openmpi -n "$np" --oversubscribe --bind-to none \
      --allow-run-as-root --mca pml ob1 --mca btl self,tcp --mca btl_tcp_if_include lo "$pin" \
      "$build/bench-mpi/openmpi/mpi_$bench" -m "$range" -t "$secs" | tee -a "$raw"
  fi
  if [[ $mpich == 1 ]]; then
    run_tagged mpich timeout 300 mpiexec.hydra -n "$np" "$pin" \
      "$build/bench-mpi/mpich/mpi_$bench" -m "$range" -t "$secs" | tee -a "$raw"
  fi
  for v in "$@"; do
    label=${v%%:*} envs=()
    if [[ $v == *:* ]]; then IFS=',' read -r -a envs <<<"${v#*:}"; fi
    run_tagged "$label" env "${envs[@]}" timeout 300 "$build/bin/mpirun" -n "$np" --oversubscribe "$pin" \
      "$build/bench-mpi/torus/mpi_$bench" -m "$range" -t "$secs" | tee -a "$raw"
  done
done

echo "# medians: placement label size median n [values]"
awk '{k = $1 " " $2 " " $3; v[k] = v[k] " " $4; n[k]++} END {for (k in v) print k, n[k], v[k]}' "$raw" |
  sort -k1,1 -k3n -k2,2 |
  while read -r p l s n vals; do
    med=$(tr ' ' '\n' <<<"$vals" | sort -g |
      awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')
    printf "%-5s %-10s %9s %12s %2s [%s]\n" "$p" "$l" "$s" "$med" "$n" "$vals"
  done
