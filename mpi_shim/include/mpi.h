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
#define MPI_REQUEST_NULL ((MPI_Request)0x2c000000)
#define MPI_MESSAGE_NULL ((MPI_Message)0x2c000000)

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
/* Value-index pairs for MINLOC/MAXLOC (not reducible yet; they send and receive). */
#define MPI_FLOAT_INT ((MPI_Datatype)0x8c000000)
#define MPI_DOUBLE_INT ((MPI_Datatype)0x8c000001)
#define MPI_LONG_INT ((MPI_Datatype)0x8c000002)
#define MPI_SHORT_INT ((MPI_Datatype)0x8c000003)
#define MPI_2INT ((MPI_Datatype)0x4c000816)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)0x8c000004)

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

/* Attribute keys (predefined on MPI_COMM_WORLD). */
#define MPI_TAG_UB 0x64400001
#define MPI_HOST 0x64400003
#define MPI_IO 0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE 0x64400009
#define MPI_APPNUM 0x6440000d

/* Thread support levels. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* String lengths (including the NUL). */
#define MPI_MAX_PROCESSOR_NAME 128
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_LIBRARY_VERSION_STRING 8192

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
#define MPI_ERR_NO_MEM 34
#define MPI_ERR_UNSUPPORTED_OPERATION 44
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

/* Errors. */
TORUS_MPI_FN(int, Error_string, (int errorcode, char* string, int* resultlen))
TORUS_MPI_FN(int, Error_class, (int errorcode, int* errorclass))
TORUS_MPI_FN(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
TORUS_MPI_FN(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler* errhandler))

/* Communicators. */
TORUS_MPI_FN(int, Comm_rank, (MPI_Comm comm, int* rank))
TORUS_MPI_FN(int, Comm_size, (MPI_Comm comm, int* size))
TORUS_MPI_FN(int, Comm_dup, (MPI_Comm comm, MPI_Comm* newcomm))
TORUS_MPI_FN(int, Comm_free, (MPI_Comm* comm))
TORUS_MPI_FN(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm))
TORUS_MPI_FN(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int* result))
TORUS_MPI_FN(int, Comm_get_attr, (MPI_Comm comm, int keyval, void* attribute_val, int* flag))

/* Datatypes. */
TORUS_MPI_FN(int, Type_size, (MPI_Datatype datatype, int* size))
TORUS_MPI_FN(int, Get_count, (const MPI_Status* status, MPI_Datatype datatype, int* count))

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
TORUS_MPI_FN(int, Irecv, (void* buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Request* request))
TORUS_MPI_FN(int, Sendrecv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             int dest, int sendtag, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                             MPI_Status* status))
TORUS_MPI_FN(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status))
TORUS_MPI_FN(int, Iprobe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status))

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
TORUS_MPI_FN(int, Scan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm))
TORUS_MPI_FN(int, Exscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm))

#undef TORUS_MPI_FN

#ifdef __cplusplus
}
#endif

#endif /* TORUS_MPI_H */
