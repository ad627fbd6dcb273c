// MPI_T categories: "torus" at the root, below it one category per component. A control
// variable belongs to the first component whose prefix its name starts with, else to
// torus_general, so a variable added to the registry is always in exactly one category.
// The performance variables are all in torus_mpi. Categories never change at run time.
#include <array>
#include <string_view>
#include <vector>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/tool/tool.h"

namespace torus::mpi::tool {
namespace {

struct Component {
  std::string_view name;
  std::string_view desc;
  std::array<std::string_view, 3> prefixes;  // of TORUS_* names; empty ones unused
  int verbosity;
};

constexpr Component kComponents[] = {
    {"torus_general", "logging, the transports to use and threading", {},
     MPI_T_VERBOSITY_USER_BASIC},
    {"torus_launch", "job identity and bootstrap, set by the launcher",
     {"TORUS_JOB_", "TORUS_BOOTSTRAP", "TORUS_RSH"}, MPI_T_VERBOSITY_MPIDEV_BASIC},
    {"torus_coll", "MPI collective algorithms and reduction kernels",
     {"TORUS_COLL_", "TORUS_OP_"}, MPI_T_VERBOSITY_TUNER_BASIC},
    {"torus_progress", "how blocking calls wait: spinning and sleeping", {"TORUS_SPIN_"},
     MPI_T_VERBOSITY_TUNER_DETAIL},
    {"torus_proto", "protocol selection: eager, zero-copy and rendezvous thresholds",
     {"TORUS_PROTO", "TORUS_RNDV_", "TORUS_ZCOPY_"}, MPI_T_VERBOSITY_TUNER_BASIC},
    {"torus_shm", "the shared-memory transport", {"TORUS_SHM_"}, MPI_T_VERBOSITY_TUNER_DETAIL},
    {"torus_tcp", "the TCP transport and network device selection",
     {"TORUS_TCP_", "TORUS_NET_", "TORUS_KEEPALIVE_"}, MPI_T_VERBOSITY_TUNER_DETAIL},
    {"torus_ofi", "the libfabric (OFI) transport", {"TORUS_OFI_"}, MPI_T_VERBOSITY_TUNER_DETAIL},
    {"torus_rcache", "the memory registration cache", {"TORUS_RCACHE"},
     MPI_T_VERBOSITY_TUNER_DETAIL},
};
constexpr int kNumComponents = static_cast<int>(std::size(kComponents));

// Category indices: 0 the root, 1..kNumComponents the components, then torus_mpi.
constexpr int kRoot = 0;
constexpr int kMpi = kNumComponents + 1;
constexpr int kNumCategories = kNumComponents + 2;

int component_of(std::string_view var) {
  for (int c = 1; c < kNumComponents; ++c)
    for (std::string_view p : kComponents[c].prefixes)
      if (!p.empty() && var.starts_with(p)) return c;
  return 0;
}

std::vector<int> cvars_of(int cat) {
  std::vector<int> out;
  if (cat == kRoot || cat == kMpi) return out;
  const auto vars = config::all_vars();
  for (size_t i = 0; i < vars.size(); ++i)
    if (component_of(vars[i].name) + 1 == cat) out.push_back(static_cast<int>(i));
  return out;
}

std::vector<int> pvars_of(int cat) {
  std::vector<int> out;
  if (cat == kMpi)
    for (int i = 0; i < pvar_count(); ++i) out.push_back(i);
  return out;
}

std::vector<int> subcategories_of(int cat) {
  std::vector<int> out;
  if (cat == kRoot)
    for (int c = 1; c < kNumCategories; ++c) out.push_back(c);
  return out;
}

std::string_view name_of(int cat) {
  if (cat == kRoot) return "torus";
  if (cat == kMpi) return "torus_mpi";
  return kComponents[cat - 1].name;
}

std::string_view desc_of(int cat) {
  if (cat == kRoot) return "every torus variable, by component";
  if (cat == kMpi) return "counters of this process's traffic at the MPI layer";
  return kComponents[cat - 1].desc;
}

bool valid(int cat) { return cat >= 0 && cat < kNumCategories; }

int copy_indices(const std::vector<int>& from, int len, int indices[]) {
  if (len < 0) return MPI_T_ERR_INVALID;
  for (int i = 0; i < len && i < static_cast<int>(from.size()); ++i) indices[i] = from[i];
  return MPI_SUCCESS;
}

// The shape every get_cvars/get_pvars/get_categories call has.
int get_list(int cat, int len, int indices[], std::vector<int> (*list)(int)) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!valid(cat)) return MPI_T_ERR_INVALID_INDEX;
  if (len > 0 && !indices) return MPI_T_ERR_INVALID;
  return copy_indices(list(cat), len, indices);
}

}  // namespace

int cvar_verbosity(std::string_view name) {
  return kComponents[component_of(name)].verbosity;
}

}  // namespace torus::mpi::tool

using namespace torus::mpi::tool;

extern "C" {

int PMPI_T_category_get_num(int* num_cat) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!num_cat) return MPI_T_ERR_INVALID;
  *num_cat = kNumCategories;
  return MPI_SUCCESS;
}

int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc,
                             int* desc_len, int* num_cvars, int* num_pvars,
                             int* num_categories) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!valid(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  copy_string(name_of(cat_index), name, name_len);
  copy_string(desc_of(cat_index), desc, desc_len);
  if (num_cvars) *num_cvars = static_cast<int>(cvars_of(cat_index).size());
  if (num_pvars) *num_pvars = static_cast<int>(pvars_of(cat_index).size());
  if (num_categories) *num_categories = static_cast<int>(subcategories_of(cat_index).size());
  return MPI_SUCCESS;
}

int PMPI_T_category_get_index(const char* name, int* cat_index) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!name || !cat_index) return MPI_T_ERR_INVALID;
  for (int c = 0; c < kNumCategories; ++c) {
    if (name_of(c) == name) {
      *cat_index = c;
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  return get_list(cat_index, len, indices, cvars_of);
}

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  return get_list(cat_index, len, indices, pvars_of);
}

int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  return get_list(cat_index, len, indices, subcategories_of);
}

int PMPI_T_category_changed(int* update_number) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!update_number) return MPI_T_ERR_INVALID;
  *update_number = 0;
  return MPI_SUCCESS;
}

// No category holds events: torus defines none (event.cpp).
int PMPI_T_category_get_num_events(int cat_index, int* num_events) {
  Lock l;
  if (!l.ok) return MPI_T_ERR_NOT_INITIALIZED;
  if (!valid(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  if (!num_events) return MPI_T_ERR_INVALID;
  *num_events = 0;
  return MPI_SUCCESS;
}

int PMPI_T_category_get_events(int cat_index, int len, int indices[]) {
  return get_list(cat_index, len, indices, [](int) { return std::vector<int>{}; });
}

TORUS_MPI_ALIAS(MPI_T_category_get_num)
TORUS_MPI_ALIAS(MPI_T_category_get_info)
TORUS_MPI_ALIAS(MPI_T_category_get_index)
TORUS_MPI_ALIAS(MPI_T_category_get_cvars)
TORUS_MPI_ALIAS(MPI_T_category_get_pvars)
TORUS_MPI_ALIAS(MPI_T_category_get_categories)
TORUS_MPI_ALIAS(MPI_T_category_changed)
TORUS_MPI_ALIAS(MPI_T_category_get_num_events)
TORUS_MPI_ALIAS(MPI_T_category_get_events)

}  // extern "C"
