/*
 * fileindex._kernels: the Python API of the loops in csrc/ (see fileindex/_kernels.pyi).
 *
 * Each function takes contiguous buffers (numpy arrays, bytes, bytearray), checks their sizes and
 * the loops' preconditions (raising ValueError), and runs the loop without the GIL, so callers may
 * split a column across threads. The numpy code in fileindex/java and fileindex/indexes is the
 * reference: tests/test_kernels.py compares both on every vector.
 */
#include "layer.h"

#include "bit_slices.h"
#include "bloom.h"
#include "grouping.h"
#include "hashing.h"
#include "hybrid.h"
#include "packed_keys.h"
#include "roaring.h"

/* ----------------------------------------------------------------------- argument checks */

/* count elements of `width` bytes in a buffer whose size must be a multiple of it */
static int element_count(Py_buffer *b, Py_ssize_t width, const char *name, Py_ssize_t *count)
{
    if (b->len % width) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes is not a whole number of %zd-byte elements", name, b->len, width);
        return -1;
    }
    *count = b->len / width;
    return 0;
}

/* out holds one answer (`outputs`) per input (`inputs`) */
static int same_count(Py_ssize_t out, Py_ssize_t in, const char *outputs, const char *inputs)
{
    if (out == in)
        return 0;
    PyErr_Format(PyExc_ValueError, "out holds %zd %s for %zd %s", out, outputs, in, inputs);
    return -1;
}

static int check_bloom(Py_buffer *bits, long long num_bits)
{
    if (fi_bloom_holds((size_t)bits->len, num_bits))
        return 0;
    PyErr_Format(PyExc_ValueError, "bit set of %zd bytes does not hold num_bits=%lld (a positive multiple of 8)",
                 bits->len, num_bits);
    return -1;
}

/* Offsets of an Arrow string/binary array: count+1 non-decreasing values inside data. */
static int check_offsets(Py_buffer *data, Py_buffer *offsets, int width, Py_ssize_t *count)
{
    if (width != 4 && width != 8) {
        PyErr_Format(PyExc_ValueError, "offset width %d: Arrow offsets are 4 or 8 bytes", width);
        return -1;
    }
    Py_ssize_t n;
    if (element_count(offsets, width, "offsets", &n) < 0)
        return -1;
    if (n == 0) {
        PyErr_SetString(PyExc_ValueError, "offsets: an Arrow offsets buffer holds at least one offset");
        return -1;
    }
    int64_t bad = fi_offsets_first_bad(offsets->buf, width, (size_t)n, (size_t)data->len);
    if (bad >= 0) {
        PyErr_Format(PyExc_ValueError, "offsets[%zd] = %lld is outside the %zd data bytes or decreases",
                     (Py_ssize_t)bad, (long long)fi_offset_at(offsets->buf, width, (size_t)bad), data->len);
        return -1;
    }
    *count = n - 1;
    return 0;
}

/* ----------------------------------------------------------------------- hashing */

