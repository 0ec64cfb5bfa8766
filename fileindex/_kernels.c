/*
 * Compiled loops for the hot paths numpy cannot express in one pass (issue #18).
 *
 * Each function takes contiguous buffers (numpy arrays, bytes, bytearray), checks their sizes,
 * and runs without the GIL, so callers may split a column across threads. The pure numpy code
 * in fileindex/java and fileindex/indexes is the reference: tests compare both on every vector.
 *
 *   wang_mix(keys, out)                       Paimon's FastHash of int64 keys (Thomas Wang's mix)
 *   xxh64_offsets(data, offsets, width, out)  XXH64 (seed 0) of each Arrow string/binary value
 *   bloom_add_hashes(bits, hashes, num_bits, k)
 *   bloom_add_longs(bits, keys, num_bits, k)  FastHash and BloomFilter64.addHash in one pass
 *   bloom_add_strings(bits, data, offsets, width, num_bits, k)
 *   bloom_test_hashes(bits, hashes, num_bits, k, out)   1 where all k bits are set
 *   bloom_test_hash(bits, num_bits, k, hash) -> bool
 *   bloom_test_value(bits, num_bits, k, value) -> bool  (an int key or bytes, hashed here)
 *   bit_slices(rows, values, width, first_bit, num_bits)  per bit, the rows whose value has it (bsi, range-bitmap)
 *   roaring_size(data, start) -> int          bytes of the portable Roaring bitmap at start, or -1 if it does not frame
 *   ByteStream(buffer)                        KaitaiStream's reading methods, for the generated readers
 *
 * ``bits`` is the serialized bit set: bit p is bit (p & 7) of byte (p >> 3), as Java writes it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the XXH64 loads assume a little-endian machine; build without the kernels (the numpy path)"
#endif

/* ------------------------------------------------------------------------------ hashing */

#define P1 UINT64_C(0x9E3779B185EBCA87)
#define P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define P3 UINT64_C(0x165667B19E3779F9)
#define P4 UINT64_C(0x85EBCA77C2B2AE63)
#define P5 UINT64_C(0x27D4EB2F165667C5)

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t load64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static inline uint32_t load32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static inline uint64_t xxh_round(uint64_t acc, uint64_t lane) { return rotl64(acc + lane * P2, 31) * P1; }

static inline uint64_t xxh_merge(uint64_t h, uint64_t v) { return (h ^ xxh_round(0, v)) * P1 + P4; }

