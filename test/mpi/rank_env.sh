#!/bin/sh
# rank_env.sh RANK VAR=VALUE PROGRAM [ARG]...: runs PROGRAM with VAR=VALUE set in rank RANK's
# environment only (mpirun -x sets it for every rank), so a test can give the ranks
# different views, as different measurements would.
rank=$1
setting=$2
shift 2
if [ "${TORUS_RANK:-}" = "$rank" ]; then
  export "${setting?}"
fi
exec "$@"
