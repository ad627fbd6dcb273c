/* mpi.h for torus's libmpi: the MPICH ABI (libmpi.so.12), so that a program compiled against
 * MPICH runs on torus by swapping the library. Handle values, constants and the MPI_Status
 * layout equal MPICH's; only the functions libmpi implements are declared (MPI_ and PMPI_). */
#ifndef TORUS_MPI_H
#define TORUS_MPI_H

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 4
#define MPI_SUBVERSION 0

/* Handles are ints, as in MPICH: the bits name the object kind (0x44: communicator,
 * 0x4c/0x8c: datatype, 0x58: op, 0x54: error handler); for builtin datatypes bits 8-15 hold
 * the size in bytes. */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Group;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Message;
typedef int MPI_Win;
typedef long MPI_Aint;
typedef long MPI_Count;
typedef long long MPI_Offset;
typedef int MPI_Fint;

/* Same field order and size as MPICH: the byte count is split over count_lo and the upper
 * bits of count_hi_and_cancelled (bit 0: cancelled). */
typedef struct MPI_Status {
  int count_lo;
  int count_hi_and_cancelled;
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
} MPI_Status;

/* Null handles. */
#define MPI_COMM_NULL ((MPI_Comm)0x04000000)
#define MPI_GROUP_NULL ((MPI_Group)0x08000000)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0x0c000000)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0x14000000)
#define MPI_OP_NULL ((MPI_Op)0x18000000)
#define MPI_INFO_NULL ((MPI_Info)0x1c000000)
#define MPI_INFO_ENV ((MPI_Info)0x5c000001)
#define MPI_REQUEST_NULL ((MPI_Request)0x2c000000)
#define MPI_MESSAGE_NULL ((MPI_Message)0x2c000000)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x6c000000)
#define MPI_WIN_NULL ((MPI_Win)0x20000000)

/* Predefined communicators and groups. */
#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)
#define MPI_COMM_SELF ((MPI_Comm)0x44000001)
#define MPI_GROUP_EMPTY ((MPI_Group)0x48000000)

/* Comparison results. */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Predefined datatypes (C). */
#define MPI_CHAR ((MPI_Datatype)0x4c000101)
#define MPI_SIGNED_CHAR ((MPI_Datatype)0x4c000118)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)0x4c000102)
#define MPI_BYTE ((MPI_Datatype)0x4c00010d)
#define MPI_WCHAR ((MPI_Datatype)0x4c00040e)
#define MPI_SHORT ((MPI_Datatype)0x4c000203)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)0x4c000204)
#define MPI_INT ((MPI_Datatype)0x4c000405)
#define MPI_UNSIGNED ((MPI_Datatype)0x4c000406)
#define MPI_LONG ((MPI_Datatype)0x4c000807)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)0x4c000808)
#define MPI_LONG_LONG_INT ((MPI_Datatype)0x4c000809)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x4c000819)
#define MPI_FLOAT ((MPI_Datatype)0x4c00040a)
#define MPI_DOUBLE ((MPI_Datatype)0x4c00080b)
#define MPI_LONG_DOUBLE ((MPI_Datatype)0x4c00100c)
#define MPI_PACKED ((MPI_Datatype)0x4c00010f)
#define MPI_INT8_T ((MPI_Datatype)0x4c000137)
#define MPI_INT16_T ((MPI_Datatype)0x4c000238)
#define MPI_INT32_T ((MPI_Datatype)0x4c000439)
#define MPI_INT64_T ((MPI_Datatype)0x4c00083a)
#define MPI_UINT8_T ((MPI_Datatype)0x4c00013b)
#define MPI_UINT16_T ((MPI_Datatype)0x4c00023c)
#define MPI_UINT32_T ((MPI_Datatype)0x4c00043d)
#define MPI_UINT64_T ((MPI_Datatype)0x4c00083e)
#define MPI_C_BOOL ((MPI_Datatype)0x4c00013f)
#define MPI_AINT ((MPI_Datatype)0x4c000843)
#define MPI_OFFSET ((MPI_Datatype)0x4c000844)
#define MPI_COUNT ((MPI_Datatype)0x4c000845)
/* Value-index pairs for MINLOC/MAXLOC. */
#define MPI_FLOAT_INT ((MPI_Datatype)0x8c000000)
#define MPI_DOUBLE_INT ((MPI_Datatype)0x8c000001)
#define MPI_LONG_INT ((MPI_Datatype)0x8c000002)
#define MPI_SHORT_INT ((MPI_Datatype)0x8c000003)
#define MPI_2INT ((MPI_Datatype)0x4c000816)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)0x8c000004)
/* Derived datatypes get handles 0x8c000000 | index, index >= 8. */

/* Type constructors, as MPI_Type_get_envelope reports them (MPICH's values). */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR_INTEGER 5
#define MPI_COMBINER_HVECTOR 6
#define MPI_COMBINER_INDEXED 7
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_HINDEXED 9
#define MPI_COMBINER_INDEXED_BLOCK 10
#define MPI_COMBINER_STRUCT_INTEGER 11
#define MPI_COMBINER_STRUCT 12
#define MPI_COMBINER_SUBARRAY 13
#define MPI_COMBINER_DARRAY 14
#define MPI_COMBINER_F90_REAL 15
#define MPI_COMBINER_F90_COMPLEX 16
#define MPI_COMBINER_F90_INTEGER 17
#define MPI_COMBINER_RESIZED 18
#define MPI_COMBINER_HINDEXED_BLOCK 19

/* MPI_Type_create_subarray / darray, MPICH's values. */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* Predefined reduction operations. */
#define MPI_MAX ((MPI_Op)0x58000001)
#define MPI_MIN ((MPI_Op)0x58000002)
#define MPI_SUM ((MPI_Op)0x58000003)
#define MPI_PROD ((MPI_Op)0x58000004)
#define MPI_LAND ((MPI_Op)0x58000005)
#define MPI_BAND ((MPI_Op)0x58000006)
#define MPI_LOR ((MPI_Op)0x58000007)
#define MPI_BOR ((MPI_Op)0x58000008)
#define MPI_LXOR ((MPI_Op)0x58000009)
#define MPI_BXOR ((MPI_Op)0x5800000a)
#define MPI_MINLOC ((MPI_Op)0x5800000b)
#define MPI_MAXLOC ((MPI_Op)0x5800000c)
#define MPI_REPLACE ((MPI_Op)0x5800000d)
#define MPI_NO_OP ((MPI_Op)0x5800000e)
/* User reductions (MPI_Op_create): inoutvec[i] = invec[i] op inoutvec[i] for *len elements,
 * invec holding the lower ranks' contribution. */
typedef void(MPI_User_function)(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);
/* The same with an MPI_Count length (MPI_Op_create_c). */
typedef void(MPI_User_function_c)(void* invec, void* inoutvec, MPI_Count* len,
                                  MPI_Datatype* datatype);

/* Error handlers. */
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)0x54000001)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)0x54000003)

/* Ranks, tags and special buffers. */
#define MPI_PROC_NULL (-1)
#define MPI_ANY_SOURCE (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_BOTTOM ((void*)0)
#define MPI_IN_PLACE ((void*)-1)
#define MPI_STATUS_IGNORE ((MPI_Status*)1)
#define MPI_STATUSES_IGNORE ((MPI_Status*)1)
/* Bytes a buffered send needs in the attached buffer beyond its message. */
#define MPI_BSEND_OVERHEAD 96

/* Attribute keys (predefined on MPI_COMM_WORLD). */
#define MPI_TAG_UB 0x64400001
#define MPI_HOST 0x64400003
#define MPI_IO 0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE 0x64400009
#define MPI_LASTUSEDCODE 0x6440000b
#define MPI_APPNUM 0x6440000d
/* User attribute keys (MPI_Comm_create_keyval) and their callbacks. MPI_COMM_DUP_FN is
 * MPICH's MPIR_Dup_fn, so MPICH-built programs find it here too. */
#define MPI_KEYVAL_INVALID 0x24000000
typedef int(MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int keyval, void* extra_state,
                                         void* attribute_val_in, void* attribute_val_out,
                                         int* flag);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm comm, int keyval, void* attribute_val,
                                           void* extra_state);
#define MPI_DUP_FN MPIR_Dup_fn
int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void* extra_state, void* attribute_val_in,
               void* attribute_val_out, int* flag);
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function*)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function*)0)
#define MPI_COMM_DUP_FN ((MPI_Comm_copy_attr_function*)MPI_DUP_FN)
/* MPI-1's names for the same callbacks (MPI_Keyval_create, removed in MPI 3.0). */
typedef int(MPI_Copy_function)(MPI_Comm, int, void*, void*, void*, int*);
typedef int(MPI_Delete_function)(MPI_Comm, int, void*, void*);
#define MPI_NULL_COPY_FN ((MPI_Copy_function*)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function*)0)

/* MPI_Comm_split_type. */
#define MPI_COMM_TYPE_SHARED 1

/* Topology kinds (MPI_Topo_test), MPICH's values. */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3

/* Thread support levels. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* String lengths (including the NUL). */
#define MPI_MAX_PROCESSOR_NAME 128
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

/* Error classes (MPICH's numbering). */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_ROOT 7
#define MPI_ERR_GROUP 8
#define MPI_ERR_OP 9
#define MPI_ERR_TOPOLOGY 10
#define MPI_ERR_DIMS 11
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_TRUNCATE 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_REQUEST 19
#define MPI_ERR_INFO 28
#define MPI_ERR_INFO_KEY 29
#define MPI_ERR_INFO_VALUE 30
#define MPI_ERR_INFO_NOKEY 31
#define MPI_ERR_NO_MEM 34
#define MPI_ERR_UNSUPPORTED_OPERATION 44
#define MPI_ERR_WIN 45
#define MPI_ERR_BASE 46
#define MPI_ERR_LOCKTYPE 47
#define MPI_ERR_KEYVAL 48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_SYNC 50
#define MPI_ERR_SIZE 51
#define MPI_ERR_DISP 52
#define MPI_ERR_ASSERT 53
#define MPI_ERR_RMA_RANGE 55
#define MPI_ERR_RMA_ATTACH 56
#define MPI_ERR_RMA_SHARED 57
#define MPI_ERR_RMA_FLAVOR 58
#define MPI_ERR_PROC_ABORTED 76
#define MPI_ERR_LASTCODE 0x3fffffff

