/* MPI 4.0's large-count type constructors, windows and the Fortran-interop calls:
 * - each _c constructor against its int twin: size, extent, true extent, packed bytes, and
 *   the bytes a ring send of the _c type lands in the int type;
 * - Type_get_envelope_c / get_contents_c give back the _c arguments as large counts;
 * - counts above INT_MAX (vector_c, indexed_c, hvector_c, contiguous_c, subarray_c) built
 *   and measured without touching memory;
 * - Win_create_c / Win_allocate_c / Win_allocate_shared_c with Put/Get, Win_shared_query_c;
 * - Type_create_f90_*, Type_match_size, MPI_Status <-> Fortran forms, MPI_DUP_FN.
 * Any size. Checks of what Debian's MPICH 4.0.2 answers differently (error classes, which
 * predefined handle) are behind TORUS_MPI_H. */
#include <string.h>

#include "check.h"

static int rank, size;

enum { kBuf = 4096 };

/* The same typemap: same sizes and bounds, same packed bytes from one pattern. */
static void same_layout(MPI_Datatype a, MPI_Datatype b) {
  MPI_Count sa, sb, lba, lbb, ea, eb, tla, tlb, tea, teb;
  CHECK_MPI(MPI_Type_size_c(a, &sa));
  CHECK_MPI(MPI_Type_size_c(b, &sb));
  CHECK_MPI(MPI_Type_get_extent_c(a, &lba, &ea));
  CHECK_MPI(MPI_Type_get_extent_c(b, &lbb, &eb));
  CHECK_MPI(MPI_Type_get_true_extent_c(a, &tla, &tea));
  CHECK_MPI(MPI_Type_get_true_extent_c(b, &tlb, &teb));
  CHECK(sa == sb && lba == lbb && ea == eb && tla == tlb && tea == teb);
  CHECK(sa > 0 && tla >= 0 && tla + tea <= kBuf / 2);
  static unsigned char src[kBuf], pa[kBuf], pb[kBuf];
  fill(src, sizeof src, 3);
  int posa = 0, posb = 0;
  CHECK_MPI(MPI_Pack(src, 2, a, pa, kBuf, &posa, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack(src, 2, b, pb, kBuf, &posb, MPI_COMM_WORLD));
  CHECK(posa == 2 * sa && posb == posa && memcmp(pa, pb, (size_t)posa) == 0);
}

/* Ring: send two elements of `a` to the right, receive them from the left as `b`; the bytes
 * must be what unpacking the left rank's pattern through `b` gives, the gaps untouched. */
static void ring(MPI_Datatype a, MPI_Datatype b) {
  static unsigned char src[kBuf], got[kBuf], want[kBuf], packed[kBuf];
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  fill(src, sizeof src, (unsigned)rank + 10);
  memset(got, 0xee, sizeof got);
  MPI_Request r;
  CHECK_MPI(MPI_Irecv(got, 2, b, left, 5, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Send(src, 2, a, right, 5, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  fill(src, sizeof src, (unsigned)left + 10);
  memset(want, 0xee, sizeof want);
  int pos = 0;
  CHECK_MPI(MPI_Pack(src, 2, b, packed, kBuf, &pos, MPI_COMM_WORLD));
  int at = 0;
  CHECK_MPI(MPI_Unpack(packed, pos, &at, want, 2, b, MPI_COMM_WORLD));
  CHECK(memcmp(got, want, kBuf) == 0);
}

/* What get_envelope_c / get_contents_c say; `counts` are the expected large counts. */
static void envelope(MPI_Datatype t, int combiner, MPI_Count ni, MPI_Count na, MPI_Count nc,
                     MPI_Count nd, const int* ints, const MPI_Count* counts) {
  MPI_Count gi, ga, gc, gd;
  int comb;
  CHECK_MPI(MPI_Type_get_envelope_c(t, &gi, &ga, &gc, &gd, &comb));
  CHECK(comb == combiner && gi == ni && ga == na && gc == nc && gd == nd);
  int gints[32];
  MPI_Aint gaints[32];
  MPI_Count gcounts[32];
  MPI_Datatype gtypes[8];
  CHECK(ni <= 32 && nc <= 32 && nd <= 8);
  CHECK_MPI(MPI_Type_get_contents_c(t, ni, na, nc, nd, gints, gaints, gcounts, gtypes));
  for (MPI_Count i = 0; i < ni; ++i) CHECK(gints[i] == ints[i]);
  for (MPI_Count i = 0; i < nc; ++i) CHECK(gcounts[i] == counts[i]);
  for (MPI_Count i = 0; i < nd; ++i) {
    int ci, ca, cd, cc;  /* derived inner types come back as new handles */
    CHECK_MPI(MPI_Type_get_envelope(gtypes[i], &ci, &ca, &cd, &cc));
    if (cc != MPI_COMBINER_NAMED) CHECK_MPI(MPI_Type_free(&gtypes[i]));
  }
#ifdef TORUS_MPI_H
  /* MPI 4.0 5.1.13: the int inquiries cannot describe a large-count type (Debian's MPICH
   * 4.0.2 answers another class). */
  int i1, i2, i3, i4;
  const int rc = MPI_Type_get_envelope(t, &i1, &i2, &i3, &i4);
  CHECK(nc > 0 ? error_class_of(rc) == MPI_ERR_TYPE : rc == MPI_SUCCESS);
#endif
}

/* `per_rank`: a darray, whose typemap differs between ranks, so no ring. */
static void check_pair_of(MPI_Datatype c, MPI_Datatype i, int per_rank) {
  CHECK_MPI(MPI_Type_commit(&c));
  CHECK_MPI(MPI_Type_commit(&i));
  same_layout(c, i);
  if (!per_rank) {
    ring(c, i);
    ring(i, c);
  }
  CHECK_MPI(MPI_Type_free(&c));
  CHECK_MPI(MPI_Type_free(&i));
}

static void check_pair(MPI_Datatype c, MPI_Datatype i) { check_pair_of(c, i, 0); }

static void constructors(void) {
  MPI_Datatype c, i;
  CHECK_MPI(MPI_Type_contiguous_c(5, MPI_INT, &c));
  CHECK_MPI(MPI_Type_contiguous(5, MPI_INT, &i));
  envelope(c, MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1, NULL, (MPI_Count[]){5});
  check_pair(c, i);

  CHECK_MPI(MPI_Type_vector_c(3, 2, 4, MPI_INT, &c));
  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &i));
  envelope(c, MPI_COMBINER_VECTOR, 0, 0, 3, 1, NULL, (MPI_Count[]){3, 2, 4});
  check_pair(c, i);

  CHECK_MPI(MPI_Type_create_hvector_c(3, 2, 20, MPI_INT, &c));
  CHECK_MPI(MPI_Type_create_hvector(3, 2, 20, MPI_INT, &i));
  envelope(c, MPI_COMBINER_HVECTOR, 0, 0, 3, 1, NULL, (MPI_Count[]){3, 2, 20});
  check_pair(c, i);

  const MPI_Count lc[3] = {2, 1, 3}, dc[3] = {0, 5, 9};
  const int li[3] = {2, 1, 3}, di[3] = {0, 5, 9};
  CHECK_MPI(MPI_Type_indexed_c(3, lc, dc, MPI_INT, &c));
  CHECK_MPI(MPI_Type_indexed(3, li, di, MPI_INT, &i));
  envelope(c, MPI_COMBINER_INDEXED, 0, 0, 7, 1, NULL, (MPI_Count[]){3, 2, 1, 3, 0, 5, 9});
  check_pair(c, i);

  const MPI_Count hc[3] = {0, 20, 44};
  const MPI_Aint ha[3] = {0, 20, 44};
  CHECK_MPI(MPI_Type_create_hindexed_c(3, lc, hc, MPI_INT, &c));
  CHECK_MPI(MPI_Type_create_hindexed(3, li, ha, MPI_INT, &i));
  envelope(c, MPI_COMBINER_HINDEXED, 0, 0, 7, 1, NULL, (MPI_Count[]){3, 2, 1, 3, 0, 20, 44});
  check_pair(c, i);

  CHECK_MPI(MPI_Type_create_indexed_block_c(3, 2, dc, MPI_INT, &c));
  CHECK_MPI(MPI_Type_create_indexed_block(3, 2, di, MPI_INT, &i));
  envelope(c, MPI_COMBINER_INDEXED_BLOCK, 0, 0, 5, 1, NULL, (MPI_Count[]){3, 2, 0, 5, 9});
  check_pair(c, i);

  CHECK_MPI(MPI_Type_create_hindexed_block_c(3, 2, hc, MPI_INT, &c));
  CHECK_MPI(MPI_Type_create_hindexed_block(3, 2, ha, MPI_INT, &i));
  envelope(c, MPI_COMBINER_HINDEXED_BLOCK, 0, 0, 5, 1, NULL, (MPI_Count[]){3, 2, 0, 20, 44});
  check_pair(c, i);

  const MPI_Count sl[3] = {1, 2, 1}, sd[3] = {0, 4, 16};
  const int sli[3] = {1, 2, 1};
  const MPI_Aint sda[3] = {0, 4, 16};
  const MPI_Datatype st[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_create_struct_c(3, sl, sd, st, &c));
  CHECK_MPI(MPI_Type_create_struct(3, sli, sda, st, &i));
  envelope(c, MPI_COMBINER_STRUCT, 0, 0, 7, 3, NULL, (MPI_Count[]){3, 1, 2, 1, 0, 4, 16});
  check_pair(c, i);

  const MPI_Count az[2] = {4, 6}, asub[2] = {2, 3}, ast[2] = {1, 2};
  const int azi[2] = {4, 6}, asubi[2] = {2, 3}, asti[2] = {1, 2};
  CHECK_MPI(MPI_Type_create_subarray_c(2, az, asub, ast, MPI_ORDER_C, MPI_INT, &c));
  CHECK_MPI(MPI_Type_create_subarray(2, azi, asubi, asti, MPI_ORDER_C, MPI_INT, &i));
  envelope(c, MPI_COMBINER_SUBARRAY, 2, 0, 6, 1, (int[]){2, MPI_ORDER_C},
           (MPI_Count[]){4, 6, 2, 3, 1, 2});
  check_pair(c, i);

  int dims[2] = {0, 0};
  CHECK_MPI(MPI_Dims_create(size, 2, dims));
  const MPI_Count gz[2] = {8, 6};
  const int gzi[2] = {8, 6};
  const int dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
  const int darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
  CHECK_MPI(MPI_Type_create_darray_c(size, rank, 2, gz, dist, darg, dims, MPI_ORDER_FORTRAN,
                                     MPI_INT, &c));
  CHECK_MPI(MPI_Type_create_darray(size, rank, 2, gzi, dist, darg, dims, MPI_ORDER_FORTRAN,
                                   MPI_INT, &i));
  const int dints[10] = {size, rank, 2, dist[0], dist[1], darg[0], darg[1], dims[0], dims[1],
                         MPI_ORDER_FORTRAN};
  envelope(c, MPI_COMBINER_DARRAY, 10, 0, 2, 1, dints, (MPI_Count[]){8, 6});
  /* A rank may own nothing of a small array; compare bounds then, not data. */
  MPI_Count dsize;
  CHECK_MPI(MPI_Type_size_c(i, &dsize));
  if (dsize > 0) {
    check_pair_of(c, i, 1);
  } else {
    CHECK_MPI(MPI_Type_free(&c));
    CHECK_MPI(MPI_Type_free(&i));
  }

  CHECK_MPI(MPI_Type_create_resized_c(MPI_INT, -4, 12, &c));
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, -4, 12, &i));
  envelope(c, MPI_COMBINER_RESIZED, 0, 0, 2, 1, NULL, (MPI_Count[]){-4, 12});
  check_pair(c, i);

  /* An int-built type has no large counts. */
  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &i));
  envelope(i, MPI_COMBINER_VECTOR, 3, 0, 0, 1, (int[]){3, 2, 4}, NULL);
  CHECK_MPI(MPI_Type_free(&i));
}

