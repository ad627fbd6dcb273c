// Error classes, codes and strings that the application adds (MPI_Add_error_class,
// MPI_Add_error_code, MPI_Add_error_string), next to the library's own classes.
#pragma once

#include <string>

namespace torus::mpi {

// The largest predefined class's bound (MPICH's classes stay below it), the first class
// and the first code handed out.
inline constexpr int kLastPredefinedClass = 99;
inline constexpr int kFirstUserClass = 1000;
inline constexpr int kFirstUserCode = 1 << 20;

// For a class or code the application added: its class and its string (empty until
// MPI_Add_error_string sets one). False for any other value.
bool user_error(int code, int* error_class, std::string* text);
// The MPI_LASTUSEDCODE attribute's value: the largest class or code handed out (or the
// largest predefined class), readable through a pointer, as attributes are.
int* last_used_code();

}  // namespace torus::mpi
