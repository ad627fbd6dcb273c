// Reductions on derived datatypes: which basic type a predefined op computes on, and user ops
// on non-dense types, whose function must see the elements in the type's own layout (the
// collectives hold them packed).
#include <algorithm>
#include <climits>
#include <vector>

#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi {

MPI_Datatype op_basic_type(MPI_Datatype type, size_t* per) noexcept {
  if (per) *per = 1;
  const TypeInfo* t = type_info(type);
  if (t == nullptr) return MPI_DATATYPE_NULL;
  if (t->predefined != MPI_DATATYPE_NULL) return type;
  if (per) *per = t->basic_count;
  return t->basic;
}

bool op_layout_is_packed(const TypeInfo& t) noexcept {
  return t.predefined != MPI_DATATYPE_NULL || (t.contiguous && t.true_lb == 0);
}

void user_apply_unpacked(MPI_User_function* fn, MPI_Datatype type, const TypeInfo& t,
                         const void* in, const void* inout, void* out, size_t n) noexcept {
  if (t.size == 0) return;
  // Pieces of about 1 MiB of layout, so the two copies stay small whatever n is.
  const MPI_Aint ext = t.extent < 0 ? -t.extent : t.extent;
  const size_t piece =
      std::min<size_t>(INT_MAX, std::max<size_t>(1, (size_t(1) << 20) / size_t(ext ? ext : 1)));
  const size_t k0 = std::min(n, piece);
  // The bytes k0 elements touch, from the lowest to past the highest data byte.
  const MPI_Aint reach = MPI_Aint(k0 - 1) * t.extent;
  const MPI_Aint lo = t.true_lb + std::min<MPI_Aint>(0, reach);
  const MPI_Aint hi = t.true_lb + t.true_extent + std::max<MPI_Aint>(0, reach);
  std::vector<std::byte> a(size_t(hi - lo)), b(size_t(hi - lo));
  std::byte* ea = a.data() - lo;  // where element 0 sits, as the function sees it
  std::byte* eb = b.data() - lo;
  const auto* pin = static_cast<const std::byte*>(in);
  const auto* pinout = static_cast<const std::byte*>(inout);
  auto* pout = static_cast<std::byte*>(out);
  for (size_t done = 0; done < n; done += piece) {
    const size_t k = std::min(piece, n - done);
    const size_t at = done * t.size, bytes = k * t.size;
    (void)type_unpack(pin + at, bytes, ea, k, t);
    (void)type_unpack(pinout + at, bytes, eb, k, t);
    int len = static_cast<int>(k);
    MPI_Datatype h = type;
    fn(ea, eb, &len, &h);
    type_pack(eb, k, t, pout + at);
  }
}

}  // namespace torus::mpi
