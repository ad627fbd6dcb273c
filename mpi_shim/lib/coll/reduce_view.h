// The buffers of a reduction collective as the algorithms see them: packed elements of the
// type they compute on. A predefined op on a derived type computes on its basic elements
// (count times as many); a user op keeps the derived type (op_apply hands its function the
// type's own layout). Dense types are used in place, others packed before and unpacked after.
#pragma once

#include <cstddef>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"

namespace torus::mpi {

// The checks every reduction shares: the type (MPI_ERR_TYPE), count (MPI_ERR_COUNT) and
// op (MPI_ERR_OP, op_check).
int reduction_check(int count, MPI_Datatype type, MPI_Op op) noexcept;

class ReduceView {
 public:
  // sendbuf holds send_elements elements (or is MPI_IN_PLACE: the input is then the first
  // recv_elements elements of recvbuf); recvbuf receives recv_elements (0 where it is not
  // significant: it is then passed on as it is). Returns an MPI error code.
  int init(const void* sendbuf, size_t send_elements, void* recvbuf, size_t recv_elements,
           MPI_Datatype type, MPI_Op op);
  const void* sbuf() const noexcept { return sbuf_; }
  void* rbuf() const noexcept { return rbuf_; }
  // What the algorithm computes on: `elements` of the user's type are scale() of type().
  MPI_Datatype type() const noexcept { return type_; }
  size_t scale() const noexcept { return scale_; }
  // The layout of type() while this view lives, for a user op on a derived type (its handle
  // may be freed before a nonblocking reduction completes); nullptr otherwise.
  const TypeInfo* layout() const noexcept { return held_.get(); }
  bool staged() const noexcept { return send_.staged() || recv_.staged(); }
  // The result's first `elements` elements are in rbuf(): unpacks them (when staged).
  void finish(size_t elements) noexcept;

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  size_t scale_ = 1;
  size_t size_ = 0;  // packed bytes per user element
  TypeRef held_;
  const void* sbuf_ = nullptr;
  void* rbuf_ = nullptr;
  SendView send_;
  RecvView recv_;
};

}  // namespace torus::mpi