static void sizes(MPI_Datatype t, MPI_Count sz, MPI_Count lb, MPI_Count ext, MPI_Count tlb,
                  MPI_Count text) {
  MPI_Count s, l, e, tl, te;
  CHECK_MPI(MPI_Type_commit(&t));
  CHECK_MPI(MPI_Type_size_c(t, &s));
  CHECK_MPI(MPI_Type_get_extent_c(t, &l, &e));
  CHECK_MPI(MPI_Type_get_true_extent_c(t, &tl, &te));
  CHECK(s == sz && l == lb && e == ext && tl == tlb && te == text);
  CHECK_MPI(MPI_Type_free(&t));
}

/* Counts above INT_MAX: layouts only, no buffer behind them. */
static void huge(void) {
  const MPI_Count g = 3000000000, h = 4000000000;
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector_c(g, 1, 1, MPI_BYTE, &t));
  sizes(t, g, 0, g, 0, g);
  CHECK_MPI(MPI_Type_vector_c(2, g, h, MPI_BYTE, &t));
  sizes(t, 2 * g, 0, h + g, 0, h + g);
  CHECK_MPI(MPI_Type_vector_c(2, g, 2 * g, MPI_INT, &t));
  MPI_Count got[3];
  MPI_Datatype inner;
  CHECK_MPI(MPI_Type_get_contents_c(t, 0, 0, 3, 1, NULL, NULL, got, &inner));
  CHECK(got[0] == 2 && got[1] == g && got[2] == 2 * g && inner == MPI_INT);
  sizes(t, 2 * g * 4, 0, 3 * g * 4, 0, 3 * g * 4);
  const MPI_Count len[2] = {g, 5}, disp[2] = {0, h};
  CHECK_MPI(MPI_Type_indexed_c(2, len, disp, MPI_INT, &t));
  sizes(t, (g + 5) * 4, 0, (h + 5) * 4, 0, (h + 5) * 4);
  CHECK_MPI(MPI_Type_create_hvector_c(2, g, h, MPI_BYTE, &t));
  sizes(t, 2 * g, 0, h + g, 0, h + g);
  CHECK_MPI(MPI_Type_contiguous_c(g, MPI_DOUBLE, &t));
  sizes(t, 8 * g, 0, 8 * g, 0, 8 * g);
  const MPI_Count az[1] = {5000000000}, asub[1] = {g}, ast[1] = {1000000000};
  CHECK_MPI(MPI_Type_create_subarray_c(1, az, asub, ast, MPI_ORDER_C, MPI_BYTE, &t));
  sizes(t, g, 0, az[0], ast[0], g);
