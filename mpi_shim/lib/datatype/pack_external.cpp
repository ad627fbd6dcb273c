// MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size for "external32", the
// standard's portable representation: every basic element big-endian at its fixed size,
// value-index pairs without their padding, long double as IEEE binary128. Data is packed
// natively first (type_pack, the typemap's order), then each basic element, walked through
// the type's runs, is converted into the output (and the other way round for unpacking).
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

template <typename V>
struct Pair {
  V value;
  int index;
};

// One basic element: its native (packed) size, the native offset of a pair's index, and its
// scalar parts' sizes in external32 (the index of a pair is a 4-byte int).
struct Basic {
  size_t native = 0;
  size_t value = 0;   // external bytes of the scalar (or of a pair's value)
  bool is_long_double = false;
  size_t index_at = 0;  // pairs: native offset of the index; 0 for scalars
};

template <typename V>
Basic pair_of(size_t value_bytes, bool ld = false) {
  return {sizeof(Pair<V>), value_bytes, ld, offsetof(Pair<V>, index)};
}

bool basic_of(MPI_Datatype t, Basic* b) {
  switch (t) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_BYTE:
    case MPI_PACKED: case MPI_INT8_T: case MPI_UINT8_T: case MPI_C_BOOL:
      *b = {1, 1}; return true;
    case MPI_SHORT: case MPI_UNSIGNED_SHORT: case MPI_INT16_T: case MPI_UINT16_T:
      *b = {2, 2}; return true;
    case MPI_INT: case MPI_UNSIGNED: case MPI_INT32_T: case MPI_UINT32_T: case MPI_FLOAT:
    case MPI_WCHAR:
      *b = {4, 4}; return true;
    case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG:
    case MPI_INT64_T: case MPI_UINT64_T: case MPI_DOUBLE: case MPI_AINT: case MPI_OFFSET:
    case MPI_COUNT:
      *b = {8, 8}; return true;
    case MPI_LONG_DOUBLE: *b = {sizeof(long double), 16, true}; return true;
    case MPI_2INT: *b = pair_of<int>(4); return true;
    case MPI_FLOAT_INT: *b = pair_of<float>(4); return true;
    case MPI_DOUBLE_INT: *b = pair_of<double>(8); return true;
    case MPI_LONG_INT: *b = pair_of<long>(8); return true;
    case MPI_SHORT_INT: *b = pair_of<short>(2); return true;
    case MPI_LONG_DOUBLE_INT: *b = pair_of<long double>(16, true); return true;
    default: return false;
  }
}

size_t external_size(const Basic& b) { return b.value + (b.index_at ? 4 : 0); }

// Native little-endian integers of n bytes to big-endian and back (the same swap).
void swap_copy(std::byte* out, const std::byte* in, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = in[n - 1 - i];
}

// x86's 80-bit extended format to binary128 and back: the same sign and biased exponent;
// the 63 fraction bits after the explicit integer bit lead binary128's 112.
void long_double_out(std::byte* out, const std::byte* in) {
#if LDBL_MANT_DIG == 64
  uint64_t mant;
  uint16_t se;
  std::memcpy(&mant, in, 8);
  std::memcpy(&se, in + 8, 2);
  const uint64_t frac_hi = (mant & 0x7fffffffffffffffull) >> 15;  // 48 bits
  const uint64_t frac_lo = (mant & 0x7fffull) << 49;              // 15 bits, then zeros
  const uint64_t hi = (uint64_t(se) << 48) | frac_hi;
  std::byte words[16];
  std::memcpy(words, &frac_lo, 8);
  std::memcpy(words + 8, &hi, 8);
  swap_copy(out, words, 16);
#else  // long double is binary128 already (or binary64: the standard's 16 bytes regardless)
  std::byte words[16] = {};
  std::memcpy(words, in, sizeof(long double));
  swap_copy(out, words, 16);
#endif
}

void long_double_in(std::byte* out, const std::byte* in) {
  std::byte words[16];
  swap_copy(words, in, 16);
#if LDBL_MANT_DIG == 64
  uint64_t lo, hi;
  std::memcpy(&lo, words, 8);
  std::memcpy(&hi, words + 8, 8);
  const uint16_t se = uint16_t(hi >> 48);
  const bool normal_or_special = (se & 0x7fff) != 0;  // the integer bit is implicit there
  const uint64_t mant = (normal_or_special ? 1ull << 63 : 0) |
                        ((hi & 0xffffffffffffull) << 15) | (lo >> 49);
  std::memset(out, 0, sizeof(long double));
  std::memcpy(out, &mant, 8);
  std::memcpy(out + 8, &se, 2);
#else
  std::memcpy(out, words, sizeof(long double));
#endif
}

