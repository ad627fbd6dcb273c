// Datatypes as the rest of the library sees them: every type, predefined or derived, is one
// TypeInfo whose layout is flattened to byte blocks per element, so that p2p, collectives and
// MPI_Pack/Unpack never walk a constructor tree.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

// `length` data bytes at `offset` from the start of an element (may be negative).
struct TypeBlock {
  MPI_Aint offset;
  MPI_Aint length;
};

// `count` consecutive basic elements of the predefined `type`, in typemap order: what
// MPI_Get_elements counts in a partial message.
struct TypeRun {
  MPI_Datatype type;
  size_t count;
};

// The layout of one element of a type. Blocks are in typemap order (the order of the packed
// bytes), adjacent ones merged; they may overlap or go backwards.
struct TypeLayout {
  size_t size = 0;         // data bytes per element
  MPI_Aint lb = 0;         // elements i sit at buf + i * extent; lb/extent may be set by resized
  MPI_Aint extent = 0;
  MPI_Aint true_lb = 0;    // the first and past-the-last data byte, whatever lb/extent say
  MPI_Aint true_extent = 0;
  // count elements are exactly the dense bytes [buf + true_lb, buf + true_lb + count * size):
  // at most one block per element and extent == size.
  bool contiguous = true;
  std::vector<TypeBlock> blocks;
  std::vector<TypeRun> runs;
  // The one predefined type all data is made of (MPI_DATATYPE_NULL when mixed) and how many
  // of it one element holds: what a reduction on this type computes on.
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  size_t basic_count = 0;
  size_t elements = 0;           // basic elements per element (a pair type counts two)
  MPI_Aint align = 1;            // what a C struct of this would align to (struct padding)
};

struct TypeInfo;
// Keeps a type's layout alive: pending operations hold one, so MPI_Type_free of a type in use
// is safe. Predefined types' pointers own nothing (they live as long as the library).
using TypeRef = std::shared_ptr<const TypeInfo>;

// How a type was built (MPI_Type_get_envelope / get_contents).
struct TypeContents {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<TypeRef> types;
  // The counts and displacements a large-count (_c) constructor took, whatever their values:
  // only MPI_Type_get_envelope_c / get_contents_c may describe such a type (MPI 4.0 5.1.13).
  std::vector<MPI_Count> counts{};
};

struct TypeInfo : TypeLayout {
  MPI_Datatype predefined = MPI_DATATYPE_NULL;  // the handle of a predefined type, else NULL
  TypeContents contents;
  // Commit is the one change after creation; handles from Type_dup or get_contents that share
  // this object see it too.
  mutable std::atomic<bool> committed{false};
};

// The type behind a handle, nullptr for an invalid or freed one. Predefined handles are
// answered without a lock. The pointer stays valid until the handle is freed; hold a TypeRef
// (type_hold) to use it longer.
const TypeInfo* type_info(MPI_Datatype type) noexcept;
TypeRef type_hold(MPI_Datatype type);

// Bytes per element when `count` elements may be sent as count * size contiguous bytes from
// buf (predefined types, committed derived contiguous types with true_lb == 0); 0 otherwise,
// also for invalid handles.
size_t type_size(MPI_Datatype type) noexcept;

// The basic type of a homogeneous type (MPI_DATATYPE_NULL when mixed or invalid); *count
// (when given) receives the number of basic elements per element.
MPI_Datatype type_basic(MPI_Datatype type, size_t* count = nullptr) noexcept;

// Packs count elements at inbuf into count * size bytes at out, in typemap order.
void type_pack(const void* inbuf, size_t count, const TypeInfo& type, void* out) noexcept;
void type_pack(const void* inbuf, size_t count, MPI_Datatype type, void* out) noexcept;
// Unpacks at most `bytes` bytes of `in` into count elements at outbuf (a shorter message
// fills a prefix of the typemap); returns the bytes consumed.
size_t type_unpack(const void* in, size_t bytes, void* outbuf, size_t count,
                   const TypeInfo& type) noexcept;
size_t type_unpack(const void* in, size_t bytes, void* outbuf, size_t count,
                   MPI_Datatype type) noexcept;

}  // namespace torus::mpi
