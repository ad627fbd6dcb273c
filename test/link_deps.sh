#!/usr/bin/env bash
# The shared libraries must not link libfabric or the CUDA driver: both are loaded at run
# time where used (transports/ofi/ofi_lib.h, memory/cuda_driver.h). Debian's libfabric
# pulls in PSM libraries whose constructors sleep ~0.2 s, which linking it made every
# process that loads libmpi pay at start-up.
# usage: link_deps.sh LIBRARY...
set -euo pipefail
bad=0
for lib in "$@"; do
  needed=$(readelf -d "$lib" | awk '/NEEDED/ {gsub(/[][]/, "", $5); print $5}')
  [[ -n $needed ]] || { echo "link_deps: no NEEDED entries read from $lib" >&2; exit 1; }
  for dep in $needed; do
    case $dep in
      libfabric.so* | libcuda.so* | libpsm* | libinfinipath*)
        echo "link_deps: $lib links $dep (it must be loaded at run time instead)" >&2
        bad=1 ;;
    esac
  done
done
((bad == 0)) && echo "link_deps: $# libraries link neither libfabric nor libcuda"
exit "$bad"
