// MPI-IO's large-count (_c) calls: the int calls with the count converted (large_count.h).
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/io/file.h"
#include "mpi_shim/lib/large_count.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

extern "C" {

int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype)) return raise_file(file_get(fh), e, "MPI_File_read_at_c");
  return PMPI_File_read_at(fh, offset, buf, big.count(), big.type(), status);
}

int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_read_at_all_c");
  return PMPI_File_read_at_all(fh, offset, buf, big.count(), big.type(), status);
}

int PMPI_File_read_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype)) return raise_file(file_get(fh), e, "MPI_File_read_c");
  return PMPI_File_read(fh, buf, big.count(), big.type(), status);
}

int PMPI_File_read_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype)) return raise_file(file_get(fh), e, "MPI_File_read_all_c");
  return PMPI_File_read_all(fh, buf, big.count(), big.type(), status);
}

int PMPI_File_read_shared_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_read_shared_c");
  return PMPI_File_read_shared(fh, buf, big.count(), big.type(), status);
}

int PMPI_File_read_ordered_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_read_ordered_c");
  return PMPI_File_read_ordered(fh, buf, big.count(), big.type(), status);
}

int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request* request) {
  BigCount big;
  if (int e = big.init(count, datatype)) return raise_file(file_get(fh), e, "MPI_File_iread_at_c");
  return PMPI_File_iread_at(fh, offset, buf, big.count(), big.type(), request);
}

int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request* request) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_iread_at_all_c");
  return PMPI_File_iread_at_all(fh, offset, buf, big.count(), big.type(), request);
}

int PMPI_File_iread_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request* request) {
  BigCount big;
  if (int e = big.init(count, datatype)) return raise_file(file_get(fh), e, "MPI_File_iread_c");
  return PMPI_File_iread(fh, buf, big.count(), big.type(), request);
}

int PMPI_File_iread_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request* request) {
  BigCount big;
  if (int e = big.init(count, datatype)) return raise_file(file_get(fh), e, "MPI_File_iread_all_c");
  return PMPI_File_iread_all(fh, buf, big.count(), big.type(), request);
}

int PMPI_File_iread_shared_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request* request) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_iread_shared_c");
  return PMPI_File_iread_shared(fh, buf, big.count(), big.type(), request);
}

int PMPI_File_read_all_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_read_all_begin_c");
  return PMPI_File_read_all_begin(fh, buf, big.count(), big.type());
}

int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                  MPI_Datatype datatype) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_read_at_all_begin_c");
  return PMPI_File_read_at_all_begin(fh, offset, buf, big.count(), big.type());
}

int PMPI_File_read_ordered_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_read_ordered_begin_c");
  return PMPI_File_read_ordered_begin(fh, buf, big.count(), big.type());
}

int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype)) return raise_file(file_get(fh), e, "MPI_File_write_at_c");
  return PMPI_File_write_at(fh, offset, buf, big.count(), big.type(), status);
}

int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_write_at_all_c");
  return PMPI_File_write_at_all(fh, offset, buf, big.count(), big.type(), status);
}

int PMPI_File_write_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype)) return raise_file(file_get(fh), e, "MPI_File_write_c");
  return PMPI_File_write(fh, buf, big.count(), big.type(), status);
}

int PMPI_File_write_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype)) return raise_file(file_get(fh), e, "MPI_File_write_all_c");
  return PMPI_File_write_all(fh, buf, big.count(), big.type(), status);
}

int PMPI_File_write_shared_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_write_shared_c");
  return PMPI_File_write_shared(fh, buf, big.count(), big.type(), status);
}

int PMPI_File_write_ordered_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Status* status) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_write_ordered_c");
  return PMPI_File_write_ordered(fh, buf, big.count(), big.type(), status);
}

int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Request* request) {
  BigCount big;
  if (int e = big.init(count, datatype)) return raise_file(file_get(fh), e, "MPI_File_iwrite_at_c");
  return PMPI_File_iwrite_at(fh, offset, buf, big.count(), big.type(), request);
}

