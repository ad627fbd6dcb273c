// The profiling interface: every MPI_x is a weak alias of PMPI_x, so a tool can define MPI_x,
// do its work and call PMPI_x.
#pragma once

#define TORUS_MPI_ALIAS(name) \
  extern "C" __typeof__(P##name) name __attribute__((weak, alias("P" #name)));
