/* One-sided basics: Win_create on malloc'd memory (sizes differing per rank, zero with a NULL
 * base on some) and Win_allocate, their attributes (base, size, disp_unit, create flavor,
 * memory model), Win_get_group (IDENT with the world's), names; fence epochs (NOPRECEDE
 * first, NOSUCCEED last) where every rank Puts to and Gets from every rank, itself included:
 * 0, 1, 1000 and 262144 ints, bytes outside the target range untouched; derived types on
 * the origin, the target or both (strided vector into contiguous, contiguous into indexed
 * with gaps, vectors of different strides, two copies of a type), gaps untouched; target_disp
 * counted in disp_units of 1, 4 and 8 bytes chosen per target; MPI_PROC_NULL a no-op;
 * Rput/Rget in a lock_all epoch completed by Wait and Waitall, checked after flush_all and a
 * barrier. Any size. */
#include <string.h>

#include "check.h"

static int rank, size;

static int value(int from, int to, int i) { return from * 1000003 + to * 7919 + i; }

/* Debian's MPICH 4.0.2 on UCX >= 1.13 misaddresses a Win_allocate segment that does not start
 * on a page boundary (pmodels/mpich#6110: a rank's accesses land in a lower rank's memory),
 * so under MPICH every rank allocates whole pages; torus gets the sizes as asked. */
static MPI_Aint alloc_size(MPI_Aint bytes) {
#ifdef TORUS_MPI_H
  return bytes;
#else
  return (bytes + 65535) / 65536 * 65536;
#endif
}

static void attributes(void) {
  const int units[3] = {1, 4, 8};
  const int du = units[rank % 3];
  const MPI_Aint bytes = (MPI_Aint)(rank % 2 ? 0 : 24 * (rank + 1));
  void* mem = bytes ? malloc((size_t)bytes) : NULL;
  for (int flavor = 0; flavor < 2; ++flavor) {
    MPI_Win win;
    void* base = mem;
    const MPI_Aint want = flavor ? alloc_size(bytes) : bytes;
    if (flavor == 0) {
      CHECK_MPI(MPI_Win_create(mem, bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
      CHECK_MPI(MPI_Win_allocate(want, du, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
      if (want) memset(base, 0x5a, (size_t)want); /* really that much memory */
    }
    void* got_base = (void*)&got_base;
    MPI_Aint* got_size = NULL;
    int *got_du = NULL, *got_flavor = NULL, *got_model = NULL, flag = 0;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &got_base, &flag));
    /* Win_create reports the base it was given; Win_allocate's zero bytes may sit anywhere. */
    CHECK(flag && (flavor == 0 || want > 0 ? got_base == base : 1));
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_size, &flag));
    CHECK(flag && got_size && *got_size == want);
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &got_du, &flag));
    CHECK(flag && got_du && *got_du == du);
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &got_flavor, &flag));
    CHECK(flag && *got_flavor == (flavor ? MPI_WIN_FLAVOR_ALLOCATE : MPI_WIN_FLAVOR_CREATE));
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &got_model, &flag));
    CHECK(flag && (*got_model == MPI_WIN_UNIFIED || *got_model == MPI_WIN_SEPARATE));
    MPI_Group wg, cg;
    int cmp = -1;
    CHECK_MPI(MPI_Win_get_group(win, &wg));
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &cg));
    CHECK_MPI(MPI_Group_compare(wg, cg, &cmp));
    CHECK(cmp == MPI_IDENT);
    CHECK_MPI(MPI_Group_free(&wg));
    CHECK_MPI(MPI_Group_free(&cg));
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_MPI(MPI_Win_get_name(win, name, &len));
    CHECK(len >= 0 && len < MPI_MAX_OBJECT_NAME && (int)strlen(name) == len);
    CHECK_MPI(MPI_Win_set_name(win, flavor ? "allocated window" : "created window"));
    CHECK_MPI(MPI_Win_get_name(win, name, &len));
    CHECK(strcmp(name, flavor ? "allocated window" : "created window") == 0);
    CHECK(len == (int)strlen(name));
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL);
  }
  free(mem);
}

/* Every rank puts n ints into its own slot on every rank (a mark on either side of it), then
 * gets back the slot its right neighbour put there. */