static inline uint64_t xxh64(const uint8_t *p, size_t length)
{
    const uint8_t *end = p + length;
    uint64_t h;
    if (length >= 32) {
        uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = 0 - P1;
        do {
            v1 = xxh_round(v1, load64(p));
            v2 = xxh_round(v2, load64(p + 8));
            v3 = xxh_round(v3, load64(p + 16));
            v4 = xxh_round(v4, load64(p + 24));
            p += 32;
        } while (p + 32 <= end);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = xxh_merge(xxh_merge(xxh_merge(xxh_merge(h, v1), v2), v3), v4);
    } else {
        h = P5;
    }
    h += (uint64_t)length;
    for (; p + 8 <= end; p += 8)
        h = rotl64(h ^ xxh_round(0, load64(p)), 27) * P1 + P4;
    if (p + 4 <= end) {
        h = rotl64(h ^ ((uint64_t)load32(p) * P1), 23) * P2 + P3;
        p += 4;
    }
    for (; p < end; p++)
        h = rotl64(h ^ (*p * P5), 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ (h >> 32);
}

/* Java's signed shifts: >> on a negative long keeps the sign (gcc's >> on int64_t does). */
static inline uint64_t sar(uint64_t x, int n) { return (uint64_t)((int64_t)x >> n); }

static inline uint64_t wang(uint64_t key)
{
    key = ~key + (key << 21);
    key ^= sar(key, 24);
    key = key + (key << 3) + (key << 8);
    key ^= sar(key, 14);
    key = key + (key << 2) + (key << 4);
    key ^= sar(key, 28);
    return key + (key << 31);
}

/* ----------------------------------------------------------------------- bloom bit positions */

/* x % d for 32-bit x and d without a division (Lemire, Kaser, Kurz 2019: "Faster remainder by
 * direct computation"); exact for all 32-bit operands. M = 0 when d == 1, giving 0. */
typedef struct { uint64_t magic; uint32_t divisor; } fastmod_t;

static inline fastmod_t fastmod_for(uint32_t d) { fastmod_t f = {UINT64_MAX / d + 1, d}; return f; }

static inline uint32_t fastmod(uint32_t x, fastmod_t f)
{
    return (uint32_t)(((__uint128_t)(f.magic * x) * f.divisor) >> 64);
}

/* BloomFilter64.addHash: for i = 1..k, c = h1 + i*h2 in int wrap-around, ~c when negative, c % bits. */
static inline void bloom_positions(uint64_t hash, fastmod_t f, int k, uint32_t *out)
{
    uint32_t h2 = (uint32_t)(hash >> 32), combined = (uint32_t)hash;
    for (int i = 0; i < k; i++) {
        combined += h2;
        out[i] = fastmod((int32_t)combined < 0 ? ~combined : combined, f);
    }
}

static inline int bit_is_set(const uint8_t *bits, uint32_t position) { return bits[position >> 3] >> (position & 7) & 1; }

static inline void set_bit(uint8_t *bits, uint32_t position) { bits[position >> 3] |= (uint8_t)(1u << (position & 7)); }

static inline void bloom_set(uint8_t *bits, uint64_t hash, fastmod_t f, int k)
{
    uint32_t h2 = (uint32_t)(hash >> 32), combined = (uint32_t)hash;
    for (int i = 0; i < k; i++) {
        combined += h2;
        set_bit(bits, fastmod((int32_t)combined < 0 ? ~combined : combined, f));
    }
}

static inline int bloom_test(const uint8_t *bits, uint64_t hash, fastmod_t f, int k)
{
    uint32_t h2 = (uint32_t)(hash >> 32), combined = (uint32_t)hash;
    for (int i = 0; i < k; i++) {
        combined += h2;
        if (!bit_is_set(bits, fastmod((int32_t)combined < 0 ? ~combined : combined, f)))
            return 0;
    }
    return 1;
}

/* Bits are set, and tested, a group of rows behind: the positions of a group are computed and
 * prefetched while the previous group's are used. Reading a byte to set one of its bits otherwise
 * waits for memory on every bit once the set outgrows the cache (measured on 10M rows, a 12 MB
 * set, k = 7: 150 ns/row in order, 40 with the groups). A filter with more than PIPELINE_MAX_K hash
 * functions (none that Paimon's sizing gives for fpp >= 1e-9) goes in order. */
#define PIPELINE_ROWS 16
#define PIPELINE_MAX_K 32
/* Probes stop at the first clear bit, which the groups cannot: they pay only on large sets
 * (measured, k = 7, half the probes absent: 1.2 MB 25 ns in order against 36 in groups; 12 MB 180
 * against 83 ns) */
#define PIPELINE_TEST_BYTES (4 << 20)

typedef struct {
    uint8_t *bits;
    fastmod_t f;
    int k;
    int filling;                    /* the group being computed; the other is applied next */
    Py_ssize_t rows[2];             /* rows in each group */
    Py_ssize_t first[2];            /* tester: the index of each group's first row */
    uint32_t positions[2][PIPELINE_ROWS * PIPELINE_MAX_K];
} pipeline_t;

static inline void pipeline_start(pipeline_t *p, uint8_t *bits, fastmod_t f, int k)
{
    p->bits = bits;
    p->f = f;
    p->k = k;
    p->filling = 0;
    p->rows[0] = p->rows[1] = 0;
    p->first[0] = p->first[1] = 0;
}

/* queue one hash's positions in the filling group and prefetch their bytes; 1 when the group is full */
static inline int pipeline_queue(pipeline_t *p, uint64_t hash, Py_ssize_t row)
{
    int g = p->filling;
    if (p->rows[g] == 0)
        p->first[g] = row;
    uint32_t *out = p->positions[g] + p->rows[g] * p->k;
    bloom_positions(hash, p->f, p->k, out);
    for (int j = 0; j < p->k; j++)
        __builtin_prefetch(p->bits + (out[j] >> 3), 1, 3);
    return ++p->rows[g] == PIPELINE_ROWS;
}

/* the other group's positions, then that group becomes the (empty) filling one */
static inline const uint32_t *pipeline_flip(pipeline_t *p, Py_ssize_t *rows, Py_ssize_t *first)
{
    int other = p->filling ^ 1;
    *rows = p->rows[other];
    *first = p->first[other];
    p->rows[other] = 0;
    p->filling = other;
    return p->positions[other];
}

static inline void pipeline_set(pipeline_t *p)
{
    Py_ssize_t rows, first;
    const uint32_t *positions = pipeline_flip(p, &rows, &first);
    for (Py_ssize_t j = 0; j < rows * p->k; j++)
        set_bit(p->bits, positions[j]);
}

static inline void pipeline_test(pipeline_t *p, uint8_t *answers)
{
    Py_ssize_t rows, first;
    const uint32_t *positions = pipeline_flip(p, &rows, &first);
    for (Py_ssize_t r = 0; r < rows; r++) {
        int found = 1;
        for (int j = 0; j < p->k && found; j++)
            found = bit_is_set(p->bits, positions[r * p->k + j]);
        answers[first + r] = (uint8_t)found;
    }
}

/* Set the bits of n hashes, HASH(i) the i-th (an expression of i). */
#define BLOOM_ADD(bits, f, k, n, HASH)                                                           \
    do {                                                                                        \
        if ((k) > PIPELINE_MAX_K) {                                                             \
            for (Py_ssize_t i = 0; i < (n); i++)                                                \
                bloom_set((bits), (HASH), (f), (k));                                            \
            break;                                                                              \
        }                                                                                       \
        pipeline_t pipe_;                                                                       \
        pipeline_start(&pipe_, (bits), (f), (k));                                               \
        for (Py_ssize_t i = 0; i < (n); i++)                                                    \
            if (pipeline_queue(&pipe_, (HASH), i))                                              \
                pipeline_set(&pipe_);                                                           \
        pipeline_set(&pipe_);                                                                   \
        pipeline_set(&pipe_);                                                                   \
    } while (0)

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

static int check_bloom(Py_buffer *bits, long long num_bits)
{
    if (num_bits <= 0 || num_bits > INT32_MAX || num_bits % 8 || bits->len * 8 != num_bits) {
        PyErr_Format(PyExc_ValueError, "bit set of %zd bytes does not hold num_bits=%lld (a positive multiple of 8)",
                     bits->len, num_bits);
        return -1;
    }
    return 0;  /* k <= 0 sets nothing and finds every hash, as Java's loop does */
}

static inline int64_t offset_at(const uint8_t *raw, int width, Py_ssize_t i)
{
    if (width == 4) { int32_t v; memcpy(&v, raw + 4 * i, 4); return v; }
    int64_t v;
    memcpy(&v, raw + 8 * i, 8);
    return v;
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
    const uint8_t *raw = offsets->buf;
    int64_t previous = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t at = offset_at(raw, width, i);
        if (at < previous || at < 0 || at > data->len) {
            PyErr_Format(PyExc_ValueError, "offsets[%zd] = %lld is outside the %zd data bytes or decreases",
                         i, (long long)at, data->len);
            return -1;
        }
        previous = at;
    }
    *count = n - 1;
    return 0;
}

