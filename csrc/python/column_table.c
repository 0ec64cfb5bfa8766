/* column_table: the container's column table (csrc/column_table.c checks its structure first) made into
 * the named tuples fileindex.container.head gives, with names decoded through the caller's memo. */
#include "layer.h"

#include <stdarg.h>
#include <string.h>

#include "column_table.h"
#include "load.h"

/* the str of the u2-prefixed name at `at`: from `names` (raw bytes -> str), else decode(raw, offset, table,
 * column, position), which keeps it there */
static PyObject *name_at(const uint8_t *p, int64_t at, PyObject *names, PyObject *decode, PyObject *table,
                         int64_t column, int64_t position)
{
    PyObject *raw = PyBytes_FromStringAndSize((const char *)p + at + 2, (Py_ssize_t)fi_load_be(p + at, 2));
    if (!raw)
        return NULL;
    PyObject *text = PyDict_GetItemWithError(names, raw);
    if (text)
        Py_INCREF(text);
    else if (!PyErr_Occurred())
        text = PyObject_CallFunction(decode, "OLOLL", raw, (long long)(at + 2), table, (long long)column,
                                     (long long)position);
    Py_DECREF(raw);
    return text;
}

/* a tuple of the n references that follow, stolen (released on failure; NULL if one is NULL) */
static PyObject *stolen_tuple(Py_ssize_t n, ...)
{
    PyObject *items = PyTuple_New(n);
    va_list refs;
    va_start(refs, n);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = va_arg(refs, PyObject *);
        if (items && item)
            PyTuple_SET_ITEM(items, i, item);
        else {
            Py_XDECREF(item);
            Py_CLEAR(items);
        }
    }
    va_end(refs);
    return items;
}

/* tuple.__new__(type, items), stealing items */
static PyObject *named(PyTypeObject *type, PyObject *items)
{
    if (!items)
        return NULL;
    PyObject *args = PyTuple_Pack(1, items);
    Py_DECREF(items);
    if (!args)
        return NULL;
    PyObject *made = PyTuple_Type.tp_new(type, args, NULL);
    Py_DECREF(args);
    return made;
}

static int64_t signed_at(const uint8_t *p, int64_t at, int width)
{
    return fi_sign_extend(fi_load_be(p + at, width), width);
}

static PyObject *records_of(const uint8_t *p, int64_t start, int position_bytes, PyObject *names,
                            PyObject *decode, PyTypeObject *entry_type, PyTypeObject *record_type, PyObject *table)
{
    int width = position_bytes / 2;
    int64_t at = start, columns = signed_at(p, at, 4);
    at += 4;
    PyObject *records = PyTuple_New((Py_ssize_t)columns);
    const uint8_t *last_type = NULL; /* an index type repeats from entry to entry: decoded once a table */
    PyObject *last_type_text = NULL;
    for (int64_t c = 0; records && c < columns; c++) {
        int64_t record_at = at;
        PyObject *name = name_at(p, at, names, decode, table, c, -1);
        at += 2 + (int64_t)fi_load_be(p + at, 2);
        int64_t count = signed_at(p, at, 4);
        at += 4;
        PyObject *entries = name ? PyTuple_New((Py_ssize_t)count) : NULL;
        for (int64_t i = 0; entries && i < count; i++) {
            int64_t entry_at = at;
            PyObject *index_type;
            size_t type_length = 2 + fi_load_be(p + at, 2);
            if (last_type && memcmp(last_type, p + at, type_length) == 0) {
                index_type = Py_NewRef(last_type_text);
            } else {
                index_type = name_at(p, at, names, decode, table, c, i);
                Py_XSETREF(last_type_text, Py_XNewRef(index_type));
                last_type = index_type ? p + at : NULL;
            }
            at += 2 + (int64_t)fi_load_be(p + at, 2);
            PyObject *entry = index_type ? named(entry_type, stolen_tuple(8, Py_NewRef(name), index_type,
                PyLong_FromLongLong(signed_at(p, at, width)), PyLong_FromLongLong(signed_at(p, at + width, width)),
                PyLong_FromLongLong(entry_at), Py_NewRef(table), PyLong_FromLongLong(c), PyLong_FromLongLong(i)))
                                         : NULL;
            at += position_bytes;
            if (!entry)
                Py_CLEAR(entries);
            else
                PyTuple_SET_ITEM(entries, (Py_ssize_t)i, entry);
        }
        PyObject *record = entries ? named(record_type, stolen_tuple(3, name, entries, PyLong_FromLongLong(record_at)))
                                   : NULL;
        if (!entries)
            Py_XDECREF(name);
        if (!record)
            Py_CLEAR(records);
        else
            PyTuple_SET_ITEM(records, (Py_ssize_t)c, record);
    }
    Py_XDECREF(last_type_text);
    return records;
}

static int is_tuple_type(PyObject *type, const char *what)
{
    if (PyType_Check(type) && PyType_IsSubtype((PyTypeObject *)type, &PyTuple_Type))
        return 1;
    PyErr_Format(PyExc_TypeError, "%s must be a subclass of tuple", what);
    return 0;
}

PyObject *fi_py_column_table(PyObject *self, PyObject *args)
{
    Py_buffer data;
    Py_ssize_t start, end, after;
    int position_bytes;
    PyObject *names, *decode, *entry_type, *record_type, *table;
    if (!PyArg_ParseTuple(args, "y*nnniO!OOOU", &data, &start, &end, &after, &position_bytes, &PyDict_Type, &names,
                          &decode, &entry_type, &record_type, &table))
        return NULL;
    PyObject *result = NULL;
    if (position_bytes != 8 && position_bytes != 16)
        PyErr_Format(PyExc_ValueError, "position_bytes %d: 8 (version 1) or 16 (version 2)", position_bytes);
    else if (start < 0 || start > end || end > data.len)
        PyErr_Format(PyExc_ValueError, "table [%zd, %zd) is not inside the %zd bytes", start, end, data.len);
    else if (is_tuple_type(entry_type, "entry_type") && is_tuple_type(record_type, "record_type")) {
        int64_t entries, stop = fi_column_table_end(data.buf, start, end, position_bytes, &entries);
        if (stop < 0 || end - stop < after) {  /* (checked before any name is decoded, as the reader reads) */
            result = Py_NewRef(Py_None);
        } else {
            PyObject *records = records_of(data.buf, start, position_bytes, names, decode,
                                           (PyTypeObject *)entry_type, (PyTypeObject *)record_type, table);
            result = records ? Py_BuildValue("(NL)", records, (long long)stop) : NULL;
        }
    }
    PyBuffer_Release(&data);
    return result;
}
