/* ByteStream: the reading half of Kaitai Struct's KaitaiStream over one contiguous buffer (the cursor
 * of csrc/byte_stream.h): the methods the generated readers call, each a C call. Failures call the
 * Python subclass's _fail_eof(requested, available) or _fail_argument(message), which raise the
 * kaitaistruct runtime's own errors (fileindex.kaitai_runtime's CompiledStream). */
#include "layer.h"

#include "byte_stream.h"
#include "load.h"

typedef struct {
    PyObject_HEAD
    Py_buffer view;
    fi_cursor cursor;
    int open;
} ByteStream;

static void stream_release(ByteStream *self)
{
    if (self->open) {
        PyBuffer_Release(&self->view);
        self->open = 0;
    }
}

static int stream_init(ByteStream *self, PyObject *args, PyObject *kwds)
{
    PyObject *source;
    if (!PyArg_ParseTuple(args, "O", &source))
        return -1;
    stream_release(self);
    if (PyObject_GetBuffer(source, &self->view, PyBUF_SIMPLE) < 0)
        return -1;
    self->open = 1;
    self->cursor = (fi_cursor){self->view.buf, (size_t)self->view.len, 0};
    return 0;
}

static void stream_dealloc(ByteStream *self)
{
    stream_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *stream_fail_eof(ByteStream *self, Py_ssize_t requested, size_t available)
{
    PyObject *r = PyObject_CallMethod((PyObject *)self, "_fail_eof", "nn", requested, (Py_ssize_t)available);
    Py_XDECREF(r);
    if (!PyErr_Occurred())
        PyErr_Format(PyExc_EOFError, "requested %zd bytes, but only %zd bytes available", requested,
                     (Py_ssize_t)available);
    return NULL;
}

static PyObject *stream_fail_argument(ByteStream *self, PyObject *message)
{
    if (!message)
        return NULL;
    PyObject *r = PyObject_CallMethod((PyObject *)self, "_fail_argument", "O", message);
    Py_XDECREF(r);
    if (!PyErr_Occurred())
        PyErr_SetObject(PyExc_ValueError, message);
    Py_DECREF(message);
    return NULL;
}

static int stream_check_open(ByteStream *self)
{
    if (!self->open) {
        PyErr_SetString(PyExc_ValueError, "the stream is closed");
        return -1;
    }
    return 0;
}

/* the next n bytes, advancing; NULL (with the error set) when fewer remain */
static const uint8_t *stream_take(ByteStream *self, Py_ssize_t n)
{
    if (stream_check_open(self) < 0)
        return NULL;
    size_t available = fi_cursor_available(&self->cursor);
    const uint8_t *at = fi_cursor_take(&self->cursor, (size_t)n);
    if (!at)
        stream_fail_eof(self, n, available);
    return at;
}

#define READ_INT(name, width, load, is_signed)                                                          \
    static PyObject *stream_##name(ByteStream *self, PyObject *unused)                                \
    {                                                                                                   \
        const uint8_t *p = stream_take(self, width);                                                    \
        if (!p)                                                                                         \
            return NULL;                                                                                \
        uint64_t v = load(p, width);                                                                    \
        if (!is_signed)                                                                                 \
            return PyLong_FromUnsignedLongLong(v);                                                      \
        return PyLong_FromLongLong(fi_sign_extend(v, width));                                           \
    }

READ_INT(read_u1, 1, fi_load_be, 0)
READ_INT(read_s1, 1, fi_load_be, 1)
READ_INT(read_u2be, 2, fi_load_be, 0)
READ_INT(read_s2be, 2, fi_load_be, 1)
READ_INT(read_u4be, 4, fi_load_be, 0)
READ_INT(read_s4be, 4, fi_load_be, 1)
READ_INT(read_u8be, 8, fi_load_be, 0)
READ_INT(read_s8be, 8, fi_load_be, 1)
READ_INT(read_u2le, 2, fi_load_le, 0)
READ_INT(read_s2le, 2, fi_load_le, 1)
READ_INT(read_u4le, 4, fi_load_le, 0)
READ_INT(read_s4le, 4, fi_load_le, 1)
READ_INT(read_u8le, 8, fi_load_le, 0)
READ_INT(read_s8le, 8, fi_load_le, 1)

static PyObject *stream_read_bytes(ByteStream *self, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return NULL;
        PyErr_Clear();  /* more bytes than any buffer holds: the end of the stream, as KaitaiStream says */
        if (stream_check_open(self) == 0)
            stream_fail_eof(self, PY_SSIZE_T_MAX, fi_cursor_available(&self->cursor));
        return NULL;
    }
    if (n < 0)
        return stream_fail_argument(self, PyUnicode_FromFormat("requested invalid %zd amount of bytes", n));
    const uint8_t *p = stream_take(self, n);
    return p ? PyBytes_FromStringAndSize((const char *)p, n) : NULL;
}

