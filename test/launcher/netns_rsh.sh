#!/bin/sh
# A stand-in for ssh between network namespaces: `netns_rsh.sh HOST COMMAND...` runs the
# command line in the namespace that has the IPv4 address HOST, through /bin/sh -c as ssh's
# remote shell would (mpirun quotes every word for that shell).
host=$1
shift
for ns in $(ip netns list | cut -d' ' -f1); do
  if ip -n "$ns" -4 -o addr show 2>/dev/null | grep -q " inet $host/"; then
    exec ip netns exec "$ns" /bin/sh -c "$*"
  fi
done
echo "netns_rsh: no network namespace has the address $host" >&2
exit 255
