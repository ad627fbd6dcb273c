// Reduction buffers as packed elements of the type an algorithm computes on (reduce_view.h).
#include "mpi_shim/lib/coll/reduce_view.h"

#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/op/op.h"

namespace torus::mpi {

int reduction_check(int count, MPI_Datatype type, MPI_Op op) noexcept {
  size_t bytes = 0;
  if (int e = type_bytes(type, count, &bytes)) return e;
  return op_check(op, type);
}

int ReduceView::init(const void* sendbuf, size_t send_elements, void* recvbuf,
                     size_t recv_elements, MPI_Datatype type, MPI_Op op) {
  const TypeInfo* t = type_info(type);
  if (t == nullptr) return MPI_ERR_TYPE;
  type_ = type;
  size_ = t->size;
  if (!is_user_op(op)) type_ = op_basic_type(type, &scale_);
  else if (t->predefined == MPI_DATATYPE_NULL) held_ = type_hold(type);
  if (sendbuf == MPI_IN_PLACE) {
    sbuf_ = MPI_IN_PLACE;
  } else {
    if (int e = send_.init_elements(sendbuf, send_elements, type)) return e;
    sbuf_ = send_.data();
  }
  if (recv_elements == 0) {
    rbuf_ = recvbuf;
    return MPI_SUCCESS;
  }
  if (int e = recv_.init_elements(recvbuf, recv_elements, type)) return e;
  if (sendbuf == MPI_IN_PLACE) recv_.pack_user(0, recv_elements);
  rbuf_ = recv_.data();
  return MPI_SUCCESS;
}

void ReduceView::finish(size_t elements) noexcept {
  if (recv_.staged()) recv_.finish(elements * size_);
}

}  // namespace torus::mpi
