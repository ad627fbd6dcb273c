// MPI_Type_get_envelope and MPI_Type_get_contents: how a derived type was built (mpi4py and
// tools decode types with them). Derived inner types come back as new handles that the
// caller frees, as the standard says; predefined ones as themselves.
#include "mpi_shim/lib/datatype.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/pmpi.h"
#include "mpi_shim/lib/type_table.h"

using namespace torus::mpi;

extern "C" {

int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                           int* num_datatypes, int* combiner) {
  const TypeInfo* t = type_info(datatype);
  if (!t) return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_get_envelope");
  if (!num_integers || !num_addresses || !num_datatypes || !combiner)
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Type_get_envelope");
  *num_integers = static_cast<int>(t->contents.ints.size());
  *num_addresses = static_cast<int>(t->contents.aints.size());
  *num_datatypes = static_cast<int>(t->contents.types.size());
  *combiner = t->contents.combiner;
  return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
  const TypeInfo* t = type_info(datatype);
  // A predefined type has no contents (MPI_COMBINER_NAMED).
  if (!t || t->predefined != MPI_DATATYPE_NULL)
    return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_get_contents");
  const TypeContents& c = t->contents;
  if (max_integers < static_cast<int>(c.ints.size()) ||
      max_addresses < static_cast<int>(c.aints.size()) ||
      max_datatypes < static_cast<int>(c.types.size()) ||
      (!c.ints.empty() && !array_of_integers) || (!c.aints.empty() && !array_of_addresses) ||
      (!c.types.empty() && !array_of_datatypes))
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Type_get_contents");
  for (size_t i = 0; i < c.ints.size(); ++i) array_of_integers[i] = c.ints[i];
  for (size_t i = 0; i < c.aints.size(); ++i) array_of_addresses[i] = c.aints[i];
  for (size_t i = 0; i < c.types.size(); ++i) {
    const TypeRef& inner = c.types[i];
    if (inner->predefined != MPI_DATATYPE_NULL) {
      array_of_datatypes[i] = inner->predefined;
    } else if (int e = type_install(inner, &array_of_datatypes[i])) {
      for (size_t k = 0; k < i; ++k)  // undo the handles already given
        if (c.types[k]->predefined == MPI_DATATYPE_NULL) type_uninstall(array_of_datatypes[k]);
      return raise_error(nullptr, e, "MPI_Type_get_contents");
    }
  }
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Type_get_envelope)
TORUS_MPI_ALIAS(MPI_Type_get_contents)

}  // extern "C"
