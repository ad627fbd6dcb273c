#!/bin/sh
# mpirun's own errors, each caught before anything starts, with a message that says what is
# wrong: a missing executable, a bad hostfile line, an unknown option, more ranks than slots.
# Also the options that shape a job: hostfile forms, --host, -x/--env, MPMD appnum, --help.
# usage: errors.sh MPIRUN PMI_PROBE
MPIRUN=$1; probe=$2
. "$(dirname "$0")/lib.sh"
flag=$tmp/started

# Missing executable, also as the second program of an MPMD job: the first must not start.
run_mpirun -n 1 sh -c "touch $flag" : -n 1 /no/such/program
expect_rc 1
expect_msg "^mpirun: error: executable '/no/such/program' not found or not executable; nothing was started\$"
[ -e "$flag" ] && fail "a rank was started although a program is missing"
run_mpirun -n 2 no-such-program-anywhere
expect_rc 1
expect_msg "executable 'no-such-program-anywhere' not found in PATH"

# A bad hostfile line is named by file and line number.
printf '# hosts\nlocalhost slots=2\n\nlocalhost frobs=3\n' > "$tmp/hosts"
run_mpirun --hostfile "$tmp/hosts" -n 1 true
expect_rc 1
expect_msg "^mpirun: error: $tmp/hosts:4: unknown attribute \(expected slots=N\): 'localhost frobs=3'\$"
printf 'localhost:x\n' > "$tmp/hosts"
run_mpirun --hostfile "$tmp/hosts" -n 1 true
expect_rc 1
expect_msg "$tmp/hosts:1: expected 'host', 'host:N' or 'host slots=N'"
run_mpirun --hostfile "$tmp/none" -n 1 true
expect_rc 1
expect_msg "cannot open hostfile $tmp/none"

# Unknown option, and options missing their value.
run_mpirun --frobnicate -n 1 true
expect_rc 2
expect_msg "^mpirun: unknown option '--frobnicate'\$"
expect_msg "Run 'mpirun --help' for the options."
run_mpirun -n
expect_rc 2
expect_msg "option '-n' needs a value"
run_mpirun -n 0 true
expect_rc 2
expect_msg "-n needs a positive number of ranks, got '0'"

# More ranks than slots: refused, saying how to allow it.
run_mpirun --host localhost:2 -n 3 true
expect_rc 1
expect_msg "3 ranks were requested but only 2 slots are available \(localhost: 2 slots\)"
expect_msg "Add --oversubscribe"
cores=$(nproc)
run_mpirun -n $((cores + 1)) true
expect_rc 1
expect_msg "one per core"
run_mpirun --host localhost:2 -n 3 --oversubscribe true
expect_rc 0

# Hostfile forms (Open MPI's and MPICH's), comments, and two names of this machine: one node.
printf 'localhost slots=1   # Open MPI form\n127.0.0.1:1\n' > "$tmp/hosts"
run_mpirun --hostfile "$tmp/hosts" -n 2 "$probe"
expect_rc 0
expect_msg "^pmi ok: rank 1 of 2 \(local 1 of 2\) appnum 0\$"

# -x from mpirun's environment and with a value, --env; -x of an unset variable fails.
FOO_LAUNCH=bar; export FOO_LAUNCH
run_mpirun -x FOO_LAUNCH -x QUX_LAUNCH=1 --env BAZ_LAUNCH=qux -n 1 sh -c 'echo "env: $FOO_LAUNCH $QUX_LAUNCH $BAZ_LAUNCH $TORUS_RANK/$TORUS_SIZE $TORUS_LOCAL_RANK/$TORUS_LOCAL_SIZE ${#TORUS_JOB_KEY}"'
expect_rc 0
expect_msg "^env: bar 1 qux 0/1 0/1 32\$"
unset NOT_SET_LAUNCH
run_mpirun -x NOT_SET_LAUNCH -n 1 true
expect_rc 1
expect_msg "NOT_SET_LAUNCH is not set"

# An outer job's PMI variables do not leak into the ranks.
PMI_PORT=1.2.3.4:5; PMI_ID=9; export PMI_PORT PMI_ID
run_mpirun -n 1 sh -c 'echo "outer: ${PMI_PORT:-none} ${PMI_ID:-none}"'
expect_msg "^outer: none none\$"
unset PMI_PORT PMI_ID

# MPMD: appnum per program, one job; `--` before a program.
run_mpirun --oversubscribe -n 1 "$probe" : -n 2 -- "$probe"
expect_rc 0
expect_msg "^pmi ok: rank 0 of 3 \(local 0 of 3\) appnum 0\$"
expect_msg "^pmi ok: rank 1 of 3 \(local 1 of 3\) appnum 1\$"
expect_msg "^pmi ok: rank 2 of 3 \(local 2 of 3\) appnum 1\$"

# --help and --version, under both names.
run_mpirun --help
expect_rc 0
expect_msg "^Usage: mpirun \[OPTION\]"
expect_msg "--oversubscribe"
ln -s "$MPIRUN" "$tmp/mpiexec"
MPIRUN=$tmp/mpiexec run_mpirun --version
expect_rc 0
expect_msg "^mpiexec \(torus\) [0-9]"
MPIRUN=$tmp/mpiexec run_mpirun --bogus
expect_msg "^mpiexec: unknown option '--bogus'"

assert_no_leftovers
echo "ok: errors and options"
