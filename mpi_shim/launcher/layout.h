// Where each rank runs: ranks placed on hosts slot by slot, and what follows from it (local
// rank and size per host, PMI_process_mapping).
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"
#include "mpi_shim/launcher/hostfile.h"
#include "mpi_shim/launcher/options.h"

namespace torus::launcher {

struct Host {
  std::string name;
  int slots = 1;
  bool local = false;         // this machine
  bool via_agent = false;     // ranks start through the remote shell: a remote host, or any
                              // host with an explicit --launcher ssh
  bool default_slots = false; // the implicit localhost (slots = cores)
};

struct RankPlace {
  int app = 0;          // appnum: index of the MPMD program
  int host = 0;         // index into Layout::hosts
  int node = 0;         // hosts that are this machine share node 0
  int local_rank = 0;   // among ranks on the same node
  int local_size = 1;
};

struct Layout {
  std::vector<Host> hosts;
  std::vector<RankPlace> ranks;
  // Hydra's PMI_process_mapping value, "(vector,(node,1,count),...)" per run of ranks.
  std::string process_mapping;
};

// Places the ranks of every program (opts.apps, in order) on the hosts; refuses more ranks
// than slots unless opts.oversubscribe, with a message saying how to allow it.
Result<Layout> make_layout(const Options& opts, std::vector<HostSlots> hosts, bool hosts_given);

}  // namespace torus::launcher
