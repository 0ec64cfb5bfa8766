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
 * 12 MB set, k = 7: 150 ns/row in order, 40 with the groups). A set that the caches hold is faster
 * without the prefetches, the processor overlapping the row's k bits itself (measured, k = 7, 1M strings
 * into 1.2 MB: 36-37 ns/row in order against 41-43 in these groups; it takes the vector groups below where
 * it can), and so are probes, which stop at the first clear bit
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

/* A set that the caches hold takes its rows in groups of GROUP_ROWS where the processor has AVX2: a group's k
 * positions a row are computed four rows to a vector (Lemire's remainder in 32-bit pieces: vpmuludq), then set in
 * order. Computing them one at a time took most of a row's instructions; 1M BIGINT keys into bench.py's 1.2 MB set,
 * k = 7, in a C harness: 10.1-10.6 ns/row against 13.4-14.3 in order. (Prefetching a group ahead, or hashing the
 * keys in vectors too, measured no faster: the bits' read-modify-writes are what is left.) */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define GROUP_ROWS 8
#define AVX2 __attribute__((target("avx2")))

static int has_avx2(void) { return __builtin_cpu_supports("avx2"); }

/* fastmod of the low 32 bits of each 64-bit lane, in each lane's low 32 bits: M*x mod 2^64 from the two halves of
 * M, then (that * d) >> 64 from its two halves (every product 32 x 32 bits, none overflowing 64) */
AVX2 static inline __m256i fastmod_lanes(__m256i x, __m256i magic_low, __m256i magic_high, __m256i divisor)
{
    __m256i low = _mm256_add_epi64(_mm256_mul_epu32(x, magic_low),
                                   _mm256_slli_epi64(_mm256_mul_epu32(x, magic_high), 32));
    __m256i carry = _mm256_srli_epi64(_mm256_mul_epu32(low, divisor), 32);
    return _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(low, 32), divisor), carry), 32);
}

/* bloom_set of GROUP_ROWS hashes: combined (h1 + i*h2, ~c when negative) in each lane's low 32 bits */
AVX2 static inline void bloom_set_group(uint8_t *bits, const uint64_t *hashes, fastmod_t f, int k)
{
    const __m256i magic_low = _mm256_set1_epi64x((int64_t)(uint32_t)f.magic);
    const __m256i magic_high = _mm256_set1_epi64x((int64_t)(f.magic >> 32));
    const __m256i divisor = _mm256_set1_epi64x(f.divisor);
    const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    uint32_t positions[GROUP_ROWS * PIPELINE_MAX_K], *out = positions;
    for (int row = 0; row < GROUP_ROWS; row += 4) {
        __m256i combined = _mm256_loadu_si256((const __m256i *)(hashes + row));
        const __m256i h2 = _mm256_srli_epi64(combined, 32);
        for (int i = 0; i < k; i++, out += 4) {
            combined = _mm256_add_epi32(combined, h2);
            __m256i x = _mm256_xor_si256(combined, _mm256_srai_epi32(combined, 31));
            __m256i position = _mm256_permutevar8x32_epi32(fastmod_lanes(x, magic_low, magic_high, divisor), low_halves);
            _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(position));
        }
    }
    for (const uint32_t *position = positions; position < out; position++)
        set_bit(bits, *position);
}

/* Set the bits of n hashes in groups, HASH(i) the i-th: the body of an AVX2 function below */
#define BLOOM_SET_GROUPS(bits, f, k, n, HASH)                                                    \
    do {                                                                                        \
        uint64_t group_[GROUP_ROWS];                                                            \
        size_t i = 0;                                                                           \
        while (i + GROUP_ROWS <= (n)) {                                                         \
            for (int row_ = 0; row_ < GROUP_ROWS; row_++, i++)                                  \
                group_[row_] = (HASH);                                                          \
            bloom_set_group((bits), group_, (f), (k));                                          \
        }                                                                                       \
        for (; i < (n); i++)                                                                    \
            bloom_set((bits), (HASH), (f), (k));                                                \
    } while (0)

AVX2 static void add_hashes_in_groups(uint8_t *bits, fastmod_t f, int k, const uint8_t *hashes, size_t n)
{
    BLOOM_SET_GROUPS(bits, f, k, n, fi_load64(hashes + 8 * i));
}

AVX2 static void add_longs_in_groups(uint8_t *bits, fastmod_t f, int k, const uint8_t *keys, size_t n)
{
    BLOOM_SET_GROUPS(bits, f, k, n, fi_wang(fi_load64(keys + 8 * i)));
}

AVX2 static void add_strings_in_groups(uint8_t *bits, fastmod_t f, int k, const uint8_t *data, const uint8_t *offsets,
                                       int width, size_t n)
{
    if (width == 8)
        BLOOM_SET_GROUPS(bits, f, k, n, fi_string_hash(data, offsets, 8, i));
    else
        BLOOM_SET_GROUPS(bits, f, k, n, fi_string_hash(data, offsets, 4, i));
}

/* `call` and return, where the set is added to in groups */
#define IN_GROUPS_WHERE_ABLE(f, k, call)                                                          \
    if ((k) > 0 && (k) <= PIPELINE_MAX_K && (f).divisor / 8 < PIPELINE_MIN_BYTES && has_avx2()) { \
        call;                                                                                   \
        return;                                                                                 \
    }
#else
#define IN_GROUPS_WHERE_ABLE(f, k, call)
#endif

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
    IN_GROUPS_WHERE_ABLE(f, k, add_hashes_in_groups(bits, f, k, hashes, n))
    BLOOM_ADD(bits, f, k, n, fi_load64(hashes + 8 * i));
}

void fi_bloom_add_longs(uint8_t *bits, uint32_t num_bits, int k, const uint8_t *keys, size_t n)
{
    fastmod_t f = fastmod_for(num_bits);
    IN_GROUPS_WHERE_ABLE(f, k, add_longs_in_groups(bits, f, k, keys, n))
    BLOOM_ADD(bits, f, k, n, fi_wang(fi_load64(keys + 8 * i)));
}

void fi_bloom_add_strings(uint8_t *bits, uint32_t num_bits, int k, const uint8_t *data, const uint8_t *offsets,
                          int width, size_t n)
{
    fastmod_t f = fastmod_for(num_bits);
    IN_GROUPS_WHERE_ABLE(f, k, add_strings_in_groups(bits, f, k, data, offsets, width, n))
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
