/* Derived datatypes through persistent requests, buffered sends and matched receives in a
 * ring, at counts 0, 1 and 2000: Send/Ssend/Bsend_init + Recv_init into the struct type with
 * Startall over two rounds, the types freed while the requests hold them; Bsend/Ibsend of the
 * vector type into a buffer sized by Pack_size, received by Mprobe/Mrecv and Improbe/Imrecv;
 * every int outside the typemap untouched. Any size up to 64. */
#include "datatype_kinds.h"

static void check_ring(int n) {
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  MPI_Datatype held;
  CHECK_MPI(MPI_Type_dup(types[K_VEC], &held));
  CHECK_MPI(MPI_Type_commit(&held));
  int* s = alloc_ints(K_VEC, n);
  int* r = alloc_ints(K_ST, n);
  MPI_Request req[2];
  /* Send_init / Ssend_init / Bsend_init against Recv_init into the struct type, the send
   * type freed before the first Start. */
  int bsize = 0;
  CHECK_MPI(MPI_Pack_size(n, held, MPI_COMM_WORLD, &bsize));
  bsize += MPI_BSEND_OVERHEAD;
  /* Room for every buffered message that may be pending at once: a message sent by
   * rendezvous holds its copy until the receiver has fetched it, so both persistent rounds'
   * copies may still be there when the Bsend and Ibsend below are posted. */
  char* attached = malloc((size_t)bsize * 4);
  CHECK_MPI(MPI_Buffer_attach(attached, bsize * 4));
  for (int mode = 0; mode < 3; ++mode) {
    if (mode == 0) CHECK_MPI(MPI_Send_init(s, n, held, right, 5, MPI_COMM_WORLD, &req[0]));
    if (mode == 1) CHECK_MPI(MPI_Ssend_init(s, n, held, right, 5, MPI_COMM_WORLD, &req[0]));
    if (mode == 2) CHECK_MPI(MPI_Bsend_init(s, n, held, right, 5, MPI_COMM_WORLD, &req[0]));
    MPI_Datatype rt;
    CHECK_MPI(MPI_Type_dup(types[K_ST], &rt));
    CHECK_MPI(MPI_Type_commit(&rt));
    CHECK_MPI(MPI_Recv_init(r, n, rt, left, 5, MPI_COMM_WORLD, &req[1]));
    CHECK_MPI(MPI_Type_free(&rt)); /* the request holds it */
    if (mode == 0) CHECK_MPI(MPI_Type_free(&held));
    for (int round = 0; round < 2; ++round) {
      put(K_VEC, s, 0, n, rank * 10 + round + mode * 100);
      for (int x = 0; x < n * 6 + 4; ++x) r[x] = SENTINEL;
      CHECK_MPI(MPI_Startall(2, req));
      CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
      expect(K_ST, r, 0, n, left * 10 + round + mode * 100);
      untouched(K_ST, r, n, 0, n);
    }
    CHECK_MPI(MPI_Request_free(&req[0]));
    CHECK_MPI(MPI_Request_free(&req[1]));
    if (mode == 0) {
      CHECK_MPI(MPI_Type_dup(types[K_VEC], &held));
      CHECK_MPI(MPI_Type_commit(&held));
    }
  }
  CHECK_MPI(MPI_Type_free(&held));
  /* Bsend and Ibsend, received by Mprobe + Mrecv and Improbe + Imrecv into the struct. */
  put(K_VEC, s, 0, n, rank + 30);
  CHECK_MPI(MPI_Bsend(s, n, types[K_VEC], right, 7, MPI_COMM_WORLD));
  MPI_Request bq;
  CHECK_MPI(MPI_Ibsend(s, n, types[K_VEC], right, 8, MPI_COMM_WORLD, &bq));
  for (int x = 0; x < n * 3; ++x) s[x] = 0; /* the copies were made */
  CHECK_MPI(MPI_Wait(&bq, MPI_STATUS_IGNORE));
  for (int x = 0; x < n * 6 + 4; ++x) r[x] = SENTINEL;
  MPI_Message m;
  MPI_Status st;
  CHECK_MPI(MPI_Mprobe(left, 7, MPI_COMM_WORLD, &m, &st));
  CHECK_MPI(MPI_Mrecv(r, n, types[K_ST], &m, &st));
  int got = -1;
  CHECK_MPI(MPI_Get_count(&st, types[K_ST], &got));
  CHECK(got == n);
  expect(K_ST, r, 0, n, left + 30);
  untouched(K_ST, r, n, 0, n);
  for (int x = 0; x < n * 6 + 4; ++x) r[x] = SENTINEL;
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Improbe(left, 8, MPI_COMM_WORLD, &flag, &m, &st));
  CHECK_MPI(MPI_Imrecv(r, n, types[K_ST], &m, &bq));
  CHECK_MPI(MPI_Wait(&bq, &st));
  expect(K_ST, r, 0, n, left + 30);
  untouched(K_ST, r, n, 0, n);
  void* detached;
  int dsize;
  CHECK_MPI(MPI_Buffer_detach(&detached, &dsize));
  CHECK(detached == attached && dsize == bsize * 4);
  free(attached);
  free(s);
  free(r);
}

int main(int argc, char** argv) {
  kinds_init(&argc, &argv);
  for (int c = 0; c < 3; ++c) check_ring(kCounts[c]);
  return kinds_finish("datatype_coll_ring");
}
