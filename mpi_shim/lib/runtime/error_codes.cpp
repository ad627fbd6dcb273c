// The application's error classes and codes (error_codes.h). Classes count up from
// kFirstUserClass and codes from kFirstUserCode, so the two never meet and a value's kind
// shows in its size; neither is ever given back (the standard has no call to remove one).
#include "mpi_shim/lib/runtime/error_codes.h"

#include <cstring>
#include <map>
#include <mutex>

#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

struct Entry {
  int error_class;
  std::string text;
};

struct Table {
  std::mutex mutex;
  std::map<int, Entry> entries;  // user classes (their own class) and codes
  int next_class = kFirstUserClass;
  int next_code = kFirstUserCode;
  int last_used = kLastPredefinedClass;
};

Table& table() {
  static Table t;
  return t;
}

bool predefined_class(int c) { return c >= MPI_SUCCESS && c <= kLastPredefinedClass; }

}  // namespace

namespace torus::mpi {

bool user_error(int code, int* error_class, std::string* text) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.entries.find(code);
  if (it == t.entries.end()) return false;
  if (error_class) *error_class = it->second.error_class;
  if (text) *text = it->second.text;
  return true;
}

int* last_used_code() { return &table().last_used; }

}  // namespace torus::mpi

extern "C" {

int PMPI_Add_error_class(int* errorclass) {
  if (!errorclass) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Add_error_class");
  Table& t = table();
  std::unique_lock lock(t.mutex);
  if (t.next_class >= kFirstUserCode) {
    lock.unlock();  // the handler may call back into MPI
    return raise_error(nullptr, MPI_ERR_INTERN, "MPI_Add_error_class");
  }
  const int c = t.next_class++;
  t.entries[c] = Entry{c, {}};
  if (c > t.last_used) t.last_used = c;
  *errorclass = c;
  return MPI_SUCCESS;
}

int PMPI_Add_error_code(int errorclass, int* errorcode) {
  if (!errorcode) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Add_error_code");
  Table& t = table();
  std::unique_lock lock(t.mutex);
  const auto it = t.entries.find(errorclass);
  const bool user_class = it != t.entries.end() && it->second.error_class == errorclass;
  if (!user_class && !predefined_class(errorclass)) {
    lock.unlock();
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Add_error_code");
  }
  if (t.next_code >= MPI_ERR_LASTCODE) {
    lock.unlock();
    return raise_error(nullptr, MPI_ERR_INTERN, "MPI_Add_error_code");
  }
  const int code = t.next_code++;
  t.entries[code] = Entry{errorclass, {}};
  if (code > t.last_used) t.last_used = code;
  *errorcode = code;
  return MPI_SUCCESS;
}

int PMPI_Add_error_string(int errorcode, const char* string) {
  if (!string || std::strlen(string) >= MPI_MAX_ERROR_STRING)
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Add_error_string");
  Table& t = table();
  std::unique_lock lock(t.mutex);
  auto it = t.entries.find(errorcode);
  // Only the application's own classes and codes take a string.
  if (it == t.entries.end()) {
    lock.unlock();
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Add_error_string");
  }
  it->second.text = string;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Add_error_class)
TORUS_MPI_ALIAS(MPI_Add_error_code)
TORUS_MPI_ALIAS(MPI_Add_error_string)

}  // extern "C"