/* XXH64 of the i-th value of an Arrow string/binary array */
static inline uint64_t string_hash(const uint8_t *bytes, const uint8_t *offsets, int width, Py_ssize_t i)
{
    int64_t start = offset_at(offsets, width, i);
    return xxh64(bytes + start, (size_t)(offset_at(offsets, width, i + 1) - start));
}

/* ----------------------------------------------------------------------- python functions */

static PyObject *py_wang_mix(PyObject *self, PyObject *args)
{
    Py_buffer keys, out;
    Py_ssize_t n, m;
    if (!PyArg_ParseTuple(args, "y*w*", &keys, &out))
        return NULL;
    PyObject *result = NULL;
    if (element_count(&keys, 8, "keys", &n) < 0 || element_count(&out, 8, "out", &m) < 0)
        goto done;
    if (m != n) {
        PyErr_Format(PyExc_ValueError, "out holds %zd hashes for %zd keys", m, n);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    const uint8_t *in = keys.buf;
    uint8_t *to = out.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t h = wang(load64(in + 8 * i));
        memcpy(to + 8 * i, &h, 8);
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&keys);
    PyBuffer_Release(&out);
    return result;
}

static PyObject *py_xxh64_offsets(PyObject *self, PyObject *args)
{
    Py_buffer data, offsets, out;
    int width;
    Py_ssize_t n, m;
    if (!PyArg_ParseTuple(args, "y*y*iw*", &data, &offsets, &width, &out))
        return NULL;
    PyObject *result = NULL;
    if (check_offsets(&data, &offsets, width, &n) < 0 || element_count(&out, 8, "out", &m) < 0)
        goto done;
    if (m != n) {
        PyErr_Format(PyExc_ValueError, "out holds %zd hashes for %zd strings", m, n);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    const uint8_t *bytes = data.buf, *raw = offsets.buf;
    uint8_t *to = out.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t h = string_hash(bytes, raw, width, i);
        memcpy(to + 8 * i, &h, 8);
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&out);
    return result;
}

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
    uint8_t *set = bits.buf;
    const uint8_t *in = values.buf;
    fastmod_t f = fastmod_for((uint32_t)num_bits);
    if (mix)
        BLOOM_ADD(set, f, k, n, wang(load64(in + 8 * i)));
    else
        BLOOM_ADD(set, f, k, n, load64(in + 8 * i));
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
    uint8_t *set = bits.buf;
    const uint8_t *bytes = data.buf, *raw = offsets.buf;
    fastmod_t f = fastmod_for((uint32_t)num_bits);
    BLOOM_ADD(set, f, k, n, string_hash(bytes, raw, width, i));
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
    if (check_bloom(&bits, num_bits) < 0 || element_count(&hashes, 8, "hashes", &n) < 0)
        goto done;
    if (out.len != n) {
        PyErr_Format(PyExc_ValueError, "out holds %zd answers for %zd hashes", out.len, n);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    const uint8_t *set = bits.buf, *in = hashes.buf;
    uint8_t *to = out.buf;
    fastmod_t f = fastmod_for((uint32_t)num_bits);
    if (k > PIPELINE_MAX_K || bits.len < PIPELINE_TEST_BYTES) {
        for (Py_ssize_t i = 0; i < n; i++)
            to[i] = (uint8_t)bloom_test(set, load64(in + 8 * i), f, k);
    } else {
        pipeline_t pipe;
        pipeline_start(&pipe, (uint8_t *)set, f, k);
        for (Py_ssize_t i = 0; i < n; i++)
            if (pipeline_queue(&pipe, load64(in + 8 * i), i))
                pipeline_test(&pipe, to);
        pipeline_test(&pipe, to);
        pipeline_test(&pipe, to);
    }
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
        result = PyBool_FromLong(bloom_test(bits.buf, (uint64_t)hash, fastmod_for((uint32_t)num_bits), k));
    PyBuffer_Release(&bits);
    return result;
}

