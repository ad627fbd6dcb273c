# Helpers shared by the launcher tests (sourced). Every job gets a unique marker in its ranks'
# environment (--env LAUNCHER_TEST_MARK=...), so that a test can prove that no process of
# the job is left once mpirun has returned.
# Needs MPIRUN set by the caller.

mark="l$$_$(date +%s%N)"
tmp=$(mktemp -d /tmp/torus-launch.XXXXXX) || exit 2
trap 'cleanup_job; rm -rf "$tmp"' EXIT

fail() {
  echo "FAIL: $*"
  exit 1
}

# Pids of the processes that carry this test's marker.
job_pids() {
  for e in /proc/[0-9]*/environ; do
    if grep -qsa "LAUNCHER_TEST_MARK=$mark" "$e" 2>/dev/null; then
      p=${e#/proc/}
      echo "${p%/environ}"
    fi
  done
}

cleanup_job() {
  for p in $(job_pids); do kill -9 "$p" 2>/dev/null; done
}

# Fails when a process of the job is still there once mpirun has returned. mpirun reaps
# its ranks before it exits, so this is checked at once; a SIGKILLed grandchild is given
# 0.5 s to finish dying.
assert_no_leftovers() {
  left=$(job_pids)
  if [ -n "$left" ]; then
    sleep 0.5
    left=$(job_pids)
  fi
  if [ -n "$left" ]; then
    for p in $left; do echo "left over: $p $(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)"; done
    fail "processes of the job outlived mpirun"
  fi
}

# run_mpirun ARGS...: runs mpirun with the marker, output in $tmp/out, exit status in $rc,
# mpirun's pid in $mpid, wall time in $ms. A hung mpirun is killed after 60 s and fails.
run_mpirun() {
  echo "+ mpirun $*"
  start_ns=$(date +%s%N)
  "$MPIRUN" --env LAUNCHER_TEST_MARK="$mark" "$@" >"$tmp/out" 2>&1 &
  mpid=$!
  i=0
  while kill -0 $mpid 2>/dev/null && [ "$(awk '{print $3}' /proc/$mpid/stat 2>/dev/null)" != Z ]; do
    i=$((i + 1))
    if [ $i -gt 1200 ]; then
      kill -9 $mpid
      fail "mpirun hung (killed after 60 s)"
    fi
    sleep 0.05
  done
  wait $mpid
  rc=$?
  ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
  sed 's/^/  | /' "$tmp/out" | head -40
  echo "  exit $rc after $ms ms"
  assert_no_job_shm
}

# Fails when shared memory of the job mpirun $mpid ran is left in /dev/shm (mpirun removes
# it at exit, even for ranks that crashed).
assert_no_job_shm() {
  left=$(ls /dev/shm 2>/dev/null | grep "^torus-mpirun_${mpid}_")
  [ -z "$left" ] || fail "shared memory of the job left in /dev/shm: $left"
}

expect_rc() {
  [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1"
}

# expect_msg REGEX: mpirun's output has a line matching the extended regular expression.
expect_msg() {
  grep -Eq -- "$1" "$tmp/out" || fail "no line matches /$1/"
}

expect_no_msg() {
  if grep -Eq -- "$1" "$tmp/out"; then fail "unexpected line matching /$1/"; fi
}

# wait_for_procs N: waits (deadline 20 s) until N processes carry the marker.
wait_for_procs() {
  i=0
  while [ "$(job_pids | wc -l)" -lt "$1" ]; do
    i=$((i + 1))
    [ $i -gt 200 ] && fail "the job's $1 processes did not all start within 20 s"
    sleep 0.1
  done
}