static PyObject *py_wang_mix(PyObject *self, PyObject *args)
{
    Py_buffer keys, out;
    Py_ssize_t n, m;
    if (!PyArg_ParseTuple(args, "y*w*", &keys, &out))
        return NULL;
    PyObject *result = NULL;
    if (element_count(&keys, 8, "keys", &n) < 0 || element_count(&out, 8, "out", &m) < 0 ||
        same_count(m, n, "hashes", "keys") < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    fi_wang_mix(keys.buf, (size_t)n, out.buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&keys);
    PyBuffer_Release(&out);
    return result;
}

static PyObject *py_wang_mix_one(PyObject *self, PyObject *arg)
{
    long long key = PyLong_AsLongLong(arg);
    if (key == -1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLongLong((long long)fi_wang((uint64_t)key));
}

static PyObject *py_xxh64_offsets(PyObject *self, PyObject *args)
{
    Py_buffer data, offsets, out;
    int width;
    Py_ssize_t n, m;
    if (!PyArg_ParseTuple(args, "y*y*iw*", &data, &offsets, &width, &out))
        return NULL;
    PyObject *result = NULL;
    if (check_offsets(&data, &offsets, width, &n) < 0 || element_count(&out, 8, "out", &m) < 0 ||
        same_count(m, n, "hashes", "strings") < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    fi_xxh64_offsets(data.buf, offsets.buf, width, (size_t)n, out.buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&out);
    return result;
}

/* ----------------------------------------------------------------------- bloom */

/* bloom_add_hashes and bloom_add_longs: `mix` says whether the int64 inputs are keys to hash first */
static PyObject *bloom_add_int64(PyObject *args, int mix)
{
    Py_buffer bits, values;
    long long num_bits;
    int k;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "w*y*Li", &bits, &values, &num_bits, &k))
        return NULL;
    PyObject *result = NULL;
    if (check_bloom(&bits, num_bits) < 0 || element_count(&values, 8, mix ? "keys" : "hashes", &n) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    if (mix)
        fi_bloom_add_longs(bits.buf, (uint32_t)num_bits, k, values.buf, (size_t)n);
    else
        fi_bloom_add_hashes(bits.buf, (uint32_t)num_bits, k, values.buf, (size_t)n);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&bits);
    PyBuffer_Release(&values);
    return result;
}

static PyObject *py_bloom_add_hashes(PyObject *self, PyObject *args) { return bloom_add_int64(args, 0); }

static PyObject *py_bloom_add_longs(PyObject *self, PyObject *args) { return bloom_add_int64(args, 1); }

static PyObject *py_bloom_add_strings(PyObject *self, PyObject *args)
{
    Py_buffer bits, data, offsets;
    int width, k;
    long long num_bits;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "w*y*y*iLi", &bits, &data, &offsets, &width, &num_bits, &k))
        return NULL;
    PyObject *result = NULL;
    if (check_bloom(&bits, num_bits) < 0 || check_offsets(&data, &offsets, width, &n) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    fi_bloom_add_strings(bits.buf, (uint32_t)num_bits, k, data.buf, offsets.buf, width, (size_t)n);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&bits);
    PyBuffer_Release(&data);
    PyBuffer_Release(&offsets);
    return result;
}

static PyObject *py_bloom_test_hashes(PyObject *self, PyObject *args)
{
    Py_buffer bits, hashes, out;
    long long num_bits;
    int k;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*Liw*", &bits, &hashes, &num_bits, &k, &out))
        return NULL;
    PyObject *result = NULL;
    if (check_bloom(&bits, num_bits) < 0 || element_count(&hashes, 8, "hashes", &n) < 0 ||
        same_count(out.len, n, "answers", "hashes") < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    fi_bloom_test_hashes(bits.buf, (uint32_t)num_bits, k, hashes.buf, (size_t)n, out.buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&bits);
    PyBuffer_Release(&hashes);
    PyBuffer_Release(&out);
    return result;
}

static PyObject *py_bloom_test_hash(PyObject *self, PyObject *args)
{
    Py_buffer bits;
    long long num_bits, hash;
    int k;
    if (!PyArg_ParseTuple(args, "y*LiL", &bits, &num_bits, &k, &hash))
        return NULL;
    PyObject *result = NULL;
    if (check_bloom(&bits, num_bits) == 0)
        result = PyBool_FromLong(fi_bloom_test_hash(bits.buf, (uint32_t)num_bits, k, (uint64_t)hash));
    PyBuffer_Release(&bits);
    return result;
}

/* ----------------------------------------------------------------------- bit slices */

static PyObject *py_roaring_bit_slices(PyObject *self, PyObject *args)
{
    Py_buffer rows, values;
    int width, first_bit, num_bits;
    if (!PyArg_ParseTuple(args, "y*y*iii", &rows, &values, &width, &first_bit, &num_bits))
        return NULL;
    PyObject *result = NULL;
    uint64_t *words = NULL;
    void *scratch = NULL;
    Py_ssize_t n, m;
    if (width != 4 && width != 8) {
        PyErr_Format(PyExc_ValueError, "value width %d: values are 4 or 8 bytes", width);
        goto done;
    }
    if (element_count(&rows, 4, "rows", &n) < 0 || element_count(&values, width, "values", &m) < 0)
        goto done;
    if (m != n) {
        PyErr_Format(PyExc_ValueError, "%zd values for %zd rows", m, n);
        goto done;
    }
    if (!fi_bit_slices_valid(width, first_bit, num_bits)) {
        PyErr_Format(PyExc_ValueError, "bits [%d, %d): a value has bits 0 to 63", first_bit, first_bit + num_bits);
        goto done;
    }
    uint32_t last = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        last = fi_load32((const uint8_t *)rows.buf + 4 * i) > last ? fi_load32((const uint8_t *)rows.buf + 4 * i) : last;
    size_t num_words = n ? last / 64 + 1 : 0;
    if (!(words = PyMem_RawCalloc((size_t)num_bits * num_words + 1, 8)) || !(scratch = PyMem_RawMalloc(FI_ROARING_SCRATCH))) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    fi_bit_slice_words(rows.buf, values.buf, width, (size_t)n, first_bit, num_bits, words, num_words);
    Py_END_ALLOW_THREADS
    if (!(result = PyList_New(num_bits)))
        goto done;
    for (int b = 0; b < num_bits; b++) {
        PyObject *slice = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)fi_roaring_words_bound(num_words));
        if (!slice) {
            Py_CLEAR(result);
            goto done;
        }
        size_t written;
        Py_BEGIN_ALLOW_THREADS  /* the new bytes object is not shared yet */
        written = fi_roaring_write_words(words + (size_t)b * num_words, num_words, scratch,
                                         (uint8_t *)PyBytes_AS_STRING(slice));
        Py_END_ALLOW_THREADS
        _PyBytes_Resize(&slice, (Py_ssize_t)written);
        if (!slice) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, b, slice);
    }
