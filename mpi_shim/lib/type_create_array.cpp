// MPI_Type_create_subarray and MPI_Type_create_darray: a part of an n-dimensional array of
// `oldtype`, stored in C (last index fastest) or Fortran (first fastest) order, as a type
// whose extent is the whole array's. Both flatten to one block per run of owned elements
// along the fastest dimension, visited in storage order (the typemap order MPICH gives).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/pmpi.h"
#include "mpi_shim/lib/type_layout.h"
#include "mpi_shim/lib/type_table.h"

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

extern "C" {

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[], const int array_of_starts[],
                              int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* fn = "MPI_Type_create_subarray";
  if (ndims <= 0 || !array_of_sizes || !array_of_subsizes || !array_of_starts ||
      (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN))
    return raise_error(nullptr, MPI_ERR_ARG, fn);
  std::vector<int64_t> sizes(static_cast<size_t>(ndims));
  std::vector<Runs> owned(static_cast<size_t>(ndims));
  TypeContents c{MPI_COMBINER_SUBARRAY, {ndims}, {}, {}};
  for (int i = 0; i < ndims; ++i) {
    const int size = array_of_sizes[i], sub = array_of_subsizes[i], start = array_of_starts[i];
    if (size <= 0 || sub < 0 || start < 0 || int64_t(start) + sub > size)
      return raise_error(nullptr, MPI_ERR_ARG, fn);
    const size_t d = dim(order, ndims, size_t(i));
    sizes[d] = size;
    if (sub > 0) owned[d].push_back({start, sub});
  }
  for (const int* a : {array_of_sizes, array_of_subsizes, array_of_starts})
    c.ints.insert(c.ints.end(), a, a + ndims);
  c.ints.push_back(order);
  return check(nullptr, make_array_type(sizes, owned, oldtype, newtype, std::move(c)), fn);
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  const char* fn = "MPI_Type_create_darray";
  if (size <= 0 || rank < 0 || rank >= size) return raise_error(nullptr, MPI_ERR_ARG, fn);
  if (ndims <= 0 || !array_of_gsizes || !array_of_distribs || !array_of_dargs ||
      !array_of_psizes || (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN))
    return raise_error(nullptr, MPI_ERR_ARG, fn);
  int64_t procs = 1;
  for (int i = 0; i < ndims; ++i) {
    if (array_of_psizes[i] <= 0 || array_of_gsizes[i] <= 0)
      return raise_error(nullptr, MPI_ERR_ARG, fn);
    procs *= array_of_psizes[i];
  }
  if (procs != size) return raise_error(nullptr, MPI_ERR_ARG, fn);
  // The process grid is row-major whatever the array's order (as MPI_Cart_create's).
  std::vector<int> coord(static_cast<size_t>(ndims));
  for (int i = ndims, r = rank; i-- > 0;) {
    coord[size_t(i)] = r % array_of_psizes[i];
    r /= array_of_psizes[i];
  }
  std::vector<int64_t> sizes(static_cast<size_t>(ndims));
  std::vector<Runs> owned(static_cast<size_t>(ndims));
  for (int i = 0; i < ndims; ++i) {
    const size_t d = dim(order, ndims, size_t(i));
    sizes[d] = array_of_gsizes[i];
    if (int e = distribute(array_of_distribs[i], array_of_dargs[i], array_of_gsizes[i],
                           array_of_psizes[i], coord[size_t(i)], &owned[d]))
      return raise_error(nullptr, e, fn);
  }
  TypeContents c{MPI_COMBINER_DARRAY, {size, rank, ndims}, {}, {}};
  for (const int* a : {array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes})
    c.ints.insert(c.ints.end(), a, a + ndims);
  c.ints.push_back(order);
  return check(nullptr, make_array_type(sizes, owned, oldtype, newtype, std::move(c)), fn);
}

TORUS_MPI_ALIAS(MPI_Type_create_subarray)
TORUS_MPI_ALIAS(MPI_Type_create_darray)

}  // extern "C"
