// Slot-by-slot placement: fill each host's slots in order; with --oversubscribe, wrap around
// and keep filling in the same order.
#include "mpi_shim/launcher/layout.h"

#include <sched.h>
#include <unistd.h>

#include "mpi_shim/launcher/host_net.h"

namespace torus::launcher {
namespace {

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace

Result<Layout> make_layout(const Options& opts, std::vector<HostSlots> hosts, bool hosts_given) {
  Layout lay;
  if (!hosts_given) {
    lay.hosts.push_back(Host{"localhost", usable_cores(), true, false, true});
  } else {
    for (HostSlots& h : hosts) {
      bool local = is_local_host(h.name);
      lay.hosts.push_back(Host{h.name, h.slots, local, !local, false});
    }
  }
  if (opts.launcher == LaunchMode::Ssh)
    for (Host& h : lay.hosts) h.via_agent = true;
  int slots = 0;
  for (const Host& h : lay.hosts) slots += h.slots;

  std::vector<int> app_sizes;
  int total = 0;
  for (const AppSpec& a : opts.apps) {
    int n = a.nranks > 0 ? a.nranks : slots;
    app_sizes.push_back(n);
    total += n;
  }
  if (total > slots && !opts.oversubscribe) {
    std::string where;
    for (const Host& h : lay.hosts) {
      if (!where.empty()) where += ", ";
      where += h.name + ": " + std::to_string(h.slots) + (h.slots == 1 ? " slot" : " slots");
      if (h.default_slots) where += ", one per core";
    }
    return make_error(Status::InvalidParam,
                      std::to_string(total) + " ranks were requested but only " +
                          std::to_string(slots) + (slots == 1 ? " slot is" : " slots are") +
                          " available (" + where + ").\n"
                          "Add --oversubscribe to run more ranks than slots, or give more slots "
                          "with --host HOST:N or --hostfile.");
  }

  // Hosts that are this machine are one node, so local ranks count together.
  std::vector<int> node_of(lay.hosts.size());
  int nodes = 0;
  int local_node = -1;
  for (size_t h = 0; h < lay.hosts.size(); ++h) {
    if (lay.hosts[h].local) {
      if (local_node < 0) local_node = nodes++;
      node_of[h] = local_node;
    } else {
      node_of[h] = nodes++;
    }
  }

  size_t host = 0;
  int used = 0;
  for (size_t a = 0; a < app_sizes.size(); ++a) {
    for (int i = 0; i < app_sizes[a]; ++i) {
      while (used >= lay.hosts[host].slots) {
        host = (host + 1) % lay.hosts.size();
        used = 0;
      }
      RankPlace p;
      p.app = static_cast<int>(a);
      p.host = static_cast<int>(host);
      p.node = node_of[host];
      lay.ranks.push_back(p);
      ++used;
    }
  }
  std::vector<int> per_node(nodes, 0);
  for (RankPlace& p : lay.ranks) p.local_rank = per_node[p.node]++;
  for (RankPlace& p : lay.ranks) p.local_size = per_node[p.node];

  lay.process_mapping = "(vector";
  for (size_t r = 0; r < lay.ranks.size();) {
    size_t end = r;
    while (end < lay.ranks.size() && lay.ranks[end].node == lay.ranks[r].node) ++end;
    lay.process_mapping += ",(" + std::to_string(lay.ranks[r].node) + ",1," +
                           std::to_string(end - r) + ")";
    r = end;
  }
  lay.process_mapping += ")";
  return lay;
}

}  // namespace torus::launcher
