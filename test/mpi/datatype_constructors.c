/* Derived datatypes: every constructor (nested, negative displacements and strides, resized
 * bounds) checked against a hand-written reference layout; Type_free of types others are
 * built from; absolute addresses with MPI_BOTTOM; get_envelope/get_contents (inner types as
 * new handles); error classes of the constructors, Pack and Unpack. Any size. */
#include "datatype_ref.h"

/* Every constructor, alone and nested. The types outlive this function where later parts use
 * them. */
static MPI_Datatype t_vec, t_negvec, t_idx, t_s, t_nested;

static void constructors(void) {
  MPI_Datatype t;
  {
    const Ref r = {1, {{0, 12}}, 12, 0, 12, 0, 12};
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
    commit_check(&t, &r, 1);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL);
  }
  {
    const Ref r = {0, {{0, 0}}, 0, 0, 0, 0, 0};
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &t));
    commit_check(&t, &r, 2);
    CHECK_MPI(MPI_Type_free(&t));
  }
  t_vec = make_vec();
  commit_check(&t_vec, &kVec, 3);
  { /* negative stride: blocks go backwards from 0 */
    const Ref r = {3, {{0, 4}, {-8, 4}, {-16, 4}}, 12, -16, 20, -16, 20};
    CHECK_MPI(MPI_Type_vector(3, 1, -2, MPI_INT, &t_negvec));
    commit_check(&t_negvec, &r, 4);
    MPI_Aint ub = 0, lb = 0, ext = 0;
    CHECK_MPI(MPI_Type_lb(t_negvec, &lb));
    CHECK_MPI(MPI_Type_ub(t_negvec, &ub));
    CHECK_MPI(MPI_Type_extent(t_negvec, &ext));
    CHECK(lb == -16 && ub == 4 && ext == 20);
  }
  { /* hvector, and the MPI-1 spelling gives the same type */
    const Ref r = {2, {{0, 6}, {20, 6}}, 12, 0, 26, 0, 26};
    CHECK_MPI(MPI_Type_create_hvector(2, 3, 20, MPI_SHORT, &t));
    commit_check(&t, &r, 5);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_hvector(2, 3, 20, MPI_SHORT, &t));
    commit_check(&t, &r, 6);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* indexed, out of order, with an empty block that adds no bounds */
    const int bl[3] = {2, 0, 1}, disp[3] = {5, 1, 0};
    const Ref r = {2, {{20, 8}, {0, 4}}, 12, 0, 28, 0, 28};
    CHECK_MPI(MPI_Type_indexed(3, bl, disp, MPI_INT, &t_idx));
    commit_check(&t_idx, &r, 7);
  }
  { /* hindexed with a negative displacement */
    int bl[2] = {1, 2};
    MPI_Aint disp[2] = {-12, 4};
    const Ref r = {2, {{-12, 8}, {4, 16}}, 24, -12, 32, -12, 32};
    CHECK_MPI(MPI_Type_create_hindexed(2, bl, disp, MPI_DOUBLE, &t));
    commit_check(&t, &r, 8);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_hindexed(2, bl, disp, MPI_DOUBLE, &t));
    commit_check(&t, &r, 9);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const int disp[3] = {4, 0, 8};
    const Ref r = {3, {{8, 4}, {0, 4}, {16, 4}}, 12, 0, 20, 0, 20};
    CHECK_MPI(MPI_Type_create_indexed_block(3, 2, disp, MPI_SHORT, &t));
    commit_check(&t, &r, 10);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const MPI_Aint disp[2] = {16, 3};
    const Ref r = {2, {{16, 4}, {3, 4}}, 8, 3, 17, 3, 17};
    CHECK_MPI(MPI_Type_create_hindexed_block(2, 1, disp, MPI_INT, &t));
    commit_check(&t, &r, 11);
    CHECK_MPI(MPI_Type_free(&t));
  }
  /* struct: the extent is padded to the C struct's (alignment of the double) */
  t_s = make_s();
  commit_check(&t_s, &kS, 12);
  {
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {0, 8, 16};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    CHECK_MPI(MPI_Type_struct(3, bl, disp, types, &t));
    commit_check(&t, &kS, 13);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* resized struct: new bounds, same data */
    const Ref r = {3, {{0, 4}, {8, 8}, {16, 1}}, 13, -4, 32, 0, 17};
    CHECK_MPI(MPI_Type_create_resized(t_s, -4, 32, &t));
    commit_check(&t, &r, 14);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* a struct pads even a resized piece (as MPICH): ub 17 rounds up to 20 */
    MPI_Datatype wide, types[2];
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 16};
    const Ref r = {2, {{0, 4}, {16, 1}}, 5, 0, 20, 0, 17};
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 12, &wide));
    types[0] = wide;
    types[1] = MPI_CHAR;
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &t));
    CHECK_MPI(MPI_Type_free(&wide));
    commit_check(&t, &r, 22);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* vector of the struct, stride 2 structs */
    const Ref r = {6, {{0, 4}, {8, 8}, {16, 1}, {48, 4}, {56, 8}, {64, 1}}, 26, 0, 72, 0, 65};
    CHECK_MPI(MPI_Type_vector(2, 1, 2, t_s, &t));
    commit_check(&t, &r, 15);
    CHECK_MPI(MPI_Type_dup(t, &t_nested)); /* committed because t is */
    check_type(t_nested, &r, 2, 16);
    CHECK_MPI(MPI_Type_free(&t_nested));
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* struct of the indexed type at 100 and two of the backwards vector at -40 */
    int bl[2] = {1, 2};
    MPI_Aint disp[2] = {100, -40};
    MPI_Datatype types[2] = {t_idx, t_negvec};
    const Ref r = {8,
                   {{120, 8}, {100, 4}, {-40, 4}, {-48, 4}, {-56, 4}, {-20, 4}, {-28, 4}, {-36, 4}},
                   36, -56, 184, -56, 184};
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &t_nested));
    commit_check(&t_nested, &r, 17);
  }
  { /* a resized int with extent 8 interleaves: contiguous of it has holes */
    MPI_Datatype wide;
    const Ref r = {3, {{0, 4}, {8, 4}, {16, 4}}, 12, 0, 24, 0, 20};
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 8, &wide));
    CHECK_MPI(MPI_Type_contiguous(3, wide, &t));
    CHECK_MPI(MPI_Type_free(&wide));
    commit_check(&t, &r, 18);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* hvector of a resized int with a negative lb */
    MPI_Datatype shifted;
    const Ref r = {4, {{0, 4}, {12, 4}, {30, 4}, {42, 4}}, 16, -4, 54, 0, 46};
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, -4, 12, &shifted));
    CHECK_MPI(MPI_Type_create_hvector(2, 2, 30, shifted, &t));
    CHECK_MPI(MPI_Type_free(&shifted));
    commit_check(&t, &r, 19);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* adjacent blocks merge: a dense vector is one block, a big contiguous too */
    const Ref r = {1, {{0, 4000}}, 4000, 0, 4000, 0, 4000};
    CHECK_MPI(MPI_Type_vector(100, 5, 5, MPI_DOUBLE, &t));
    commit_check(&t, &r, 20);
    CHECK_MPI(MPI_Type_free(&t));
    const Ref big = {1, {{0, 400000}}, 400000, 0, 400000, 0, 400000};
    CHECK_MPI(MPI_Type_contiguous(100000, MPI_INT, &t));
    commit_check(&t, &big, 21);
    CHECK_MPI(MPI_Type_free(&t));
  }
}