done:
    PyMem_RawFree(words);
    PyMem_RawFree(scratch);
    PyBuffer_Release(&rows);
    PyBuffer_Release(&values);
    return result;
}

/* ----------------------------------------------------------------------- Roaring framing */

static PyObject *py_roaring_size(PyObject *self, PyObject *args)
{
    Py_buffer data;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "y*n", &data, &start))
        return NULL;
    int64_t size = fi_roaring_size(data.buf, data.len, start);
    PyBuffer_Release(&data);
    return PyLong_FromLongLong(size);
}

static PyObject *py_roaring_cookies(PyObject *self, PyObject *args)
{
    Py_buffer data, offsets;
    Py_ssize_t start, n;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*ny*", &data, &start, &offsets))
        return NULL;
    if (start < 0 || start > data.len) {
        PyErr_Format(PyExc_ValueError, "start %zd is outside the %zd data bytes", start, data.len);
        goto done;
    }
    if (element_count(&offsets, 8, "offsets", &n) < 0)
        goto done;
    result = PyBool_FromLong(fi_roaring_first_uncookied(data.buf, data.len, start, offsets.buf, n) < 0);
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&offsets);
    return result;
}

/* the (start, end) tuple at index i of a span list */
static int span_at(PyObject *spans, Py_ssize_t i, Py_ssize_t *start, Py_ssize_t *end)
{
    PyObject *span = PySequence_Fast_GET_ITEM(spans, i);
    if (!PyTuple_Check(span) || PyTuple_GET_SIZE(span) != 2) {
        PyErr_SetString(PyExc_TypeError, "each span is a (start, end) tuple");
        return -1;
    }
    *start = PyLong_AsSsize_t(PyTuple_GET_ITEM(span, 0));
    *end = PyLong_AsSsize_t(PyTuple_GET_ITEM(span, 1));
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *py_roaring_rows(PyObject *self, PyObject *args)
{
    Py_buffer data;
    PyObject *spans_arg, *spans = NULL, *result = NULL;
    Py_ssize_t limit, start, end, total = 0;
    if (!PyArg_ParseTuple(args, "y*On", &data, &spans_arg, &limit))
        return NULL;
    if (!(spans = PySequence_Fast(spans_arg, "spans: a sequence of (start, end) tuples")))
        goto done;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(spans);
    for (Py_ssize_t i = 0; i < count; i++) {  /* the room the headers promise, or None past the limit */
        if (span_at(spans, i, &start, &end) < 0)
            goto done;
        int64_t rows = end < start || end > data.len ? -1 : fi_roaring_cardinality(data.buf, end, start);
        if (rows < 0 || (total += rows) > limit) {
            result = Py_NewRef(Py_None);
            goto done;
        }
    }
    if (!(result = PyBytes_FromStringAndSize(NULL, 4 * total)))
        goto done;
    uint32_t *out = (uint32_t *)PyBytes_AS_STRING(result);
    int64_t written = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        span_at(spans, i, &start, &end);  /* read once already */
        int64_t rows = fi_roaring_rows(data.buf, end, start, out + written, total - written);
        if (rows < 0) {
            Py_SETREF(result, Py_NewRef(Py_None));
            goto done;
        }
        written += rows;
    }
done:
    Py_XDECREF(spans);
    PyBuffer_Release(&data);
    return result;
}

