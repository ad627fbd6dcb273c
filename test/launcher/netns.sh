#!/bin/sh
# Two hosts without a second machine: two network namespaces joined by a veth pair, with
# 10.x addresses that exist inside the namespaces only. mpirun runs in the first; the
# hostfile names both by address; the rank of the second starts through the remote-shell
# path (TORUS_RSH=netns_rsh.sh, standing in for ssh) and reaches the PMI server over
# PMI_PORT. First the PMI probe (launcher alone), then the torus ring over tcp.
# usage: netns.sh MPIRUN PMI_PROBE [RING]
# Exits 77 ("skipped: why") when network namespaces cannot be created here.
MPIRUN=$1; probe=$2; ring=$3
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
a=tla$$; b=tlb$$
# A subnet of its own per run, so concurrent runs do not collide.
net="10.$((200 + $$ % 50)).$(( ($$ / 50) % 250 ))"
ip netns add "$a" 2>"$tmp/err" || { echo "skipped: ip netns add is not permitted ($(cat "$tmp/err"))"; exit 77; }
trap 'cleanup_job; ip netns del "$a" 2>/dev/null; ip netns del "$b" 2>/dev/null; rm -rf "$tmp"' EXIT
ip netns add "$b" || fail "ip netns add $b"
ip link add "va$$" type veth peer name "vb$$" || fail "cannot create a veth pair"
ip link set "va$$" netns "$a" && ip link set "vb$$" netns "$b" || fail "cannot move the veth ends"
ip -n "$a" addr add "$net.1/24" dev "va$$" && ip -n "$b" addr add "$net.2/24" dev "vb$$" ||
  fail "cannot set addresses"
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
ip -n "$a" link set "va$$" up && ip -n "$b" link set "vb$$" up || fail "cannot bring the link up"
printf '%s slots=1\n%s slots=1\n' "$net.1" "$net.2" > "$tmp/hosts"
echo "namespaces $a ($net.1, mpirun) and $b ($net.2)"

netns_mpirun() {
  echo "+ ip netns exec $a mpirun --hostfile hosts $*"
  start_ns=$(date +%s%N)
  TORUS_RSH="$here/netns_rsh.sh" timeout -k 5 60 ip netns exec "$a" \
    "$MPIRUN" --env LAUNCHER_TEST_MARK="$mark" --hostfile "$tmp/hosts" "$@" >"$tmp/out" 2>&1
  rc=$?
  sed 's/^/  | /' "$tmp/out"
  echo "  exit $rc after $(( ($(date +%s%N) - start_ns) / 1000000 )) ms"
}

netns_mpirun -n 2 "$probe"
expect_rc 0
expect_msg '^pmi ok: rank 0 of 2 \(local 0 of 1\) appnum 0$'
expect_msg '^pmi ok: rank 1 of 2 \(local 0 of 1\) appnum 0$'
assert_no_leftovers

# A remote rank that fails is reported with its host, and the job ends.
netns_mpirun -n 2 "$probe" --exit-code 5 --at-rank 1
expect_rc 5
expect_msg "rank 1 \(pid [0-9]+ on $net.2\) exited with code 5"
assert_no_leftovers

if [ -n "$ring" ]; then
  netns_mpirun -n 2 --env TORUS_TLS=tcp "$ring"
  expect_rc 0
  expect_msg '^ring ok: rank 0 of 2 \(local 0 of 1\) via pmi1$'
  expect_msg '^ring ok: rank 1 of 2 \(local 0 of 1\) via pmi1$'
  assert_no_leftovers
fi
echo "ok: two namespaces"
