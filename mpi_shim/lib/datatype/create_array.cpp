// MPI_Type_create_subarray and MPI_Type_create_darray: a part of an n-dimensional array of
// `oldtype`, stored in C (last index fastest) or Fortran (first fastest) order, as a type
// whose extent is the whole array's. Both flatten to one block per run of owned elements
// along the fastest dimension, visited in storage order (the typemap order MPICH gives).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "mpi_shim/lib/datatype/create.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/layout.h"
#include "mpi_shim/lib/datatype/table.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

// Per dimension, the owned indices as runs [start, start + length).
struct Run {
  int64_t start, length;
};
using Runs = std::vector<Run>;

// The elements at every combination of the dimensions' runs of an array of `sizes`, dims
// given slowest first; the type spans the whole array.
int make_array_type(const std::vector<int64_t>& sizes, const std::vector<Runs>& owned,
                    MPI_Datatype oldtype, MPI_Datatype* newtype, TypeContents contents) {
  return type_guarded([&] {
    TypeRef old = type_hold(oldtype);
    if (!old) return MPI_ERR_TYPE;
    if (!newtype) return MPI_ERR_ARG;
    const size_t n = sizes.size();
    std::vector<int64_t> stride(n, 1);  // in elements
    for (size_t d = n - 1; d-- > 0;) stride[d] = stride[d + 1] * sizes[d + 1];
    int64_t total = 1;
    for (int64_t s : sizes) total *= s;
    LayoutBuilder b;
    bool empty = false;
    for (const Runs& r : owned) empty = empty || r.empty();
    // One piece per fast run at every slower index: beyond INT_MAX pieces (sizes from the _c
    // call) the flattened layout cannot be held.
    int64_t pieces = int64_t(owned[n - 1].size());
    for (size_t d = 0; d + 1 < n && !empty; ++d) {
      int64_t along = 0;
      for (const Run& r : owned[d]) along += r.length;
      const bool over = along > INT_MAX / std::max<int64_t>(pieces, 1);
      pieces = over ? int64_t(INT_MAX) + 1 : pieces * along;
    }
    if (!empty && pieces > INT_MAX) return MPI_ERR_COUNT;
    // An odometer over the slower dimensions' owned indices: which run, and where in it.
    std::vector<size_t> run(n, 0);
    std::vector<int64_t> at(n, 0);
    while (!empty) {
      int64_t base = 0;
      for (size_t d = 0; d + 1 < n; ++d) base += (owned[d][run[d]].start + at[d]) * stride[d];
      for (const Run& fast : owned[n - 1])
        b.add(*old, MPI_Aint((base + fast.start) * old->extent), size_t(fast.length));
      size_t d = n - 1;
      while (d-- > 0) {
        if (++at[d] < owned[d][run[d]].length) break;
        at[d] = 0;
        if (++run[d] < owned[d].size()) break;
        run[d] = 0;
      }
      if (d == SIZE_MAX) break;  // every slower index visited (or there are none)
    }
    TypeLayout layout = layout_resized(b.finish(false), 0, MPI_Aint(total * old->extent));
    contents.types = {std::move(old)};
    return type_create(std::move(layout), std::move(contents), false, newtype);
  });
}

// Dimension i of the user's arrays, slowest first.
size_t dim(int order, int ndims, size_t i) {
  return order == MPI_ORDER_C ? i : size_t(ndims) - 1 - i;
}

// The indices of [0, gsize) that process coordinate `coord` of `psize` owns, as runs.
int distribute(int distrib, int darg, int64_t gsize, int psize, int coord, Runs* out) {
  out->clear();
  switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
      if (psize != 1) return MPI_ERR_ARG;
      out->push_back({0, gsize});
      return MPI_SUCCESS;
    case MPI_DISTRIBUTE_BLOCK: {
      const int64_t block =
          darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : int64_t(darg);
      if (block <= 0 || block * psize < gsize) return MPI_ERR_ARG;
      const int64_t from = std::min<int64_t>(int64_t(coord) * block, gsize);
      const int64_t to = std::min<int64_t>(from + block, gsize);
      if (to > from) out->push_back({from, to - from});
      return MPI_SUCCESS;
    }
    case MPI_DISTRIBUTE_CYCLIC: {
      const int64_t block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : int64_t(darg);
      if (block <= 0) return MPI_ERR_ARG;
      for (int64_t from = int64_t(coord) * block; from < gsize; from += block * psize)
        out->push_back({from, std::min<int64_t>(block, gsize - from)});
      return MPI_SUCCESS;
    }
    default:
      return MPI_ERR_ARG;
  }
}

}  // namespace

