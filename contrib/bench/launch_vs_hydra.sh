#!/usr/bin/env bash
# Start-up time of a 64-rank job on this machine (oversubscribed), torus's mpirun against
# MPICH's mpiexec.hydra, in interleaved rounds (torus, hydra, hydra-probe, torus, ...):
#   torus        mpirun -n 64 --oversubscribe pmi_probe   (init, put, barrier, get, finalize)
#   hydra        mpiexec.hydra -n 64 mpich_empty          (MPICH's MPI_Init + MPI_Finalize)
#   hydra-probe  mpiexec.hydra -n 64 pmi_probe            (the same program as torus's row:
#                                                         launcher against launcher)
# Prints the median wall time of each and the ratios; writes every run to DIR/launch_vs_hydra.csv.
set -euo pipefail

usage() {
  cat <<'EOF2'
usage: contrib/bench/launch_vs_hydra.sh [-o DIR] [--rounds N] [--np N] [--mpirun PATH]
  -o DIR         where to write launch_vs_hydra.csv and the programs (default bench-results/)
  --rounds N     interleaved rounds (default 5)
  --np N         ranks per job (default 64)
  --mpirun PATH  torus's mpirun (default: build-bench/bin, build/bin or build-launch/bin;
                 else build-bench/ is configured and mpirun built there)
EOF2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/bench-results
rounds=5
np=64
mpirun=""
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --mpirun) mpirun=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
command -v mpiexec.hydra >/dev/null && command -v mpicc.mpich >/dev/null || {
  echo "needs MPICH: apt-get install -y mpich" >&2; exit 1; }
mkdir -p "$out"

if [ -z "$mpirun" ]; then
  for b in build-bench build build-launch; do
    [ -x "$root/$b/bin/mpirun" ] && { mpirun=$root/$b/bin/mpirun; break; }
  done
fi
if [ -z "$mpirun" ]; then
  [ -f "$root/build-bench/CMakeCache.txt" ] ||
    cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release -DTORUS_WERROR=OFF \
      -DTORUS_BUILD_TESTS=OFF >/dev/null
  cmake --build "$root/build-bench" -j"$(nproc)" --target mpirun >/dev/null
  mpirun=$root/build-bench/bin/mpirun
fi

cc -O2 -o "$out/pmi_probe" "$root/test/launcher/pmi_probe.c"
cat > "$out/mpich_empty.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
C
mpicc.mpich -O2 -o "$out/mpich_empty" "$out/mpich_empty.c"

probe_args=(--quiet --get-neighbour)
run_case() {  # prints the wall time of one job in milliseconds
  local t0 t1
  t0=$(date +%s%N)
  case $1 in
    torus) "$mpirun" -n "$np" --oversubscribe "$out/pmi_probe" "${probe_args[@]}" ;;
    hydra) mpiexec.hydra -n "$np" "$out/mpich_empty" ;;
    hydra-probe) mpiexec.hydra -n "$np" "$out/pmi_probe" "${probe_args[@]}" ;;
  esac >/dev/null 2>"$out/launch_stderr.txt" || { echo "$1 failed:" >&2; cat "$out/launch_stderr.txt" >&2; exit 1; }
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 ))
}

cases=(torus hydra hydra-probe)
csv=$out/launch_vs_hydra.csv
echo "round,case,np,ms" > "$csv"
for c in "${cases[@]}"; do run_case "$c" >/dev/null; done  # warm the page cache
for r in $(seq 1 "$rounds"); do
  for c in "${cases[@]}"; do
    ms=$(run_case "$c")
    echo "$r,$c,$np,$ms" >> "$csv"
  done
done

median() { grep ",$1,$np," "$csv" | cut -d, -f4 | sort -n | awk '{ v[NR] = $1 } END {
  print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
t=$(median torus); h=$(median hydra); hp=$(median hydra-probe)
echo "start-up of a $np-rank job on $(nproc) cores, median of $rounds interleaved rounds (ms)"
printf '  %-40s %8s\n' "torus mpirun + pmi_probe" "$t" "hydra + MPICH empty MPI program" "$h" \
  "hydra + pmi_probe (same program)" "$hp"
awk -v t="$t" -v h="$h" -v hp="$hp" 'BEGIN {
  printf "  torus / hydra(MPICH program) = %.2fx\n  torus / hydra(same program)  = %.2fx\n", t / h, t / hp }'
echo "every run: $csv"
