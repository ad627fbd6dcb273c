#!/bin/sh
# A clean job: mpirun exits 0, every rank printed its success line, nothing is left.
# usage: run_ok.sh MPIRUN NP LINE-TEMPLATE PROGRAM [ARGS...]
# LINE-TEMPLATE has @R@ for the rank and @N@ for the job size, e.g.
# "ring ok: rank @R@ of @N@ (local @R@ of @N@) via pmi1".
MPIRUN=$1; np=$2; template=$3
shift 3
. "$(dirname "$0")/lib.sh"
run_mpirun -n "$np" --oversubscribe "$@"
expect_rc 0
r=0
while [ $r -lt "$np" ]; do
  line=$(echo "$template" | sed "s/@R@/$r/g; s/@N@/$np/g")
  grep -qxF "$line" "$tmp/out" || fail "missing line '$line'"
  r=$((r + 1))
done
assert_no_leftovers
echo "ok: $np ranks"