#ifdef TORUS_MPI_H
  /* A block per element above INT_MAX cannot be flattened here. */
  CHECK(error_class_of(MPI_Type_vector_c(g, 1, 2, MPI_INT, &t)) == MPI_ERR_COUNT);
  CHECK(error_class_of(MPI_Type_vector_c(-1, 1, 2, MPI_INT, &t)) == MPI_ERR_COUNT);
#endif
}

static void windows(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int mem[4] = {-1, -1, -1, -1};
  MPI_Win w;
  CHECK_MPI(MPI_Win_create_c(mem, sizeof mem, (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &w));
  CHECK_MPI(MPI_Win_fence(0, w));
  int v = 100 + rank;
  CHECK_MPI(MPI_Put(&v, 1, MPI_INT, right, 2, 1, MPI_INT, w));
  CHECK_MPI(MPI_Win_fence(0, w));
  CHECK(mem[2] == 100 + left && mem[0] == -1 && mem[1] == -1 && mem[3] == -1);
  CHECK_MPI(MPI_Win_free(&w));

  long* base = NULL;
  CHECK_MPI(MPI_Win_allocate_c(3 * sizeof(long), (MPI_Aint)sizeof(long), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &base, &w));
  base[0] = 7, base[1] = 1000 + rank, base[2] = 9;
  CHECK_MPI(MPI_Win_fence(0, w));
  long got = 0;
  CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, right, 1, 1, MPI_LONG, w));
  CHECK_MPI(MPI_Win_fence(0, w));
  CHECK(got == 1000 + right);
  CHECK_MPI(MPI_Win_free(&w));

  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nrank, nsize;
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);
  int* sh = NULL;
  const MPI_Aint unit = 2 * (MPI_Aint)sizeof(int);
  CHECK_MPI(MPI_Win_allocate_shared_c((nrank + 1) * unit, unit, MPI_INFO_NULL, node, &sh, &w));
  CHECK_MPI(MPI_Win_fence(0, w));
  sh[0] = nrank, sh[1] = -nrank;
  CHECK_MPI(MPI_Win_fence(0, w));
  for (int r = 0; r < nsize; ++r) {
    MPI_Aint qsize = 0, qunit = 0;
    int* q = NULL;
    CHECK_MPI(MPI_Win_shared_query_c(w, r, &qsize, &qunit, &q));
    CHECK(qsize == (r + 1) * unit && qunit == unit && q != NULL);
    CHECK(q[0] == r && q[1] == -r);
  }
  CHECK_MPI(MPI_Win_fence(0, w));
  CHECK_MPI(MPI_Win_free(&w));
  CHECK_MPI(MPI_Comm_free(&node));
