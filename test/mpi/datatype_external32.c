/* Pack_external/Unpack_external/Pack_external_size against hand-written external32 bytes
 * (int, double, long double as binary128, DOUBLE_INT unpadded, a padded struct round trip)
 * and their errors. Any size. */
#include "datatype_ref.h"

/* Pack_external / Unpack_external / Pack_external_size ("external32"): big-endian bytes at
 * fixed sizes, pairs without padding, long double as binary128, a padded struct round trip;
 * the argument errors. */
static void external32(void) {
  unsigned char out[64];
  MPI_Aint pos = 0, size = 0;
  int i = 0x01020304;
  CHECK_MPI(MPI_Pack_external("external32", &i, 1, MPI_INT, out, sizeof out, &pos));
  CHECK(pos == 4 && out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 4);
  double d = 1.0;
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, out, sizeof out, &pos));
  CHECK(pos == 8 && out[0] == 0x3f && out[1] == 0xf0 && out[7] == 0);
  long double ld[2] = {1.0L, -2.5L}, ld_back[2] = {0, 0};
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", ld, 2, MPI_LONG_DOUBLE, out, sizeof out, &pos));
  CHECK(pos == 32 && out[0] == 0x3f && out[1] == 0xff && out[2] == 0 && out[15] == 0);
  CHECK(out[16] == 0xc0 && out[17] == 0x00 && out[18] == 0x40 && out[19] == 0);
  pos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", out, 32, &pos, ld_back, 2, MPI_LONG_DOUBLE));
  CHECK(pos == 32 && ld_back[0] == 1.0L && ld_back[1] == -2.5L);
  struct { double v; int k; } pair = {3.0, 7};
  CHECK_MPI(MPI_Pack_external_size("external32", 1, MPI_DOUBLE_INT, &size));
  CHECK(size == 12);
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", &pair, 1, MPI_DOUBLE_INT, out, sizeof out, &pos));
  CHECK(pos == 12 && out[0] == 0x40 && out[1] == 0x08 && out[8] == 0 && out[11] == 7);
  /* A struct with padding: char, double, short; 11 external bytes per element. */
  struct S { char c; double x; short s; } in[3], back[3];
  int bl[3] = {1, 1, 1};
  MPI_Aint disp[3] = {offsetof(struct S, c), offsetof(struct S, x), offsetof(struct S, s)};
  MPI_Datatype parts[3] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT}, st;
  CHECK_MPI(MPI_Type_create_struct(3, bl, disp, parts, &st));
  CHECK_MPI(MPI_Type_commit(&st));
  CHECK_MPI(MPI_Pack_external_size("external32", 3, st, &size));
  CHECK(size == 33);
  memset(back, 0, sizeof back);
  for (int k = 0; k < 3; ++k) {
    in[k].c = (char)('a' + k);
    in[k].x = 0.5 * k - 7;
    in[k].s = (short)(-300 * k);
  }
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", in, 3, st, out, sizeof out, &pos));
  CHECK(pos == 33 && out[0] == 'a' && out[9] == 0 && out[10] == 0 && out[11] == 'b');
  pos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", out, 33, &pos, back, 3, st));
  for (int k = 0; k < 3; ++k)
    CHECK(back[k].c == in[k].c && back[k].x == in[k].x && back[k].s == in[k].s);
  CHECK_MPI(MPI_Type_free(&st));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  pos = 0;
  CHECK(error_class_of(MPI_Pack_external("native", &i, 1, MPI_INT, out, 64, &pos)) ==
        MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Pack_external("external32", &i, 1, MPI_INT, out, 3, &pos)) ==
        MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Unpack_external("external32", out, 2, &pos, &i, 1, MPI_INT)) ==
        MPI_ERR_TRUNCATE);
  CHECK(pos == 0);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  datatype_init(&argc, &argv);
  external32();
  return datatype_finish("datatype_external32");
}
