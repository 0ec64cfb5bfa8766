/* BloomProbe: one open bloom-filter reader's per-literal probe, the whole call in C. It holds the bit
 * set's buffer and sizing from its creation on, so a probe parses one argument (METH_O) and acquires no
 * buffer: the per-value lookup was mostly argument parsing when each call passed the bit set again.
 * It hashes the literals the column's type hashes plainly (an exact int within the column's integer
 * range: Wang's mix; a str of a string column without lone surrogates: XXH64 of its UTF-8); visit() hands
 * any other literal to the reader's Python path (`fallback`), test() returns None for it. The bloom-filter reader
 * subclasses it where the kernels are built: its visit_equal is then visit() itself, found on the type (a
 * method the interpreter calls straight, without a bound method or a lookup in the instance). */
#include "layer.h"

#include "bloom.h"
#include "hashing.h"

typedef struct {
    PyObject_HEAD
    Py_buffer bits;
    int open;
    fi_bloom_sizing sizing;
    long long low, high;  /* the int literals hashed here; low > high: none */
    int strings;          /* whether a str literal is hashed (as UTF-8) */
    PyObject *present;    /* what visit() returns for a literal that may be present, and for one that is not */
    PyObject *absent;
    PyObject *fallback;   /* visit()'s answer for a literal not hashed here: fallback(literal) */
} BloomProbe;

static int probe_init(BloomProbe *self, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"bits", "num_bits", "k", "low", "high", "strings", "present", "absent", "fallback",
                               NULL};
    PyObject *source, *present, *absent, *fallback;
    long long num_bits, low, high;
    int k, strings;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OLiLLpOOO", keywords, &source, &num_bits, &k, &low, &high,
                                     &strings, &present, &absent, &fallback))
        return -1;
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "fallback must be callable");
        return -1;
    }
    if (self->open) {
        PyErr_SetString(PyExc_TypeError, "a BloomProbe is initialised once");
        return -1;
    }
    if (PyObject_GetBuffer(source, &self->bits, PyBUF_SIMPLE) < 0)
        return -1;
    if (!fi_bloom_holds((size_t)self->bits.len, num_bits)) {
        PyErr_Format(PyExc_ValueError, "bit set of %zd bytes does not hold num_bits=%lld (a positive multiple of 8)",
                     self->bits.len, num_bits);
        PyBuffer_Release(&self->bits);
        return -1;
    }
    self->open = 1;
    self->sizing = fi_bloom_sizing_of((uint32_t)num_bits, k);
    self->low = low;
    self->high = high;
    self->strings = strings;
    self->present = Py_NewRef(present);
    self->absent = Py_NewRef(absent);
    self->fallback = Py_NewRef(fallback);
    return 0;
}

static int probe_traverse(BloomProbe *self, visitproc visit, void *arg)
{
    Py_VISIT(self->present);
    Py_VISIT(self->absent);
    Py_VISIT(self->fallback);
    return 0;
}

static int probe_clear(BloomProbe *self)
{
    Py_CLEAR(self->present);
    Py_CLEAR(self->absent);
    Py_CLEAR(self->fallback);
    return 0;
}

