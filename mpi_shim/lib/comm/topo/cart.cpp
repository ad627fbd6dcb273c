// Cartesian topologies: MPI_Dims_create, MPI_Cart_create and the calls that read or cut a
// grid. Ranks are laid out row-major (the last dimension varies fastest) and never
// reordered: `reorder` is a permission the standard lets an implementation ignore, and a
// shared-memory host has no placement to improve on. A grid is a communicator made by
// MPI_Comm_split with the grid attached (Comm::cart); duplicates share it.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

// The product of dims, or -1 when one is not positive or the product passes INT_MAX.
long long grid_size(int ndims, const int dims[]) {
  long long n = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return -1;
    n *= dims[i];
    if (n > INT32_MAX) return -1;
  }
  return n;
}

std::vector<int> coords_of(const CartTopology& t, int rank) {
  std::vector<int> c(t.dims.size());
  for (size_t i = t.dims.size(); i-- > 0;) {
    c[i] = rank % t.dims[i];
    rank /= t.dims[i];
  }
  return c;
}

// Row-major rank of coords wrapped along periodic dimensions; -1 when a coordinate falls
// outside a non-periodic one.
int rank_of(const CartTopology& t, const int coords[]) {
  int rank = 0;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    int c = coords[i];
    if (c < 0 || c >= t.dims[i]) {
      if (!t.periods[i]) return -1;
      c %= t.dims[i];
      if (c < 0) c += t.dims[i];
    }
    rank = rank * t.dims[i] + c;
  }
  return rank;
}

