#!/bin/sh
# Runs a launcher command line that starts torus_boot_ring and checks the outcome: the exit
# status, and for a clean run every rank's "ring ok" line naming the bootstrap client.
# usage: ring_check.sh CLIENT NP EXPECTED_EXIT COMMAND...
# Exits 77 ("skipped: why") when the launcher is not installed.
client=$1; np=$2; want=$3
shift 3
command -v "$1" >/dev/null 2>&1 || { echo "skipped: $1 is not installed"; exit 77; }
out=$(mktemp /tmp/torus-ring.XXXXXX) || exit 2
trap 'rm -f "$out"' EXIT
echo "+ $*"
start=$(date +%s)
timeout -k 5 60 "$@" >"$out" 2>&1
rc=$?
cat "$out"
echo "exit $rc after $(( $(date +%s) - start )) s"
[ $rc -eq 124 ] && { echo "FAIL: timed out"; exit 1; }
[ "$rc" -eq "$want" ] || { echo "FAIL: exit $rc, expected $want"; exit 1; }
[ "$want" -ne 0 ] && { echo "exit status $rc as expected"; exit 0; }
r=0
while [ $r -lt "$np" ]; do
  # Ranks of one host: local rank = rank, local size = size.
  line="ring ok: rank $r of $np (local $r of $np) via $client"
  grep -qx "$line" "$out" || { echo "FAIL: missing '$line'"; exit 1; }
  r=$((r + 1))
done
echo "all $np ranks ok via $client"
