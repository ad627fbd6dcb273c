#!/bin/sh
# Runs a command in a network namespace of its own whose loopback libfabric's sockets provider
# cannot deadlock (test/sockets_loopback.h checks for one): MTU 1500, and TCP sockets that
# start with 4 MiB receive buffers.
# The provider reads a message header with MSG_PEEK and waits until the whole header is there,
# never consuming the part that has arrived. A partly read skb stays charged at its full size,
# so a header's first bytes can sit alone in the receive queue with nearly the whole buffer
# charged to them; the kernel then advertises a zero window, the rest of the header never
# arrives, and both sides wait for ever. Seen with ss -tmi on the host's loopback (MTU 65536:
# Recv-Q 16, 111 KB of a 150 KB buffer charged, the sender's 1 MB unsent, rwnd-limited 100 %)
# and, rarer, at MTU 1500 (Recv-Q 23, 139 KB of 142 KB charged; 2026-12-07, 4e1307a). The small MTU
# keeps skbs small; the 4 MiB buffer (net.ipv4.tcp_rmem is per namespace, written through
# /proc so that no sysctl binary is needed) leaves room for the window to stay open.
# Where no namespace can be made, the command runs on the host's loopback (and says so).
# usage: sockets_loopback.sh COMMAND [ARG...]
if unshare -n true 2>/dev/null; then
  exec unshare -n sh -c 'ip link set lo mtu 1500 up &&
    { echo "4096 4194304 33554432" > /proc/sys/net/ipv4/tcp_rmem ||
      echo "note: cannot raise tcp_rmem in the namespace" >&2; } &&
    exec "$@"' sh "$@"
fi
echo "note: cannot create a network namespace here; running on the host's loopback" >&2
exec "$@"
