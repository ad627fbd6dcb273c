/* MPI-IO file views: displacement 16, etype MPI_INT and a filetype giving rank r every
 * size-th int (a subarray on even ranks, a resized struct of a two-int vector on odd ones),
 * write_all of 50 ints, get_position/get_byte_offset in etypes, get_view (displacement, etype,
 * the filetype's size and extent, "native"; derived types freed), read_all and read_at_all
 * through the view into a strided memory type (gaps untouched), a read past the end, then the
 * default view (both pointers reset to 0) and the whole file checked: 16 untouched zero bytes
 * and the interleaving. Where Debian's MPICH 4.0.2 (ROMIO) departs from the standard (the
 * count of a noncontiguous read at the end of file) the check sits behind TORUS_MPI_H. Any
 * size. */
#define _POSIX_C_SOURCE 200809L
#include "io_files.h"

/* Types File_get_view returns are new handles unless predefined. */
static void free_if_derived(MPI_Datatype* t) {
  int ni = -1, na = -1, nd = -1, combiner = -1;
  CHECK_MPI(MPI_Type_get_envelope(*t, &ni, &na, &nd, &combiner));
  if (combiner != MPI_COMBINER_NAMED) CHECK_MPI(MPI_Type_free(t));
}

enum { kViewInts = 50, kViewDisp = 16 };

static int view_value(int r, int k) { return r * 1000 + k + 1; }

/* Rank r's ints in the file: r, r + size, r + 2*size, ... (etype MPI_INT). Even ranks build
 * one int of a size-int subarray; odd ranks two ints a row apart (a vector), moved to column
 * r by a struct and resized to two rows. */
static MPI_Datatype strided_filetype(void) {
  MPI_Datatype t;
  if (rank % 2 == 0) {
    int sizes[1] = {size}, subsizes[1] = {1}, starts[1] = {rank};
    CHECK_MPI(MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t));
  } else {
    MPI_Datatype v, s;
    CHECK_MPI(MPI_Type_vector(2, 1, size, MPI_INT, &v));
    int one = 1;
    MPI_Aint at = (MPI_Aint)rank * (MPI_Aint)sizeof(int);
    CHECK_MPI(MPI_Type_create_struct(1, &one, &at, &v, &s));
    CHECK_MPI(MPI_Type_create_resized(s, 0, 2 * size * (MPI_Aint)sizeof(int), &t));
    CHECK_MPI(MPI_Type_free(&s));
    CHECK_MPI(MPI_Type_free(&v));
  }
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

static void views(void) {
  MPI_File fh = open_world("view", MPI_MODE_CREATE | MPI_MODE_RDWR);
  MPI_Datatype ftype = strided_filetype();
  CHECK_MPI(MPI_File_set_view(fh, kViewDisp, MPI_INT, ftype, "native", MPI_INFO_NULL));
  int vals[kViewInts];
  for (int k = 0; k < kViewInts; ++k) vals[k] = view_value(rank, k);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_all(fh, vals, kViewInts, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == kViewInts);
  CHECK(position(fh) == kViewInts); /* in etypes */
  MPI_Offset disp = -1;
  CHECK_MPI(MPI_File_get_byte_offset(fh, 0, &disp));
  CHECK(disp == kViewDisp + 4 * (MPI_Offset)rank);
  CHECK_MPI(MPI_File_get_byte_offset(fh, 11, &disp));
  CHECK(disp == kViewDisp + 4 * (MPI_Offset)(11 * size + rank));

  MPI_Offset gdisp = -1;
  MPI_Datatype etype = MPI_DATATYPE_NULL, gtype = MPI_DATATYPE_NULL;
  char rep[MPI_MAX_DATAREP_STRING];
  CHECK_MPI(MPI_File_get_view(fh, &gdisp, &etype, &gtype, rep));
  CHECK(gdisp == kViewDisp && strcmp(rep, "native") == 0 && etype == MPI_INT);
  int tsize = -1;
  MPI_Aint lb = -1, extent = -1;
  CHECK_MPI(MPI_Type_size(gtype, &tsize));
  CHECK_MPI(MPI_Type_get_extent(gtype, &lb, &extent));
  CHECK(tsize == (rank % 2 ? 8 : 4) && lb == 0);
  CHECK(extent == (rank % 2 ? 2 : 1) * size * (MPI_Aint)sizeof(int));
  free_if_derived(&etype);
  free_if_derived(&gtype);
  CHECK_MPI(MPI_Type_free(&ftype)); /* the view keeps its own */
  sync_barrier(fh);

  /* Back through the view into a strided memory type: the gaps stay. */
  MPI_Datatype strided = strided_int_type();
  int* m = marked_ints(2 * kViewInts, -7);
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_all(fh, m, kViewInts, strided, &st));
  CHECK(count_of(&st, strided) == kViewInts && count_of(&st, MPI_INT) == kViewInts);
  for (int k = 0; k < kViewInts; ++k) CHECK(m[2 * k] == vals[k] && m[2 * k + 1] == -7);
  int five[5] = {0};
  CHECK_MPI(MPI_File_read_at_all(fh, 10, five, 5, MPI_INT, &st));
  CHECK(count_of(&st, MPI_INT) == 5);
  for (int k = 0; k < 5; ++k) CHECK(five[k] == view_value(rank, 10 + k));
  CHECK_MPI(MPI_File_read_at(fh, kViewInts, five, 1, MPI_INT, &st)); /* past the end */
#ifdef TORUS_MPI_H
  /* ROMIO's reads through a noncontiguous view report the count asked for (1). */
  CHECK(count_of(&st, MPI_INT) == 0);
#endif
  free(m);
  CHECK_MPI(MPI_Type_free(&strided));

  /* The default view: the pointers go back to 0, and the whole file is seen as bytes. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  CHECK(position(fh) == 0 && shared_position(fh) == 0);
  CHECK_MPI(MPI_File_get_view(fh, &gdisp, &etype, &gtype, rep));
  CHECK(gdisp == 0 && etype == MPI_BYTE && gtype == MPI_BYTE && strcmp(rep, "native") == 0);
  free_if_derived(&etype);
  free_if_derived(&gtype);
  const int total = kViewInts * size;
  const MPI_Offset bytes = kViewDisp + 4 * (MPI_Offset)total;
  CHECK(file_size(fh) == bytes);
  unsigned char* whole = malloc((size_t)bytes);
  memset(whole, 0xee, (size_t)bytes);
  CHECK_MPI(MPI_File_read_at(fh, 0, whole, (int)bytes, MPI_BYTE, &st));
  CHECK(count_of(&st, MPI_BYTE) == (int)bytes);
  for (int i = 0; i < kViewDisp; ++i) CHECK(whole[i] == 0);
  for (int j = 0; j < total; ++j) {
    int v;
    memcpy(&v, whole + kViewDisp + 4 * j, sizeof v);
    CHECK(v == view_value(j % size, j / size));
  }
  free(whole);
  close_file(&fh);
}

int main(int argc, char** argv) {
  io_init(&argc, &argv);
  views();
  return io_finish("io_views");
}
