/* What a datatype carries besides its layout: Type_set_name/get_name (predefined names, a
 * long name cut, a freed handle's name forgotten); type attributes (replacement running the
 * delete callback, Type_dup copying through plus-one, NULL and DUP_FN callbacks, Type_free
 * deleting last set first, a freed keyval still serving its attributes, a failing delete
 * callback keeping the type, MPI_ERR_KEYVAL/TYPE). Any size. */
#include "datatype_ref.h"

/* Type_set_name / Type_get_name: predefined names, renaming, a long name cut, a derived
 * type's name forgotten when its handle is freed. */
static void names(void) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Type_get_name(MPI_DOUBLE, name, &len));
  CHECK(strcmp(name, "MPI_DOUBLE") == 0 && len == 10);
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(len == 0 && name[0] == '\0');
  CHECK_MPI(MPI_Type_set_name(t, "triple"));
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(strcmp(name, "triple") == 0 && len == 6);
  char longname[300];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  CHECK_MPI(MPI_Type_set_name(t, longname));
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len);
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t)); /* may reuse the freed handle */
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(len == 0);
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_set_name(MPI_INT, "renamed int"));
  CHECK_MPI(MPI_Type_get_name(MPI_INT, name, &len));
  CHECK(strcmp(name, "renamed int") == 0);
  CHECK_MPI(MPI_Type_set_name(MPI_INT, "MPI_INT"));
}

/* Type attributes: set/get/delete, replacement running the delete callback, copies on
 * Type_dup by the copy callback (one that declines, one that copies), deletes on Type_free
 * last set first, a keyval freed while in use staying valid for its attributes, errors. */
static int attr_deletes, attr_copies, attr_order[4], attr_order_n;
static int count_delete(MPI_Datatype t, int key, void* value, void* extra) {
  (void)t, (void)key, (void)extra;
  ++attr_deletes;
  if (attr_order_n < 4) attr_order[attr_order_n++] = (int)(intptr_t)value;
  return MPI_SUCCESS;
}
static int plus_one(MPI_Datatype t, int key, void* extra, void* in, void* out, int* flag) {
  (void)t, (void)key, (void)extra;
  ++attr_copies;
  *(void**)out = (void*)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}
static int failing_delete(MPI_Datatype t, int key, void* value, void* extra) {
  (void)t, (void)key, (void)value, (void)extra;
  return MPI_ERR_OTHER;
}

static void type_attributes(void) {
  int k1, k2, k3, flag = -1;
  CHECK_MPI(MPI_Type_create_keyval(plus_one, count_delete, &k1, NULL));
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_delete, &k2, NULL));
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &k3, NULL));
  MPI_Datatype t, d;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  void* v = NULL;
  CHECK_MPI(MPI_Type_get_attr(t, k1, &v, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Type_set_attr(t, k1, (void*)(intptr_t)10));
  CHECK_MPI(MPI_Type_set_attr(t, k2, (void*)(intptr_t)20));
  CHECK_MPI(MPI_Type_set_attr(t, k3, (void*)(intptr_t)30));
  CHECK_MPI(MPI_Type_set_attr(t, k2, (void*)(intptr_t)21)); /* replaces: deletes 20 */
  CHECK(attr_deletes == 1 && attr_order[0] == 20);
  CHECK_MPI(MPI_Type_get_attr(t, k2, &v, &flag));
  CHECK(flag == 1 && (intptr_t)v == 21);
  CHECK_MPI(MPI_Type_dup(t, &d));
  CHECK(attr_copies == 1);
  CHECK_MPI(MPI_Type_get_attr(d, k1, &v, &flag));
  CHECK(flag == 1 && (intptr_t)v == 11);
  CHECK_MPI(MPI_Type_get_attr(d, k2, &v, &flag));
  CHECK(flag == 0); /* no copy callback: not copied */
  CHECK_MPI(MPI_Type_get_attr(d, k3, &v, &flag));
  CHECK(flag == 1 && (intptr_t)v == 30); /* MPI_TYPE_DUP_FN: the same value */
  CHECK_MPI(MPI_Type_delete_attr(d, k3));
  CHECK_MPI(MPI_Type_get_attr(d, k3, &v, &flag));
  CHECK(flag == 0);
  /* A freed keyval stays valid for the attributes that use it. */
  CHECK_MPI(MPI_Type_free_keyval(&k1));
  CHECK(k1 == MPI_KEYVAL_INVALID);
  attr_order_n = 0;
  CHECK_MPI(MPI_Type_free(&t)); /* deletes k3 (no callback), k2 = 21, then k1 = 10 */
  CHECK(attr_deletes == 3 && attr_order_n == 2 && attr_order[0] == 21 && attr_order[1] == 10);
  CHECK_MPI(MPI_Type_free(&d)); /* k1 = 11 */
  CHECK(attr_deletes == 4);
  /* A failing delete callback keeps the type. */
  int kf;
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, failing_delete, &kf, NULL));
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
  CHECK_MPI(MPI_Type_set_attr(t, kf, NULL));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(MPI_Type_free(&t) == MPI_ERR_OTHER && t != MPI_DATATYPE_NULL);
  CHECK(error_class_of(MPI_Type_get_attr(t, 0x12345, &v, &flag)) == MPI_ERR_KEYVAL);
  CHECK(error_class_of(MPI_Type_delete_attr(t, k2)) == MPI_ERR_KEYVAL); /* not set on t */
  CHECK(error_class_of(MPI_Type_set_attr(MPI_DATATYPE_NULL, k2, NULL)) == MPI_ERR_TYPE);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Type_free_keyval(&kf));
  CHECK_MPI(MPI_Type_free_keyval(&k2));
  CHECK_MPI(MPI_Type_free_keyval(&k3));
}

int main(int argc, char** argv) {
  datatype_init(&argc, &argv);
  names();
  type_attributes();
  return datatype_finish("datatype_attrs");
}