/* Every function exists under two names: MPI_x (weak, for a profiler to wrap) and PMPI_x. */
#define TORUS_MPI_FN(ret, name, args) ret MPI_##name args; ret PMPI_##name args;

/* Setup and environment. */
TORUS_MPI_FN(int, Init, (int* argc, char*** argv))
TORUS_MPI_FN(int, Init_thread, (int* argc, char*** argv, int required, int* provided))
TORUS_MPI_FN(int, Finalize, (void))
TORUS_MPI_FN(int, Initialized, (int* flag))
TORUS_MPI_FN(int, Finalized, (int* flag))
TORUS_MPI_FN(int, Abort, (MPI_Comm comm, int errorcode))
TORUS_MPI_FN(int, Query_thread, (int* provided))
TORUS_MPI_FN(int, Is_thread_main, (int* flag))
TORUS_MPI_FN(int, Get_processor_name, (char* name, int* resultlen))
TORUS_MPI_FN(int, Get_version, (int* version, int* subversion))
TORUS_MPI_FN(int, Get_library_version, (char* version, int* resultlen))
TORUS_MPI_FN(double, Wtime, (void))
TORUS_MPI_FN(double, Wtick, (void))
TORUS_MPI_FN(int, Pcontrol, (const int level, ...))
TORUS_MPI_FN(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void* baseptr))
TORUS_MPI_FN(int, Free_mem, (void* base))

/* Errors. */
TORUS_MPI_FN(int, Error_string, (int errorcode, char* string, int* resultlen))
TORUS_MPI_FN(int, Error_class, (int errorcode, int* errorclass))
TORUS_MPI_FN(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
TORUS_MPI_FN(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler* errhandler))
/* User-defined handlers; the MPI-1 names for the same calls. */
typedef void(MPI_Comm_errhandler_function)(MPI_Comm*, int*, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Comm_errhandler_function MPI_Handler_function;
TORUS_MPI_FN(int, Comm_create_errhandler, (MPI_Comm_errhandler_function* comm_errhandler_fn,
                                           MPI_Errhandler* errhandler))
TORUS_MPI_FN(int, Errhandler_free, (MPI_Errhandler* errhandler))
TORUS_MPI_FN(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
TORUS_MPI_FN(int, Errhandler_create, (MPI_Handler_function* function,
                                      MPI_Errhandler* errhandler))
TORUS_MPI_FN(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
TORUS_MPI_FN(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler* errhandler))
/* Error classes, codes and strings of the application's own. */
TORUS_MPI_FN(int, Add_error_class, (int* errorclass))
TORUS_MPI_FN(int, Add_error_code, (int errorclass, int* errorcode))
TORUS_MPI_FN(int, Add_error_string, (int errorcode, const char* string))

/* Communicators. */
TORUS_MPI_FN(int, Comm_rank, (MPI_Comm comm, int* rank))
TORUS_MPI_FN(int, Comm_size, (MPI_Comm comm, int* size))
TORUS_MPI_FN(int, Comm_dup, (MPI_Comm comm, MPI_Comm* newcomm))
TORUS_MPI_FN(int, Comm_free, (MPI_Comm* comm))
TORUS_MPI_FN(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm))
TORUS_MPI_FN(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int* result))
TORUS_MPI_FN(int, Comm_get_attr, (MPI_Comm comm, int keyval, void* attribute_val, int* flag))
TORUS_MPI_FN(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm))
TORUS_MPI_FN(int, Comm_idup, (MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request))
TORUS_MPI_FN(int, Comm_idup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm,
                                        MPI_Request* request))
TORUS_MPI_FN(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm))
TORUS_MPI_FN(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag,
                                      MPI_Comm* newcomm))
TORUS_MPI_FN(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info,
                                    MPI_Comm* newcomm))
TORUS_MPI_FN(int, Comm_test_inter, (MPI_Comm comm, int* flag))
TORUS_MPI_FN(int, Comm_remote_size, (MPI_Comm comm, int* size))
TORUS_MPI_FN(int, Comm_remote_group, (MPI_Comm comm, MPI_Group* group))
TORUS_MPI_FN(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                     int remote_leader, int tag, MPI_Comm* newintercomm))
TORUS_MPI_FN(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm* newintracomm))
TORUS_MPI_FN(int, Comm_set_name, (MPI_Comm comm, const char* comm_name))
TORUS_MPI_FN(int, Comm_get_name, (MPI_Comm comm, char* comm_name, int* resultlen))
TORUS_MPI_FN(int, Comm_create_keyval, (MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                                       MPI_Comm_delete_attr_function* comm_delete_attr_fn,
                                       int* comm_keyval, void* extra_state))
TORUS_MPI_FN(int, Comm_free_keyval, (int* comm_keyval))
TORUS_MPI_FN(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void* attribute_val))
TORUS_MPI_FN(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
TORUS_MPI_FN(int, Keyval_create, (MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn,
                                  int* keyval, void* extra_state))
TORUS_MPI_FN(int, Keyval_free, (int* keyval))
TORUS_MPI_FN(int, Attr_put, (MPI_Comm comm, int keyval, void* attribute_val))
TORUS_MPI_FN(int, Attr_get, (MPI_Comm comm, int keyval, void* attribute_val, int* flag))
TORUS_MPI_FN(int, Attr_delete, (MPI_Comm comm, int keyval))

/* Groups. */
TORUS_MPI_FN(int, Comm_group, (MPI_Comm comm, MPI_Group* group))
TORUS_MPI_FN(int, Group_size, (MPI_Group group, int* size))
TORUS_MPI_FN(int, Group_rank, (MPI_Group group, int* rank))
TORUS_MPI_FN(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group* newgroup))
TORUS_MPI_FN(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group* newgroup))
TORUS_MPI_FN(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3],
                                     MPI_Group* newgroup))
TORUS_MPI_FN(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3],
                                     MPI_Group* newgroup))
TORUS_MPI_FN(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))
TORUS_MPI_FN(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))
TORUS_MPI_FN(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))
TORUS_MPI_FN(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[],
                                          MPI_Group group2, int ranks2[]))
TORUS_MPI_FN(int, Group_compare, (MPI_Group group1, MPI_Group group2, int* result))
TORUS_MPI_FN(int, Group_free, (MPI_Group* group))

/* Datatypes. */
TORUS_MPI_FN(int, Type_size, (MPI_Datatype datatype, int* size))
TORUS_MPI_FN(int, Get_count, (const MPI_Status* status, MPI_Datatype datatype, int* count))
TORUS_MPI_FN(int, Type_size_x, (MPI_Datatype datatype, MPI_Count* size))
TORUS_MPI_FN(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent))
TORUS_MPI_FN(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent))
TORUS_MPI_FN(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint* true_lb,
                                         MPI_Aint* true_extent))
TORUS_MPI_FN(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count* true_lb,
                                           MPI_Count* true_extent))
TORUS_MPI_FN(int, Get_elements, (const MPI_Status* status, MPI_Datatype datatype, int* count))
TORUS_MPI_FN(int, Get_elements_x, (const MPI_Status* status, MPI_Datatype datatype,
                                   MPI_Count* count))
TORUS_MPI_FN(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype,
                                MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride,
                                        MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_indexed, (int count, const int array_of_blocklengths[],
                                 const int array_of_displacements[], MPI_Datatype oldtype,
                                 MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_hindexed, (int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_indexed_block, (int count, int blocklength,
                                              const int array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_hindexed_block, (int count, int blocklength,
                                               const MPI_Aint array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_struct, (int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[],
                                       const MPI_Datatype array_of_types[],
                                       MPI_Datatype* newtype))
TORUS_MPI_FN(int, Pack_external, (const char datarep[], const void* inbuf, int incount,
                                  MPI_Datatype datatype, void* outbuf, MPI_Aint outsize,
                                  MPI_Aint* position))
TORUS_MPI_FN(int, Unpack_external, (const char datarep[], const void* inbuf, MPI_Aint insize,
                                    MPI_Aint* position, void* outbuf, int outcount,
                                    MPI_Datatype datatype))
TORUS_MPI_FN(int, Pack_external_size, (const char datarep[], int incount,
                                       MPI_Datatype datatype, MPI_Aint* size))
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int type_keyval,
                                         void* extra_state, void* attribute_val_in,
                                         void* attribute_val_out, int* flag);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval,
                                           void* attribute_val, void* extra_state);
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function*)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function*)0)
#define MPI_TYPE_DUP_FN ((MPI_Type_copy_attr_function*)MPI_DUP_FN)
TORUS_MPI_FN(int, Type_create_keyval, (MPI_Type_copy_attr_function* type_copy_attr_fn,
                                       MPI_Type_delete_attr_function* type_delete_attr_fn,
                                       int* type_keyval, void* extra_state))
TORUS_MPI_FN(int, Type_free_keyval, (int* type_keyval))
TORUS_MPI_FN(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void* attribute_val))
TORUS_MPI_FN(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void* attribute_val,
                                  int* flag))
