// The group table, and the group functions that read one group: MPI_Comm_group,
// Group_size, Group_rank, Group_translate_ranks, Group_compare, Group_free. Groups are
// local objects: nothing here communicates.
#include "mpi_shim/lib/comm/group.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi {
namespace {

constexpr uint32_t kHandleBase = 0x88000000u;  // MPICH: direct handle, kind group
constexpr uint32_t kHandleMask = 0xfc000000u;
constexpr size_t kMaxGroups = 0x4000000;  // the slot bits of the handle

struct GroupTable {
  std::mutex mutex;
  std::vector<std::shared_ptr<const Group>> slots;
  std::vector<size_t> free_slots;
};
GroupTable g_groups;

const std::shared_ptr<const Group>& empty_group() {
  static const auto empty = std::make_shared<const Group>();
  return empty;
}

}  // namespace

std::shared_ptr<const Group> group_get(MPI_Group handle) {
  if (handle == MPI_GROUP_EMPTY) return empty_group();
  const uint32_t h = static_cast<uint32_t>(handle);
  if ((h & kHandleMask) != kHandleBase) return nullptr;
  std::lock_guard lock(g_groups.mutex);
  const size_t slot = h & ~kHandleMask;
  return slot < g_groups.slots.size() ? g_groups.slots[slot] : nullptr;
}

int group_install(std::vector<int> world_ranks, MPI_Group* handle) {
  if (world_ranks.empty()) {
    *handle = MPI_GROUP_EMPTY;
    return MPI_SUCCESS;
  }
  auto g = std::make_shared<const Group>(Group{std::move(world_ranks)});
  std::lock_guard lock(g_groups.mutex);
  size_t slot;
  if (!g_groups.free_slots.empty()) {
    slot = g_groups.free_slots.back();
    g_groups.free_slots.pop_back();
    g_groups.slots[slot] = std::move(g);
  } else {
    if (g_groups.slots.size() == kMaxGroups) return MPI_ERR_INTERN;
    slot = g_groups.slots.size();
    g_groups.slots.push_back(std::move(g));
  }
  *handle = static_cast<MPI_Group>(kHandleBase | static_cast<uint32_t>(slot));
  return MPI_SUCCESS;
}

int group_rank_of(const Group& g, int w) {
  auto it = std::find(g.world_ranks.begin(), g.world_ranks.end(), w);
  return it == g.world_ranks.end() ? MPI_UNDEFINED : static_cast<int>(it - g.world_ranks.begin());
}

}  // namespace torus::mpi

using namespace torus::mpi;

extern "C" {

int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_group");
  if (!group) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_group");
  return check(c, group_install(c->world_ranks, group), "MPI_Comm_group");
}

int PMPI_Group_size(MPI_Group group, int* size) {
  auto g = group_get(group);
  if (!g) return raise_error(nullptr, MPI_ERR_GROUP, "MPI_Group_size");
  if (!size) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Group_size");
  *size = static_cast<int>(g->world_ranks.size());
  return MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group group, int* rank) {
  auto g = group_get(group);
  if (!g) return raise_error(nullptr, MPI_ERR_GROUP, "MPI_Group_rank");
  if (!rank) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Group_rank");
  *rank = group_rank_of(*g, runtime()->world_rank);
  return MPI_SUCCESS;
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[]) {
  auto g1 = group_get(group1), g2 = group_get(group2);
  if (!g1 || !g2) return raise_error(nullptr, MPI_ERR_GROUP, "MPI_Group_translate_ranks");
  if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Group_translate_ranks");
  const int size1 = static_cast<int>(g1->world_ranks.size());
  for (int i = 0; i < n; ++i)
    if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= size1))
      return raise_error(nullptr, MPI_ERR_RANK, "MPI_Group_translate_ranks");
  std::unordered_map<int, int> in2;  // world rank -> rank in group2
  in2.reserve(g2->world_ranks.size());
  for (size_t r = 0; r < g2->world_ranks.size(); ++r)
    in2.emplace(g2->world_ranks[r], static_cast<int>(r));
  for (int i = 0; i < n; ++i) {
    if (ranks1[i] == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    auto it = in2.find(g1->world_ranks[static_cast<size_t>(ranks1[i])]);
    ranks2[i] = it == in2.end() ? MPI_UNDEFINED : it->second;
  }
  return MPI_SUCCESS;
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  auto g1 = group_get(group1), g2 = group_get(group2);
  if (!g1 || !g2) return raise_error(nullptr, MPI_ERR_GROUP, "MPI_Group_compare");
  if (!result) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Group_compare");
  if (g1->world_ranks == g2->world_ranks) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  std::vector<int> a = g1->world_ranks, b = g2->world_ranks;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  *result = a == b ? MPI_SIMILAR : MPI_UNEQUAL;
  return MPI_SUCCESS;
}

// MPI_GROUP_EMPTY may be freed too (operations hand it out for empty results); it stays.
int PMPI_Group_free(MPI_Group* group) {
  bool freed = group && *group == MPI_GROUP_EMPTY;
  if (group && !freed && (static_cast<uint32_t>(*group) & kHandleMask) == kHandleBase) {
    const size_t slot = static_cast<uint32_t>(*group) & ~kHandleMask;
    std::lock_guard lock(g_groups.mutex);
    if (slot < g_groups.slots.size() && g_groups.slots[slot]) {
      g_groups.slots[slot].reset();
      g_groups.free_slots.push_back(slot);
      freed = true;
    }
  }
  if (!freed) return raise_error(nullptr, MPI_ERR_GROUP, "MPI_Group_free");
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Comm_group)
TORUS_MPI_ALIAS(MPI_Group_size)
TORUS_MPI_ALIAS(MPI_Group_rank)
TORUS_MPI_ALIAS(MPI_Group_translate_ranks)
TORUS_MPI_ALIAS(MPI_Group_compare)
TORUS_MPI_ALIAS(MPI_Group_free)

}  // extern "C"