static PyObject *py_roaring_bitmaps(PyObject *self, PyObject *args)
{
    Py_buffer data;
    PyObject *spans_arg, *deserialize, *spans = NULL, *result = NULL;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "y*OO", &data, &spans_arg, &deserialize))
        return NULL;
    if (!(spans = PySequence_Fast(spans_arg, "spans: a sequence of (start, end) tuples")))
        goto done;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(spans);
    if (!(result = PyList_New(count)))
        goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (span_at(spans, i, &start, &end) < 0) {
            Py_CLEAR(result);
            goto done;
        }
        int64_t size = end < start || end > data.len ? -1 : fi_roaring_signed_size(data.buf, end, start);
        PyObject *bytes = size < 0 ? NULL : PyMemoryView_FromMemory((char *)data.buf + start, size, PyBUF_READ);
        PyObject *bitmap = bytes ? PyObject_CallOneArg(deserialize, bytes) : NULL;
        Py_XDECREF(bytes);
        if (!bitmap) {  /* the caller decodes them the slow way, which raises the placed error */
            if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception))
                Py_CLEAR(result);  /* KeyboardInterrupt and the like go on */
            else
                Py_SETREF(result, (PyErr_Clear(), Py_NewRef(Py_None)));
            goto done;
        }
        PyList_SET_ITEM(result, i, bitmap);
    }
done:
    Py_XDECREF(spans);
    PyBuffer_Release(&data);
    return result;
}

static PyObject *py_rows_union(PyObject *self, PyObject *parts_arg)
{
    PyObject *parts = PySequence_Fast(parts_arg, "parts: a sequence of bytes"), *result = NULL;
    if (!parts)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(parts), total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *part = PySequence_Fast_GET_ITEM(parts, i);
        if (!PyBytes_Check(part) || PyBytes_GET_SIZE(part) % 4) {
            PyErr_SetString(PyExc_ValueError, "each part is bytes of whole uint32 rows");
            goto done;
        }
        total += PyBytes_GET_SIZE(part);
    }
    if (!(result = PyBytes_FromStringAndSize(NULL, total)))
        goto done;
    char *out = PyBytes_AS_STRING(result);
    for (Py_ssize_t i = 0, at = 0; i < count; i++) {
        PyObject *part = PySequence_Fast_GET_ITEM(parts, i);
        memcpy(out + at, PyBytes_AS_STRING(part), PyBytes_GET_SIZE(part));
        at += PyBytes_GET_SIZE(part);
    }
    int64_t kept = fi_rows_sorted_distinct((uint32_t *)out, total / 4);
    if (4 * kept < total)
        _PyBytes_Resize(&result, 4 * kept);  /* (sets result to NULL where it fails) */
done:
    Py_DECREF(parts);
    return result;
}

/* ----------------------------------------------------------------------- bitmap V1 dictionaries */

/* a packed dictionary's entries and samples (packed_locate's first arguments), checked: their counts */
static int check_packed(Py_buffer *entries, Py_buffer *samples, Py_ssize_t step, Py_ssize_t *n, Py_ssize_t *m)
{
    if (element_count(entries, 8, "entries", n) < 0 || element_count(samples, 8, "samples", m) < 0)
        return -1;
    if (step < 1 || *m != (*n + step - 1) / step) {
        PyErr_Format(PyExc_ValueError, "%zd samples are not every %zd-th of %zd entries", *m, step, *n);
        return -1;
    }
    return 0;
}

