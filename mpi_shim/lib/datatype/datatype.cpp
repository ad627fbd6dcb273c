// The predefined datatypes as TypeInfos and the lookups the rest of the library uses
// (type_info, type_size, type_basic). Predefined handles are answered from a static table
// indexed by handle bits, without a lock; derived ones come from table.h.
#include "mpi_shim/lib/datatype/datatype.h"

#include <array>
#include <cstdint>

#include "mpi_shim/lib/datatype/table.h"

namespace torus::mpi {
namespace {

// The layout of the value-index pair types (MPI_FLOAT_INT, ...): a struct, with padding,
// whose padding travels as data (their size is the struct's).
template <typename V>
struct Pair {
  V value;
  int index;
};

struct PredefinedSpec {
  MPI_Datatype handle;
  size_t size;
  size_t align;
  size_t elements;  // basic elements: two for a value-index pair
};

template <typename T>
constexpr PredefinedSpec spec(MPI_Datatype h, size_t elements = 1) {
  return {h, sizeof(T), alignof(T), elements};
}

constexpr std::array kPredefined = {
    spec<char>(MPI_CHAR), spec<signed char>(MPI_SIGNED_CHAR),
    spec<unsigned char>(MPI_UNSIGNED_CHAR), spec<unsigned char>(MPI_BYTE),
    spec<wchar_t>(MPI_WCHAR), spec<short>(MPI_SHORT), spec<unsigned short>(MPI_UNSIGNED_SHORT),
    spec<int>(MPI_INT), spec<unsigned>(MPI_UNSIGNED), spec<long>(MPI_LONG),
    spec<unsigned long>(MPI_UNSIGNED_LONG), spec<long long>(MPI_LONG_LONG_INT),
    spec<unsigned long long>(MPI_UNSIGNED_LONG_LONG), spec<float>(MPI_FLOAT),
    spec<double>(MPI_DOUBLE), spec<long double>(MPI_LONG_DOUBLE),
    spec<unsigned char>(MPI_PACKED), spec<int8_t>(MPI_INT8_T), spec<int16_t>(MPI_INT16_T),
    spec<int32_t>(MPI_INT32_T), spec<int64_t>(MPI_INT64_T), spec<uint8_t>(MPI_UINT8_T),
    spec<uint16_t>(MPI_UINT16_T), spec<uint32_t>(MPI_UINT32_T), spec<uint64_t>(MPI_UINT64_T),
    spec<bool>(MPI_C_BOOL), spec<MPI_Aint>(MPI_AINT), spec<MPI_Offset>(MPI_OFFSET),
    spec<MPI_Count>(MPI_COUNT), spec<Pair<int>>(MPI_2INT, 2),
    spec<Pair<float>>(MPI_FLOAT_INT, 2), spec<Pair<double>>(MPI_DOUBLE_INT, 2),
    spec<Pair<long>>(MPI_LONG_INT, 2), spec<Pair<short>>(MPI_SHORT_INT, 2),
    spec<Pair<long double>>(MPI_LONG_DOUBLE_INT, 2),
};

constexpr unsigned kBasicKind = 0x4c000000u;  // basic handles: size in bits 8-15, index 0-7
constexpr unsigned kPairCount = 5;            // MPI_FLOAT_INT .. MPI_LONG_DOUBLE_INT

struct PredefinedTable {
  std::array<TypeInfo, kPredefined.size()> infos;
  std::array<const TypeInfo*, 256> basic{};      // by the low byte of a 0x4c handle
  std::array<const TypeInfo*, kPairCount> pairs{};  // by the index of a 0x8c handle

  PredefinedTable() {
    for (size_t i = 0; i < kPredefined.size(); ++i) {
      const PredefinedSpec& s = kPredefined[i];
      TypeInfo& t = infos[i];
      t.size = s.size;
      t.extent = t.true_extent = static_cast<MPI_Aint>(s.size);
      t.blocks = {{0, static_cast<MPI_Aint>(s.size)}};
      t.runs = {{s.handle, 1}};
      t.basic = s.handle;
      t.basic_count = 1;
      t.elements = s.elements;
      t.align = static_cast<MPI_Aint>(s.align);
      t.predefined = s.handle;
      t.committed = true;
      const unsigned h = static_cast<unsigned>(s.handle);
      if ((h & 0xffff0000u) == kBasicKind) basic[h & 0xffu] = &t;
      else pairs[h & 0xffu] = &t;
    }
  }
};

// Built when the library loads (nothing calls type_info() from a static initializer), so a
// lookup, made for every message, pays no guard for a function-local static.
const PredefinedTable g_predefined;

const PredefinedTable& predefined_table() { return g_predefined; }

}  // namespace

const TypeInfo* type_info(MPI_Datatype type) noexcept {
  const unsigned h = static_cast<unsigned>(type);
  const TypeInfo* t = nullptr;
  if ((h & 0xffff0000u) == kBasicKind) {
    t = predefined_table().basic[h & 0xffu];
  } else if (is_derived_kind(type)) {
    const unsigned index = h & 0x03ffffffu;
    if (index >= kFirstDerivedIndex) return type_lookup_raw(type);
    if (index < kPairCount) t = predefined_table().pairs[index];
  }
  return t && t->predefined == type ? t : nullptr;
}

TypeRef type_hold(MPI_Datatype type) {
  if (is_derived_kind(type) && (static_cast<unsigned>(type) & 0x03ffffffu) >= kFirstDerivedIndex)
    return type_lookup(type);
  // Predefined types live as long as the library: a pointer that owns nothing.
  return TypeRef(TypeRef(), type_info(type));
}

size_t type_size(MPI_Datatype type) noexcept {
  const TypeInfo* t = type_info(type);
  if (!t) return 0;
  if (t->predefined != MPI_DATATYPE_NULL) return t->size;
  return t->committed && t->contiguous && t->true_lb == 0 ? t->size : 0;
}

MPI_Datatype type_basic(MPI_Datatype type, size_t* count) noexcept {
  const TypeInfo* t = type_info(type);
  if (count) *count = t && t->basic != MPI_DATATYPE_NULL ? t->basic_count : 0;
  return t ? t->basic : MPI_DATATYPE_NULL;
}

}  // namespace torus::mpi