/* FastHash of one literal: an int is a key (Wang's mix), a bytes-like object is hashed with XXH64 */
static int value_hash(PyObject *value, uint64_t *hash)
{
    if (PyLong_Check(value)) {
        long long key = PyLong_AsLongLong(value);
        if (key == -1 && PyErr_Occurred())
            return -1;
        *hash = wang((uint64_t)key);
        return 0;
    }
    Py_buffer data;
    if (PyObject_GetBuffer(value, &data, PyBUF_SIMPLE) < 0)
        return -1;
    *hash = xxh64(data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    return 0;
}

static PyObject *py_bloom_test_value(PyObject *self, PyObject *args)
{
    Py_buffer bits;
    long long num_bits;
    int k;
    PyObject *value;
    uint64_t hash;
    if (!PyArg_ParseTuple(args, "y*LiO", &bits, &num_bits, &k, &value))
        return NULL;
    PyObject *result = NULL;
    if (check_bloom(&bits, num_bits) == 0 && value_hash(value, &hash) == 0)
        result = PyBool_FromLong(bloom_test(bits.buf, hash, fastmod_for((uint32_t)num_bits), k));
    PyBuffer_Release(&bits);
    return result;
}

static PyObject *py_wang_mix_one(PyObject *self, PyObject *arg)
{
    long long key = PyLong_AsLongLong(arg);
    if (key == -1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLongLong((long long)wang((uint64_t)key));
}


/* ----------------------------------------------------------------------- ByteStream */

/* The reading half of Kaitai Struct's KaitaiStream over one contiguous buffer: the methods the
 * generated readers call, each a C call. Failures call the Python subclass's _fail_eof(requested,
 * available) or _fail_argument(message), which raise the kaitaistruct runtime's own errors
 * (fileindex.kaitai_runtime's CompiledStream). */
typedef struct {
    PyObject_HEAD
    Py_buffer view;
    Py_ssize_t pos;
    int open;
} ByteStream;

static int stream_init(ByteStream *self, PyObject *args, PyObject *kwds)
{
    PyObject *source;
    if (!PyArg_ParseTuple(args, "O", &source))
        return -1;
    if (self->open) {
        PyBuffer_Release(&self->view);
        self->open = 0;
    }
    if (PyObject_GetBuffer(source, &self->view, PyBUF_SIMPLE) < 0)
        return -1;
    self->open = 1;
    self->pos = 0;
    return 0;
}

static void stream_dealloc(ByteStream *self)
{
    if (self->open)
        PyBuffer_Release(&self->view);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *stream_fail_eof(ByteStream *self, Py_ssize_t requested)
{
    Py_ssize_t available = self->view.len > self->pos ? self->view.len - self->pos : 0;
    PyObject *r = PyObject_CallMethod((PyObject *)self, "_fail_eof", "nn", requested, available);
    Py_XDECREF(r);
    if (!PyErr_Occurred())
        PyErr_Format(PyExc_EOFError, "requested %zd bytes, but only %zd bytes available", requested, available);
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
    Py_ssize_t available = self->view.len > self->pos ? self->view.len - self->pos : 0;
    if (n > available) {
        stream_fail_eof(self, n);
        if (self->pos < self->view.len)
            self->pos = self->view.len;  /* as KaitaiStream: its short read consumed what was left */
        return NULL;
    }
    const uint8_t *at = (const uint8_t *)self->view.buf + (n ? self->pos : 0);  /* n == 0 may sit past the end */
    self->pos += n;
    return at;
}

static inline uint64_t load_be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

static inline uint64_t load_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
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
        int shift = 64 - 8 * width;                                                                     \
        return PyLong_FromLongLong(shift ? (int64_t)(v << shift) >> shift : (int64_t)v);                \
    }

READ_INT(read_u1, 1, load_be, 0)
READ_INT(read_s1, 1, load_be, 1)
READ_INT(read_u2be, 2, load_be, 0)
READ_INT(read_s2be, 2, load_be, 1)
READ_INT(read_u4be, 4, load_be, 0)
READ_INT(read_s4be, 4, load_be, 1)
READ_INT(read_u8be, 8, load_be, 0)
READ_INT(read_s8be, 8, load_be, 1)
READ_INT(read_u2le, 2, load_le, 0)
READ_INT(read_s2le, 2, load_le, 1)
READ_INT(read_u4le, 4, load_le, 0)
READ_INT(read_s4le, 4, load_le, 1)
READ_INT(read_u8le, 8, load_le, 0)
READ_INT(read_s8le, 8, load_le, 1)

static PyObject *stream_read_bytes(ByteStream *self, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return NULL;
        PyErr_Clear();  /* more bytes than any buffer holds: the end of the stream, as KaitaiStream says */
        if (stream_check_open(self) == 0)
            stream_fail_eof(self, PY_SSIZE_T_MAX);
        return NULL;
    }
    if (n < 0) {
        PyObject *r = PyObject_CallMethod((PyObject *)self, "_fail_argument", "N",
                                          PyUnicode_FromFormat("requested invalid %zd amount of bytes", n));
        Py_XDECREF(r);
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "requested invalid %zd amount of bytes", n);
        return NULL;
    }
    const uint8_t *p = stream_take(self, n);
    return p ? PyBytes_FromStringAndSize((const char *)p, n) : NULL;
}