/* the index of the entry of keys[i] (-1 where none holds it, as for a key no 4-byte key equals); -2 on an error */
static int64_t packed_entry(PyObject *keys, Py_ssize_t i, Py_buffer *entries, Py_ssize_t n, Py_buffer *samples,
                            Py_ssize_t m, Py_ssize_t step)
{
    int overflow;
    long long key = PyLong_AsLongLongAndOverflow(PySequence_Fast_GET_ITEM(keys, i), &overflow);
    if (key == -1 && PyErr_Occurred())
        return -2;
    return overflow || key < INT32_MIN || key > INT32_MAX
        ? -1 : fi_packed_find(entries->buf, n, samples->buf, m, step, (int32_t)key);
}

/* the signed offset an entry holds: its low half */
static int32_t packed_offset(Py_buffer *entries, int64_t at)
{
    return (int32_t)(uint32_t)((const int64_t *)entries->buf)[at];
}

/* The rows of the bitmap an entry's offset names (at body + offset of data, running to data's end, or with a V2
 * entry's `length` (-1: none) to start + length; a negative offset is the inline row -1 - offset) as native uint32
 * bytes; the offset itself (a Python int) where it does not decode here: past the data or its length, more than
 * `limit` rows, or not a bitmap fi_roaring_rows takes. */
static PyObject *entry_rows(Py_buffer *data, Py_ssize_t body, int32_t offset, int64_t length, Py_ssize_t limit)
{
    if (offset < 0) {
        uint32_t row = (uint32_t)(-1 - (int64_t)offset);
        return PyBytes_FromStringAndSize((const char *)&row, 4);
    }
    int64_t start = (int64_t)body + offset, end = length < 0 ? data->len : start + length;
    int64_t rows = start > end || end > data->len ? -1 : fi_roaring_cardinality(data->buf, end, start);
    if (rows < 0 || rows > limit)
        return PyLong_FromLong(offset);
    PyObject *listed = PyBytes_FromStringAndSize(NULL, 4 * rows);
    if (listed && fi_roaring_rows(data->buf, end, start, (uint32_t *)PyBytes_AS_STRING(listed), rows) != rows)
        Py_SETREF(listed, PyLong_FromLong(offset));
    return listed;
}

/* For each key, None where no entry holds it, else its entry's offset, or with `data` the rows of entry_rows (with
 * `lengths`, one native int32 an entry, a V2 block's: each bitmap's length) */
static PyObject *packed_answers(Py_buffer *entries, Py_buffer *samples, Py_ssize_t step, PyObject *keys_arg,
                                Py_buffer *data, Py_ssize_t body, Py_ssize_t limit, Py_buffer *lengths)
{
    Py_ssize_t n, m, counted;
    PyObject *keys, *result;
    if (check_packed(entries, samples, step, &n, &m) < 0)
        return NULL;
    if (lengths && (element_count(lengths, 4, "lengths", &counted) < 0 || same_count(counted, n, "lengths", "entries") < 0))
        return NULL;
    if (!(keys = PySequence_Fast(keys_arg, "keys: a sequence of ints")))
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(keys);
    if (!(result = PyList_New(count)))
        goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        int64_t at = packed_entry(keys, i, entries, n, samples, m, step);
        PyObject *answer = at == -2 ? NULL
            : at < 0 ? Py_NewRef(Py_None)
            : data ? entry_rows(data, body, packed_offset(entries, at), lengths ? ((const int32_t *)lengths->buf)[at] : -1,
                                limit)
            : PyLong_FromLong(packed_offset(entries, at));
        if (!answer) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, answer);
    }
done:
    Py_DECREF(keys);
    return result;
}

static PyObject *py_packed_locate(PyObject *self, PyObject *args)
{
    Py_buffer entries, samples;
    PyObject *keys;
    Py_ssize_t step;
    if (!PyArg_ParseTuple(args, "y*y*nO", &entries, &samples, &step, &keys))
        return NULL;
    PyObject *result = packed_answers(&entries, &samples, step, keys, NULL, 0, 0, NULL);
    PyBuffer_Release(&entries);
    PyBuffer_Release(&samples);
    return result;
}