static void contiguous(int n) {
  const int slot = n + 2;
  int* mem = marked_ints(size * slot, -1);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)sizeof(int) * size * slot, sizeof(int),
                           MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int* out = marked_ints(size * n, 0);
  int* in = marked_ints(size * slot, -2);
  for (int t = 0; t < size; ++t)
    for (int i = 0; i < n; ++i) out[t * n + i] = value(rank, t, i);
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  for (int t = 0; t < size; ++t)
    CHECK_MPI(MPI_Put(out + t * n, n, MPI_INT, t, rank * slot + 1, n, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int o = 0; o < size; ++o) {
    CHECK(mem[o * slot] == -1 && mem[o * slot + slot - 1] == -1);
    for (int i = 0; i < n; ++i) CHECK(mem[o * slot + 1 + i] == value(o, rank, i));
  }
  const int from = (rank + 1) % size;
  for (int t = 0; t < size; ++t)
    CHECK_MPI(MPI_Get(in + t * slot + 1, n, MPI_INT, t, from * slot + 1, n, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  for (int t = 0; t < size; ++t) {
    CHECK(in[t * slot] == -2 && in[t * slot + slot - 1] == -2);
    for (int i = 0; i < n; ++i) CHECK(in[t * slot + 1 + i] == value(from, t, i));
  }
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  free(out);
  free(in);
}

/* Twelve ints in five layouts; offsets[] lists where the k-th int of one copy sits. */
enum { kElems = 12, kSlot = 80 };
enum { L_CONTIG, L_STRIDED, L_INDEXED, L_VEC_A, L_VEC_B };

static MPI_Datatype layout(int kind, int offsets[kElems], int* extent) {
  static const int blens[5] = {2, 1, 3, 4, 2}, displs[5] = {0, 3, 5, 10, 16};
  MPI_Datatype t = MPI_INT;
  int k = 0;
  switch (kind) {
    case L_CONTIG:
      CHECK_MPI(MPI_Type_contiguous(kElems, MPI_INT, &t));
      for (; k < kElems; ++k) offsets[k] = k;
      break;
    case L_STRIDED:
      CHECK_MPI(MPI_Type_vector(kElems, 1, 3, MPI_INT, &t));
      for (; k < kElems; ++k) offsets[k] = 3 * k;
      break;
    case L_INDEXED:
      CHECK_MPI(MPI_Type_indexed(5, blens, displs, MPI_INT, &t));
      for (int b = 0; b < 5; ++b)
        for (int j = 0; j < blens[b]; ++j) offsets[k++] = displs[b] + j;
      break;
    case L_VEC_A:
      CHECK_MPI(MPI_Type_vector(4, 3, 5, MPI_INT, &t));
      for (; k < kElems; ++k) offsets[k] = (k / 3) * 5 + k % 3;
      break;
    default:
      CHECK_MPI(MPI_Type_vector(6, 2, 3, MPI_INT, &t));
      for (; k < kElems; ++k) offsets[k] = (k / 2) * 3 + k % 2;
  }
  CHECK_MPI(MPI_Type_commit(&t));
  *extent = offsets[kElems - 1] + 1;
  return t;
}

/* Position of the k-th int of `copies` copies of a layout, or -1 when outside the typemap. */
static int typemap_index(const int offsets[kElems], int extent, int copies, int pos) {
  for (int k = 0; k < kElems * copies; ++k)
    if ((k / kElems) * extent + offsets[k % kElems] == pos) return k;
  return -1;
}

/* Origin type, target type and how many copies of each, all in one epoch, each combination
 * in its own part of the window (origin o's slot at o * kSlot inside it). */
static const int combos[][3] = {{L_STRIDED, L_CONTIG, 1}, {L_CONTIG, L_INDEXED, 1},
                                {L_VEC_A, L_VEC_B, 1},    {L_VEC_B, L_VEC_A, 2},
                                {L_STRIDED, L_INDEXED, 2}};
enum { kCombos = sizeof combos / sizeof combos[0] };

static void derived(void) {
  int off[kCombos][2][kElems], ext[kCombos][2];
  MPI_Datatype type[kCombos][2];
  for (int c = 0; c < kCombos; ++c)
    for (int side = 0; side < 2; ++side) {
      type[c][side] = layout(combos[c][side], off[c][side], &ext[c][side]);
      CHECK(ext[c][side] * combos[c][2] <= kSlot);
    }
  const int area = size * kSlot;
  int* mem = marked_ints(kCombos * area, -1);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)sizeof(int) * kCombos * area, sizeof(int),
                           MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int* out = marked_ints(kCombos * area, -3);
  int* in = marked_ints(kCombos * area, -2);
  for (int c = 0; c < kCombos; ++c)
    for (int t = 0; t < size; ++t)
      for (int p = 0; p < kSlot; ++p) {
        const int k = typemap_index(off[c][0], ext[c][0], combos[c][2], p);
        if (k >= 0) out[c * area + t * kSlot + p] = value(rank, t, k + c);
      }
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  for (int c = 0; c < kCombos; ++c)
    for (int t = 0; t < size; ++t)
      CHECK_MPI(MPI_Put(out + c * area + t * kSlot, combos[c][2], type[c][0], t,
                        c * area + rank * kSlot, combos[c][2], type[c][1], win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int c = 0; c < kCombos; ++c)
    for (int o = 0; o < size; ++o)
      for (int p = 0; p < kSlot; ++p) {
        const int k = typemap_index(off[c][1], ext[c][1], combos[c][2], p);
        CHECK(mem[c * area + o * kSlot + p] == (k >= 0 ? value(o, rank, k + c) : -1));
      }
  const int from = (rank + 1) % size;
  for (int c = 0; c < kCombos; ++c)
    for (int t = 0; t < size; ++t)
      CHECK_MPI(MPI_Get(in + c * area + t * kSlot, combos[c][2], type[c][0], t,
                        c * area + from * kSlot, combos[c][2], type[c][1], win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  for (int c = 0; c < kCombos; ++c)
    for (int t = 0; t < size; ++t)
      for (int p = 0; p < kSlot; ++p) {
        const int k = typemap_index(off[c][0], ext[c][0], combos[c][2], p);
        CHECK(in[c * area + t * kSlot + p] == (k >= 0 ? value(from, t, k + c) : -2));
      }
  CHECK_MPI(MPI_Win_free(&win));
  for (int c = 0; c < kCombos; ++c)
    for (int side = 0; side < 2; ++side) CHECK_MPI(MPI_Type_free(&type[c][side]));
  free(mem);
  free(out);
  free(in);
}

/* Rank t's window counts displacements in units of 1, 4 or 8 bytes; origin o writes an int
 * at byte 16 * o + 8 and a long long at byte 16 * size + 8 * o of every target. */
static void disp_units(void) {
  const int units[3] = {1, 4, 8};
  const size_t bytes = (size_t)(24 * size);
  unsigned char* mem = (unsigned char*)malloc(bytes);
  memset(mem, 0xee, bytes);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)bytes, units[rank % 3], MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win));
  int* iv = marked_ints(size, 0);
  long long* lv = (long long*)malloc(sizeof(long long) * (size_t)size);
  for (int t = 0; t < size; ++t) {
    iv[t] = value(rank, t, 1);
    lv[t] = (long long)value(rank, t, 2) << 20;
  }
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  for (int t = 0; t < size; ++t) {
    const int du = units[t % 3];
    CHECK_MPI(MPI_Put(&iv[t], 1, MPI_INT, t, (16 * rank + 8) / du, 1, MPI_INT, win));
    CHECK_MPI(MPI_Put(&lv[t], 1, MPI_LONG_LONG, t, (16 * size + 8 * rank) / du, 1,
                      MPI_LONG_LONG, win));
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  unsigned char filler[16];
  memset(filler, 0xee, sizeof filler);
  for (int o = 0; o < size; ++o) {
    int x;
    long long y;
    memcpy(&x, mem + 16 * o + 8, sizeof x);
    memcpy(&y, mem + 16 * size + 8 * o, sizeof y);
    CHECK(x == value(o, rank, 1) && y == (long long)value(o, rank, 2) << 20);
    CHECK(memcmp(mem + 16 * o, filler, 8) == 0 && memcmp(mem + 16 * o + 12, filler, 4) == 0);
  }
  int* back = marked_ints(size, -2);
  for (int t = 0; t < size; ++t)
    CHECK_MPI(MPI_Get(&back[t], 1, MPI_INT, t, (16 * ((rank + 1) % size) + 8) / units[t % 3],
                      1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  for (int t = 0; t < size; ++t) CHECK(back[t] == value((rank + 1) % size, t, 1));
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  free(iv);
  free(lv);
  free(back);
}

/* Odd ranks expose nothing (NULL base, size 0): zero-count accesses to them are fine, and
 * PROC_NULL targets change nothing on either side. */
static void empty_and_proc_null(void) {
  const int n = rank % 2 ? 0 : size + rank;
  int* mem = n ? marked_ints(n, -1) : NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)sizeof(int) * n, sizeof(int), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win));
  MPI_Aint* got_size = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_size, &flag));
  CHECK(flag && *got_size == (MPI_Aint)sizeof(int) * n);
  int x = value(rank, 0, 0), y = -7, z = -8;
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int t = 0; t < size; ++t) {
    if (t % 2) {
      CHECK_MPI(MPI_Put(&x, 0, MPI_INT, t, 0, 0, MPI_INT, win));
      CHECK_MPI(MPI_Get(&z, 0, MPI_INT, t, 0, 0, MPI_INT, win));
    } else {
      CHECK_MPI(MPI_Put(&x, 1, MPI_INT, t, rank, 1, MPI_INT, win));
    }
  }
  CHECK_MPI(MPI_Put(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
  CHECK_MPI(MPI_Get(&y, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(y == -7 && z == -8);
  for (int i = 0; i < n; ++i) CHECK(mem[i] == (i < size ? value(i, 0, 0) : -1));
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
}

/* Request-based accesses in a passive epoch; origin o owns slot o on every target. */
static void request_based(int n) {
  int* mem;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(alloc_size((MPI_Aint)sizeof(int) * size * n), sizeof(int),
                             MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  int* out = marked_ints(size * n, 0);
  int* in = marked_ints(size * n, -2);
  for (int t = 0; t < size; ++t)
    for (int i = 0; i < n; ++i) out[t * n + i] = value(rank, t, i);
  MPI_Request* reqs = (MPI_Request*)malloc(sizeof(MPI_Request) * (size_t)size);
  MPI_Status* st = (MPI_Status*)malloc(sizeof(MPI_Status) * (size_t)size);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int i = 0; i < size * n; ++i) mem[i] = -1;
  CHECK_MPI(MPI_Win_sync(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every window initialized before anyone writes */
  for (int t = 0; t < size; ++t)
    CHECK_MPI(MPI_Rput(out + t * n, n, MPI_INT, t, rank * n, n, MPI_INT, win, &reqs[t]));
  CHECK_MPI(MPI_Waitall(size, reqs, st));
  for (int t = 0; t < size; ++t) CHECK(reqs[t] == MPI_REQUEST_NULL);
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_sync(win));
  for (int o = 0; o < size; ++o)
    for (int i = 0; i < n; ++i) CHECK(mem[o * n + i] == value(o, rank, i));
  const int from = (rank + 1) % size;
  for (int t = 0; t < size; ++t) {
    CHECK_MPI(MPI_Rget(in + t * n, n, MPI_INT, t, from * n, n, MPI_INT, win, &reqs[t]));
    if (t % 2 == 0) CHECK_MPI(MPI_Wait(&reqs[t], MPI_STATUS_IGNORE));
  }
  CHECK_MPI(MPI_Waitall(size, reqs, st));
  for (int t = 0; t < size; ++t)
    for (int i = 0; i < n; ++i) CHECK(in[t * n + i] == value(from, t, i));
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Win_free(&win));
  free(out);
  free(in);
  free(reqs);
  free(st);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  attributes();
  const int counts[] = {0, 1, 1000, 262144};
  for (int c = 0; c < 4; ++c) contiguous(counts[c]);
  derived();
  disp_units();
  empty_and_proc_null();
  request_based(1);
  request_based(5000);
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("mpi rma ok: %d ranks\n", size);
  return 0;
}