TORUS_MPI_FN(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
TORUS_MPI_FN(int, Type_set_name, (MPI_Datatype datatype, const char* type_name))
TORUS_MPI_FN(int, Type_get_name, (MPI_Datatype datatype, char* type_name, int* resultlen))
TORUS_MPI_FN(int, Type_create_subarray, (int ndims, const int array_of_sizes[],
                                         const int array_of_subsizes[],
                                         const int array_of_starts[], int order,
                                         MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_darray, (int size, int rank, int ndims,
                                       const int array_of_gsizes[],
                                       const int array_of_distribs[],
                                       const int array_of_dargs[], const int array_of_psizes[],
                                       int order, MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                        MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_commit, (MPI_Datatype* datatype))
TORUS_MPI_FN(int, Type_free, (MPI_Datatype* datatype))
TORUS_MPI_FN(int, Type_get_envelope, (MPI_Datatype datatype, int* num_integers,
                                      int* num_addresses, int* num_datatypes, int* combiner))
TORUS_MPI_FN(int, Type_get_contents, (MPI_Datatype datatype, int max_integers,
                                      int max_addresses, int max_datatypes,
                                      int array_of_integers[], MPI_Aint array_of_addresses[],
                                      MPI_Datatype array_of_datatypes[]))
TORUS_MPI_FN(int, Pack, (const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                         int outsize, int* position, MPI_Comm comm))
TORUS_MPI_FN(int, Unpack, (const void* inbuf, int insize, int* position, void* outbuf,
                           int outcount, MPI_Datatype datatype, MPI_Comm comm))
TORUS_MPI_FN(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int* size))
TORUS_MPI_FN(int, Get_address, (const void* location, MPI_Aint* address))
TORUS_MPI_FN(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
TORUS_MPI_FN(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))
/* MPI-1 forms, removed from MPI-3 but still declared by MPICH. */
TORUS_MPI_FN(int, Type_hvector, (int count, int blocklength, MPI_Aint stride,
                                 MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_hindexed, (int count, int array_of_blocklengths[],
                                  MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_struct, (int count, int array_of_blocklengths[],
                                MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[],
                                MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_extent, (MPI_Datatype datatype, MPI_Aint* extent))
TORUS_MPI_FN(int, Type_lb, (MPI_Datatype datatype, MPI_Aint* displacement))
TORUS_MPI_FN(int, Type_ub, (MPI_Datatype datatype, MPI_Aint* displacement))
TORUS_MPI_FN(int, Address, (void* location, MPI_Aint* address))

/* Point-to-point. */
TORUS_MPI_FN(int, Send, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm))
TORUS_MPI_FN(int, Ssend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm))
TORUS_MPI_FN(int, Rsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm))
TORUS_MPI_FN(int, Recv, (void* buf, int count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Status* status))
TORUS_MPI_FN(int, Isend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Issend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Irsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Isendrecv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              int dest, int sendtag, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                              MPI_Request* request))
TORUS_MPI_FN(int, Isendrecv_replace, (void* buf, int count, MPI_Datatype datatype, int dest,
                                      int sendtag, int source, int recvtag, MPI_Comm comm,
                                      MPI_Request* request))
TORUS_MPI_FN(int, Irecv, (void* buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Sendrecv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             int dest, int sendtag, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                             MPI_Status* status))
TORUS_MPI_FN(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status))
TORUS_MPI_FN(int, Iprobe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status))
TORUS_MPI_FN(int, Sendrecv_replace, (void* buf, int count, MPI_Datatype datatype, int dest,
                                     int sendtag, int source, int recvtag, MPI_Comm comm,
                                     MPI_Status* status))
/* Buffered mode. */
TORUS_MPI_FN(int, Buffer_attach, (void* buffer, int size))
TORUS_MPI_FN(int, Buffer_detach, (void* buffer_addr, int* size))
TORUS_MPI_FN(int, Bsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm))
TORUS_MPI_FN(int, Ibsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request))
/* Matched probe. */
TORUS_MPI_FN(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message* message,
                           MPI_Status* status))
