#!/usr/bin/env bash
# A shared library exports its public API and nothing else (core/api/exports.map,
# mpi_shim/lib/exports.map): an exported internal symbol can be interposed by an
# application's own copy (Boost.Asio's templates, a second torus), and calls to it cannot be
# bound inside the library.
# usage: exports.sh LIBRARY ERE   (every defined dynamic symbol, demangled, must match ERE)
set -euo pipefail
lib=$1 allowed=$2
symbols=$(nm -D --defined-only "$lib" | awk '{ $1 = ""; $2 = ""; sub(/^ +/, ""); print }' | c++filt)
[[ -n $symbols ]] || { echo "exports: no dynamic symbols read from $lib" >&2; exit 1; }
stray=$(grep -Ev "$allowed" <<<"$symbols" || true)
if [[ -n $stray ]]; then
  echo "exports: $lib exports $(wc -l <<<"$stray") symbols outside its API, for example:" >&2
  head -n 10 <<<"$stray" >&2
  exit 1
fi
echo "exports: $lib exports $(wc -l <<<"$symbols") symbols, all of its API"