/* Free a type that others are built from, and the dup's original: the others still work. */
static void free_while_used(void) {
  MPI_Datatype c3, v, d;
  const Ref r = {2, {{0, 12}, {24, 12}}, 24, 0, 36, 0, 36};
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &c3));
  CHECK_MPI(MPI_Type_vector(2, 1, 2, c3, &v));
  CHECK_MPI(MPI_Type_free(&c3));
  commit_check(&v, &r, 30);
  CHECK_MPI(MPI_Type_dup(v, &d));
  CHECK_MPI(MPI_Type_free(&v));
  check_type(d, &r, 4, 31);
  CHECK_MPI(MPI_Type_free(&d));
}

/* Absolute addresses: a struct over two unrelated arrays, packed from MPI_BOTTOM. */
static void bottom(void) {
  int x[4] = {10, 11, 12, 13};
  double y[2] = {0.5, 1.5};
  int bl[2] = {2, 2};
  MPI_Aint disp[2];
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;
  CHECK_MPI(MPI_Get_address(&x[1], &disp[0]));
  CHECK_MPI(MPI_Get_address(&y[0], &disp[1]));
  CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  unsigned char packed[24], expect[24];
  memcpy(expect, &x[1], 8);
  memcpy(expect + 8, y, 16);
  int pos = 0;
  CHECK_MPI(MPI_Pack(MPI_BOTTOM, 1, t, packed, 24, &pos, MPI_COMM_WORLD));
  CHECK(pos == 24 && memcmp(packed, expect, 24) == 0);
  memset(x, 0, sizeof x);
  memset(y, 0, sizeof y);
  pos = 0;
  CHECK_MPI(MPI_Unpack(packed, 24, &pos, MPI_BOTTOM, 1, t, MPI_COMM_WORLD));
  CHECK(x[0] == 0 && x[1] == 11 && x[2] == 12 && x[3] == 0 && y[0] == 0.5 && y[1] == 1.5);
  CHECK_MPI(MPI_Type_free(&t));
}