TORUS_MPI_FN(int, Improbe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                            MPI_Status* status))
TORUS_MPI_FN(int, Mrecv, (void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                          MPI_Status* status))
TORUS_MPI_FN(int, Imrecv, (void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                           MPI_Request* request))
/* Persistent requests. */
TORUS_MPI_FN(int, Send_init, (const void* buf, int count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ssend_init, (const void* buf, int count, MPI_Datatype datatype, int dest,
                               int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Rsend_init, (const void* buf, int count, MPI_Datatype datatype, int dest,
                               int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Bsend_init, (const void* buf, int count, MPI_Datatype datatype, int dest,
                               int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Recv_init, (void* buf, int count, MPI_Datatype datatype, int source, int tag,
                              MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Start, (MPI_Request* request))
TORUS_MPI_FN(int, Startall, (int count, MPI_Request* requests))

/* Generalized requests (MPI 4.0 section 13.2) and partitioned point-to-point (chapter 4). */
typedef int(MPI_Grequest_query_function)(void* extra_state, MPI_Status* status);
typedef int(MPI_Grequest_free_function)(void* extra_state);
typedef int(MPI_Grequest_cancel_function)(void* extra_state, int complete);
TORUS_MPI_FN(int, Grequest_start, (MPI_Grequest_query_function* query_fn,
                                   MPI_Grequest_free_function* free_fn,
                                   MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                                   MPI_Request* request))
TORUS_MPI_FN(int, Grequest_complete, (MPI_Request request))
TORUS_MPI_FN(int, Psend_init, (const void* buf, int partitions, MPI_Count count,
                               MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Precv_init, (void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                               int source, int tag, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request))
TORUS_MPI_FN(int, Pready, (int partition, MPI_Request request))
TORUS_MPI_FN(int, Pready_range, (int partition_low, int partition_high, MPI_Request request))
TORUS_MPI_FN(int, Pready_list, (int length, int array_of_partitions[], MPI_Request request))
TORUS_MPI_FN(int, Parrived, (MPI_Request request, int partition, int* flag))

/* Requests. */
TORUS_MPI_FN(int, Wait, (MPI_Request* request, MPI_Status* status))
/* Pointers rather than arrays: compilers warn when an array parameter gets
 * MPI_STATUSES_IGNORE, (MPI_Status*)1. */
TORUS_MPI_FN(int, Waitall, (int count, MPI_Request* requests, MPI_Status* statuses))
TORUS_MPI_FN(int, Waitany, (int count, MPI_Request* requests, int* index, MPI_Status* status))
TORUS_MPI_FN(int, Test, (MPI_Request* request, int* flag, MPI_Status* status))
TORUS_MPI_FN(int, Testany, (int count, MPI_Request* requests, int* index, int* flag,
                            MPI_Status* status))
TORUS_MPI_FN(int, Testall, (int count, MPI_Request* requests, int* flag, MPI_Status* statuses))
TORUS_MPI_FN(int, Request_free, (MPI_Request* request))
TORUS_MPI_FN(int, Cancel, (MPI_Request* request))
TORUS_MPI_FN(int, Test_cancelled, (const MPI_Status* status, int* flag))
TORUS_MPI_FN(int, Waitsome, (int incount, MPI_Request* requests, int* outcount, int* indices,
                             MPI_Status* statuses))
TORUS_MPI_FN(int, Testsome, (int incount, MPI_Request* requests, int* outcount, int* indices,
                             MPI_Status* statuses))
TORUS_MPI_FN(int, Request_get_status, (MPI_Request request, int* flag, MPI_Status* status))
TORUS_MPI_FN(int, Status_set_elements, (MPI_Status* status, MPI_Datatype datatype, int count))
TORUS_MPI_FN(int, Status_set_elements_x, (MPI_Status* status, MPI_Datatype datatype,
                                          MPI_Count count))
TORUS_MPI_FN(int, Status_set_cancelled, (MPI_Status* status, int flag))

/* Collectives. */
TORUS_MPI_FN(int, Barrier, (MPI_Comm comm))
TORUS_MPI_FN(int, Bcast, (void* buffer, int count, MPI_Datatype datatype, int root,
                          MPI_Comm comm))
TORUS_MPI_FN(int, Reduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm comm))
TORUS_MPI_FN(int, Allreduce, (const void* sendbuf, void* recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TORUS_MPI_FN(int, Gather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm))
TORUS_MPI_FN(int, Scatter, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm))
TORUS_MPI_FN(int, Allgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm))
TORUS_MPI_FN(int, Alltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm))
TORUS_MPI_FN(int, Gatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int* recvcounts, const int* displs,
                            MPI_Datatype recvtype, int root, MPI_Comm comm))
TORUS_MPI_FN(int, Scatterv, (const void* sendbuf, const int* sendcounts, const int* displs,
                             MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm))
TORUS_MPI_FN(int, Allgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const int* recvcounts, const int* displs,
                               MPI_Datatype recvtype, MPI_Comm comm))
TORUS_MPI_FN(int, Alltoallv, (const void* sendbuf, const int* sendcounts, const int* sdispls,
                              MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                              const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm))
TORUS_MPI_FN(int, Alltoallw, (const void* sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf,
                              const int recvcounts[], const int rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm))
TORUS_MPI_FN(int, Scan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm))
TORUS_MPI_FN(int, Exscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm))
TORUS_MPI_FN(int, Reduce_scatter, (const void* sendbuf, void* recvbuf, const int* recvcounts,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TORUS_MPI_FN(int, Reduce_scatter_block, (const void* sendbuf, void* recvbuf, int recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))

/* Reduction operations. */
TORUS_MPI_FN(int, Op_create, (MPI_User_function* user_fn, int commute, MPI_Op* op))
TORUS_MPI_FN(int, Op_free, (MPI_Op* op))
TORUS_MPI_FN(int, Op_commutative, (MPI_Op op, int* commute))
TORUS_MPI_FN(int, Reduce_local, (const void* inbuf, void* inoutbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op))

/* Nonblocking collectives. */
TORUS_MPI_FN(int, Ibarrier, (MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ibcast, (void* buffer, int count, MPI_Datatype datatype, int root,
                           MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ireduce, (const void* sendbuf, void* recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                            MPI_Request* request))
TORUS_MPI_FN(int, Iallreduce, (const void* sendbuf, void* recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request* request))
TORUS_MPI_FN(int, Igather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Iscatter, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Iallgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ialltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Igatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPI_Request* request))
TORUS_MPI_FN(int, Iscatterv, (const void* sendbuf, const int sendcounts[], const int displs[],
                              MPI_Datatype sendtype, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request* request))
TORUS_MPI_FN(int, Iallgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ialltoallv, (const void* sendbuf, const int sendcounts[],
                               const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                               const int recvcounts[], const int rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))

TORUS_MPI_FN(int, Ialltoallw, (const void* sendbuf, const int sendcounts[],
                               const int sdispls[], const MPI_Datatype sendtypes[],
                               void* recvbuf, const int recvcounts[], const int rdispls[],
                               const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request* request))
TORUS_MPI_FN(int, Ireduce_scatter, (const void* sendbuf, void* recvbuf,
                                    const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                                    MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ireduce_scatter_block, (const void* sendbuf, void* recvbuf, int recvcount,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          MPI_Request* request))
TORUS_MPI_FN(int, Iscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Iexscan, (const void* sendbuf, void* recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            MPI_Request* request))

/* Persistent collectives (MPI 4.0). */
TORUS_MPI_FN(int, Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Bcast_init, (void* buffer, int count, MPI_Datatype datatype, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Reduce_init, (const void* sendbuf, void* recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Allreduce_init, (const void* sendbuf, void* recvbuf, int count,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request))
TORUS_MPI_FN(int, Reduce_scatter_block_init, (const void* sendbuf, void* recvbuf, int recvcount,
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                              MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Reduce_scatter_init, (const void* sendbuf, void* recvbuf, const int recvcounts[],
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                        MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Scan_init, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Exscan_init, (const void* sendbuf, void* recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request))
TORUS_MPI_FN(int, Gather_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Scatter_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Allgather_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Alltoall_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Gatherv_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request))
TORUS_MPI_FN(int, Scatterv_init, (const void* sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request))
TORUS_MPI_FN(int, Allgatherv_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request))
TORUS_MPI_FN(int, Alltoallv_init, (const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Alltoallw_init, (const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf,
                                   const int recvcounts[], const int rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request))

TORUS_MPI_FN(int, Neighbor_allgather_init, (const void* sendbuf, int sendcount,
                                            MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* request))
TORUS_MPI_FN(int, Neighbor_allgatherv_init, (const void* sendbuf, int sendcount,
                                             MPI_Datatype sendtype, void* recvbuf,
                                             const int recvcounts[], const int displs[],
                                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* request))
TORUS_MPI_FN(int, Neighbor_alltoall_init, (const void* sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           MPI_Request* request))
TORUS_MPI_FN(int, Neighbor_alltoallv_init, (const void* sendbuf, const int sendcounts[],
                                            const int sdispls[], MPI_Datatype sendtype,
                                            void* recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype,
                                            MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Neighbor_alltoallw_init, (const void* sendbuf, const int sendcounts[],
                                            const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void* recvbuf,
                                            const int recvcounts[], const MPI_Aint rdispls[],
                                            const MPI_Datatype recvtypes[], MPI_Comm comm,
                                            MPI_Info info, MPI_Request* request))

/* Info objects (hints are accepted and ignored). */
TORUS_MPI_FN(int, Info_create, (MPI_Info* info))
TORUS_MPI_FN(int, Info_dup, (MPI_Info info, MPI_Info* newinfo))
TORUS_MPI_FN(int, Info_create_env, (int argc, char* argv[], MPI_Info* info))
TORUS_MPI_FN(int, Info_free, (MPI_Info* info))
TORUS_MPI_FN(int, Info_set, (MPI_Info info, const char* key, const char* value))
TORUS_MPI_FN(int, Info_delete, (MPI_Info info, const char* key))
TORUS_MPI_FN(int, Info_get, (MPI_Info info, const char* key, int valuelen, char* value,
                             int* flag))
TORUS_MPI_FN(int, Info_get_valuelen, (MPI_Info info, const char* key, int* valuelen,
                                      int* flag))
TORUS_MPI_FN(int, Info_get_string, (MPI_Info info, const char* key, int* buflen, char* value,
                                    int* flag))
TORUS_MPI_FN(int, Info_get_nkeys, (MPI_Info info, int* nkeys))
TORUS_MPI_FN(int, Info_get_nthkey, (MPI_Info info, int n, char* key))
TORUS_MPI_FN(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
TORUS_MPI_FN(int, Comm_get_info, (MPI_Comm comm, MPI_Info* info_used))

/* Cartesian topologies. */
TORUS_MPI_FN(int, Dims_create, (int nnodes, int ndims, int dims[]))
TORUS_MPI_FN(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[],
                                const int periods[], int reorder, MPI_Comm* comm_cart))
TORUS_MPI_FN(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[],
                             int* newrank))
TORUS_MPI_FN(int, Cartdim_get, (MPI_Comm comm, int* ndims))
TORUS_MPI_FN(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[],
                             int coords[]))
TORUS_MPI_FN(int, Cart_rank, (MPI_Comm comm, const int coords[], int* rank))
TORUS_MPI_FN(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
TORUS_MPI_FN(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int* rank_source,
                               int* rank_dest))
TORUS_MPI_FN(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm))
TORUS_MPI_FN(int, Topo_test, (MPI_Comm comm, int* status))

/* Graph and distributed-graph topologies, neighborhood collectives. */
extern int* const MPI_UNWEIGHTED;
extern int* const MPI_WEIGHTS_EMPTY;
TORUS_MPI_FN(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[],
                                 const int edges[], int reorder, MPI_Comm* comm_graph))
TORUS_MPI_FN(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[],
                              int* newrank))
TORUS_MPI_FN(int, Graphdims_get, (MPI_Comm comm, int* nnodes, int* nedges))
TORUS_MPI_FN(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[],
                              int edges[]))
TORUS_MPI_FN(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int* nneighbors))
TORUS_MPI_FN(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors,
                                    int neighbors[]))
TORUS_MPI_FN(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree,
                                               const int sources[], const int sourceweights[],
                                               int outdegree, const int destinations[],
                                               const int destweights[], MPI_Info info,
                                               int reorder, MPI_Comm* comm_dist_graph))
TORUS_MPI_FN(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[],
                                      const int degrees[], const int destinations[],
                                      const int weights[], MPI_Info info, int reorder,
                                      MPI_Comm* comm_dist_graph))
TORUS_MPI_FN(int, Dist_graph_neighbors_count, (MPI_Comm comm, int* indegree, int* outdegree,
                                               int* weighted))
TORUS_MPI_FN(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[],
                                         int sourceweights[], int maxoutdegree,
                                         int destinations[], int destweights[]))
TORUS_MPI_FN(int, Neighbor_allgather, (const void* sendbuf, int sendcount,
                                       MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                       MPI_Datatype recvtype, MPI_Comm comm))
TORUS_MPI_FN(int, Neighbor_allgatherv, (const void* sendbuf, int sendcount,
                                        MPI_Datatype sendtype, void* recvbuf,
                                        const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm))
TORUS_MPI_FN(int, Neighbor_alltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm))
TORUS_MPI_FN(int, Neighbor_alltoallv, (const void* sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype,
                                       void* recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype,
                                       MPI_Comm comm))
TORUS_MPI_FN(int, Neighbor_alltoallw, (const void* sendbuf, const int sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       void* recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                       MPI_Comm comm))
TORUS_MPI_FN(int, Ineighbor_allgather, (const void* sendbuf, int sendcount,
                                        MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                        MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request* request))
TORUS_MPI_FN(int, Ineighbor_allgatherv, (const void* sendbuf, int sendcount,
                                         MPI_Datatype sendtype, void* recvbuf,
                                         const int recvcounts[], const int displs[],
                                         MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request* request))
TORUS_MPI_FN(int, Ineighbor_alltoall, (const void* sendbuf, int sendcount,
                                       MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                       MPI_Datatype recvtype, MPI_Comm comm,
                                       MPI_Request* request))
TORUS_MPI_FN(int, Ineighbor_alltoallv, (const void* sendbuf, const int sendcounts[],
                                        const int sdispls[], MPI_Datatype sendtype,
                                        void* recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ineighbor_alltoallw, (const void* sendbuf, const int sendcounts[],
                                        const MPI_Aint sdispls[],
                                        const MPI_Datatype sendtypes[], void* recvbuf,
                                        const int recvcounts[], const MPI_Aint rdispls[],
                                        const MPI_Datatype recvtypes[], MPI_Comm comm,
                                        MPI_Request* request))

/* One-sided communication (windows). Attribute keys, flavors, models, lock types and
 * assertions carry MPICH's values. */
#define MPI_WIN_BASE 0x66000001
#define MPI_WIN_SIZE 0x66000003
#define MPI_WIN_DISP_UNIT 0x66000005
#define MPI_WIN_CREATE_FLAVOR 0x66000007
#define MPI_WIN_MODEL 0x66000009
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_Win_c2f(win) (MPI_Fint)(win)
#define MPI_Win_f2c(win) (MPI_Win)(win)
typedef int(MPI_Win_copy_attr_function)(MPI_Win oldwin, int win_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out,
                                        int* flag);
typedef int(MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void* attribute_val,
                                          void* extra_state);
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function*)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function*)0)
#define MPI_WIN_DUP_FN ((MPI_Win_copy_attr_function*)MPI_DUP_FN)
typedef void(MPI_Win_errhandler_function)(MPI_Win*, int*, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;

TORUS_MPI_FN(int, Win_create, (void* base, MPI_Aint size, int disp_unit, MPI_Info info,
                               MPI_Comm comm, MPI_Win* win))
TORUS_MPI_FN(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 void* baseptr, MPI_Win* win))
TORUS_MPI_FN(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info,
                                        MPI_Comm comm, void* baseptr, MPI_Win* win))