static PyObject *stream_read_bytes_full(ByteStream *self, PyObject *unused)
{
    if (stream_check_open(self) < 0)
        return NULL;
    Py_ssize_t start = self->pos < self->view.len ? self->pos : self->view.len;
    self->pos = self->view.len > self->pos ? self->view.len : self->pos;
    return PyBytes_FromStringAndSize((const char *)self->view.buf + start, self->view.len - start);
}

static PyObject *stream_seek(ByteStream *self, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 0) {
        PyObject *r = PyObject_CallMethod((PyObject *)self, "_fail_argument", "N",
                                          PyUnicode_FromFormat("cannot seek to invalid position %zd", n));
        Py_XDECREF(r);
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "cannot seek to invalid position %zd", n);
        return NULL;
    }
    if (stream_check_open(self) < 0)
        return NULL;
    self->pos = n;
    Py_RETURN_NONE;
}

static PyObject *stream_pos(ByteStream *self, PyObject *unused) { return PyLong_FromSsize_t(self->pos); }

static PyObject *stream_size(ByteStream *self, PyObject *unused)
{
    if (stream_check_open(self) < 0)
        return NULL;
    return PyLong_FromSsize_t(self->view.len);
}

static PyObject *stream_is_eof(ByteStream *self, PyObject *unused)
{
    if (stream_check_open(self) < 0)
        return NULL;
    return PyBool_FromLong(self->pos >= self->view.len);
}

