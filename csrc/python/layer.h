/* Shared by the files of the Python-API layer (fileindex._kernels): the loops are in csrc/. */
#ifndef FI_PYTHON_LAYER_H
#define FI_PYTHON_LAYER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

extern PyTypeObject fi_ByteStreamType;
extern PyTypeObject fi_BloomProbeType;

/* column_table(...) of fileindex._kernels (column_table.c) */
PyObject *fi_py_column_table(PyObject *self, PyObject *args);

#endif