static void probe_dealloc(BloomProbe *self)
{
    PyObject_GC_UnTrack(self);
    if (self->open)
        PyBuffer_Release(&self->bits);
    probe_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* 1 and the value of an exact int of up to three 30-bit digits whose magnitude is below 2^63, read straight from
 * CPython 3.11's layout, where PyLong_AsLongLongAndOverflow took 58 instructions of a BIGINT probe's 520; 0 for
 * any other int (and on another CPython), which the caller converts the general way */
static inline int small_int(PyObject *value, long long *key)
{
#if PY_VERSION_HEX < 0x030C0000 && PYLONG_BITS_IN_DIGIT == 30
    const digit *digits = ((PyLongObject *)value)->ob_digit;
    Py_ssize_t size = Py_SIZE(value), count = size < 0 ? -size : size;
    uint64_t magnitude;
    switch (count) {
    case 0: magnitude = 0; break;
    case 1: magnitude = digits[0]; break;
    case 2: magnitude = digits[0] | (uint64_t)digits[1] << PyLong_SHIFT; break;
    case 3:
        if (digits[2] >= 8)  /* 2^63 or more */
            return 0;
        magnitude = digits[0] | (uint64_t)digits[1] << PyLong_SHIFT | (uint64_t)digits[2] << (2 * PyLong_SHIFT);
        break;
    default: return 0;
    }
    *key = size < 0 ? -(long long)magnitude : (long long)magnitude;
    return 1;
#else
    (void)value;
    (void)key;
    return 0;
#endif
}

/* 1 and the literal's FastHash where it is hashed here, 0 where it is not, -1 on an error */
static int literal_hash(BloomProbe *self, PyObject *value, uint64_t *hash)
{
    if (PyLong_CheckExact(value)) {
        int overflow = 0;
        long long key;
        if (!small_int(value, &key)) {
            key = PyLong_AsLongLongAndOverflow(value, &overflow);
            if (key == -1 && PyErr_Occurred())
                return -1;
        }
        if (overflow || key < self->low || key > self->high)
            return 0;
        *hash = fi_wang((uint64_t)key);
        return 1;
    }
    if (!self->strings || !PyUnicode_CheckExact(value))
        return 0;
    Py_ssize_t size;
    const char *utf8 = PyUnicode_AsUTF8AndSize(value, &size);  /* ASCII: the str's own bytes, no copy */
    if (utf8) {
        *hash = fi_xxh64((const uint8_t *)utf8, (size_t)size);
        return 1;
    }
    if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
        return -1;
    PyErr_Clear();  /* lone surrogates: the reader's Python path encodes them (surrogatepass) */
    return 0;
}

/* 1 where the literal may be present, 0 where it is not, 2 where it is not hashed here, -1 on an error */
static int probe_find(BloomProbe *self, PyObject *value)
{
    if (!self->open || !self->fallback) {
        PyErr_SetString(PyExc_ValueError, "the BloomProbe is not initialised");
        return -1;
    }
    uint64_t hash;
    int hashed = literal_hash(self, value, &hash);
    if (hashed <= 0)
        return hashed < 0 ? -1 : 2;
    return fi_bloom_test_sized(self->bits.buf, &self->sizing, hash);
}

static PyObject *probe_test(BloomProbe *self, PyObject *value)
{
    int found = probe_find(self, value);
    if (found < 0)
        return NULL;
    return Py_NewRef(found == 2 ? Py_None : found ? Py_True : Py_False);
}

static PyObject *probe_visit(BloomProbe *self, PyObject *value)
{
    int found = probe_find(self, value);
    if (found < 0)
        return NULL;
    if (found == 2)
        return PyObject_CallOneArg(self->fallback, value);
    return Py_NewRef(found ? self->present : self->absent);
}

#define VISIT_DOC "visit(literal) -> present or absent (the objects given on creation), or fallback(literal) where " \
                  "it is not hashed here"

static PyMethodDef visit_def = {"visit", (PyCFunction)probe_visit, METH_O, VISIT_DOC};

/* visit() as a method of a subclass: the interpreter calls a C method straight from a loop only where the
 * instance's type is exactly the method's own (CPython 3.11's PRECALL_NO_KW_METHOD_DESCRIPTOR_O; a subclass's
 * instance takes the generic call, which checks the type again on each call) */
static PyObject *probe_visit_method(PyObject *unused, PyObject *owner)
{
    if (!PyType_Check(owner) || !PyType_IsSubtype((PyTypeObject *)owner, &fi_BloomProbeType)) {
        PyErr_SetString(PyExc_TypeError, "visit_method takes a subclass of BloomProbe");
        return NULL;
    }
    return PyDescr_NewMethod((PyTypeObject *)owner, &visit_def);
}

static PyMethodDef probe_methods[] = {
    {"test", (PyCFunction)probe_test, METH_O,
     "test(literal) -> whether it may be present, or None where the literal is not hashed here"},
    {"visit", (PyCFunction)probe_visit, METH_O, VISIT_DOC},
    {"visit_method", (PyCFunction)probe_visit_method, METH_O | METH_STATIC,
     "visit_method(subclass) -> visit() as a method of that subclass (called without a type check per call)"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject fi_BloomProbeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fileindex._kernels.BloomProbe",
    .tp_doc = "BloomProbe(bits, num_bits, k, low, high, strings, present, absent, fallback): one filter's "
              "per-literal probe",
    .tp_basicsize = sizeof(BloomProbe),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_traverse = (traverseproc)probe_traverse,
    .tp_clear = (inquiry)probe_clear,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)probe_init,
    .tp_dealloc = (destructor)probe_dealloc,
    .tp_methods = probe_methods,
};