static PyObject *stream_align_to_byte(ByteStream *self, PyObject *unused) { Py_RETURN_NONE; }

static PyObject *stream_close(ByteStream *self, PyObject *unused)
{
    if (self->open) {
        PyBuffer_Release(&self->view);
        self->open = 0;
    }
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

static PyTypeObject ByteStreamType = {
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

/* bit_slices: for each bit b in [first_bit, first_bit + num_bits), the rows whose value (unsigned, 4 or
   8 bytes) has bit b set: a bsi's or range-bitmap's slices. Callers take a few bits a call to bound
   the memory of the lists. */
static inline uint64_t value_at(const uint8_t *values, int width, Py_ssize_t i)
{
    return width == 8 ? load64(values + 8 * i) : load32(values + 4 * i);
}

static PyObject *py_bit_slices(PyObject *self, PyObject *args)
{
    Py_buffer rows, values;
    int width, first_bit, num_bits;
    if (!PyArg_ParseTuple(args, "y*y*iii", &rows, &values, &width, &first_bit, &num_bits))
        return NULL;
    PyObject *result = NULL, *slices[64] = {NULL};
    Py_ssize_t n, m, counts[64] = {0};
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
    if (first_bit < 0 || num_bits < 0 || first_bit + num_bits > 64) {
        PyErr_Format(PyExc_ValueError, "bits [%d, %d): a value has bits 0 to 63", first_bit, first_bit + num_bits);
        goto done;
    }
    const uint8_t *row_bytes = rows.buf, *value_bytes = values.buf;
    const int shift = num_bits ? first_bit : 0;
    const uint64_t kept = num_bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << num_bits) - 1);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        for (uint64_t bits = (value_at(value_bytes, width, i) >> shift) & kept; bits; bits &= bits - 1)
            counts[__builtin_ctzll(bits)]++;
    Py_END_ALLOW_THREADS
    uint8_t *out[64];
    for (int b = 0; b < num_bits; b++) {
        if (!(slices[b] = PyBytes_FromStringAndSize(NULL, 4 * counts[b])))
            goto done;
        out[b] = (uint8_t *)PyBytes_AS_STRING(slices[b]);
    }
    Py_BEGIN_ALLOW_THREADS  /* the new bytes objects are not shared yet */
    for (Py_ssize_t i = 0; i < n; i++)
        for (uint64_t bits = (value_at(value_bytes, width, i) >> shift) & kept; bits; bits &= bits - 1) {
            int b = __builtin_ctzll(bits);
            memcpy(out[b], row_bytes + 4 * i, 4);
            out[b] += 4;
        }
    Py_END_ALLOW_THREADS
    if (!(result = PyList_New(num_bits)))
        goto done;
    for (int b = 0; b < num_bits; b++) {
        PyList_SET_ITEM(result, b, slices[b]);
        slices[b] = NULL;
    }
done:
    for (int b = 0; b < 64; b++)
        Py_XDECREF(slices[b]);
    PyBuffer_Release(&rows);
    PyBuffer_Release(&values);
    return result;
}

