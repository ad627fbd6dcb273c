// Groups made from groups: MPI_Group_incl, excl, range_incl, range_excl (subsets in a given
// or kept order) and union, intersection, difference (set operations that keep the first
// group's order, then the second's). Empty results are MPI_GROUP_EMPTY. Argument errors
// follow MPICH: bad or repeated ranks in a rank list are MPI_ERR_RANK, bad ranges MPI_ERR_ARG.
#include <unordered_set>
#include <vector>

#include "mpi_shim/lib/comm/group.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

// Every rank of `ranks` valid in a group of `size` and none twice; flags[r] marks the listed.
int check_rank_list(int n, const int ranks[], int size, std::vector<bool>* listed) {
  if (n < 0 || (n > 0 && !ranks)) return MPI_ERR_ARG;
  listed->assign(static_cast<size_t>(size), false);
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= size || (*listed)[static_cast<size_t>(ranks[i])])
      return MPI_ERR_RANK;
    (*listed)[static_cast<size_t>(ranks[i])] = true;
  }
  return MPI_SUCCESS;
}

// The ranks of triplets (first, last, stride) in order. The stride may be negative but must
// lead from first towards last; both ends lie in the group and no rank comes twice.
int expand_ranges(int n, int ranges[][3], int size, std::vector<int>* out) {
  if (n < 0 || (n > 0 && !ranges)) return MPI_ERR_ARG;
  std::vector<bool> seen(static_cast<size_t>(size), false);
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (first < 0 || first >= size || last < 0 || last >= size || stride == 0 ||
        (stride > 0 && first > last) || (stride < 0 && first < last))
      return MPI_ERR_ARG;
    // In 64 bits: first + stride may overflow an int when the stride is huge.
    for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (seen[static_cast<size_t>(r)]) return MPI_ERR_ARG;
      seen[static_cast<size_t>(r)] = true;
      out->push_back(static_cast<int>(r));
    }
  }
  return MPI_SUCCESS;
}

// The world ranks of g at `ranks` (included) or at every rank not in `ranks` (excluded).
std::vector<int> pick(const Group& g, const std::vector<int>& ranks, bool include) {
  std::vector<int> out;
  if (include) {
    for (int r : ranks) out.push_back(g.world_ranks[static_cast<size_t>(r)]);
    return out;
  }
  std::vector<bool> drop(g.world_ranks.size(), false);
  for (int r : ranks) drop[static_cast<size_t>(r)] = true;
  for (size_t r = 0; r < g.world_ranks.size(); ++r)
    if (!drop[r]) out.push_back(g.world_ranks[r]);
  return out;
}

int list_op(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup, bool include,
            const char* fn) {
  auto g = group_get(group);
  if (!g) return raise_error(nullptr, MPI_ERR_GROUP, fn);
  if (!newgroup) return raise_error(nullptr, MPI_ERR_ARG, fn);
  std::vector<bool> listed;
  if (int e = check_rank_list(n, ranks, static_cast<int>(g->world_ranks.size()), &listed))
    return raise_error(nullptr, e, fn);
  return check(nullptr, group_install(pick(*g, std::vector<int>(ranks, ranks + n), include),
                                      newgroup), fn);
}

int range_op(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup, bool include,
             const char* fn) {
  auto g = group_get(group);
  if (!g) return raise_error(nullptr, MPI_ERR_GROUP, fn);
  if (!newgroup) return raise_error(nullptr, MPI_ERR_ARG, fn);
  std::vector<int> ranks;
  if (int e = expand_ranges(n, ranges, static_cast<int>(g->world_ranks.size()), &ranks))
    return raise_error(nullptr, e, fn);
  return check(nullptr, group_install(pick(*g, ranks, include), newgroup), fn);
}

enum class SetOp { Union, Intersection, Difference };

int set_op(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup, SetOp op, const char* fn) {
  auto g1 = group_get(group1), g2 = group_get(group2);
  if (!g1 || !g2) return raise_error(nullptr, MPI_ERR_GROUP, fn);
  if (!newgroup) return raise_error(nullptr, MPI_ERR_ARG, fn);
  const std::unordered_set<int> in2(g2->world_ranks.begin(), g2->world_ranks.end());
  std::vector<int> out;
  for (int w : g1->world_ranks) {
    const bool keep = op == SetOp::Union ||
                      (op == SetOp::Intersection ? in2.contains(w) : !in2.contains(w));
    if (keep) out.push_back(w);
  }
  if (op == SetOp::Union) {
    const std::unordered_set<int> in1(g1->world_ranks.begin(), g1->world_ranks.end());
    for (int w : g2->world_ranks)
      if (!in1.contains(w)) out.push_back(w);
  }
  return check(nullptr, group_install(std::move(out), newgroup), fn);
}

}  // namespace

extern "C" {

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return list_op(group, n, ranks, newgroup, true, "MPI_Group_incl");
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return list_op(group, n, ranks, newgroup, false, "MPI_Group_excl");
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return range_op(group, n, ranges, newgroup, true, "MPI_Group_range_incl");
}

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return range_op(group, n, ranges, newgroup, false, "MPI_Group_range_excl");
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return set_op(group1, group2, newgroup, SetOp::Union, "MPI_Group_union");
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return set_op(group1, group2, newgroup, SetOp::Intersection, "MPI_Group_intersection");
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return set_op(group1, group2, newgroup, SetOp::Difference, "MPI_Group_difference");
}

TORUS_MPI_ALIAS(MPI_Group_incl)
TORUS_MPI_ALIAS(MPI_Group_excl)
TORUS_MPI_ALIAS(MPI_Group_range_incl)
TORUS_MPI_ALIAS(MPI_Group_range_excl)
TORUS_MPI_ALIAS(MPI_Group_union)
TORUS_MPI_ALIAS(MPI_Group_intersection)
TORUS_MPI_ALIAS(MPI_Group_difference)

}  // extern "C"
