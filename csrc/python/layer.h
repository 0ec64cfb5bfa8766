/* Shared by the files of the Python-API layer (fileindex._kernels): the loops are in csrc/. */
#ifndef FI_PYTHON_LAYER_H
#define FI_PYTHON_LAYER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

extern PyTypeObject fi_ByteStreamType;

#endif