// Splits `comm` by color (MPI_UNDEFINED: no new communicator) keeping rank order, and
// attaches `topo` to the result.
int split_with_topology(MPI_Comm comm, int color, int key, std::shared_ptr<CartTopology> topo,
                        MPI_Comm* out) {
  if (int e = PMPI_Comm_split(comm, color, key, out)) return e;
  if (*out != MPI_COMM_NULL) comm_get(*out)->cart = std::move(topo);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  if (nnodes <= 0) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Dims_create");
  if (ndims < 0 || (ndims > 0 && !dims))
    return raise_error(nullptr, MPI_ERR_DIMS, "MPI_Dims_create");
  long long fixed = 1;
  std::vector<int> free_dims;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return raise_error(nullptr, MPI_ERR_DIMS, "MPI_Dims_create");
    if (dims[i] == 0)
      free_dims.push_back(i);
    else
      fixed *= dims[i];
  }
  if (fixed > nnodes || nnodes % fixed != 0)
    return raise_error(nullptr, MPI_ERR_DIMS, "MPI_Dims_create");
  int rest = static_cast<int>(nnodes / fixed);
  if (free_dims.empty())
    return rest == 1 ? MPI_SUCCESS : raise_error(nullptr, MPI_ERR_DIMS, "MPI_Dims_create");
  // Prime factors, largest first, each to the free dimension that is smallest so far: the
  // usual way to keep the sides close to each other.
  std::vector<int> factors;
  for (int p = 2; static_cast<long long>(p) * p <= rest; ++p)
    while (rest % p == 0) {
      factors.push_back(p);
      rest /= p;
    }
  if (rest > 1) factors.push_back(rest);
  std::vector<int> sides(free_dims.size(), 1);
  for (auto f = factors.rbegin(); f != factors.rend(); ++f)
    *std::min_element(sides.begin(), sides.end()) *= *f;
  std::sort(sides.begin(), sides.end(), std::greater<>());
  for (size_t i = 0; i < free_dims.size(); ++i) dims[free_dims[i]] = sides[i];
  return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int /*reorder*/, MPI_Comm* comm_cart) {
  Comm* c = comm_get_intra(comm_old);
  if (!c) return raise_error(comm_get(comm_old), MPI_ERR_COMM, "MPI_Cart_create");
  if (!comm_cart) return raise_error(c, MPI_ERR_ARG, "MPI_Cart_create");
  if (ndims < 0 || (ndims > 0 && (!dims || !periods)))
    return raise_error(c, MPI_ERR_DIMS, "MPI_Cart_create");
  const long long n = grid_size(ndims, dims);
  if (n < 0) return raise_error(c, MPI_ERR_DIMS, "MPI_Cart_create");
  if (n > c->size) return raise_error(c, MPI_ERR_ARG, "MPI_Cart_create");
  auto topo = std::make_shared<CartTopology>();
  topo->dims.assign(dims, dims + ndims);
  for (int i = 0; i < ndims; ++i) topo->periods.push_back(periods[i] != 0);
  const int color = c->rank < n ? 0 : MPI_UNDEFINED;
  return check(c, split_with_topology(comm_old, color, c->rank, std::move(topo), comm_cart),
               "MPI_Cart_create");
}

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int /*periods*/[],
                  int* newrank) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Cart_map");
  if (!newrank || ndims < 0) return raise_error(c, MPI_ERR_ARG, "MPI_Cart_map");
  const long long n = grid_size(ndims, dims);
  if (n < 0) return raise_error(c, MPI_ERR_DIMS, "MPI_Cart_map");
  if (n > c->size) return raise_error(c, MPI_ERR_ARG, "MPI_Cart_map");
  *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int* status) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Topo_test");
  if (!status) return raise_error(c, MPI_ERR_ARG, "MPI_Topo_test");
  *status = c->cart         ? MPI_CART
            : c->graph      ? MPI_GRAPH
            : c->dist_graph ? MPI_DIST_GRAPH
                            : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Cartdim_get");
  if (!c->cart) return raise_error(c, MPI_ERR_TOPOLOGY, "MPI_Cartdim_get");
  if (!ndims) return raise_error(c, MPI_ERR_ARG, "MPI_Cartdim_get");
  *ndims = static_cast<int>(c->cart->dims.size());
  return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Cart_get");
  if (!c->cart) return raise_error(c, MPI_ERR_TOPOLOGY, "MPI_Cart_get");
  const CartTopology& t = *c->cart;
  const int n = std::min(maxdims, static_cast<int>(t.dims.size()));
  if (n > 0 && (!dims || !periods || !coords))
    return raise_error(c, MPI_ERR_ARG, "MPI_Cart_get");
  const std::vector<int> mine = coords_of(t, c->rank);
  for (int i = 0; i < n; ++i) {
    dims[i] = t.dims[size_t(i)];
    periods[i] = t.periods[size_t(i)] ? 1 : 0;
    coords[i] = mine[size_t(i)];
  }
  return MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Cart_rank");
  if (!c->cart) return raise_error(c, MPI_ERR_TOPOLOGY, "MPI_Cart_rank");
  if (!rank || (!coords && !c->cart->dims.empty()))
    return raise_error(c, MPI_ERR_ARG, "MPI_Cart_rank");
  const int r = rank_of(*c->cart, coords);
  if (r < 0) return raise_error(c, MPI_ERR_ARG, "MPI_Cart_rank");
  *rank = r;
  return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Cart_coords");
  if (!c->cart) return raise_error(c, MPI_ERR_TOPOLOGY, "MPI_Cart_coords");
  if (rank < 0 || rank >= c->size) return raise_error(c, MPI_ERR_RANK, "MPI_Cart_coords");
  const int n = static_cast<int>(c->cart->dims.size());
  if (maxdims < n || (n > 0 && !coords)) return raise_error(c, MPI_ERR_ARG, "MPI_Cart_coords");
  const std::vector<int> v = coords_of(*c->cart, rank);
  std::copy(v.begin(), v.end(), coords);
  return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source,
                    int* rank_dest) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Cart_shift");
  if (!c->cart) return raise_error(c, MPI_ERR_TOPOLOGY, "MPI_Cart_shift");
  const CartTopology& t = *c->cart;
  if (direction < 0 || direction >= static_cast<int>(t.dims.size()) || !rank_source ||
      !rank_dest)
    return raise_error(c, MPI_ERR_ARG, "MPI_Cart_shift");
  std::vector<int> at = coords_of(t, c->rank);
  const int here = at[size_t(direction)];
  // In 64 bits: a displacement near INT_MAX must not wrap into the grid.
  auto neighbour = [&](long long to) {
    const int d = t.dims[size_t(direction)];
    if (!t.periods[size_t(direction)] && (to < 0 || to >= d)) return MPI_PROC_NULL;
    at[size_t(direction)] = static_cast<int>(((to % d) + d) % d);
    return rank_of(t, at.data());
  };
  *rank_dest = neighbour(static_cast<long long>(here) + disp);
  *rank_source = neighbour(static_cast<long long>(here) - disp);
  return MPI_SUCCESS;
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Cart_sub");
  if (!c->cart) return raise_error(c, MPI_ERR_TOPOLOGY, "MPI_Cart_sub");
  const CartTopology& t = *c->cart;
  if (!newcomm || (!remain_dims && !t.dims.empty()))
    return raise_error(c, MPI_ERR_ARG, "MPI_Cart_sub");
  // Members of one sub-grid agree on the coordinates of the dimensions dropped: those,
  // row-major, are the color; the rank order within it is the grid's own.
  const std::vector<int> at = coords_of(t, c->rank);
  auto topo = std::make_shared<CartTopology>();
  int color = 0;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (remain_dims[i]) {
      topo->dims.push_back(t.dims[i]);
      topo->periods.push_back(t.periods[i]);
    } else {
      color = color * t.dims[i] + at[i];
    }
  }
  return check(c, split_with_topology(comm, color, c->rank, std::move(topo), newcomm),
               "MPI_Cart_sub");
}

TORUS_MPI_ALIAS(MPI_Dims_create)
TORUS_MPI_ALIAS(MPI_Cart_create)
TORUS_MPI_ALIAS(MPI_Cart_map)
TORUS_MPI_ALIAS(MPI_Topo_test)
TORUS_MPI_ALIAS(MPI_Cartdim_get)
TORUS_MPI_ALIAS(MPI_Cart_get)
TORUS_MPI_ALIAS(MPI_Cart_rank)
TORUS_MPI_ALIAS(MPI_Cart_coords)
TORUS_MPI_ALIAS(MPI_Cart_shift)
TORUS_MPI_ALIAS(MPI_Cart_sub)

}  // extern "C"
