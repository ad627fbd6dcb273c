#!/bin/sh
# Two "hosts" as network namespaces joined by a veth pair (10.77.x addresses inside them
# only): torus_perf server in one, client in the other, every size class with data checked;
# again with 5% of packets dropped (nftables); then the link is cut mid-transfer and both
# sides must end (data intact or a clean error), never hang.
# usage: netns_test.sh BIN_DIR; exit 77 (skipped) where namespaces cannot be created.
set -u
bin=$1
tag="tn$$"
a="${tag}a"; b="${tag}b"
fail() { echo "FAILED: $*"; exit 1; }
cleanup() {
  [ -n "${srv:-}" ] && kill "$srv" 2>/dev/null
  ip netns del "$a" 2>/dev/null; ip netns del "$b" 2>/dev/null
  rm -f "/tmp/$tag.srv" "/tmp/$tag.cli"
}
trap cleanup EXIT INT TERM
if ! ip netns add "$a" 2>/dev/null; then echo "skipped: cannot create network namespaces (ip netns add: not permitted)"; exit 77; fi
ip netns add "$b" || fail "ip netns add $b"
ip link add "v$a" type veth peer name "v$b" || { echo "skipped: no veth support"; exit 77; }
ip link set "v$a" netns "$a" && ip link set "v$b" netns "$b" || fail "moving veth ends"
ip -n "$a" addr add 10.77.0.1/24 dev "v$a" && ip -n "$b" addr add 10.77.0.2/24 dev "v$b" || fail "addresses"
for n in "$a" "$b"; do ip -n "$n" link set lo up; done
ip -n "$a" link set "v$a" up && ip -n "$b" link set "v$b" up || fail "links up"

# The default keepalive (10 s, so 40 s of unacknowledged data ends a connection) for the
# clean and lossy runs: a 1 s interval would allow 4 s, which a chain of retransmission
# timeouts at 5% loss can exceed on a busy machine. The link cut uses 1 s to end quickly.
export TORUS_JOB_KEY=netns-test-key
port=13399
sizes=0,1,8,100,1k,4k,16k,64k,100k,1m,4m

run() {  # run LABEL TEST SIZES ITERS: one server/client pair, returns the client's status
  ip netns exec "$a" "$bin/torus_perf" -p $port --timeout 60 > "/tmp/$tag.srv" 2>&1 &
  srv=$!
  sleep 0.3
  timeout 120 ip netns exec "$b" "$bin/torus_perf" 10.77.0.1 -p $port -t "$2" -s "$3" \
    -n "$4" --check --csv > "/tmp/$tag.cli" 2>&1
  rc=$?
  wait "$srv"; src=$?
  srv=""
  echo "--- $1: client rc=$rc server rc=$src"; cat "/tmp/$tag.cli"
  [ $rc -eq 0 ] && [ $src -eq 0 ] || { echo "--- $1: the server's output"; cat "/tmp/$tag.srv"; }
  [ $rc -ne 124 ] || fail "$1: the client hung"
  return $rc
}

run "clean link" tag_lat $sizes 20 || fail "clean link: client failed"
grep -q "tag_lat,4194304" "/tmp/$tag.cli" || fail "clean link: 4m result missing"

ip netns exec "$b" nft add table inet "$tag" &&
ip netns exec "$b" nft add chain inet "$tag" out '{ type filter hook output priority 0; }' &&
ip netns exec "$b" nft add rule inet "$tag" out ip daddr 10.77.0.1 numgen random mod 100 '<' 5 drop ||
  fail "nftables drop rule"
run "5% loss" tag_lat $sizes 10 || fail "5% loss: client failed (TCP must recover)"
grep -q "tag_lat,4194304" "/tmp/$tag.cli" || fail "5% loss: 4m result missing"
ip netns exec "$b" nft delete table inet "$tag"

# Link cut: a long bandwidth run, the veth goes down after a second.
export TORUS_KEEPALIVE_INTERVAL=1s
( sleep 1.5; ip -n "$b" link set "v$b" down ) &
start=$(date +%s)
run "link cut" tag_bw 4m 100000
rc=$?
took=$(( $(date +%s) - start ))
[ $rc -ne 0 ] || fail "link cut: the client claims success after the link went down"
grep -qi "error\|fail\|reset\|timed out" "/tmp/$tag.cli" || fail "link cut: no error message"
echo "link cut: client ended with rc=$rc after ${took}s"
echo "netns test passed"