// Converts one basic element; `to_external` chooses the direction. Returns the external
// bytes it covered.
size_t convert(const Basic& b, std::byte* native, std::byte* ext, bool to_external) {
  if (b.is_long_double) {
    if (to_external) long_double_out(ext, native);
    else long_double_in(native, ext);
  } else if (to_external) {
    swap_copy(ext, native, b.value);
  } else {
    swap_copy(native, ext, b.value);
  }
  if (b.index_at) {
    if (to_external) swap_copy(ext + b.value, native + b.index_at, 4);
    else swap_copy(native + b.index_at, ext + b.value, 4);
  }
  return external_size(b);
}

// The external32 size of `count` elements of `t`; false when a basic type has no external32
// form here.
bool external_bytes(const TypeInfo& t, size_t count, size_t* bytes) {
  size_t per = 0;
  for (const TypeRun& r : t.runs) {
    Basic b;
    if (!basic_of(r.type, &b)) return false;
    per += r.count * external_size(b);
  }
  *bytes = per * count;
  return true;
}

// Walks the natively packed elements, converting each into / out of `ext`.
void walk(const TypeInfo& t, size_t count, std::byte* native, std::byte* ext, bool to_external) {
  for (size_t i = 0; i < count; ++i)
    for (const TypeRun& r : t.runs) {
      Basic b;
      (void)basic_of(r.type, &b);  // external_bytes checked every run
      for (size_t k = 0; k < r.count; ++k) {
        ext += convert(b, native, ext, to_external);
        native += b.native;
      }
    }
}

int check_args(const char* datarep, int count, MPI_Datatype type, const TypeInfo** t,
               size_t* bytes) {
  if (!datarep || std::string_view(datarep) != "external32") return MPI_ERR_ARG;
  if (count < 0) return MPI_ERR_COUNT;
  *t = type_info(type);
  if (!*t || !(*t)->committed) return MPI_ERR_TYPE;
  if (!external_bytes(**t, size_t(count), bytes)) return MPI_ERR_TYPE;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint* size) {
  const TypeInfo* t = nullptr;
  size_t bytes = 0;
  if (int e = check_args(datarep, incount, datatype, &t, &bytes))
    return raise_error(nullptr, e, "MPI_Pack_external_size");
  if (!size) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Pack_external_size");
  *size = MPI_Aint(bytes);
  return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount,
                       MPI_Datatype datatype, void* outbuf, MPI_Aint outsize,
                       MPI_Aint* position) {
  const TypeInfo* t = nullptr;
  size_t bytes = 0;
  if (int e = check_args(datarep, incount, datatype, &t, &bytes))
    return raise_error(nullptr, e, "MPI_Pack_external");
  if (!position || *position < 0 || outsize < *position ||
      bytes > size_t(outsize - *position))
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Pack_external");
  std::vector<std::byte> native(size_t(incount) * t->size);
  type_pack(inbuf, size_t(incount), *t, native.data());
  walk(*t, size_t(incount), native.data(), static_cast<std::byte*>(outbuf) + *position, true);
  *position += MPI_Aint(bytes);
  return MPI_SUCCESS;
}

int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                         MPI_Aint* position, void* outbuf, int outcount,
                         MPI_Datatype datatype) {
  const TypeInfo* t = nullptr;
  size_t bytes = 0;
  if (int e = check_args(datarep, outcount, datatype, &t, &bytes))
    return raise_error(nullptr, e, "MPI_Unpack_external");
  if (!position || *position < 0 || insize < *position)
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Unpack_external");
  if (bytes > size_t(insize - *position))
    return raise_error(nullptr, MPI_ERR_TRUNCATE, "MPI_Unpack_external");
  std::vector<std::byte> native(size_t(outcount) * t->size);
  auto* ext = const_cast<std::byte*>(static_cast<const std::byte*>(inbuf)) + *position;
  walk(*t, size_t(outcount), native.data(), ext, false);
  (void)type_unpack(native.data(), native.size(), outbuf, size_t(outcount), *t);
  *position += MPI_Aint(bytes);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Pack_external_size)
TORUS_MPI_ALIAS(MPI_Pack_external)
TORUS_MPI_ALIAS(MPI_Unpack_external)

}  // extern "C"
