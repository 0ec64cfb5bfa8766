#include "bloom.h"

#include "hashing.h"

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

/* Bits of a large set are set, and tested, a group of rows behind: the positions of a group are
 * computed and prefetched while the previous group's are used. Reading a byte to set one of its bits
 * otherwise waits for memory on every bit once the set outgrows the cache (measured on 10M rows, a
 * 12 MB set, k = 7: 150 ns/row in order, 40 with the groups). A set that the caches hold is faster in
 * order, the processor overlapping the row's k bits itself (measured, k = 7, 1M strings into 1.2 MB:
 * 36-37 ns/row in order against 41-43 in groups), and so are probes, which stop at the first clear bit
 * where the groups cannot (half the probes absent: 1.2 MB 25 ns in order against 36 in groups; 12 MB 180
 * against 83 ns). A filter with more than PIPELINE_MAX_K hash functions (none that Paimon's sizing gives
 * for fpp >= 1e-9) goes in order. */
#define PIPELINE_ROWS 16
#define PIPELINE_MAX_K 32
#define PIPELINE_MIN_BYTES (4 << 20)

typedef struct {
    uint8_t *bits;
    fastmod_t f;
    int k;
    int filling;                    /* the group being computed; the other is applied next */
    size_t rows[2];                 /* rows in each group */
    size_t first[2];                /* tester: the index of each group's first row */
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
static inline int pipeline_queue(pipeline_t *p, uint64_t hash, size_t row)
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
static inline const uint32_t *pipeline_flip(pipeline_t *p, size_t *rows, size_t *first)
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
    size_t rows, first;
    const uint32_t *positions = pipeline_flip(p, &rows, &first);
    for (size_t j = 0; j < rows * p->k; j++)
        set_bit(p->bits, positions[j]);
}

static inline void pipeline_test(pipeline_t *p, uint8_t *answers)
{
    size_t rows, first;
    const uint32_t *positions = pipeline_flip(p, &rows, &first);
    for (size_t r = 0; r < rows; r++) {
        int found = 1;
        for (int j = 0; j < p->k && found; j++)
            found = bit_is_set(p->bits, positions[r * p->k + j]);
        answers[first + r] = (uint8_t)found;
    }
}

/* Set the bits of n hashes, HASH(i) the i-th (an expression of i). */
#define BLOOM_ADD(bits, f, k, n, HASH)                                                           \
    do {                                                                                        \
        if ((k) <= 0)                                                                           \
            break;                                                                              \
        if ((k) > PIPELINE_MAX_K || (f).divisor / 8 < PIPELINE_MIN_BYTES) {                     \
            for (size_t i = 0; i < (n); i++)                                                    \
                bloom_set((bits), (HASH), (f), (k));                                            \
            break;                                                                              \
        }                                                                                       \
        pipeline_t pipe_;                                                                       \
        pipeline_start(&pipe_, (bits), (f), (k));                                               \
        for (size_t i = 0; i < (n); i++)                                                        \
            if (pipeline_queue(&pipe_, (HASH), i))                                              \
                pipeline_set(&pipe_);                                                           \
        pipeline_set(&pipe_);                                                                   \
        pipeline_set(&pipe_);                                                                   \
    } while (0)

int fi_bloom_holds(size_t size, int64_t num_bits)
{
    return num_bits > 0 && num_bits <= INT32_MAX && num_bits % 8 == 0 && (uint64_t)size * 8 == (uint64_t)num_bits;
}

void fi_bloom_add_hashes(uint8_t *bits, uint32_t num_bits, int k, const uint8_t *hashes, size_t n)
{
    fastmod_t f = fastmod_for(num_bits);
    BLOOM_ADD(bits, f, k, n, fi_load64(hashes + 8 * i));
}

void fi_bloom_add_longs(uint8_t *bits, uint32_t num_bits, int k, const uint8_t *keys, size_t n)
{
    fastmod_t f = fastmod_for(num_bits);
    BLOOM_ADD(bits, f, k, n, fi_wang(fi_load64(keys + 8 * i)));
}

void fi_bloom_add_strings(uint8_t *bits, uint32_t num_bits, int k, const uint8_t *data, const uint8_t *offsets,
                          int width, size_t n)
{
    fastmod_t f = fastmod_for(num_bits);
    if (width == 8)  /* a copy of the loop for each width, the branch out of it */
        BLOOM_ADD(bits, f, k, n, fi_string_hash(data, offsets, 8, i));
    else
        BLOOM_ADD(bits, f, k, n, fi_string_hash(data, offsets, 4, i));
}

void fi_bloom_test_hashes(const uint8_t *bits, uint32_t num_bits, int k, const uint8_t *hashes, size_t n,
                          uint8_t *out)
{
    fastmod_t f = fastmod_for(num_bits);
    if (k <= 0 || k > PIPELINE_MAX_K || num_bits / 8 < PIPELINE_MIN_BYTES) {
        for (size_t i = 0; i < n; i++)
            out[i] = (uint8_t)bloom_test(bits, fi_load64(hashes + 8 * i), f, k);
        return;
    }
    pipeline_t pipe;
    pipeline_start(&pipe, (uint8_t *)bits, f, k);  /* the tester only reads the bits */
    for (size_t i = 0; i < n; i++)
        if (pipeline_queue(&pipe, fi_load64(hashes + 8 * i), i))
            pipeline_test(&pipe, out);
    pipeline_test(&pipe, out);
    pipeline_test(&pipe, out);
}

/* One hash tests all k bits, with no branch on them: a probe alone waits for memory either way, and half of the
 * probes of a selective query are absent, where the early exit mispredicts (in a C harness over the 1.2 MB filter
 * of bench.py's BIGINT rows: 16-21 ns a probe against 19-31 with the exit). */
static inline int bloom_test_all(const uint8_t *bits, uint64_t hash, fastmod_t f, int k)
{
    uint32_t h2 = (uint32_t)(hash >> 32), combined = (uint32_t)hash;
    int all = 1;
    for (int i = 0; i < k; i++) {
        combined += h2;
        all &= bit_is_set(bits, fastmod((int32_t)combined < 0 ? ~combined : combined, f));
    }
    return all;
}

int fi_bloom_test_hash(const uint8_t *bits, uint32_t num_bits, int k, uint64_t hash)
{
    return bloom_test_all(bits, hash, fastmod_for(num_bits), k);
}

fi_bloom_sizing fi_bloom_sizing_of(uint32_t num_bits, int k)
{
    fi_bloom_sizing sizing = {fastmod_for(num_bits).magic, num_bits, k};
    return sizing;
}

int fi_bloom_test_sized(const uint8_t *bits, const fi_bloom_sizing *sizing, uint64_t hash)
{
    fastmod_t f = {sizing->magic, sizing->num_bits};
    return bloom_test_all(bits, hash, f, sizing->k);
}
