/* MPI-IO: files opened by a group of processes, read and written through views. Included by
 * mpi.h (as MPICH's mpi.h includes its mpio.h); the handle is a pointer and the constants
 * are MPICH's, so programs compiled against MPICH's headers run on torus. */
#ifndef TORUS_MPIO_H
#define TORUS_MPIO_H

#ifndef TORUS_MPI_H
#error "include <mpi.h>, which includes mpio.h"
#endif

typedef struct ADIOI_FileD* MPI_File;
#define MPI_FILE_NULL ((MPI_File)0)

#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256

#define MPI_DISPLACEMENT_CURRENT (-54278278)
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_MAX_DATAREP_STRING 128

/* Error classes of file operations (MPICH's values). */
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_BAD_FILE 22
#define MPI_ERR_CONVERSION 23
#define MPI_ERR_DUP_DATAREP 24
#define MPI_ERR_FILE_EXISTS 25
#define MPI_ERR_FILE_IN_USE 26
#define MPI_ERR_FILE 27
#define MPI_ERR_IO 32
#define MPI_ERR_NO_SPACE 36
#define MPI_ERR_NO_SUCH_FILE 37
#define MPI_ERR_QUOTA 39
#define MPI_ERR_READ_ONLY 40
#define MPI_ERR_UNSUPPORTED_DATAREP 43

typedef void(MPI_File_errhandler_function)(MPI_File*, int*, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;

/* Opening, closing, the file's attributes. */
TORUS_MPI_FN(int, File_open, (MPI_Comm comm, const char* filename, int amode, MPI_Info info,
                              MPI_File* fh))
TORUS_MPI_FN(int, File_close, (MPI_File* fh))
TORUS_MPI_FN(int, File_delete, (const char* filename, MPI_Info info))
TORUS_MPI_FN(int, File_set_size, (MPI_File fh, MPI_Offset size))
TORUS_MPI_FN(int, File_preallocate, (MPI_File fh, MPI_Offset size))
TORUS_MPI_FN(int, File_get_size, (MPI_File fh, MPI_Offset* size))
TORUS_MPI_FN(int, File_get_group, (MPI_File fh, MPI_Group* group))
TORUS_MPI_FN(int, File_get_amode, (MPI_File fh, int* amode))
TORUS_MPI_FN(int, File_set_info, (MPI_File fh, MPI_Info info))
TORUS_MPI_FN(int, File_get_info, (MPI_File fh, MPI_Info* info_used))
TORUS_MPI_FN(int, File_sync, (MPI_File fh))
TORUS_MPI_FN(int, File_set_atomicity, (MPI_File fh, int flag))
TORUS_MPI_FN(int, File_get_atomicity, (MPI_File fh, int* flag))
TORUS_MPI_FN(int, File_create_errhandler, (MPI_File_errhandler_function* file_errhandler_fn,
                                           MPI_Errhandler* errhandler))
TORUS_MPI_FN(int, File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler))
TORUS_MPI_FN(int, File_get_errhandler, (MPI_File file, MPI_Errhandler* errhandler))
TORUS_MPI_FN(int, File_call_errhandler, (MPI_File fh, int errorcode))

/* Views and file pointers. */
TORUS_MPI_FN(int, File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                  MPI_Datatype filetype, const char* datarep, MPI_Info info))
TORUS_MPI_FN(int, File_get_view, (MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype,
                                  MPI_Datatype* filetype, char* datarep))
TORUS_MPI_FN(int, File_get_type_extent, (MPI_File fh, MPI_Datatype datatype,
                                         MPI_Aint* extent))
