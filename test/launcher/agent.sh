#!/bin/sh
# The remote-rank path on one machine: `--launcher ssh` with TORUS_RSH=local_rsh.sh (a
# stand-in for ssh) starts every rank through the agent, so ranks reach the PMI server over
# PMI_PORT with the initack handshake, and their arguments go through the remote shell's
# quoting. Runs wherever network namespaces are not permitted (netns.sh covers two hosts).
# usage: agent.sh MPIRUN PMI_PROBE [RING]
MPIRUN=$1; probe=$2; ring=$3
. "$(dirname "$0")/lib.sh"
TORUS_RSH="$(cd "$(dirname "$0")" && pwd)/local_rsh.sh"
export TORUS_RSH

run_mpirun --launcher ssh -n 2 "$probe"
expect_rc 0
expect_msg '^pmi ok: rank 0 of 2 \(local 0 of 2\) appnum 0$'
expect_msg '^pmi ok: rank 1 of 2 \(local 1 of 2\) appnum 0$'

# Words with spaces, quotes and $ arrive intact through the remote shell.
run_mpirun --launcher ssh -n 1 printf '[%s]\n' 'a  b' "it's" '$HOME' ''
expect_rc 0
expect_msg '^\[a  b\]$'
expect_msg "^\\[it's\\]\$"
expect_msg '^\[\$HOME\]$'
expect_msg '^\[\]$'

run_mpirun --launcher ssh -n 2 "$probe" --exit-code 5 --at-rank 1
expect_rc 5
expect_msg "^mpirun: rank 1 \(pid [0-9]+ on [^)]+\) exited with code 5\$"
assert_no_leftovers

run_mpirun --launcher ssh -n 2 "$probe" --abort 7
expect_rc 7
expect_msg "^mpirun: rank 1 called abort with code 7"
assert_no_leftovers

if [ -n "$ring" ]; then
  run_mpirun --launcher ssh -n 2 "$ring"
  expect_rc 0
  expect_msg '^ring ok: rank 0 of 2 \(local 0 of 2\) via pmi1$'
  expect_msg '^ring ok: rank 1 of 2 \(local 1 of 2\) via pmi1$'
fi

# An agent that cannot be found is an error before anything starts.
TORUS_RSH=/no/such/rsh run_mpirun --launcher ssh -n 1 "$probe"
expect_rc 1
expect_msg "remote shell \(TORUS_RSH=/no/such/rsh\)"
assert_no_leftovers
echo "ok: ranks through the agent"