#ifdef TORUS_MPI_H
  /* Units are ints inside: a larger one is refused on every rank alike. */
  CHECK(error_class_of(MPI_Win_create_c(mem, sizeof mem, (MPI_Aint)1 << 40, MPI_INFO_NULL,
                                        MPI_COMM_WORLD, &w)) == MPI_ERR_DISP);
#endif
}

static MPI_Count type_bytes(MPI_Datatype t) {
  MPI_Count s = 0;
  CHECK_MPI(MPI_Type_size_c(t, &s));
  return s;
}

static void fortran(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_create_f90_integer(2, &t));
  CHECK(type_bytes(t) == 1);
  CHECK_MPI(MPI_Type_create_f90_integer(9, &t));
  CHECK(type_bytes(t) == 4);
  CHECK_MPI(MPI_Type_create_f90_integer(10, &t));
  CHECK(type_bytes(t) == 8);
  CHECK_MPI(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t));
  CHECK(type_bytes(t) == 4);
  CHECK_MPI(MPI_Type_create_f90_real(15, 300, &t));
  CHECK(type_bytes(t) == 8);
  CHECK_MPI(MPI_Type_create_f90_real(MPI_UNDEFINED, 308, &t));
  CHECK(type_bytes(t) > 8);
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
  CHECK(type_bytes(t) == 4);
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t));
  CHECK(type_bytes(t) == 8);
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
  CHECK(type_bytes(t) == 8);