TORUS_MPI_FN(int, File_seek, (MPI_File fh, MPI_Offset offset, int whence))
TORUS_MPI_FN(int, File_get_position, (MPI_File fh, MPI_Offset* offset))
TORUS_MPI_FN(int, File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset* disp))
TORUS_MPI_FN(int, File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
TORUS_MPI_FN(int, File_get_position_shared, (MPI_File fh, MPI_Offset* offset))

/* Data access: explicit offsets, the individual pointer, the shared pointer. */
#define TORUS_MPIO_RW(name, buf_const)                                                     \
  TORUS_MPI_FN(int, File_##name##_at, (MPI_File fh, MPI_Offset offset, buf_const void* buf, \
                                       int count, MPI_Datatype datatype, MPI_Status* status)) \
  TORUS_MPI_FN(int, File_##name##_at_all, (MPI_File fh, MPI_Offset offset,                  \
                                           buf_const void* buf, int count,                  \
                                           MPI_Datatype datatype, MPI_Status* status))      \
  TORUS_MPI_FN(int, File_##name, (MPI_File fh, buf_const void* buf, int count,              \
                                  MPI_Datatype datatype, MPI_Status* status))               \
  TORUS_MPI_FN(int, File_##name##_all, (MPI_File fh, buf_const void* buf, int count,        \
                                        MPI_Datatype datatype, MPI_Status* status))         \
  TORUS_MPI_FN(int, File_##name##_shared, (MPI_File fh, buf_const void* buf, int count,     \
                                           MPI_Datatype datatype, MPI_Status* status))      \
  TORUS_MPI_FN(int, File_##name##_ordered, (MPI_File fh, buf_const void* buf, int count,    \
                                            MPI_Datatype datatype, MPI_Status* status))     \
  TORUS_MPI_FN(int, File_i##name##_at, (MPI_File fh, MPI_Offset offset, buf_const void* buf, \
                                        int count, MPI_Datatype datatype,                   \
                                        MPI_Request* request))                              \
  TORUS_MPI_FN(int, File_i##name, (MPI_File fh, buf_const void* buf, int count,             \
                                   MPI_Datatype datatype, MPI_Request* request))            \
  TORUS_MPI_FN(int, File_i##name##_shared, (MPI_File fh, buf_const void* buf, int count,    \
                                            MPI_Datatype datatype, MPI_Request* request))
TORUS_MPIO_RW(read, )
TORUS_MPIO_RW(write, const)
#undef TORUS_MPIO_RW

/* Nonblocking collective and split collective access (one split access per file at once). */
#define TORUS_MPIO_COLL(name, buf_const)                                                    \
  TORUS_MPI_FN(int, File_i##name##_all, (MPI_File fh, buf_const void* buf, int count,       \
                                         MPI_Datatype datatype, MPI_Request* request))      \
  TORUS_MPI_FN(int, File_i##name##_at_all, (MPI_File fh, MPI_Offset offset,                 \
                                            buf_const void* buf, int count,                 \
                                            MPI_Datatype datatype, MPI_Request* request))   \
  TORUS_MPI_FN(int, File_##name##_all_begin, (MPI_File fh, buf_const void* buf, int count,  \
                                              MPI_Datatype datatype))                       \
  TORUS_MPI_FN(int, File_##name##_all_end, (MPI_File fh, buf_const void* buf,               \
                                            MPI_Status* status))                            \
  TORUS_MPI_FN(int, File_##name##_at_all_begin, (MPI_File fh, MPI_Offset offset,            \
                                                 buf_const void* buf, int count,            \
                                                 MPI_Datatype datatype))                    \
  TORUS_MPI_FN(int, File_##name##_at_all_end, (MPI_File fh, buf_const void* buf,            \
                                               MPI_Status* status))                         \
  TORUS_MPI_FN(int, File_##name##_ordered_begin, (MPI_File fh, buf_const void* buf,         \
                                                  int count, MPI_Datatype datatype))        \
  TORUS_MPI_FN(int, File_##name##_ordered_end, (MPI_File fh, buf_const void* buf,           \
                                                MPI_Status* status))
TORUS_MPIO_COLL(read, )
TORUS_MPIO_COLL(write, const)
#undef TORUS_MPIO_COLL

