#!/bin/sh
# Fails when a layer includes a header from a layer above it (../shared/DESIGN.md).
# Order, bottom up: core/base, memory, transports, protocols, core (API), mpi_shim.
root=${1:-.}
cd "$root" || exit 2
bad=0
check() {  # check DIR FORBIDDEN-PREFIX...
  dir=$1; shift
  [ -d "$dir" ] || return 0
  for p in "$@"; do
    hits=$(grep -rnE "#include +\"$p" "$dir" --include='*.h' --include='*.cpp' --include='*.hpp' || true)
    if [ -n "$hits" ]; then
      echo "layering violation: $dir must not include $p*"; echo "$hits"; bad=1
    fi
  done
}
check core/base memory/ transports/ protocols/ core/api/ core/worker mpi_shim/
check memory transports/ protocols/ core/api/ mpi_shim/
check transports protocols/ core/api/ mpi_shim/
check protocols core/api/ mpi_shim/ core/worker core/endpoint core/context core/request core/rma core/tag
# A protocol runs on any transport: it sees tl::Iface/tl::Endpoint (transports/transport.h),
# never a concrete one (transports/<name>/...).
hits=$(grep -rnE '#include +"transports/[a-z0-9_]+/' protocols --include='*.h' --include='*.cpp' || true)
if [ -n "$hits" ]; then
  echo "layering violation: protocols must not include a concrete transport"; echo "$hits"; bad=1
fi
# The core reaches protocols through their interface only (protocol(), the endpoint and op
# they run on, the selector): no concrete protocol's file or helper.
iface='protocols/(protocol|proto_endpoint|proto_op|selector|proto_tuner|wire|rma_ops|user_am)\.h"'
hits=$(grep -rnE '#include +"protocols/' core --include='*.h' --include='*.cpp' | grep -vE "$iface" || true)
if [ -n "$hits" ]; then
  echo "layering violation: core includes a protocol's internals"; echo "$hits"; bad=1
fi
check core mpi_shim/
# mpi_shim sees core only through the public API (and the base layer), like any embedder.
check mpi_shim transports/ protocols/ memory/ core/worker core/endpoint core/context core/request core/rma core/tag core/worker_address
[ $bad -eq 0 ] && echo "layering ok"
exit $bad