int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request* request) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_iwrite_at_all_c");
  return PMPI_File_iwrite_at_all(fh, offset, buf, big.count(), big.type(), request);
}

int PMPI_File_iwrite_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Request* request) {
  BigCount big;
  if (int e = big.init(count, datatype)) return raise_file(file_get(fh), e, "MPI_File_iwrite_c");
  return PMPI_File_iwrite(fh, buf, big.count(), big.type(), request);
}

int PMPI_File_iwrite_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Request* request) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_iwrite_all_c");
  return PMPI_File_iwrite_all(fh, buf, big.count(), big.type(), request);
}

int PMPI_File_iwrite_shared_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request* request) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_iwrite_shared_c");
  return PMPI_File_iwrite_shared(fh, buf, big.count(), big.type(), request);
}

int PMPI_File_write_all_begin_c(MPI_File fh, const void* buf, MPI_Count count,
                                MPI_Datatype datatype) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_write_all_begin_c");
  return PMPI_File_write_all_begin(fh, buf, big.count(), big.type());
}

int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                   MPI_Datatype datatype) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_write_at_all_begin_c");
  return PMPI_File_write_at_all_begin(fh, offset, buf, big.count(), big.type());
}

int PMPI_File_write_ordered_begin_c(MPI_File fh, const void* buf, MPI_Count count,
                                    MPI_Datatype datatype) {
  BigCount big;
  if (int e = big.init(count, datatype))
    return raise_file(file_get(fh), e, "MPI_File_write_ordered_begin_c");
  return PMPI_File_write_ordered_begin(fh, buf, big.count(), big.type());
}

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  MPI_Aint e = 0;
  if (!extent) return raise_file(file_get(fh), MPI_ERR_ARG, "MPI_File_get_type_extent_c");
  if (int err = PMPI_File_get_type_extent(fh, datatype, &e)) return err;
  *extent = e;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_File_read_at_c)
TORUS_MPI_ALIAS(MPI_File_read_at_all_c)
TORUS_MPI_ALIAS(MPI_File_read_c)
TORUS_MPI_ALIAS(MPI_File_read_all_c)
TORUS_MPI_ALIAS(MPI_File_read_shared_c)
TORUS_MPI_ALIAS(MPI_File_read_ordered_c)
TORUS_MPI_ALIAS(MPI_File_iread_at_c)
TORUS_MPI_ALIAS(MPI_File_iread_at_all_c)
TORUS_MPI_ALIAS(MPI_File_iread_c)
TORUS_MPI_ALIAS(MPI_File_iread_all_c)
TORUS_MPI_ALIAS(MPI_File_iread_shared_c)
TORUS_MPI_ALIAS(MPI_File_read_all_begin_c)
TORUS_MPI_ALIAS(MPI_File_read_at_all_begin_c)
TORUS_MPI_ALIAS(MPI_File_read_ordered_begin_c)
TORUS_MPI_ALIAS(MPI_File_write_at_c)
TORUS_MPI_ALIAS(MPI_File_write_at_all_c)
TORUS_MPI_ALIAS(MPI_File_write_c)
TORUS_MPI_ALIAS(MPI_File_write_all_c)
TORUS_MPI_ALIAS(MPI_File_write_shared_c)
TORUS_MPI_ALIAS(MPI_File_write_ordered_c)
TORUS_MPI_ALIAS(MPI_File_iwrite_at_c)
TORUS_MPI_ALIAS(MPI_File_iwrite_at_all_c)
TORUS_MPI_ALIAS(MPI_File_iwrite_c)
TORUS_MPI_ALIAS(MPI_File_iwrite_all_c)
TORUS_MPI_ALIAS(MPI_File_iwrite_shared_c)
TORUS_MPI_ALIAS(MPI_File_write_all_begin_c)
TORUS_MPI_ALIAS(MPI_File_write_at_all_begin_c)
TORUS_MPI_ALIAS(MPI_File_write_ordered_begin_c)
TORUS_MPI_ALIAS(MPI_File_get_type_extent_c)

}  // extern "C"
