// MPI_Type_commit and MPI_Type_free. Freeing drops the handle only: types built from it and
// operations still using it hold their own TypeRef, so its layout lives until they are done.
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/table.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

extern "C" {

int PMPI_Type_commit(MPI_Datatype* datatype) {
  if (!datatype) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Type_commit");
  const TypeInfo* t = type_info(*datatype);
  if (!t) return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_commit");
  t->committed = true;  // predefined types already are
  return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype* datatype) {
  if (!datatype) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Type_free");
  // Predefined handles are not in the table, so they are refused here too. Delete callbacks
  // run first, while the handle is still valid for them; one that fails keeps the type.
  if (!type_lookup_raw(*datatype)) return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_free");
  if (int e = type_delete_attrs(*datatype)) return raise_error(nullptr, e, "MPI_Type_free");
  if (!type_uninstall(*datatype)) return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_free");
  type_name_forget(*datatype);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Type_commit)
TORUS_MPI_ALIAS(MPI_Type_free)

}  // extern "C"
