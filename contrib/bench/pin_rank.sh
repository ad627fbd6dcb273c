#!/bin/sh
# Runs one MPI rank pinned to CPU (local rank mod CPUs): compare.sh starts every MPI's ranks
# through this, so torus, Open MPI and MPICH get the same placement whatever their own
# binding options mean (their binding is switched off). Each launcher names the local rank
# differently: Open MPI OMPI_COMM_WORLD_LOCAL_RANK, Hydra and torus's mpirun MPI_LOCALRANKID.
# usage: pin_rank.sh PROGRAM [ARGS...]
rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${PMI_RANK:-0}}}
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
exec taskset -c "$((rank % cpus))" "$@"