/* roaring_size: how many bytes the portable-format Roaring bitmap at ``start`` takes (the framing of
   specs/roaring_bitmap.ksy, as roaring.portable_size computes it), or -1 wherever that raises: the
   caller then runs the reference to raise the placed error. */
static inline uint16_t load16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

static Py_ssize_t roaring_size(const uint8_t *p, Py_ssize_t end, Py_ssize_t start)
{
    if (start < 0 || start > end || end - start < 4)
        return -1;
    uint32_t cookie = load32(p + start);
    Py_ssize_t pos = start + 4, count;
    const uint8_t *run_flags = NULL;
    int has_runs = (cookie & 0xFFFF) == 12347;
    if (has_runs) {
        count = (Py_ssize_t)(cookie >> 16) + 1;
        if (end - pos < (count + 7) / 8)
            return -1;
        run_flags = p + pos;
        pos += (count + 7) / 8;
    } else if (cookie == 12346) {
        if (end - pos < 4)
            return -1;
        count = (Py_ssize_t)load32(p + pos);
        pos += 4;
    } else {
        return -1;
    }
    if (count > 65536 || end - pos < 4 * count)
        return -1;
    const uint8_t *descriptions = p + pos;
    pos += 4 * count;
    if (!has_runs || count >= 4)
        pos += 4 * count; /* the offsets table, unread */
    for (Py_ssize_t i = 0; i < count; i++) {
        if (has_runs && (run_flags[i / 8] >> (i % 8)) & 1) {
            if (pos < 0 || pos > end || end - pos < 2)
                return -1;
            pos += 2 + 4 * (Py_ssize_t)load16(p + pos);
        } else {
            Py_ssize_t card = (Py_ssize_t)load16(descriptions + 4 * i + 2) + 1;
            pos += card <= 4096 ? 2 * card : 8192;
        }
    }
    return pos > end ? -1 : pos - start;
}

static PyObject *py_roaring_size(PyObject *self, PyObject *args)
{
    Py_buffer data;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "y*n", &data, &start))
        return NULL;
    Py_ssize_t size = roaring_size(data.buf, data.len, start);
    PyBuffer_Release(&data);
    return PyLong_FromSsize_t(size);
}

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
    {"roaring_size", py_roaring_size, METH_VARARGS,
     "roaring_size(data, start) -> bytes of the portable Roaring bitmap at start, or -1 if it does not frame"},
    {"bit_slices", py_bit_slices, METH_VARARGS,
     "bit_slices(rows, values, width, first_bit, num_bits) -> [bytes]: per bit, the uint32 rows whose value has it"},
    {"bloom_test_value", py_bloom_test_value, METH_VARARGS,
     "bloom_test_value(bits, num_bits, k, value) -> bool: an int key or bytes, hashed here"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "fileindex._kernels",
    "Compiled loops for FastHash, XXH64, BloomFilter64, bit slices and the generated readers' stream (see fileindex.kernels).", -1, methods,
};

PyMODINIT_FUNC PyInit__kernels(void)
{
    if (PyType_Ready(&ByteStreamType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddObjectRef(m, "ByteStream", (PyObject *)&ByteStreamType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