static PyObject *py_packed_rows(PyObject *self, PyObject *args)
{
    Py_buffer entries, samples, data, lengths = {0};
    PyObject *keys, *result = NULL;
    Py_ssize_t step, body, limit;
    if (!PyArg_ParseTuple(args, "y*y*nOy*nn|y*", &entries, &samples, &step, &keys, &data, &body, &limit, &lengths))
        return NULL;
    if (body < 0 || body > data.len)
        PyErr_Format(PyExc_ValueError, "the bitmaps at %zd do not start inside the %zd bytes", body, data.len);
    else
        result = packed_answers(&entries, &samples, step, keys, &data, body, limit, lengths.obj ? &lengths : NULL);
    PyBuffer_Release(&entries);
    PyBuffer_Release(&samples);
    PyBuffer_Release(&data);
    if (lengths.obj)
        PyBuffer_Release(&lengths);
    return result;
}

/* the rows of each group, strictly ascending: copied and sorted (repeats dropped) where they are not */
static const uint32_t *ascending_rows(const uint32_t *rows, size_t n, uint32_t *copy, size_t *kept)
{
    size_t i = 1;
    while (i < n && rows[i] > rows[i - 1])
        i++;
    if (i >= n) {
        *kept = n;
        return rows;
    }
    memcpy(copy, rows, n * sizeof *rows);
    *kept = (size_t)fi_rows_sorted_distinct(copy, (int64_t)n);
    return copy;
}

static PyObject *py_roaring_serialize(PyObject *self, PyObject *args)
{
    Py_buffer rows, starts, counts, sizes;
    if (!PyArg_ParseTuple(args, "y*y*y*w*", &rows, &starts, &counts, &sizes))
        return NULL;
    PyObject *result = NULL;
    void *scratch = NULL;
    uint32_t *copy = NULL;
    Py_ssize_t n, groups, m, s;
    if (element_count(&rows, 4, "rows", &n) < 0 || element_count(&starts, 8, "starts", &groups) < 0 ||
        element_count(&counts, 8, "counts", &m) < 0 || element_count(&sizes, 8, "sizes", &s) < 0 ||
        same_count(m, groups, "counts", "starts") < 0 || same_count(s, groups, "sizes", "starts") < 0)
        goto done;
    const int64_t *first = starts.buf, *count = counts.buf;
    size_t bound = 0, largest = 0;
    for (Py_ssize_t g = 0; g < groups; g++) {
        if (first[g] < 0 || count[g] < 0 || first[g] > n || count[g] > n - first[g]) {
            PyErr_Format(PyExc_ValueError, "group %zd: rows [%lld, %lld + %lld) are outside the %zd rows", g,
                         (long long)first[g], (long long)first[g], (long long)count[g], n);
            goto done;
        }
        bound += fi_roaring_write_bound((size_t)count[g]);
        largest = (size_t)count[g] > largest ? (size_t)count[g] : largest;
    }
    if (!(result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)bound)) || !(scratch = PyMem_RawMalloc(FI_ROARING_SCRATCH)) ||
        !(copy = PyMem_RawMalloc(largest * sizeof *copy + 1))) {
        Py_CLEAR(result);
        PyErr_NoMemory();
        goto done;
    }
    size_t written = 0;
    Py_BEGIN_ALLOW_THREADS  /* the new bytes object is not shared yet */
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
    int64_t *size = sizes.buf;
    for (Py_ssize_t g = 0; g < groups; g++) {
        size_t kept;
        const uint32_t *group = ascending_rows((const uint32_t *)rows.buf + first[g], (size_t)count[g], copy, &kept);
        size[g] = (int64_t)fi_roaring_write(group, kept, scratch, out + written);
        written += (size_t)size[g];
    }
    Py_END_ALLOW_THREADS
    _PyBytes_Resize(&result, (Py_ssize_t)written);  /* (NULL, with the error set, where it fails) */
done:
    PyMem_RawFree(scratch);
    PyMem_RawFree(copy);
    PyBuffer_Release(&rows);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&counts);
    PyBuffer_Release(&sizes);
    return result;
}