#ifdef TORUS_MPI_H
  CHECK_MPI(MPI_Type_create_f90_integer(4, &t));
  CHECK(t == MPI_INT16_T);
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t));
  CHECK(t == MPI_FLOAT);
  CHECK(error_class_of(MPI_Type_create_f90_integer(19, &t)) == MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &t)) == MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t)) == MPI_ERR_ARG);
  CHECK(error_class_of(MPI_Type_match_size(99, 4, &t)) == MPI_ERR_ARG);
#endif
}

static void statuses(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double out[3] = {1, 2, 3}, in[3];
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(out, 3, MPI_DOUBLE, right, 40 + rank, in, 3, MPI_DOUBLE, left,
                         MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  MPI_Fint f[MPI_F_STATUS_SIZE], f2[MPI_F_STATUS_SIZE];
  CHECK_MPI(MPI_Status_c2f(&st, f));
  CHECK(f[MPI_F_SOURCE] == left && f[MPI_F_TAG] == 40 + left);
  MPI_Status back;
  CHECK_MPI(MPI_Status_f2c(f, &back));
  int n1 = 0;
  CHECK_MPI(MPI_Get_count(&back, MPI_DOUBLE, &n1));
  CHECK(n1 == 3 && back.MPI_SOURCE == left && back.MPI_TAG == 40 + left);
  (void)f2;
#ifndef MPICH_VERSION
  /* Debian's libmpich (no Fortran 2008 bindings) lacks the f08 forms: a program linked
   * against it cannot call them. */
  MPI_F08_status f08, f08b;
  CHECK_MPI(MPI_Status_f2f08(f, &f08));
  CHECK(f08.MPI_SOURCE == left && f08.MPI_TAG == 40 + left);
  CHECK_MPI(MPI_Status_f082f(&f08, f2));
  CHECK(memcmp(f, f2, sizeof f) == 0);
  CHECK_MPI(MPI_Status_c2f08(&st, &f08b));
  CHECK(memcmp(&f08, &f08b, sizeof f08) == 0);
  MPI_Status back2;
  CHECK_MPI(MPI_Status_f082c(&f08, &back2));
  int n2 = 0;
  CHECK_MPI(MPI_Get_count(&back2, MPI_DOUBLE, &n2));
  CHECK(n2 == 3 && back2.MPI_SOURCE == left && back2.MPI_TAG == 40 + left);
  CHECK(MPI_F_STATUS_IGNORE != MPI_F_STATUSES_IGNORE);
  CHECK(MPI_F08_STATUS_IGNORE != MPI_F08_STATUSES_IGNORE);
#endif
}

/* MPI_DUP_FN copies the attribute's value to the duplicate. */
static void dup_fn(void) {
  int key;
  static int value = 42;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &value));
  MPI_Comm d;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  int* got = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(d, key, &got, &flag));
  CHECK(flag && got == &value);
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
  CHECK_MPI(MPI_Comm_free_keyval(&key));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  constructors();
  huge();
  windows();
  fortran();
  statuses();
  dup_fn();
  if (rank == 0) printf("mpi large_count_type ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
