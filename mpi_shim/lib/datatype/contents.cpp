// MPI_Type_get_envelope and MPI_Type_get_contents, and their _c forms: how a derived type was
// built (mpi4py and tools decode types with them). Derived inner types come back as new
// handles that the caller frees, as the standard says; predefined ones as themselves.
#include <algorithm>

#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/table.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

// The new handles of a type's inner types (derived ones get a new handle, predefined ones
// come back as themselves); an MPI error class.
int give_types(const TypeContents& c, MPI_Datatype out[]) {
  for (size_t i = 0; i < c.types.size(); ++i) {
    const TypeRef& inner = c.types[i];
    if (inner->predefined != MPI_DATATYPE_NULL) {
      out[i] = inner->predefined;
    } else if (int e = type_install(inner, &out[i])) {
      for (size_t k = 0; k < i; ++k)  // undo the handles already given
        if (c.types[k]->predefined == MPI_DATATYPE_NULL) type_uninstall(out[k]);
      return e;
    }
  }
  return MPI_SUCCESS;
}

// The arrays' room, checked against what the type holds.
bool fits(MPI_Count room, size_t n, const void* array) {
  return room >= MPI_Count(n) && (n == 0 || array);
}

}  // namespace

extern "C" {

// A type from a large-count constructor has no int description: MPI_ERR_TYPE, as MPI 4.0
// (5.1.13) says for the non-_c inquiry calls.
int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                           int* num_datatypes, int* combiner) {
  const TypeInfo* t = type_info(datatype);
  if (!t || !t->contents.counts.empty())
    return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_get_envelope");
  if (!num_integers || !num_addresses || !num_datatypes || !combiner)
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Type_get_envelope");
  *num_integers = static_cast<int>(t->contents.ints.size());
  *num_addresses = static_cast<int>(t->contents.aints.size());
  *num_datatypes = static_cast<int>(t->contents.types.size());
  *combiner = t->contents.combiner;
  return MPI_SUCCESS;
}

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers,
                             MPI_Count* num_addresses, MPI_Count* num_large_counts,
                             MPI_Count* num_datatypes, int* combiner) {
  const TypeInfo* t = type_info(datatype);
  if (!t) return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_get_envelope_c");
  if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes || !combiner)
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Type_get_envelope_c");
  *num_integers = MPI_Count(t->contents.ints.size());
  *num_addresses = MPI_Count(t->contents.aints.size());
  *num_large_counts = MPI_Count(t->contents.counts.size());
  *num_datatypes = MPI_Count(t->contents.types.size());
  *combiner = t->contents.combiner;
  return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
  const TypeInfo* t = type_info(datatype);
  // A predefined type has no contents (MPI_COMBINER_NAMED).
  if (!t || t->predefined != MPI_DATATYPE_NULL || !t->contents.counts.empty())
    return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_get_contents");
  const TypeContents& c = t->contents;
  if (!fits(max_integers, c.ints.size(), array_of_integers) ||
      !fits(max_addresses, c.aints.size(), array_of_addresses) ||
      !fits(max_datatypes, c.types.size(), array_of_datatypes))
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Type_get_contents");
  std::copy(c.ints.begin(), c.ints.end(), array_of_integers);
  std::copy(c.aints.begin(), c.aints.end(), array_of_addresses);
  return check(nullptr, give_types(c, array_of_datatypes), "MPI_Type_get_contents");
}

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                             MPI_Count max_addresses, MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[]) {
  const TypeInfo* t = type_info(datatype);
  if (!t || t->predefined != MPI_DATATYPE_NULL)
    return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_get_contents_c");
  const TypeContents& c = t->contents;
  if (!fits(max_integers, c.ints.size(), array_of_integers) ||
      !fits(max_addresses, c.aints.size(), array_of_addresses) ||
      !fits(max_large_counts, c.counts.size(), array_of_large_counts) ||
      !fits(max_datatypes, c.types.size(), array_of_datatypes))
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Type_get_contents_c");
  std::copy(c.ints.begin(), c.ints.end(), array_of_integers);
  std::copy(c.aints.begin(), c.aints.end(), array_of_addresses);
  std::copy(c.counts.begin(), c.counts.end(), array_of_large_counts);
  return check(nullptr, give_types(c, array_of_datatypes), "MPI_Type_get_contents_c");
}

TORUS_MPI_ALIAS(MPI_Type_get_envelope)
TORUS_MPI_ALIAS(MPI_Type_get_envelope_c)
TORUS_MPI_ALIAS(MPI_Type_get_contents)
TORUS_MPI_ALIAS(MPI_Type_get_contents_c)

}  // extern "C"
