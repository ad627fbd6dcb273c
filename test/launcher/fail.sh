#!/bin/sh
# A job that fails, each way a job can: mpirun's exit status and message are asserted, and
# that no process of the job is left.
# usage: fail.sh CASE MPIRUN PROGRAM
#   CASE: exit3 | kill_self | abort7 | sigint | timeout | malformed | no_finalize
# PROGRAM is torus_boot_ring or test/launcher's pmi_probe; both take --exit-code N
# --at-rank R, --abort N, --kill-self, --sleep-forever (failing rank: 1).
case_=$1; MPIRUN=$2; prog=$3
. "$(dirname "$0")/lib.sh"
rank_at='rank 1 \(pid [0-9]+ on [^)]+\)'

case $case_ in
exit3)
  run_mpirun -n 2 "$prog" --exit-code 3 --at-rank 1
  expect_rc 3
  expect_msg "^[a-z]+: $rank_at exited with code 3\$"
  ;;
kill_self)
  run_mpirun -n 2 "$prog" --kill-self
  expect_rc 137
  expect_msg "^[a-z]+: $rank_at was killed by signal 9 \(SIGKILL\)\$"
  ;;
abort7)
  run_mpirun -n 2 "$prog" --abort 7 --at-rank 1
  expect_rc 7
  expect_msg "^[a-z]+: rank 1 called abort with code 7"
  ;;
malformed)
  run_mpirun -n 2 "$prog" --malformed
  expect_rc 1
  expect_msg "^[a-z]+: $rank_at sent a malformed PMI command .*'this is not a PMI command'"
  ;;
no_finalize)
  run_mpirun -n 2 "$prog" --no-finalize
  expect_rc 1
  expect_msg "exited with code 0 without calling PMI finalize"
  ;;
timeout)
  run_mpirun --timeout 2 -n 2 "$prog" --sleep-forever
  expect_rc 124
  expect_msg "^[a-z]+: the job timed out after 2 seconds"
  [ "$ms" -lt 8000 ] || fail "took $ms ms to end a job with --timeout 2"
  ;;
sigint)
  echo "+ mpirun -n 2 $prog --sleep-forever  (then SIGINT to mpirun)"
  "$MPIRUN" --env LAUNCHER_TEST_MARK="$mark" -n 2 "$prog" --sleep-forever >"$tmp/out" 2>&1 &
  mpid=$!
  wait_for_procs 2
  kill -INT $mpid
  i=0
  while kill -0 $mpid 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 100 ] && { kill -9 $mpid; fail "mpirun did not exit within 10 s of SIGINT"; }
    sleep 0.1
  done
  wait $mpid
  rc=$?
  sed 's/^/  | /' "$tmp/out"
  echo "  exit $rc"
  expect_rc 130
  expect_msg "^[a-z]+: received SIGINT; sending it to the 2 running ranks"
  assert_no_job_shm
  ;;
*)
  fail "unknown case $case_"
  ;;
esac
assert_no_leftovers
echo "ok: $case_"