static PyObject *py_group_rows(PyObject *self, PyObject *args)
{
    Py_buffer codes, rows, counts;
    if (!PyArg_ParseTuple(args, "y*w*w*", &codes, &rows, &counts))
        return NULL;
    PyObject *result = NULL;
    int64_t *next = NULL;
    Py_ssize_t n, room, count;
    if (element_count(&codes, 4, "codes", &n) < 0 || element_count(&rows, 4, "rows", &room) < 0 ||
        element_count(&counts, 8, "counts", &count) < 0)
        goto done;
    int64_t *per_code = counts.buf;
    memset(per_code, 0, (size_t)count * 8);
    if (fi_code_counts(codes.buf, (size_t)n, per_code, count) < 0) {
        PyErr_Format(PyExc_ValueError, "a code is %zd or more: counts holds %zd codes", count, count);
        goto done;
    }
    Py_ssize_t grouped = 0;
    for (Py_ssize_t c = 0; c < count; c++)
        grouped += per_code[c];
    if (room != grouped) {
        PyErr_Format(PyExc_ValueError, "rows has room for %zd rows; the codes give %zd", room, grouped);
        goto done;
    }
    if (!(next = PyMem_RawMalloc((size_t)count * 8 + 8))) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    fi_group_rows(codes.buf, (size_t)n, per_code, count, next, rows.buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyMem_RawFree(next);
    PyBuffer_Release(&codes);
    PyBuffer_Release(&rows);
    PyBuffer_Release(&counts);
    return result;
}

/* ----------------------------------------------------------------------- Parquet's hybrid runs */

static PyObject *py_hybrid_take(PyObject *self, PyObject *args)
{
    Py_buffer data, positions, out;
    int width;
    Py_ssize_t n, m;
    if (!PyArg_ParseTuple(args, "y*iy*w*", &data, &width, &positions, &out))
        return NULL;
    PyObject *result = NULL;
    if (width < 0 || width > FI_HYBRID_MAX_WIDTH) {
        PyErr_Format(PyExc_ValueError, "bit width %d: the hybrid's values are 0 to %d bits", width,
                     FI_HYBRID_MAX_WIDTH);
        goto done;
    }
    if (element_count(&positions, 8, "positions", &n) < 0 || element_count(&out, 4, "out", &m) < 0 ||
        same_count(m, n, "values", "positions") < 0)
        goto done;
    const int64_t *at = positions.buf;
    for (Py_ssize_t i = 0; i < n; i++)
        if (at[i] < 0 || (i && at[i] < at[i - 1])) {
            PyErr_Format(PyExc_ValueError, "positions[%zd] = %lld: positions are ascending and not negative", i,
                         (long long)at[i]);
            goto done;
        }
    int64_t read;
    Py_BEGIN_ALLOW_THREADS
    read = fi_hybrid_take(data.buf, (size_t)data.len, width, at, (size_t)n, out.buf);
    Py_END_ALLOW_THREADS
    result = PyLong_FromLongLong(read);
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&positions);
    PyBuffer_Release(&out);
    return result;
}

/* ----------------------------------------------------------------------- the module */

