#!/bin/sh
# Installs the Debian packages torus needs to build and test. Idempotent: packages already
# present are not touched, and apt is only asked when something is missing.
set -eu
# Build: compilers, doctest, Boost.Asio (tcp transport, mpirun), libpmix (PMIx bootstrap),
# libfabric (the ofi transport; fi_info from libfabric-bin).
# Tests: MPICH's Hydra and Slurm (launch under real launchers), nftables and iproute2
# (packet loss and network namespaces), clang (libFuzzer targets).
PKGS="cmake g++ make pkg-config doctest-dev libboost-dev libpmix-dev mpich libmpich-dev
  slurm-wlm nftables iproute2 clang libfabric-dev libfabric-bin"
[ "${TORUS_SETUP_BENCH:-0}" = 1 ] && PKGS="$PKGS ucx-utils gnuplot-nox"

missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "setup: all packages present ($PKGS)"
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "setup: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends $missing || { $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends $missing; }
