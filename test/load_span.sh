#!/usr/bin/env bash
# libmpi.so's load span (first PT_LOAD to the end of .bss) stays under 2 MiB. From 2 MiB on,
# Linux maps a shared library 2 MiB-aligned (THP alignment of file mappings), so ranks run the
# same code at addresses equal in their low 21 bits; for two ranks sharing a core, one pair in
# eight also matches in bits 21-23 and the two then mispredict each other's branches: a
# 4-rank allreduce on 2 cores took 3.2-3.5 instead of 2.7 us in a quarter of the runs
# (docs/performance-history.md, 2026-12-07, "Two ranks on a core"). Under 2 MiB the kernel
# places the library at any page, as it does the peers' smaller libraries.
# usage: load_span.sh LIBRARY
set -euo pipefail
lib=$1
limit=$((2 * 1024 * 1024))
min=-1 max=0
while read -r type _ vaddr _ _ memsz _; do
  [[ $type == LOAD ]] || continue
  lo=$((vaddr)) hi=$((vaddr + memsz))
  ((min < 0 || lo < min)) && min=$lo
  ((hi > max)) && max=$hi
done < <(readelf -lW "$lib")
((min >= 0)) || { echo "load_span: no PT_LOAD segment read from $lib" >&2; exit 1; }
span=$((max - min))
if ((span >= limit)); then
  echo "load_span: $lib spans $span bytes when loaded, 2 MiB ($limit) or more; shrink it" \
    "(large static tables belong on the heap, mpi_shim/lib/runtime/slot_table.h)" >&2
  exit 1
fi
echo "load_span: $lib spans $span bytes when loaded, $((limit - span)) under 2 MiB"
