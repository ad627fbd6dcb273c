// MPI_Type_set_name / MPI_Type_get_name: names are local to the process, for tools and
// debugging. A predefined type is named as the standard spells its handle until the program
// renames it; a derived type's name goes with its handle (MPI_Type_free forgets it).
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/table.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

struct Names {
  std::mutex mutex;
  std::map<MPI_Datatype, std::string> set;  // what Type_set_name gave
};

Names& names() {
  static Names n;
  return n;
}

const char* predefined_name(MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR: return "MPI_CHAR";
    case MPI_SIGNED_CHAR: return "MPI_SIGNED_CHAR";
    case MPI_UNSIGNED_CHAR: return "MPI_UNSIGNED_CHAR";
    case MPI_BYTE: return "MPI_BYTE";
    case MPI_WCHAR: return "MPI_WCHAR";
    case MPI_SHORT: return "MPI_SHORT";
    case MPI_UNSIGNED_SHORT: return "MPI_UNSIGNED_SHORT";
    case MPI_INT: return "MPI_INT";
    case MPI_UNSIGNED: return "MPI_UNSIGNED";
    case MPI_LONG: return "MPI_LONG";
    case MPI_UNSIGNED_LONG: return "MPI_UNSIGNED_LONG";
    case MPI_LONG_LONG_INT: return "MPI_LONG_LONG_INT";
    case MPI_UNSIGNED_LONG_LONG: return "MPI_UNSIGNED_LONG_LONG";
    case MPI_FLOAT: return "MPI_FLOAT";
    case MPI_DOUBLE: return "MPI_DOUBLE";
    case MPI_LONG_DOUBLE: return "MPI_LONG_DOUBLE";
    case MPI_PACKED: return "MPI_PACKED";
    case MPI_INT8_T: return "MPI_INT8_T";
    case MPI_INT16_T: return "MPI_INT16_T";
    case MPI_INT32_T: return "MPI_INT32_T";
    case MPI_INT64_T: return "MPI_INT64_T";
    case MPI_UINT8_T: return "MPI_UINT8_T";
    case MPI_UINT16_T: return "MPI_UINT16_T";
    case MPI_UINT32_T: return "MPI_UINT32_T";
    case MPI_UINT64_T: return "MPI_UINT64_T";
    case MPI_C_BOOL: return "MPI_C_BOOL";
    case MPI_AINT: return "MPI_AINT";
    case MPI_OFFSET: return "MPI_OFFSET";
    case MPI_COUNT: return "MPI_COUNT";
    case MPI_FLOAT_INT: return "MPI_FLOAT_INT";
    case MPI_DOUBLE_INT: return "MPI_DOUBLE_INT";
    case MPI_LONG_INT: return "MPI_LONG_INT";
    case MPI_SHORT_INT: return "MPI_SHORT_INT";
    case MPI_2INT: return "MPI_2INT";
    case MPI_LONG_DOUBLE_INT: return "MPI_LONG_DOUBLE_INT";
    default: return nullptr;
  }
}

}  // namespace

namespace torus::mpi {

void type_name_forget(MPI_Datatype type) {
  Names& n = names();
  std::lock_guard lock(n.mutex);
  n.set.erase(type);
}

}  // namespace torus::mpi

extern "C" {

int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  if (!type_info(datatype)) return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_set_name");
  if (!type_name) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Type_set_name");
  // Longer names are cut to what Type_get_name can return, as the standard allows.
  std::string name(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  Names& n = names();
  std::lock_guard lock(n.mutex);
  n.set[datatype] = std::move(name);
  return MPI_SUCCESS;
}

int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  if (!type_info(datatype)) return raise_error(nullptr, MPI_ERR_TYPE, "MPI_Type_get_name");
  if (!type_name || !resultlen) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Type_get_name");
  std::string name;
  {
    Names& n = names();
    std::lock_guard lock(n.mutex);
    auto it = n.set.find(datatype);
    if (it != n.set.end()) name = it->second;
    else if (const char* p = predefined_name(datatype)) name = p;
  }
  std::memcpy(type_name, name.c_str(), name.size() + 1);
  *resultlen = static_cast<int>(name.size());
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Type_set_name)
TORUS_MPI_ALIAS(MPI_Type_get_name)

}  // extern "C"