TORUS_MPI_FN(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint* size, int* disp_unit,
                                     void* baseptr))
TORUS_MPI_FN(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win* win))
TORUS_MPI_FN(int, Win_attach, (MPI_Win win, void* base, MPI_Aint size))
TORUS_MPI_FN(int, Win_detach, (MPI_Win win, const void* base))
TORUS_MPI_FN(int, Win_free, (MPI_Win* win))
TORUS_MPI_FN(int, Win_get_group, (MPI_Win win, MPI_Group* group))
TORUS_MPI_FN(int, Win_set_info, (MPI_Win win, MPI_Info info))
TORUS_MPI_FN(int, Win_get_info, (MPI_Win win, MPI_Info* info_used))
TORUS_MPI_FN(int, Win_set_name, (MPI_Win win, const char* win_name))
TORUS_MPI_FN(int, Win_get_name, (MPI_Win win, char* win_name, int* resultlen))
TORUS_MPI_FN(int, Win_create_keyval, (MPI_Win_copy_attr_function* win_copy_attr_fn,
                                      MPI_Win_delete_attr_function* win_delete_attr_fn,
                                      int* win_keyval, void* extra_state))
TORUS_MPI_FN(int, Win_free_keyval, (int* win_keyval))
TORUS_MPI_FN(int, Win_set_attr, (MPI_Win win, int win_keyval, void* attribute_val))
TORUS_MPI_FN(int, Win_get_attr, (MPI_Win win, int win_keyval, void* attribute_val, int* flag))
TORUS_MPI_FN(int, Win_delete_attr, (MPI_Win win, int win_keyval))
TORUS_MPI_FN(int, Win_create_errhandler, (MPI_Win_errhandler_function* win_errhandler_fn,
                                          MPI_Errhandler* errhandler))