static PyMethodDef methods[] = {
    {"wang_mix", py_wang_mix, METH_VARARGS, "wang_mix(keys, out): FastHash of int64 keys into out (int64)"},
    {"wang_mix_one", py_wang_mix_one, METH_O, "wang_mix_one(key) -> FastHash of one signed 64-bit key"},
    {"xxh64_offsets", py_xxh64_offsets, METH_VARARGS,
     "xxh64_offsets(data, offsets, width, out): XXH64 of data[offsets[i]:offsets[i+1]] into out"},
    {"bloom_add_hashes", py_bloom_add_hashes, METH_VARARGS, "bloom_add_hashes(bits, hashes, num_bits, k)"},
    {"bloom_add_longs", py_bloom_add_longs, METH_VARARGS, "bloom_add_longs(bits, keys, num_bits, k)"},
    {"bloom_add_strings", py_bloom_add_strings, METH_VARARGS,
     "bloom_add_strings(bits, data, offsets, width, num_bits, k)"},
    {"bloom_test_hashes", py_bloom_test_hashes, METH_VARARGS, "bloom_test_hashes(bits, hashes, num_bits, k, out)"},
    {"bloom_test_hash", py_bloom_test_hash, METH_VARARGS, "bloom_test_hash(bits, num_bits, k, hash) -> bool"},
    {"roaring_bit_slices", py_roaring_bit_slices, METH_VARARGS,
     "roaring_bit_slices(rows, values, width, first_bit, num_bits) -> [bytes]: per bit, the portable Roaring bitmap "
     "(as Java writes it after runOptimize) of the uint32 rows whose value has it"},
    {"roaring_size", py_roaring_size, METH_VARARGS,
     "roaring_size(data, start) -> bytes of the portable Roaring bitmap at start, or -1 if it does not frame"},
    {"roaring_cookies", py_roaring_cookies, METH_VARARGS,
     "roaring_cookies(data, start, offsets) -> whether data[start + offset:] starts with a Roaring cookie (of either "
     "kind) for each int64 offset"},
    {"roaring_bitmaps", py_roaring_bitmaps, METH_VARARGS,
     "roaring_bitmaps(data, spans, deserialize) -> [deserialize(the bytes of the bitmap at data[start:end])] of each "
     "(start, end) span, or None where one does not frame, holds a row past 2^31 - 1 or fails to deserialize"},
    {"packed_locate", py_packed_locate, METH_VARARGS,
     "packed_locate(entries, samples, step, keys) -> for each 4-byte key, the signed offset of its entry among "
     "the sorted int64 entries key << 32 | offset (samples: entries[::step]), or None"},
    {"packed_rows", py_packed_rows, METH_VARARGS,
     "packed_rows(entries, samples, step, keys, data, body, limit, lengths) -> for each 4-byte key of packed_locate, "
     "None where no entry holds it, else the rows (native uint32 bytes) of the bitmap its offset names in data (at "
     "body + offset, with lengths (optional; int32 an entry, a V2 block's) within its length; a negative offset: the row "
     "-1 - offset), or the offset where that bitmap does not decode as roaring_rows decodes, does not fit or holds "
     "more than limit rows"},
    {"roaring_serialize", py_roaring_serialize, METH_VARARGS,
     "roaring_serialize(rows, starts, counts, sizes) -> the portable Roaring bitmaps (as Java writes them after "
     "runOptimize) of the uint32 rows[starts[g]:starts[g] + counts[g]] of each group g (int64 starts and counts; "
     "rows in any order, repeats counted once), concatenated; their lengths go to sizes (int64)"},
    {"group_rows", py_group_rows, METH_VARARGS,
     "group_rows(codes, rows, counts): the rows (uint32) of each int32 code (negative: a null row, in none) into "
     "rows, code by code and ascending within each, and how many each code has into counts (int64, one a code)"},
    {"rows_union", py_rows_union, METH_O,
     "rows_union(parts) -> the rows of all the parts (bytes of native uint32 rows), ascending, each once"},
    {"roaring_rows", py_roaring_rows, METH_VARARGS,
     "roaring_rows(data, spans, limit) -> the uint32 rows of the bitmaps at data[start:end] of each (start, end) "
     "span, concatenated, or None where one does not decode (see fi_roaring_rows) or they hold more than limit rows"},
    {"hybrid_take", py_hybrid_take, METH_VARARGS,
     "hybrid_take(data, width, positions, out) -> the bytes read: the values (uint32) at the ascending int64 "
     "positions of Parquet's RLE / bit-packed hybrid runs in data (bit width 0 to 32) into out, or -1 - at where "
     "the run at byte at does not fit in data (at == len(data): the runs end before a position)"},
    {"column_table", fi_py_column_table, METH_VARARGS,
     "column_table(data, start, end, after, position_bytes, names, decode, entry_type, record_type, table) -> "
     "(records, end of the columns), or None where the container's column table does not read"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "fileindex._kernels",
    "Compiled loops for FastHash, XXH64, BloomFilter64, bit slices, the Roaring framing, the container's "
    "column table, Parquet's hybrid runs, the generated readers' stream and a bloom filter's per-literal probe (see fileindex.kernels).", -1, methods,
};

PyMODINIT_FUNC PyInit__kernels(void)
{
    if (PyType_Ready(&fi_ByteStreamType) < 0 || PyType_Ready(&fi_BloomProbeType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && (PyModule_AddObjectRef(m, "ByteStream", (PyObject *)&fi_ByteStreamType) < 0 ||
              PyModule_AddObjectRef(m, "BloomProbe", (PyObject *)&fi_BloomProbeType) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