static PyObject *stream_read_bytes_full(ByteStream *self, PyObject *unused)
{
    if (stream_check_open(self) < 0)
        return NULL;
    size_t n;
    const uint8_t *rest = fi_cursor_rest(&self->cursor, &n);
    return PyBytes_FromStringAndSize((const char *)rest, (Py_ssize_t)n);
}

static PyObject *stream_seek(ByteStream *self, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 0)
        return stream_fail_argument(self, PyUnicode_FromFormat("cannot seek to invalid position %zd", n));
    if (stream_check_open(self) < 0)
        return NULL;
    self->cursor.pos = (size_t)n;
    Py_RETURN_NONE;
}

static PyObject *stream_pos(ByteStream *self, PyObject *unused) { return PyLong_FromSize_t(self->cursor.pos); }

static PyObject *stream_size(ByteStream *self, PyObject *unused)
{
    if (stream_check_open(self) < 0)
        return NULL;
    return PyLong_FromSize_t(self->cursor.size);
}

static PyObject *stream_is_eof(ByteStream *self, PyObject *unused)
{
    if (stream_check_open(self) < 0)
        return NULL;
    return PyBool_FromLong(self->cursor.pos >= self->cursor.size);
}

static PyObject *stream_align_to_byte(ByteStream *self, PyObject *unused) { Py_RETURN_NONE; }

static PyObject *stream_close(ByteStream *self, PyObject *unused)
{
    stream_release(self);
    Py_RETURN_NONE;
}

#define METHOD(name, flags) {#name, (PyCFunction)stream_##name, flags, NULL}
static PyMethodDef stream_methods[] = {
    METHOD(read_u1, METH_NOARGS), METHOD(read_s1, METH_NOARGS),
    METHOD(read_u2be, METH_NOARGS), METHOD(read_s2be, METH_NOARGS),
    METHOD(read_u4be, METH_NOARGS), METHOD(read_s4be, METH_NOARGS),
    METHOD(read_u8be, METH_NOARGS), METHOD(read_s8be, METH_NOARGS),
    METHOD(read_u2le, METH_NOARGS), METHOD(read_s2le, METH_NOARGS),
    METHOD(read_u4le, METH_NOARGS), METHOD(read_s4le, METH_NOARGS),
    METHOD(read_u8le, METH_NOARGS), METHOD(read_s8le, METH_NOARGS),
    METHOD(read_bytes, METH_O), METHOD(read_bytes_full, METH_NOARGS),
    METHOD(seek, METH_O), METHOD(pos, METH_NOARGS), METHOD(size, METH_NOARGS), METHOD(is_eof, METH_NOARGS),
    METHOD(align_to_byte, METH_NOARGS), METHOD(close, METH_NOARGS),
    {NULL, NULL, 0, NULL},
};

PyTypeObject fi_ByteStreamType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fileindex._kernels.ByteStream",
    .tp_doc = "ByteStream(buffer): KaitaiStream's reading methods over a contiguous buffer",
    .tp_basicsize = sizeof(ByteStream),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)stream_init,
    .tp_dealloc = (destructor)stream_dealloc,
    .tp_methods = stream_methods,
};