TORUS_MPI_FN(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
TORUS_MPI_FN(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler* errhandler))
TORUS_MPI_FN(int, Win_call_errhandler, (MPI_Win win, int errorcode))
TORUS_MPI_FN(int, Put, (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win))
TORUS_MPI_FN(int, Get, (void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win))
TORUS_MPI_FN(int, Accumulate, (const void* origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, int target_rank,
                               MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
TORUS_MPI_FN(int, Get_accumulate, (const void* origin_addr, int origin_count,
                                   MPI_Datatype origin_datatype, void* result_addr,
                                   int result_count, MPI_Datatype result_datatype,
                                   int target_rank, MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
TORUS_MPI_FN(int, Fetch_and_op, (const void* origin_addr, void* result_addr,
                                 MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                                 MPI_Op op, MPI_Win win))
TORUS_MPI_FN(int, Compare_and_swap, (const void* origin_addr, const void* compare_addr,
                                     void* result_addr, MPI_Datatype datatype, int target_rank,
                                     MPI_Aint target_disp, MPI_Win win))
TORUS_MPI_FN(int, Rput, (const void* origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Win win,
                         MPI_Request* request))
TORUS_MPI_FN(int, Rget, (void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request))
TORUS_MPI_FN(int, Raccumulate, (const void* origin_addr, int origin_count,
                                MPI_Datatype origin_datatype, int target_rank,
                                MPI_Aint target_disp, int target_count,
                                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                MPI_Request* request))
TORUS_MPI_FN(int, Rget_accumulate, (const void* origin_addr, int origin_count,
                                    MPI_Datatype origin_datatype, void* result_addr,
                                    int result_count, MPI_Datatype result_datatype,
                                    int target_rank, MPI_Aint target_disp, int target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                    MPI_Request* request))
TORUS_MPI_FN(int, Win_fence, (int assert, MPI_Win win))
TORUS_MPI_FN(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
TORUS_MPI_FN(int, Win_unlock, (int rank, MPI_Win win))
TORUS_MPI_FN(int, Win_lock_all, (int assert, MPI_Win win))
TORUS_MPI_FN(int, Win_unlock_all, (MPI_Win win))
TORUS_MPI_FN(int, Win_flush, (int rank, MPI_Win win))
TORUS_MPI_FN(int, Win_flush_all, (MPI_Win win))
TORUS_MPI_FN(int, Win_flush_local, (int rank, MPI_Win win))
TORUS_MPI_FN(int, Win_flush_local_all, (MPI_Win win))
TORUS_MPI_FN(int, Win_sync, (MPI_Win win))
TORUS_MPI_FN(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
TORUS_MPI_FN(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
TORUS_MPI_FN(int, Win_complete, (MPI_Win win))
TORUS_MPI_FN(int, Win_wait, (MPI_Win win))
TORUS_MPI_FN(int, Win_test, (MPI_Win win, int* flag))

/* Sessions (MPI 4.0): the world model's alternative. A session starts the library if no one
 * has yet; the last session or MPI_Finalize to end stops it. Process sets: mpi://WORLD and
 * mpi://SELF. */
typedef int MPI_Session;
#define MPI_SESSION_NULL ((MPI_Session)0x38000000)
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256
#define MPI_ERR_SESSION 75
typedef void(MPI_Session_errhandler_function)(MPI_Session*, int*, ...);
TORUS_MPI_FN(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session))
TORUS_MPI_FN(int, Session_finalize, (MPI_Session* session))
TORUS_MPI_FN(int, Session_get_num_psets, (MPI_Session session, MPI_Info info, int* npset_names))
TORUS_MPI_FN(int, Session_get_nth_pset, (MPI_Session session, MPI_Info info, int n,
                                         int* pset_len, char* pset_name))
TORUS_MPI_FN(int, Session_get_pset_info, (MPI_Session session, const char* pset_name,
                                          MPI_Info* info))
TORUS_MPI_FN(int, Session_get_info, (MPI_Session session, MPI_Info* info_used))
TORUS_MPI_FN(int, Session_create_errhandler,
             (MPI_Session_errhandler_function* session_errhandler_fn, MPI_Errhandler* errhandler))
TORUS_MPI_FN(int, Session_set_errhandler, (MPI_Session session, MPI_Errhandler errhandler))
TORUS_MPI_FN(int, Session_get_errhandler, (MPI_Session session, MPI_Errhandler* errhandler))
TORUS_MPI_FN(int, Session_call_errhandler, (MPI_Session session, int errorcode))
TORUS_MPI_FN(int, Group_from_session_pset, (MPI_Session session, const char* pset_name,
                                            MPI_Group* newgroup))
TORUS_MPI_FN(int, Comm_create_from_group, (MPI_Group group, const char* stringtag, MPI_Info info,
                                           MPI_Errhandler errhandler, MPI_Comm* newcomm))
TORUS_MPI_FN(int, Intercomm_create_from_groups,
             (MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader,
              const char* stringtag, MPI_Info info, MPI_Errhandler errhandler,
              MPI_Comm* newintercomm))
#define MPI_Session_c2f(session) (MPI_Fint)(session)
#define MPI_Session_f2c(session) (MPI_Session)(session)

/* Dynamic processes. A torus job is the fixed set of ranks its launcher started: there is no
 * parent, spawning fails with MPI_ERR_SPAWN, and ports and the name service with
 * MPI_ERR_PORT / MPI_ERR_NAME / MPI_ERR_SERVICE. MPI_Comm_disconnect works on any
 * communicator. */
#define MPI_MAX_PORT_NAME 256
#define MPI_ERR_NAME 33
#define MPI_ERR_PORT 38
#define MPI_ERR_SERVICE 41
#define MPI_ERR_SPAWN 42
#define MPI_ARGV_NULL (char**)0
#define MPI_ARGVS_NULL (char***)0
#define MPI_ERRCODES_IGNORE (int*)0
TORUS_MPI_FN(int, Comm_get_parent, (MPI_Comm* parent))
TORUS_MPI_FN(int, Comm_disconnect, (MPI_Comm* comm))
TORUS_MPI_FN(int, Comm_spawn, (const char* command, char* argv[], int maxprocs, MPI_Info info,
                               int root, MPI_Comm comm, MPI_Comm* intercomm,
                               int array_of_errcodes[]))
TORUS_MPI_FN(int, Comm_spawn_multiple,
             (int count, char* array_of_commands[], char** array_of_argv[],
              const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
              MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[]))
TORUS_MPI_FN(int, Open_port, (MPI_Info info, char* port_name))
TORUS_MPI_FN(int, Close_port, (const char* port_name))
TORUS_MPI_FN(int, Comm_accept, (const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                                MPI_Comm* newcomm))
TORUS_MPI_FN(int, Comm_connect, (const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                                 MPI_Comm* newcomm))
TORUS_MPI_FN(int, Comm_join, (int fd, MPI_Comm* intercomm))
TORUS_MPI_FN(int, Publish_name, (const char* service_name, MPI_Info info, const char* port_name))
TORUS_MPI_FN(int, Unpublish_name, (const char* service_name, MPI_Info info,
                                   const char* port_name))
TORUS_MPI_FN(int, Lookup_name, (const char* service_name, MPI_Info info, char* port_name))

/* Large counts (MPI 4.0's _c calls): MPI_Count counts. A count above INT_MAX travels as one
 * element of a derived type covering it, so every call below moves any count. */
TORUS_MPI_FN(int, Send_c, (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                           int tag, MPI_Comm comm))
TORUS_MPI_FN(int, Ssend_c, (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm))
TORUS_MPI_FN(int, Rsend_c, (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm))
TORUS_MPI_FN(int, Bsend_c, (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm))
TORUS_MPI_FN(int, Recv_c, (void* buf, MPI_Count count, MPI_Datatype datatype, int source,
                           int tag, MPI_Comm comm, MPI_Status* status))
TORUS_MPI_FN(int, Isend_c, (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Issend_c, (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Irsend_c, (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ibsend_c, (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Irecv_c, (void* buf, MPI_Count count, MPI_Datatype datatype, int source,
                            int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Send_init_c, (const void* buf, MPI_Count count, MPI_Datatype datatype,
                                int dest, int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Recv_init_c, (void* buf, MPI_Count count, MPI_Datatype datatype, int source,
                                int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Mrecv_c, (void* buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Message* message, MPI_Status* status))
TORUS_MPI_FN(int, Imrecv_c, (void* buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Message* message, MPI_Request* request))
TORUS_MPI_FN(int, Sendrecv_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               int dest, int sendtag, void* recvbuf, MPI_Count recvcount,
                               MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                               MPI_Status* status))
TORUS_MPI_FN(int, Sendrecv_replace_c, (void* buf, MPI_Count count, MPI_Datatype datatype,
                                       int dest, int sendtag, int source, int recvtag,
                                       MPI_Comm comm, MPI_Status* status))
TORUS_MPI_FN(int, Get_count_c, (const MPI_Status* status, MPI_Datatype datatype,
                                MPI_Count* count))
TORUS_MPI_FN(int, Get_elements_c, (const MPI_Status* status, MPI_Datatype datatype,
                                   MPI_Count* count))
TORUS_MPI_FN(int, Type_size_c, (MPI_Datatype datatype, MPI_Count* size))
TORUS_MPI_FN(int, Type_get_extent_c, (MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent))
TORUS_MPI_FN(int, Type_get_true_extent_c, (MPI_Datatype datatype, MPI_Count* true_lb,
                                           MPI_Count* true_extent))
TORUS_MPI_FN(int, Type_contiguous_c, (MPI_Count count, MPI_Datatype oldtype,
                                      MPI_Datatype* newtype))
TORUS_MPI_FN(int, Bcast_c, (void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                            MPI_Comm comm))
TORUS_MPI_FN(int, Reduce_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
TORUS_MPI_FN(int, Allreduce_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TORUS_MPI_FN(int, Gather_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm))
TORUS_MPI_FN(int, Scatter_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              int root, MPI_Comm comm))
TORUS_MPI_FN(int, Allgather_c, (const void* sendbuf, MPI_Count sendcount,
                                MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm))
TORUS_MPI_FN(int, Alltoall_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm))
TORUS_MPI_FN(int, Scan_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TORUS_MPI_FN(int, Exscan_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TORUS_MPI_FN(int, Reduce_scatter_block_c, (const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TORUS_MPI_FN(int, Reduce_local_c, (const void* inbuf, void* inoutbuf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Op op))
TORUS_MPI_FN(int, Iallreduce_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request* request))
TORUS_MPI_FN(int, Ibcast_c, (void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                             MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ireduce_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                              MPI_Request* request))
TORUS_MPI_FN(int, Iscan_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Iexscan_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request))
TORUS_MPI_FN(int, Ireduce_scatter_block_c, (const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                            MPI_Request* request))
TORUS_MPI_FN(int, Igather_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Iscatter_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Iallgather_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ialltoall_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Neighbor_allgather_c, (const void* sendbuf, MPI_Count sendcount,
                                         MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                         MPI_Datatype recvtype, MPI_Comm comm))
TORUS_MPI_FN(int, Neighbor_alltoall_c, (const void* sendbuf, MPI_Count sendcount,
                                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                        MPI_Datatype recvtype, MPI_Comm comm))
TORUS_MPI_FN(int, Ineighbor_allgather_c, (const void* sendbuf, MPI_Count sendcount,
                                          MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                          MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Request* request))
TORUS_MPI_FN(int, Ineighbor_alltoall_c, (const void* sendbuf, MPI_Count sendcount,
                                         MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                         MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request* request))
TORUS_MPI_FN(int, Bcast_init_c, (void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Reduce_init_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                  MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Allreduce_init_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request))
TORUS_MPI_FN(int, Scan_init_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request))
TORUS_MPI_FN(int, Exscan_init_c, (const void* sendbuf, void* recvbuf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request))
TORUS_MPI_FN(int, Reduce_scatter_block_init_c, (const void* sendbuf, void* recvbuf,
                                                MPI_Count recvcount, MPI_Datatype datatype,
                                                MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                MPI_Request* request))
TORUS_MPI_FN(int, Gather_init_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Scatter_init_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   int root, MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Allgather_init_c, (const void* sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request))
TORUS_MPI_FN(int, Alltoall_init_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Neighbor_allgather_init_c, (const void* sendbuf, MPI_Count sendcount,
                                              MPI_Datatype sendtype, void* recvbuf,
                                              MPI_Count recvcount, MPI_Datatype recvtype,
                                              MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Neighbor_alltoall_init_c, (const void* sendbuf, MPI_Count sendcount,
                                             MPI_Datatype sendtype, void* recvbuf,
                                             MPI_Count recvcount, MPI_Datatype recvtype,
                                             MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Bsend_init_c, (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                 int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ssend_init_c, (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                 int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Rsend_init_c, (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                 int tag, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Isendrecv_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                int dest, int sendtag, void* recvbuf, MPI_Count recvcount,
                                MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                                MPI_Request* request))
TORUS_MPI_FN(int, Isendrecv_replace_c, (void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                        int sendtag, int source, int recvtag, MPI_Comm comm,
                                        MPI_Request* request))
TORUS_MPI_FN(int, Put_c, (const void* origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win))
TORUS_MPI_FN(int, Get_c, (void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Win win))
TORUS_MPI_FN(int, Accumulate_c, (const void* origin_addr, MPI_Count origin_count,
                                 MPI_Datatype origin_datatype, int target_rank,
                                 MPI_Aint target_disp, MPI_Count target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
TORUS_MPI_FN(int, Get_accumulate_c, (const void* origin_addr, MPI_Count origin_count,
                                     MPI_Datatype origin_datatype, void* result_addr,
                                     MPI_Count result_count, MPI_Datatype result_datatype,
                                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
TORUS_MPI_FN(int, Rput_c, (const void* origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                           MPI_Request* request))
TORUS_MPI_FN(int, Rget_c, (void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request))
TORUS_MPI_FN(int, Raccumulate_c, (const void* origin_addr, MPI_Count origin_count,
                                  MPI_Datatype origin_datatype, int target_rank,
                                  MPI_Aint target_disp, MPI_Count target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                  MPI_Request* request))
TORUS_MPI_FN(int, Rget_accumulate_c, (const void* origin_addr, MPI_Count origin_count,
                                      MPI_Datatype origin_datatype, void* result_addr,
                                      MPI_Count result_count, MPI_Datatype result_datatype,
                                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                      MPI_Request* request))
/* The vector collectives' large-count forms: a count or displacement beyond an int travels
 * in a derived type of its own, through the w-form or the int call's algorithm. */
TORUS_MPI_FN(int, Allgatherv_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm))
TORUS_MPI_FN(int, Gatherv_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                              MPI_Comm comm))
TORUS_MPI_FN(int, Scatterv_c, (const void* sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm))
TORUS_MPI_FN(int, Alltoallv_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm))
TORUS_MPI_FN(int, Alltoallw_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void* recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                MPI_Comm comm))
TORUS_MPI_FN(int, Reduce_scatter_c, (const void* sendbuf, void* recvbuf,
                                     const MPI_Count recvcounts[], MPI_Datatype datatype,
                                     MPI_Op op, MPI_Comm comm))
TORUS_MPI_FN(int, Iallgatherv_c, (const void* sendbuf, MPI_Count sendcount,
                                  MPI_Datatype sendtype, void* recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Igatherv_c, (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Iscatterv_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ialltoallv_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                 const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                 const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ialltoallw_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void* recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                 MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ireduce_scatter_c, (const void* sendbuf, void* recvbuf,
                                      const MPI_Count recvcounts[], MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Allgatherv_init_c, (const void* sendbuf, MPI_Count sendcount,
                                      MPI_Datatype sendtype, void* recvbuf,
                                      const MPI_Count recvcounts[], const MPI_Aint displs[],
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                      MPI_Request* request))
TORUS_MPI_FN(int, Gatherv_init_c, (const void* sendbuf, MPI_Count sendcount,
                                   MPI_Datatype sendtype, void* recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint displs[],
                                   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request))
TORUS_MPI_FN(int, Scatterv_init_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                    const MPI_Aint displs[], MPI_Datatype sendtype,
                                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    int root, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request))
TORUS_MPI_FN(int, Alltoallv_init_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                     void* recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                     MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Alltoallw_init_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                     void* recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                     MPI_Comm comm, MPI_Info info, MPI_Request* request))
TORUS_MPI_FN(int, Reduce_scatter_init_c, (const void* sendbuf, void* recvbuf,
                                          const MPI_Count recvcounts[], MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm, MPI_Info info,
                                          MPI_Request* request))
TORUS_MPI_FN(int, Neighbor_allgatherv_c, (const void* sendbuf, MPI_Count sendcount,
                                          MPI_Datatype sendtype, void* recvbuf,
                                          const MPI_Count recvcounts[], const MPI_Aint displs[],
                                          MPI_Datatype recvtype, MPI_Comm comm))
TORUS_MPI_FN(int, Neighbor_alltoallv_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                         const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                         void* recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                         MPI_Comm comm))
TORUS_MPI_FN(int, Neighbor_alltoallw_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                         const MPI_Aint sdispls[],
                                         const MPI_Datatype sendtypes[], void* recvbuf,
                                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                         const MPI_Datatype recvtypes[], MPI_Comm comm))
TORUS_MPI_FN(int, Ineighbor_allgatherv_c, (const void* sendbuf, MPI_Count sendcount,
                                           MPI_Datatype sendtype, void* recvbuf,
                                           const MPI_Count recvcounts[], const MPI_Aint displs[],
                                           MPI_Datatype recvtype, MPI_Comm comm,
                                           MPI_Request* request))
TORUS_MPI_FN(int, Ineighbor_alltoallv_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                          const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                          void* recvbuf, const MPI_Count recvcounts[],
                                          const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                          MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Ineighbor_alltoallw_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                          const MPI_Aint sdispls[],
                                          const MPI_Datatype sendtypes[], void* recvbuf,
                                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                          const MPI_Datatype recvtypes[], MPI_Comm comm,
                                          MPI_Request* request))
TORUS_MPI_FN(int, Neighbor_allgatherv_init_c, (const void* sendbuf, MPI_Count sendcount,
                                               MPI_Datatype sendtype, void* recvbuf,
                                               const MPI_Count recvcounts[],
                                               const MPI_Aint displs[], MPI_Datatype recvtype,
                                               MPI_Comm comm, MPI_Info info,
                                               MPI_Request* request))
TORUS_MPI_FN(int, Neighbor_alltoallv_init_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                              void* recvbuf, const MPI_Count recvcounts[],
                                              const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                              MPI_Comm comm, MPI_Info info,
                                              MPI_Request* request))
TORUS_MPI_FN(int, Neighbor_alltoallw_init_c, (const void* sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[],
                                              const MPI_Datatype sendtypes[], void* recvbuf,
                                              const MPI_Count recvcounts[],
                                              const MPI_Aint rdispls[],
                                              const MPI_Datatype recvtypes[], MPI_Comm comm,
                                              MPI_Info info, MPI_Request* request))
/* Packing, user ops and the attached buffer with MPI_Count sizes. */
TORUS_MPI_FN(int, Pack_c, (const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                           void* outbuf, MPI_Count outsize, MPI_Count* position, MPI_Comm comm))
TORUS_MPI_FN(int, Unpack_c, (const void* inbuf, MPI_Count insize, MPI_Count* position,
                             void* outbuf, MPI_Count outcount, MPI_Datatype datatype,
                             MPI_Comm comm))
TORUS_MPI_FN(int, Pack_size_c, (MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                                MPI_Count* size))
TORUS_MPI_FN(int, Pack_external_c, (const char* datarep, const void* inbuf, MPI_Count incount,
                                    MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                                    MPI_Count* position))
TORUS_MPI_FN(int, Unpack_external_c, (const char datarep[], const void* inbuf,
                                      MPI_Count insize, MPI_Count* position, void* outbuf,
                                      MPI_Count outcount, MPI_Datatype datatype))
TORUS_MPI_FN(int, Pack_external_size_c, (const char* datarep, MPI_Count incount,
                                         MPI_Datatype datatype, MPI_Count* size))
TORUS_MPI_FN(int, Op_create_c, (MPI_User_function_c* user_fn, int commute, MPI_Op* op))
TORUS_MPI_FN(int, Buffer_attach_c, (void* buffer, MPI_Count size))
TORUS_MPI_FN(int, Buffer_detach_c, (void* buffer_addr, MPI_Count* size))
/* Large-count type constructors and inquiries. A type made by a _c constructor keeps its
 * arguments as large counts: MPI_Type_get_envelope/get_contents (without _c) answer
 * MPI_ERR_TYPE for it, as MPI 4.0 says. */
TORUS_MPI_FN(int, Type_vector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                  MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_hvector_c, (MPI_Count count, MPI_Count blocklength,
                                          MPI_Count stride, MPI_Datatype oldtype,
                                          MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_indexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                   const MPI_Count array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_hindexed_c, (MPI_Count count,
                                           const MPI_Count array_of_blocklengths[],
                                           const MPI_Count array_of_displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_indexed_block_c, (MPI_Count count, MPI_Count blocklength,
                                                const MPI_Count array_of_displacements[],
                                                MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_hindexed_block_c, (MPI_Count count, MPI_Count blocklength,
                                                 const MPI_Count array_of_displacements[],
                                                 MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_struct_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                         const MPI_Count array_of_displacements[],
                                         const MPI_Datatype array_of_types[],
                                         MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_subarray_c, (int ndims, const MPI_Count array_of_sizes[],
                                           const MPI_Count array_of_subsizes[],
                                           const MPI_Count array_of_starts[], int order,
                                           MPI_Datatype oldtype, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_darray_c, (int size, int rank, int ndims,
                                         const MPI_Count array_of_gsizes[],
                                         const int array_of_distribs[],
                                         const int array_of_dargs[], const int array_of_psizes[],
                                         int order, MPI_Datatype oldtype,
                                         MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_resized_c, (MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                          MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_get_envelope_c, (MPI_Datatype datatype, MPI_Count* num_integers,
                                        MPI_Count* num_addresses, MPI_Count* num_large_counts,
                                        MPI_Count* num_datatypes, int* combiner))
TORUS_MPI_FN(int, Type_get_contents_c, (MPI_Datatype datatype, MPI_Count max_integers,
                                        MPI_Count max_addresses, MPI_Count max_large_counts,
                                        MPI_Count max_datatypes, int array_of_integers[],
                                        MPI_Aint array_of_addresses[],
                                        MPI_Count array_of_large_counts[],
                                        MPI_Datatype array_of_datatypes[]))
/* Windows with an MPI_Aint displacement unit (at most INT_MAX here: MPI_ERR_DISP above). */
TORUS_MPI_FN(int, Win_create_c, (void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                 MPI_Comm comm, MPI_Win* win))
TORUS_MPI_FN(int, Win_allocate_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                   MPI_Comm comm, void* baseptr, MPI_Win* win))
TORUS_MPI_FN(int, Win_allocate_shared_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                          MPI_Comm comm, void* baseptr, MPI_Win* win))
TORUS_MPI_FN(int, Win_shared_query_c, (MPI_Win win, int rank, MPI_Aint* size,
                                       MPI_Aint* disp_unit, void* baseptr))
/* Fortran interop: type matching (MPICH's MPI_TYPECLASS_* values) and MPI_Status in the
 * Fortran array form and the mpi_f08 struct (MPICH's layout and index constants). */
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3
TORUS_MPI_FN(int, Type_create_f90_integer, (int r, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_f90_real, (int p, int r, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_create_f90_complex, (int p, int r, MPI_Datatype* newtype))
TORUS_MPI_FN(int, Type_match_size, (int typeclass, int size, MPI_Datatype* datatype))
typedef struct {
  MPI_Fint count_lo;
  MPI_Fint count_hi_and_cancelled;
  MPI_Fint MPI_SOURCE;
  MPI_Fint MPI_TAG;
  MPI_Fint MPI_ERROR;
} MPI_F08_status;
#define MPI_F_STATUS_SIZE 5
#define MPI_F_SOURCE 2
#define MPI_F_TAG 3
#define MPI_F_ERROR 4
extern MPI_Fint* MPI_F_STATUS_IGNORE;
extern MPI_Fint* MPI_F_STATUSES_IGNORE;
extern MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
extern MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
extern MPI_F08_status* MPI_F08_STATUS_IGNORE;
extern MPI_F08_status* MPI_F08_STATUSES_IGNORE;
TORUS_MPI_FN(int, Status_c2f, (const MPI_Status* c_status, MPI_Fint* f_status))
TORUS_MPI_FN(int, Status_f2c, (const MPI_Fint* f_status, MPI_Status* c_status))
TORUS_MPI_FN(int, Status_c2f08, (const MPI_Status* c_status, MPI_F08_status* f08_status))
TORUS_MPI_FN(int, Status_f082c, (const MPI_F08_status* f08_status, MPI_Status* c_status))
TORUS_MPI_FN(int, Status_f2f08, (const MPI_Fint* f_status, MPI_F08_status* f08_status))
TORUS_MPI_FN(int, Status_f082f, (const MPI_F08_status* f08_status, MPI_Fint* f_status))

/* The MPI tool information interface (MPI 4.0 chapter 15): MPICH's handle types, constants
 * and error codes. The handles point to the library's own structures. */
typedef struct torus_T_enum_s* MPI_T_enum;
typedef struct torus_T_cvar_handle_s* MPI_T_cvar_handle;
typedef struct torus_T_pvar_handle_s* MPI_T_pvar_handle;
typedef struct torus_T_pvar_session_s* MPI_T_pvar_session;
typedef struct torus_T_event_registration_s* MPI_T_event_registration;
typedef struct torus_T_event_instance_s* MPI_T_event_instance;
extern struct torus_T_pvar_handle_s* const MPI_T_PVAR_ALL_HANDLES;
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_VERBOSITY_USER_BASIC 221
#define MPI_T_VERBOSITY_USER_DETAIL 222
#define MPI_T_VERBOSITY_USER_ALL 223
#define MPI_T_VERBOSITY_TUNER_BASIC 224
#define MPI_T_VERBOSITY_TUNER_DETAIL 225
#define MPI_T_VERBOSITY_TUNER_ALL 226
#define MPI_T_VERBOSITY_MPIDEV_BASIC 227
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 228
#define MPI_T_VERBOSITY_MPIDEV_ALL 229
#define MPI_T_BIND_NO_OBJECT 9700
#define MPI_T_BIND_MPI_COMM 9701
#define MPI_T_BIND_MPI_DATATYPE 9702
#define MPI_T_BIND_MPI_ERRHANDLER 9703
#define MPI_T_BIND_MPI_FILE 9704
#define MPI_T_BIND_MPI_GROUP 9705
#define MPI_T_BIND_MPI_OP 9706
#define MPI_T_BIND_MPI_REQUEST 9707
#define MPI_T_BIND_MPI_WIN 9708
#define MPI_T_BIND_MPI_MESSAGE 9709
#define MPI_T_BIND_MPI_INFO 9710
#define MPI_T_SCOPE_CONSTANT 60438
#define MPI_T_SCOPE_READONLY 60439
#define MPI_T_SCOPE_LOCAL 60440
#define MPI_T_SCOPE_GROUP 60441
#define MPI_T_SCOPE_GROUP_EQ 60442
#define MPI_T_SCOPE_ALL 60443
#define MPI_T_SCOPE_ALL_EQ 60444
#define MPI_T_PVAR_CLASS_STATE 240
#define MPI_T_PVAR_CLASS_LEVEL 241
#define MPI_T_PVAR_CLASS_SIZE 242
#define MPI_T_PVAR_CLASS_PERCENTAGE 243
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 244
#define MPI_T_PVAR_CLASS_LOWWATERMARK 245
#define MPI_T_PVAR_CLASS_COUNTER 246
#define MPI_T_PVAR_CLASS_AGGREGATE 247
#define MPI_T_PVAR_CLASS_TIMER 248
#define MPI_T_PVAR_CLASS_GENERIC 249
typedef enum MPI_T_cb_safety {
  MPI_T_CB_REQUIRE_NONE = 0,
  MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
  MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
  MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;
typedef enum MPI_T_source_order {
  MPI_T_SOURCE_ORDERED = 0,
  MPI_T_SOURCE_UNORDERED = 1
} MPI_T_source_order;
typedef void(MPI_T_event_cb_function)(MPI_T_event_instance event_instance,
                                      MPI_T_event_registration event_registration,
                                      MPI_T_cb_safety cb_safety, void* user_data);
typedef void(MPI_T_event_free_cb_function)(MPI_T_event_registration event_registration,
                                           MPI_T_cb_safety cb_safety, void* user_data);
typedef void(MPI_T_event_dropped_cb_function)(MPI_Count count,
                                              MPI_T_event_registration event_registration,
                                              int source_index, MPI_T_cb_safety cb_safety,
                                              void* user_data);
#define MPI_T_ERR_MEMORY 59
#define MPI_T_ERR_NOT_INITIALIZED 60
#define MPI_T_ERR_CANNOT_INIT 61
#define MPI_T_ERR_INVALID_INDEX 62
#define MPI_T_ERR_INVALID_ITEM 63
#define MPI_T_ERR_INVALID_HANDLE 64
#define MPI_T_ERR_OUT_OF_HANDLES 65
#define MPI_T_ERR_OUT_OF_SESSIONS 66
#define MPI_T_ERR_INVALID_SESSION 67
#define MPI_T_ERR_CVAR_SET_NOT_NOW 68
#define MPI_T_ERR_CVAR_SET_NEVER 69
#define MPI_T_ERR_PVAR_NO_STARTSTOP 70
#define MPI_T_ERR_PVAR_NO_WRITE 71
#define MPI_T_ERR_PVAR_NO_ATOMIC 72
#define MPI_T_ERR_INVALID_NAME 73
#define MPI_T_ERR_INVALID 74
#define MPI_T_ERR_NOT_SUPPORTED 78
TORUS_MPI_FN(int, T_init_thread, (int required, int* provided))
TORUS_MPI_FN(int, T_finalize, (void))
TORUS_MPI_FN(int, T_enum_get_info, (MPI_T_enum enumtype, int* num, char* name, int* name_len))
TORUS_MPI_FN(int, T_enum_get_item, (MPI_T_enum enumtype, int indx, int* value, char* name,
                                    int* name_len))
TORUS_MPI_FN(int, T_cvar_get_num, (int* num_cvar))
TORUS_MPI_FN(int, T_cvar_get_info, (int cvar_index, char* name, int* name_len, int* verbosity,
                                    MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc,
                                    int* desc_len, int* bind, int* scope))
TORUS_MPI_FN(int, T_cvar_get_index, (const char* name, int* cvar_index))
TORUS_MPI_FN(int, T_cvar_handle_alloc, (int cvar_index, void* obj_handle,
                                        MPI_T_cvar_handle* handle, int* count))
TORUS_MPI_FN(int, T_cvar_handle_free, (MPI_T_cvar_handle* handle))
TORUS_MPI_FN(int, T_cvar_read, (MPI_T_cvar_handle handle, void* buf))
TORUS_MPI_FN(int, T_cvar_write, (MPI_T_cvar_handle handle, const void* buf))
TORUS_MPI_FN(int, T_pvar_get_num, (int* num_pvar))
TORUS_MPI_FN(int, T_pvar_get_info, (int pvar_index, char* name, int* name_len, int* verbosity,
                                    int* var_class, MPI_Datatype* datatype,
                                    MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind,
                                    int* readonly, int* continuous, int* atomic))
TORUS_MPI_FN(int, T_pvar_get_index, (const char* name, int var_class, int* pvar_index))
TORUS_MPI_FN(int, T_pvar_session_create, (MPI_T_pvar_session* session))
TORUS_MPI_FN(int, T_pvar_session_free, (MPI_T_pvar_session* session))
TORUS_MPI_FN(int, T_pvar_handle_alloc, (MPI_T_pvar_session session, int pvar_index,
                                        void* obj_handle, MPI_T_pvar_handle* handle,
                                        int* count))
TORUS_MPI_FN(int, T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle* handle))
TORUS_MPI_FN(int, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
TORUS_MPI_FN(int, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
TORUS_MPI_FN(int, T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                void* buf))
TORUS_MPI_FN(int, T_pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                 const void* buf))
TORUS_MPI_FN(int, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
TORUS_MPI_FN(int, T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                     void* buf))
TORUS_MPI_FN(int, T_category_get_num, (int* num_cat))
TORUS_MPI_FN(int, T_category_get_info, (int cat_index, char* name, int* name_len, char* desc,
                                        int* desc_len, int* num_cvars, int* num_pvars,
                                        int* num_categories))
TORUS_MPI_FN(int, T_category_get_index, (const char* name, int* cat_index))
TORUS_MPI_FN(int, T_category_get_cvars, (int cat_index, int len, int indices[]))
TORUS_MPI_FN(int, T_category_get_pvars, (int cat_index, int len, int indices[]))
TORUS_MPI_FN(int, T_category_get_categories, (int cat_index, int len, int indices[]))
TORUS_MPI_FN(int, T_category_changed, (int* update_number))
TORUS_MPI_FN(int, T_category_get_num_events, (int cat_index, int* num_events))
TORUS_MPI_FN(int, T_category_get_events, (int cat_index, int len, int indices[]))
TORUS_MPI_FN(int, T_source_get_num, (int* num_sources))
TORUS_MPI_FN(int, T_source_get_info, (int source_index, char* name, int* name_len, char* desc,
                                      int* desc_len, MPI_T_source_order* ordering,
                                      MPI_Count* ticks_per_second, MPI_Count* max_ticks,
                                      MPI_Info* info))
TORUS_MPI_FN(int, T_source_get_timestamp, (int source_index, MPI_Count* timestamp))
TORUS_MPI_FN(int, T_event_get_num, (int* num_events))
TORUS_MPI_FN(int, T_event_get_info, (int event_index, char* name, int* name_len,
                                     int* verbosity, MPI_Datatype array_of_datatypes[],
                                     MPI_Aint array_of_displacements[], int* num_elements,
                                     MPI_T_enum* enumtype, MPI_Info* info, char* desc,
                                     int* desc_len, int* bind))
TORUS_MPI_FN(int, T_event_get_index, (const char* name, int* event_index))
TORUS_MPI_FN(int, T_event_handle_alloc, (int event_index, void* obj_handle, MPI_Info info,
                                         MPI_T_event_registration* event_registration))
TORUS_MPI_FN(int, T_event_handle_set_info, (MPI_T_event_registration event_registration,
                                            MPI_Info info))
TORUS_MPI_FN(int, T_event_handle_get_info, (MPI_T_event_registration event_registration,
                                            MPI_Info* info_used))
TORUS_MPI_FN(int, T_event_register_callback, (MPI_T_event_registration event_registration,
                                              MPI_T_cb_safety cb_safety, MPI_Info info,
                                              void* user_data,
                                              MPI_T_event_cb_function* event_cb_function))
TORUS_MPI_FN(int, T_event_callback_set_info, (MPI_T_event_registration event_registration,
                                              MPI_T_cb_safety cb_safety, MPI_Info info))
TORUS_MPI_FN(int, T_event_callback_get_info, (MPI_T_event_registration event_registration,
                                              MPI_T_cb_safety cb_safety, MPI_Info* info_used))
TORUS_MPI_FN(int, T_event_handle_free, (MPI_T_event_registration event_registration,
                                        void* user_data,
                                        MPI_T_event_free_cb_function* free_cb_function))
TORUS_MPI_FN(int, T_event_set_dropped_handler,
             (MPI_T_event_registration event_registration,
              MPI_T_event_dropped_cb_function* dropped_cb_function))
TORUS_MPI_FN(int, T_event_read, (MPI_T_event_instance event_instance, int element_index,
                                 void* buffer))
TORUS_MPI_FN(int, T_event_copy, (MPI_T_event_instance event_instance, void* buffer))
TORUS_MPI_FN(int, T_event_get_timestamp, (MPI_T_event_instance event_instance,
                                          MPI_Count* event_timestamp))
TORUS_MPI_FN(int, T_event_get_source, (MPI_T_event_instance event_instance,
                                       int* source_index))

#include "mpio.h"

#undef TORUS_MPI_FN

#ifdef __cplusplus
}
#endif

#endif /* TORUS_MPI_H */
