#!/bin/sh
# Runs a test with torus's ofi transport on one libfabric provider. Exits 77 (ctest: skipped),
# naming the provider and torus_info's reason, where the transport cannot open it here; on
# sockets the test runs inside sockets_loopback.sh (its header reads can deadlock TCP on the
# host's loopback).
# usage: ofi_provider.sh PROVIDER TORUS_INFO COMMAND [ARG...]
provider=$1 info=$2
shift 2
if TORUS_OFI_PROVIDER=$provider "$info" -t | grep '^# transport ofi: skipped'; then
  echo "skipped: libfabric provider $provider"
  exit 77
fi
if [ "$provider" = sockets ]; then exec "$(dirname "$0")/sockets_loopback.sh" "$@"; fi
exec "$@"
