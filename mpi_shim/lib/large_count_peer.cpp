// The per-peer blocks of the large-count vector collectives (large_count_vec.h). Off the
// int path, every block with data at a displacement becomes its own type: the elements
// moved to their byte displacement (one copy of the type, resized back to its extent, so
// the layout holds the type's blocks once whatever the count), over large_count.h's type
// when the count is above INT_MAX.
#include <climits>

#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/large_count_vec.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {
namespace {

// Element k of *out is element k of `type` at disp + k * extent.
int shifted(MPI_Datatype type, const TypeInfo& t, MPI_Aint disp, MPI_Datatype* out) {
  const int one = 1;
  MPI_Datatype moved = MPI_DATATYPE_NULL;
  int e = PMPI_Type_create_hindexed(1, &one, &disp, type, &moved);
  if (!e) e = PMPI_Type_create_resized(moved, disp + t.lb, t.extent, out);
  if (moved != MPI_DATATYPE_NULL) PMPI_Type_free(&moved);
  if (!e) e = PMPI_Type_commit(out);
  return e;
}

}  // namespace

PeerBlocks::~PeerBlocks() {
  for (MPI_Datatype& t : owned_) PMPI_Type_free(&t);
}

int PeerBlocks::check(int n, const MPI_Count* counts, const MPI_Aint* displs, bool int_displs) {
  n_ = n > 0 ? n : 0;
  counts_in_ = counts;
  displs_in_ = displs;
  if (n_ > 0 && (!counts || !displs || !types_in_)) return MPI_ERR_ARG;
  icounts_.resize(size_t(n_));
  if (int_displs) idispls_.resize(size_t(n_));
  for (int i = 0; i < n_; ++i) {
    if (counts[i] < 0) return MPI_ERR_COUNT;
    if (displs[i] < 0) return MPI_ERR_ARG;
    if (counts[i] > INT_MAX || (int_displs && displs[i] > INT_MAX)) {
      fits_ = false;
      continue;
    }
    icounts_[size_t(i)] = int(counts[i]);
    if (int_displs) idispls_[size_t(i)] = int(displs[i]);
  }
  return MPI_SUCCESS;
}

int PeerBlocks::init(int n, const MPI_Count* counts, const MPI_Aint* displs, MPI_Datatype type) {
  one_ = type;
  types_in_ = &one_;
  one_type_ = true;
  return check(n, counts, displs, true);
}

int PeerBlocks::init_w(int n, const MPI_Count* counts, const MPI_Aint* displs,
                       const MPI_Datatype* types, bool int_displs) {
  types_in_ = types;
  one_type_ = false;
  return check(n, counts, displs, int_displs);
}

int PeerBlocks::make_types() {
  const size_t n = size_t(n_);
  icounts_.assign(n, 0);
  idispls_.assign(n, 0);
  adispls_.assign(n, 0);
  types_.assign(n, MPI_DATATYPE_NULL);
  for (size_t i = 0; i < n; ++i) {
    const MPI_Datatype type = types_in_[one_type_ ? 0 : i];
    types_[i] = type;  // an empty block keeps the user's type, which the call checks
    if (counts_in_[i] == 0) continue;
    const TypeInfo* t = type_info(type);
    if (!t || !t->committed) return MPI_ERR_TYPE;
    MPI_Aint disp = displs_in_[i];
    if (one_type_ && __builtin_mul_overflow(disp, t->extent, &disp)) return MPI_ERR_ARG;
    BigCount big;
    if (int e = big.init(counts_in_[i], type)) return e;
    icounts_[i] = big.count();
    if (disp == 0 && big.type() == type) continue;
    MPI_Datatype made = MPI_DATATYPE_NULL;
    if (int e = shifted(big.type(), *type_info(big.type()), disp, &made)) return e;
    owned_.push_back(made);
    types_[i] = made;
  }
  return MPI_SUCCESS;
}

int reduce_scatter_counts(int n, const MPI_Count* counts, std::vector<int>* small, bool* fits) {
  *fits = true;
  if (n > 0 && !counts) return MPI_ERR_ARG;
  small->assign(size_t(n > 0 ? n : 0), 0);
  for (int i = 0; i < n; ++i) {
    if (counts[i] < 0) return MPI_ERR_COUNT;
    if (counts[i] > INT_MAX) *fits = false;
    else (*small)[size_t(i)] = int(counts[i]);
  }
  return MPI_SUCCESS;
}

}  // namespace torus::mpi
