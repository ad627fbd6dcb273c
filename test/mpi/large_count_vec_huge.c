/* Reduce_scatter_c's path for a count above INT_MAX, with 2^31 + 8 bytes, blocking and
 * nonblocking: at one rank as a test of its own (2 GiB, a few seconds), at two by hand (the
 * reduce-scatter algorithm's scratch makes that about 8 GiB per rank and half a minute). */
#define _POSIX_C_SOURCE 200809L
#include "large_count_vec_forms.h"

/* Reduce_scatter_c and Ireduce_scatter_c with MPI_BOR on MPI_BYTE, counts {2^31 + 8} at one
 * rank, {2^31 + 8, 3} at two: the send buffers are calloc'd (untouched pages read as zero
 * without being allocated), one byte set per MiB, rank 0's at offset 5 of each, rank 1's at
 * offset 9, and 3 bytes at the end for rank 1. */
static void huge(int nonblocking) {
  const MPI_Count big = ((MPI_Count)1 << 31) + 8, counts[2] = {big, 3};
  const size_t mib = (size_t)1 << 20, total = (size_t)big + (size == 2 ? 3 : 0);
  unsigned char* in = calloc(total, 1);
  unsigned char* out = malloc(rank == 0 ? (size_t)big : 3);
  CHECK(in != NULL && out != NULL);
  for (size_t at = 0; at < (size_t)big; at += mib) {
    const size_t j = at + (rank == 0 ? 5 : 9);
    if (j < (size_t)big) in[j] = rank == 0 ? (unsigned char)(((at / mib) * 7) & 0x7f) : 0x80;
  }
  for (int k = 0; k < 3 && size == 2; ++k) in[(size_t)big + (size_t)k] = rank == 0 ? 0x11 : 0x22;
  MPI_Request r;
  if (nonblocking) {
    CHECK_MPI(MPI_Ireduce_scatter_c(in, out, counts, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Reduce_scatter_c(in, out, counts, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD));
  }
  if (rank == 1) {
    CHECK(out[0] == 0x33 && out[1] == 0x33 && out[2] == 0x33);
  } else {
    static const unsigned char zero[1 << 20];
    for (size_t at = 0; at < (size_t)big; at += mib) {
      const size_t n = (size_t)big - at < mib ? (size_t)big - at : mib;
      unsigned char* chunk = out + at;
      if (n > 9) {
        CHECK(chunk[5] == (unsigned char)(((at / mib) * 7) & 0x7f) &&
              chunk[9] == (size == 2 ? 0x80 : 0));
        chunk[5] = chunk[9] = 0;
      }
      CHECK(memcmp(chunk, zero, n) == 0);
    }
  }
  free(in);
  free(out);
}

int main(int argc, char** argv) {
  lcv_init(&argc, &argv);
  CHECK(size <= 2);
  huge(0);
  huge(1);
  return lcv_finish("large_count_vec_huge");
}