/* Large counts (MPI 4.0): the same accesses with MPI_Count counts. */
#define TORUS_MPIO_RW_C(name, buf_const)                                                    \
  TORUS_MPI_FN(int, File_##name##_at_c, (MPI_File fh, MPI_Offset offset, buf_const void* buf, \
                                         MPI_Count count, MPI_Datatype datatype,            \
                                         MPI_Status* status))                               \
  TORUS_MPI_FN(int, File_##name##_at_all_c, (MPI_File fh, MPI_Offset offset,                \
                                             buf_const void* buf, MPI_Count count,          \
                                             MPI_Datatype datatype, MPI_Status* status))    \
  TORUS_MPI_FN(int, File_##name##_c, (MPI_File fh, buf_const void* buf, MPI_Count count,    \
                                      MPI_Datatype datatype, MPI_Status* status))           \
  TORUS_MPI_FN(int, File_##name##_all_c, (MPI_File fh, buf_const void* buf, MPI_Count count, \
                                          MPI_Datatype datatype, MPI_Status* status))       \
  TORUS_MPI_FN(int, File_##name##_shared_c, (MPI_File fh, buf_const void* buf,              \
                                             MPI_Count count, MPI_Datatype datatype,        \
                                             MPI_Status* status))                           \
  TORUS_MPI_FN(int, File_##name##_ordered_c, (MPI_File fh, buf_const void* buf,             \
                                              MPI_Count count, MPI_Datatype datatype,       \
                                              MPI_Status* status))                          \
  TORUS_MPI_FN(int, File_i##name##_at_c, (MPI_File fh, MPI_Offset offset,                   \
                                          buf_const void* buf, MPI_Count count,             \
                                          MPI_Datatype datatype, MPI_Request* request))     \
  TORUS_MPI_FN(int, File_i##name##_at_all_c, (MPI_File fh, MPI_Offset offset,               \
                                              buf_const void* buf, MPI_Count count,         \
                                              MPI_Datatype datatype, MPI_Request* request)) \
  TORUS_MPI_FN(int, File_i##name##_c, (MPI_File fh, buf_const void* buf, MPI_Count count,   \
                                       MPI_Datatype datatype, MPI_Request* request))        \
  TORUS_MPI_FN(int, File_i##name##_all_c, (MPI_File fh, buf_const void* buf,                \
                                           MPI_Count count, MPI_Datatype datatype,          \
                                           MPI_Request* request))                           \
  TORUS_MPI_FN(int, File_i##name##_shared_c, (MPI_File fh, buf_const void* buf,             \
                                              MPI_Count count, MPI_Datatype datatype,       \
                                              MPI_Request* request))                        \
  TORUS_MPI_FN(int, File_##name##_all_begin_c, (MPI_File fh, buf_const void* buf,           \
                                                MPI_Count count, MPI_Datatype datatype))    \
  TORUS_MPI_FN(int, File_##name##_at_all_begin_c, (MPI_File fh, MPI_Offset offset,          \
                                                   buf_const void* buf, MPI_Count count,    \
                                                   MPI_Datatype datatype))                  \
  TORUS_MPI_FN(int, File_##name##_ordered_begin_c, (MPI_File fh, buf_const void* buf,       \
                                                    MPI_Count count, MPI_Datatype datatype))
TORUS_MPIO_RW_C(read, )
TORUS_MPIO_RW_C(write, const)
#undef TORUS_MPIO_RW_C
TORUS_MPI_FN(int, File_get_type_extent_c, (MPI_File fh, MPI_Datatype datatype,
                                           MPI_Count* extent))

/* Handles for Fortran. */
TORUS_MPI_FN(MPI_Fint, File_c2f, (MPI_File fh))
TORUS_MPI_FN(MPI_File, File_f2c, (MPI_Fint fh))

#endif /* TORUS_MPIO_H */
