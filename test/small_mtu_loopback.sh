#!/bin/sh
# Runs a command in a network namespace of its own whose loopback has an Ethernet MTU (1500).
# For tests over libfabric's sockets provider: it reads a message header with MSG_PEEK and
# waits until the whole header is there. On the host's loopback (MTU 65536) a header split
# across two 64 KiB segments can leave its first bytes alone in the receive queue, still
# charged as the whole segment; the free space left is below one segment, so the kernel
# advertises a zero window, the rest of the header never arrives, and both sides wait for
# ever (seen with ss -tmi: Recv-Q 16, 111 KB of a 150 KB buffer charged, the sender's 1 MB
# unsent, rwnd-limited 100 %). With 1500-byte segments the window never closes that way.
# Where no namespace can be made, the command runs on the host's loopback (and says so).
# usage: small_mtu_loopback.sh COMMAND [ARG...]
if unshare -n true 2>/dev/null; then
  exec unshare -n sh -c 'ip link set lo mtu 1500 up && exec "$@"' sh "$@"
fi
echo "note: cannot create a network namespace here; running on the host's loopback" >&2
exec "$@"