namespace torus::mpi {

int type_make_subarray(int ndims, WideArray sizes_in, WideArray subsizes, WideArray starts,
                       int order, MPI_Datatype oldtype, MPI_Datatype* newtype, bool large) {
  if (ndims <= 0 || sizes_in.null() || subsizes.null() || starts.null() ||
      (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN))
    return MPI_ERR_ARG;
  const size_t n = static_cast<size_t>(ndims);
  std::vector<int64_t> sizes(n);
  std::vector<Runs> owned(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t size = sizes_in[i], sub = subsizes[i], start = starts[i];
    if (size <= 0 || sub < 0 || start < 0 || start > size - sub) return MPI_ERR_ARG;
    const size_t d = dim(order, ndims, i);
    sizes[d] = size;
    if (sub > 0) owned[d].push_back({start, sub});
  }
  TypeContents c{MPI_COMBINER_SUBARRAY, {ndims}, {}, {}};
  for (const WideArray& a : {sizes_in, subsizes, starts})
    for (size_t i = 0; i < n; ++i) {
      if (large) c.counts.push_back(a[i]);
      else c.ints.push_back(static_cast<int>(a[i]));
    }
  c.ints.push_back(order);
  return make_array_type(sizes, owned, oldtype, newtype, std::move(c));
}

int type_make_darray(int size, int rank, int ndims, WideArray gsizes, const int distribs[],
                     const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                     MPI_Datatype* newtype, bool large) {
  if (size <= 0 || rank < 0 || rank >= size) return MPI_ERR_ARG;
  if (ndims <= 0 || gsizes.null() || !distribs || !dargs || !psizes ||
      (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN))
    return MPI_ERR_ARG;
  const size_t n = static_cast<size_t>(ndims);
  int64_t procs = 1;
  for (size_t i = 0; i < n; ++i) {
    if (psizes[i] <= 0 || gsizes[i] <= 0) return MPI_ERR_ARG;
    procs *= psizes[i];
  }
  if (procs != size) return MPI_ERR_ARG;
  // The process grid is row-major whatever the array's order (as MPI_Cart_create's).
  std::vector<int> coord(n);
  for (size_t i = n, r = size_t(rank); i-- > 0;) {
    coord[i] = int(r % size_t(psizes[i]));
    r /= size_t(psizes[i]);
  }
  std::vector<int64_t> sizes(n);
  std::vector<Runs> owned(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t d = dim(order, ndims, i);
    sizes[d] = gsizes[i];
    if (int e = distribute(distribs[i], dargs[i], gsizes[i], psizes[i], coord[i], &owned[d]))
      return e;
  }
  // get_contents: the _c form reports the global sizes as large counts, the rest as ints.
  TypeContents c{MPI_COMBINER_DARRAY, {size, rank, ndims}, {}, {}};
  for (size_t i = 0; i < n; ++i) {
    if (large) c.counts.push_back(gsizes[i]);
    else c.ints.push_back(static_cast<int>(gsizes[i]));
  }
  for (const int* a : {distribs, dargs, psizes}) c.ints.insert(c.ints.end(), a, a + ndims);
  c.ints.push_back(order);
  return make_array_type(sizes, owned, oldtype, newtype, std::move(c));
}

}  // namespace torus::mpi

extern "C" {

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[], const int array_of_starts[],
                              int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return check(nullptr,
               type_make_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                                  order, oldtype, newtype, false),
               "MPI_Type_create_subarray");
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  return check(nullptr,
               type_make_darray(size, rank, ndims, array_of_gsizes, array_of_distribs,
                                array_of_dargs, array_of_psizes, order, oldtype, newtype,
                                false),
               "MPI_Type_create_darray");
}

TORUS_MPI_ALIAS(MPI_Type_create_subarray)
TORUS_MPI_ALIAS(MPI_Type_create_darray)

}  // extern "C"