static void envelopes(void) {
  int ni, na, nd, comb;
  int ints[8];
  MPI_Aint aints[4];
  MPI_Datatype types[4];
  CHECK_MPI(MPI_Type_get_envelope(MPI_DOUBLE, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0);
  CHECK_MPI(MPI_Type_get_envelope(t_vec, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1);
  CHECK_MPI(MPI_Type_get_contents(t_vec, 8, 4, 4, ints, aints, types));
  CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 4 && types[0] == MPI_DOUBLE);

  /* The nested struct: its inner derived types come back as new handles to free. */
  CHECK_MPI(MPI_Type_get_envelope(t_nested, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nd == 2);
  CHECK_MPI(MPI_Type_get_contents(t_nested, 8, 4, 4, ints, aints, types));
  CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && aints[0] == 100 && aints[1] == -40);
  const Ref idx = {2, {{20, 8}, {0, 4}}, 12, 0, 28, 0, 28};
  const Ref neg = {3, {{0, 4}, {-8, 4}, {-16, 4}}, 12, -16, 20, -16, 20};
  check_type(types[0], &idx, 2, 40);
  check_type(types[1], &neg, 2, 41);
  CHECK_MPI(MPI_Type_get_envelope(types[0], &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_INDEXED && ni == 7 && na == 0 && nd == 1);
  CHECK_MPI(MPI_Type_free(&types[0]));
  CHECK_MPI(MPI_Type_free(&types[1]));

  MPI_Datatype r, d;
  CHECK_MPI(MPI_Type_create_resized(t_s, -4, 32, &r));
  CHECK_MPI(MPI_Type_get_envelope(r, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nd == 1);
  CHECK_MPI(MPI_Type_get_contents(r, 0, 2, 1, ints, aints, types));
  CHECK(aints[0] == -4 && aints[1] == 32);
  check_type(types[0], &kS, 2, 42);
  CHECK_MPI(MPI_Type_free(&types[0]));
  CHECK_MPI(MPI_Type_dup(r, &d));
  CHECK_MPI(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_DUP && ni == 0 && na == 0 && nd == 1);
  CHECK_MPI(MPI_Type_free(&d));
  CHECK_MPI(MPI_Type_free(&r));
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = 0, pos = 0, n = 0;
  int data[16] = {0};
  unsigned char buf[64];
  MPI_Datatype t = MPI_DATATYPE_NULL, stale;
#define EXPECT_CLASS(call, want)        \
  do {                                  \
    int rc_ = (call);                   \
    CHECK(rc_ != MPI_SUCCESS);          \
    CHECK_MPI(MPI_Error_class(rc_, &cls)); \
    CHECK(cls == (want));               \
  } while (0)
  /* uncommitted: queries work, Pack does not */
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  CHECK_MPI(MPI_Type_size(t, &n));
  CHECK(n == 8);
  EXPECT_CLASS(MPI_Pack(data, 1, t, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_commit(&t));
  /* freed */
  stale = t;
  CHECK_MPI(MPI_Type_free(&t));
  EXPECT_CLASS(MPI_Pack(data, 1, stale, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_free(&stale), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_size(stale, &n), MPI_ERR_TYPE);
  /* predefined types cannot be freed, nor decoded */
  MPI_Datatype predefined = MPI_INT;
  EXPECT_CLASS(MPI_Type_free(&predefined), MPI_ERR_TYPE);
  CHECK(predefined == MPI_INT);
  EXPECT_CLASS(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL), MPI_ERR_TYPE);
  /* counts and arguments */
  EXPECT_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_vector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_COUNT); /* as MPICH */
  EXPECT_CLASS(MPI_Type_vector(2, 1, 1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  const int bl[2] = {1, -2}, disp[2] = {0, 4};
  EXPECT_CLASS(MPI_Type_indexed(2, bl, disp, MPI_INT, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_create_indexed_block(2, -1, disp, MPI_INT, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_commit(NULL), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Type_get_extent(MPI_INT, NULL, NULL), MPI_ERR_ARG);
  MPI_Aint adisp[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DATATYPE_NULL};
  const int bl2[2] = {1, 1};
  EXPECT_CLASS(MPI_Type_create_struct(2, bl2, adisp, types, &t), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_create_struct(-1, bl2, adisp, types, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_size(MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
  pos = 0;
  EXPECT_CLASS(MPI_Pack(data, -1, MPI_INT, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Pack(data, 16, MPI_INT, buf, 60, &pos, MPI_COMM_WORLD), MPI_ERR_ARG);
  CHECK(pos == 0);
  EXPECT_CLASS(MPI_Pack(data, 1, MPI_INT, buf, 64, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &n), MPI_ERR_COUNT);
  CHECK_MPI(MPI_Pack(data, 3, MPI_INT, buf, 64, &pos, MPI_COMM_WORLD));
  pos = 0;
  EXPECT_CLASS(MPI_Unpack(buf, 12, &pos, data, 4, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  EXPECT_CLASS(MPI_Unpack(buf, 12, &pos, data, -1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
#undef EXPECT_CLASS
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  datatype_init(&argc, &argv);
  constructors();
  free_while_used();
  bottom();
  envelopes();
  errors();
  CHECK_MPI(MPI_Type_free(&t_vec));
  CHECK_MPI(MPI_Type_free(&t_negvec));
  CHECK_MPI(MPI_Type_free(&t_idx));
  CHECK_MPI(MPI_Type_free(&t_s));
  CHECK_MPI(MPI_Type_free(&t_nested));
  return datatype_finish("datatype_constructors");
}
