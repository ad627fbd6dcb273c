/* The last large-count calls: Pack_c, Unpack_c and Pack_size_c (sizes and positions above
 * INT_MAX), the external32 ones, Op_create_c (a non-commutative op, and 1200 create/free
 * cycles), Buffer_attach_c and Buffer_detach_c. Any size. */
#define _POSIX_C_SOURCE 200809L
#include "large_count_vec_forms.h"

static void pack(void) {
  int data[5] = {1, -2, 3, -4, 5}, back[5] = {0};
  char packed[64], ref[64];
  int ref_pos = 0;
  MPI_Count pos = 0, bytes = -1;
  CHECK_MPI(MPI_Pack(data, 5, MPI_INT, ref, sizeof ref, &ref_pos, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack_c(data, 5, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  CHECK(pos == ref_pos && memcmp(packed, ref, (size_t)ref_pos) == 0);
  pos = 0;
  CHECK_MPI(MPI_Unpack_c(packed, sizeof packed, &pos, back, 5, MPI_INT, MPI_COMM_WORLD));
  CHECK(pos == ref_pos && memcmp(back, data, sizeof data) == 0);
  CHECK_MPI(MPI_Pack_size_c(5, MPI_INT, MPI_COMM_WORLD, &bytes));
  CHECK(bytes >= 20);
  /* Sizes and positions beyond INT_MAX: the buffer argument 3 GiB below the real one and the
   * position 3 GiB in (only bytes from buf + position on are touched). */
  const MPI_Count far = (MPI_Count)3 << 30;
  void* below = (void*)((uintptr_t)packed - (uintptr_t)far);
  memset(packed, 0, sizeof packed);
  memset(back, 0, sizeof back);
  pos = far;
  CHECK_MPI(MPI_Pack_c(data, 5, MPI_INT, below, far + (MPI_Count)sizeof packed, &pos,
                       MPI_COMM_WORLD));
  CHECK(pos == far + ref_pos && memcmp(packed, ref, (size_t)ref_pos) == 0);
  pos = far;
  CHECK_MPI(MPI_Unpack_c(below, far + ref_pos, &pos, back, 5, MPI_INT, MPI_COMM_WORLD));
  CHECK(pos == far + ref_pos && memcmp(back, data, sizeof data) == 0);
  CHECK_MPI(MPI_Pack_size_c(far, MPI_INT, MPI_COMM_WORLD, &bytes));
  CHECK(bytes >= 4 * far);

  /* external32: the same bytes as the int calls, big-endian. */
  MPI_Aint ext_ref = 0, ref_size = 0;
  MPI_Count ext_pos = 0, ext_size = 0;
  CHECK_MPI(MPI_Pack_external("external32", data, 5, MPI_INT, ref, sizeof ref, &ext_ref));
  CHECK_MPI(MPI_Pack_external_c("external32", data, 5, MPI_INT, packed, sizeof packed, &ext_pos));
  CHECK(ext_pos == ext_ref && ext_pos == 20 && memcmp(packed, ref, 20) == 0);
  CHECK((unsigned char)packed[7] == 0xfe && (unsigned char)packed[4] == 0xff);
  memset(back, 0, sizeof back);
  ext_pos = 0;
  CHECK_MPI(MPI_Unpack_external_c("external32", packed, 20, &ext_pos, back, 5, MPI_INT));
  CHECK(ext_pos == 20 && memcmp(back, data, sizeof data) == 0);
  CHECK_MPI(MPI_Pack_external_size("external32", 5, MPI_INT, &ref_size));
  CHECK_MPI(MPI_Pack_external_size_c("external32", 5, MPI_INT, &ext_size));
  CHECK(ext_size == ref_size && ext_size == 20);
}

static MPI_Count last_len;

/* Non-commutative, on MPI_2INT intervals as check.h's interval_join, with a large count. */
static void interval_join_c(void* invec, void* inoutvec, MPI_Count* len, MPI_Datatype* type) {
  (void)type;
  int* a = (int*)invec;
  int* b = (int*)inoutvec;
  last_len = *len;
  for (MPI_Count i = 0; i < *len; ++i) {
    const int ok = a[2 * i] >= 0 && b[2 * i] >= 0 && a[2 * i + 1] + 1 == b[2 * i];
    b[2 * i] = ok ? a[2 * i] : -1;
    b[2 * i + 1] = ok ? b[2 * i + 1] : -1;
  }
}

static void add_c(void* in, void* inout, MPI_Count* len, MPI_Datatype* type) {
  (void)type;
  for (MPI_Count i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

static void sub_c(void* in, void* inout, MPI_Count* len, MPI_Datatype* type) {
  (void)type;
  for (MPI_Count i = 0; i < *len; ++i) ((int*)inout)[i] -= ((int*)in)[i];
}

static void user_ops(void) {
  MPI_Op op;
  int commute = 1;
  CHECK_MPI(MPI_Op_create_c(interval_join_c, 0, &op));
  CHECK_MPI(MPI_Op_commutative(op, &commute));
  CHECK(commute == 0);
  int iv[6] = {rank, rank, rank, rank, rank, rank}, res[6] = {0};
  CHECK_MPI(MPI_Allreduce(iv, res, 3, MPI_2INT, op, MPI_COMM_WORLD));
  for (int i = 0; i < 3; ++i) CHECK(res[2 * i] == 0 && res[2 * i + 1] == size - 1);
  int lo[4] = {0, 2, 0, 2}, hi[4] = {3, 5, 3, 5};
  last_len = 0;
  CHECK_MPI(MPI_Reduce_local_c(lo, hi, 2, MPI_2INT, op));
  CHECK(last_len == 2 && hi[0] == 0 && hi[1] == 5 && hi[2] == 0 && hi[3] == 5);
  CHECK_MPI(MPI_Op_free(&op));
  /* More ops than the library keeps at once, two live at a time and used each time: every
   * one must call its own function. */
  for (int i = 0; i < 600; ++i) {
    MPI_Op add, sub;
    CHECK_MPI(MPI_Op_create_c(add_c, 1, &add));
    CHECK_MPI(MPI_Op_create_c(sub_c, 0, &sub));
    int a[2] = {i, 1}, b[2] = {10, 10};
    CHECK_MPI(MPI_Reduce_local_c(a, b, 2, MPI_INT, add));
    CHECK(b[0] == 10 + i && b[1] == 11);
    CHECK_MPI(MPI_Reduce_local_c(a, b, 2, MPI_INT, sub));
    CHECK(b[0] == 10 && b[1] == 10);
    CHECK_MPI(MPI_Op_free(&add));
    CHECK_MPI(MPI_Op_free(&sub));
  }
}

static void buffer(void) {
  int size1 = 0;
  CHECK_MPI(MPI_Pack_size(4, MPI_INT, MPI_COMM_WORLD, &size1));
  const MPI_Count bytes = size1 + MPI_BSEND_OVERHEAD;
  void* space = must((size_t)bytes);
  CHECK_MPI(MPI_Buffer_attach_c(space, bytes));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[4] = {rank, 1, 2, 3}, in[4] = {0};
  CHECK_MPI(MPI_Bsend_c(out, 4, MPI_INT, right, 9, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv_c(in, 4, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(in[0] == left && in[3] == 3);
  void* detached = NULL;
  MPI_Count detached_size = -1;
  CHECK_MPI(MPI_Buffer_detach_c(&detached, &detached_size));
  CHECK(detached == space && detached_size == bytes);
  free(space);
}

int main(int argc, char** argv) {
  lcv_init(&argc, &argv);
  pack();
  user_ops();
  buffer();
  return lcv_finish("large_count_vec_pack");
}
