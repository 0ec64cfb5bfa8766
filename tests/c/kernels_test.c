/*
 * The loops of csrc/ called directly, without Python (compiled and run by tests/test_kernels_c.py).
 *
 *   kernels_test NUM_BITS K ROARING_FILE
 *
 * Checks what C alone can (the loops agree with each other and with straightforward loops, a
 * hand-made Roaring bitmap frames, a hand-made column table reads and none of its cuts does, hand-made hybrid runs give their values and every cut of them
 * reads no byte past it (the sanitizer), the cursor keeps KaitaiStream's rules, the Roaring bitmap written
 * back from its rows is the same bytes) and prints what the
 * Python test compares with the reference implementations: "xxh64 HEX HASH", "wang KEY HASH",
 * "bloom HEX" (the bits of keys 0..999 in a set of NUM_BITS bits with K functions), "roaring SIZE".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bit_slices.h"
#include "bloom.h"
#include "byte_stream.h"
#include "column_table.h"
#include "hashing.h"
#include "hybrid.h"
#include "load.h"
#include "roaring.h"

static int failures;

#define CHECK(condition)                                                               \
    do {                                                                               \
        if (!(condition)) {                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
            failures++;                                                                \
        }                                                                              \
    } while (0)

static uint64_t next_random(uint64_t *state)  /* splitmix64 */
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static void hashing(void)
{
    CHECK(fi_xxh64((const uint8_t *)"", 0) == UINT64_C(0xEF46DB3751D8E999));  /* XXH64's published empty hash */
    uint8_t data[100];
    for (int i = 0; i < 100; i++)
        data[i] = (uint8_t)(i * 7 + 3);
    /* lengths around each of XXH64's branches: the 32-byte stripes, 8-, 4- and 1-byte tails */
    const size_t lengths[] = {0, 1, 3, 4, 7, 8, 12, 31, 32, 33, 63, 64, 65, 100};
    int32_t offsets[15] = {0};
    uint8_t concatenated[1000];
    size_t used = 0;
    for (size_t i = 0; i < 14; i++) {
        printf("xxh64 ");
        for (size_t j = 0; j < lengths[i]; j++)
            printf("%02x", data[j]);
        printf("%s %" PRIu64 "\n", lengths[i] ? "" : "-", fi_xxh64(data, lengths[i]));
        memcpy(concatenated + used, data, lengths[i]);
        used += lengths[i];
        offsets[i + 1] = (int32_t)used;
    }
    CHECK(fi_offsets_first_bad((const uint8_t *)offsets, 4, 15, used) == -1);
    uint8_t out[14 * 8];
    fi_xxh64_offsets(concatenated, (const uint8_t *)offsets, 4, 14, out);
    for (size_t i = 0; i < 14; i++)
        CHECK(fi_load64(out + 8 * i) == fi_xxh64(data, lengths[i]));
    int64_t wide[15];
    for (int i = 0; i < 15; i++)
        wide[i] = offsets[i];
    fi_xxh64_offsets(concatenated, (const uint8_t *)wide, 8, 14, out);
    for (size_t i = 0; i < 14; i++)
        CHECK(fi_load64(out + 8 * i) == fi_xxh64(data, lengths[i]));

    int32_t decreasing[] = {0, 5, 4}, negative[] = {-1, 2}, past_end[] = {0, 3, 11};
    CHECK(fi_offsets_first_bad((const uint8_t *)decreasing, 4, 3, 10) == 2);
    CHECK(fi_offsets_first_bad((const uint8_t *)negative, 4, 2, 10) == 0);
    CHECK(fi_offsets_first_bad((const uint8_t *)past_end, 4, 3, 10) == 2);

    const int64_t keys[] = {0, 1, -1, 42, INT64_MIN, INT64_MAX, 1234567890123LL, -987654321};
    uint8_t mixed[8 * 8];
    fi_wang_mix((const uint8_t *)keys, 8, mixed);
    for (int i = 0; i < 8; i++) {
        CHECK(fi_load64(mixed + 8 * i) == fi_wang((uint64_t)keys[i]));
        printf("wang %" PRId64 " %" PRId64 "\n", keys[i], (int64_t)fi_wang((uint64_t)keys[i]));
    }
}

static void bloom_small(uint32_t num_bits, int k)
{
    CHECK(fi_bloom_holds(num_bits / 8, num_bits));
    CHECK(!fi_bloom_holds(num_bits / 8 + 1, num_bits) && !fi_bloom_holds(1, 12) && !fi_bloom_holds(0, 0));
    int64_t keys[1000];
    uint64_t hashes[1000];
    for (int i = 0; i < 1000; i++) {
        keys[i] = i;
        hashes[i] = fi_wang((uint64_t)i);
    }
    uint8_t *by_key = calloc(num_bits / 8, 1), *by_hash = calloc(num_bits / 8, 1), found[1000];
    fi_bloom_add_longs(by_key, num_bits, k, (const uint8_t *)keys, 1000);
    fi_bloom_add_hashes(by_hash, num_bits, k, (const uint8_t *)hashes, 1000);
    CHECK(memcmp(by_key, by_hash, num_bits / 8) == 0);
    fi_bloom_test_hashes(by_key, num_bits, k, (const uint8_t *)hashes, 1000, found);
    for (int i = 0; i < 1000; i++)
        CHECK(found[i] == 1 && fi_bloom_test_hash(by_key, num_bits, k, hashes[i]));
    printf("bloom ");
    for (uint32_t i = 0; i < num_bits / 8; i++)
        printf("%02x", by_key[i]);
    printf("\n");
    free(by_key);
    free(by_hash);
}

/* over 4 MB the probes are pipelined: their answers must equal the one-at-a-time probe's */
static void bloom_large(void)
{
    const uint32_t num_bits = 8u * (5u << 20);
    const size_t n = 20000;
    uint8_t *bits = calloc(num_bits / 8, 1), *found = malloc(2 * n);
    uint64_t *hashes = malloc(2 * n * 8), state = 7;
    for (size_t i = 0; i < 2 * n; i++)
        hashes[i] = next_random(&state);
    fi_bloom_add_hashes(bits, num_bits, 7, (const uint8_t *)hashes, n);  /* the first half present */
    fi_bloom_test_hashes(bits, num_bits, 7, (const uint8_t *)hashes, 2 * n, found);
    size_t absent_found = 0;
    fi_bloom_sizing sizing = fi_bloom_sizing_of(num_bits, 7);
    for (size_t i = 0; i < 2 * n; i++) {
        CHECK(found[i] == fi_bloom_test_hash(bits, num_bits, 7, hashes[i]));
        CHECK(found[i] == fi_bloom_test_sized(bits, &sizing, hashes[i]));
        if (i < n)
            CHECK(found[i] == 1);
        else
            absent_found += found[i];
    }
    CHECK(absent_found < n / 100);
    uint8_t none[1] = {0};  /* k <= 0 sets nothing and finds everything, as Java's loop */
    fi_bloom_add_hashes(none, 8, 0, (const uint8_t *)hashes, 1);
    CHECK(none[0] == 0 && fi_bloom_test_hash(none, 8, -1, hashes[0]));
    fi_bloom_sizing no_functions = fi_bloom_sizing_of(8, 0);
    CHECK(fi_bloom_test_sized(none, &no_functions, hashes[0]));
    free(bits);
    free(found);
    free(hashes);
}

static void bit_slices(void)
{
    enum { N = 500, WORDS = (3 * N + 1) / 64 + 1 };
    uint32_t rows[N];
    uint64_t values[N], state = 11;
    for (uint32_t i = 0; i < N; i++) {
        rows[i] = 3 * i + 1;
        values[i] = next_random(&state) >> (i % 64);
    }
    CHECK(fi_bit_slices_valid(8, 0, 64) && fi_bit_slices_valid(4, 60, 4));
    CHECK(!fi_bit_slices_valid(2, 0, 8) && !fi_bit_slices_valid(8, 60, 5) && !fi_bit_slices_valid(8, -1, 2));
    const int first = 5, num = 40;
    uint64_t *words = calloc((size_t)num * WORDS, 8);
    fi_bit_slice_words((const uint8_t *)rows, (const uint8_t *)values, 8, N, first, num, words, WORDS);
    for (int b = 0; b < num; b++)
        for (uint32_t r = 0; r < 64 * WORDS; r++) {
            int expected = r % 3 == 1 && r / 3 < N && (values[r / 3] >> (first + b) & 1);
            CHECK((int)(words[(size_t)b * WORDS + r / 64] >> (r % 64) & 1) == expected);
        }
    free(words);
}

/* the bitmap's rows, written back from the rows and from a bitset of them: the same bytes (pyroaring wrote them) */
static void roaring_rewritten(const uint8_t *data, int64_t size)
{
    int64_t n = fi_roaring_cardinality(data, size, 0);
    uint32_t *rows = malloc(4 * (size_t)n + 4);
    CHECK(fi_roaring_rows(data, size, 0, rows, n) == n && n > 0);
    size_t num_words = rows[n - 1] / 64 + 1;
    uint64_t *words = calloc(num_words, 8);
    for (int64_t i = 0; i < n; i++)
        words[rows[i] / 64] |= (uint64_t)1 << (rows[i] % 64);
    void *scratch = malloc(FI_ROARING_SCRATCH);
    uint8_t *out = malloc(fi_roaring_write_bound((size_t)n)), *from_words = malloc(fi_roaring_words_bound(num_words));
    size_t written = fi_roaring_write(rows, (size_t)n, scratch, out);
    CHECK(written == (size_t)size && memcmp(out, data, written) == 0);
    written = fi_roaring_write_words(words, num_words, scratch, from_words);
    CHECK(written == (size_t)size && memcmp(from_words, data, written) == 0);
    CHECK(fi_roaring_write(rows, 0, scratch, out) == 8 && fi_roaring_write_words(words, 0, scratch, out) == 8);
    free(rows);
    free(words);
    free(scratch);
    free(out);
    free(from_words);
}

static void roaring_file(const char *path)
{
    /* a bitmap of one value, framed by hand: cookie 12346, 1 container, key 0 and cardinality - 1 = 0,
       the offsets table, one 2-byte array value; then a byte that is not its own */
    const uint8_t one[] = {0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 7, 0, 0xff};
    CHECK(fi_roaring_size(one, 19, 0) == 18);
    CHECK(fi_roaring_size(one, 17, 0) == -1 && fi_roaring_size(one, 19, 1) == -1 && fi_roaring_size(one, 19, 20) == -1);

    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    static uint8_t data[1 << 20];
    int64_t size = (int64_t)fread(data, 1, sizeof data, f);
    fclose(f);
    int64_t framed = fi_roaring_size(data, size, 0);
    printf("roaring %" PRId64 "\n", framed);
    for (int64_t end = 0; end < framed; end++)  /* every cut of it does not frame */
        CHECK(fi_roaring_size(data, end, 0) == -1);
    roaring_rewritten(data, framed);
}

static void column_table(void)
{
    /* one column "id" with two indexes "x" and "yz" (version 1: s4 start and length), then 2 bytes after */
    const uint8_t table[] = {0, 0, 0, 1, 0, 2, 'i', 'd', 0, 0, 0, 2,
                             0, 1, 'x', 0, 0, 0, 40, 0, 0, 0, 5,
                             0, 2, 'y', 'z', 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 7, 7};
    int64_t entries, end = (int64_t)sizeof table;
    CHECK(fi_column_table_end(table, 0, end, 8, &entries) == end - 2 && entries == 2);
    for (int64_t cut = 0; cut < end - 2; cut++)  /* every cut of it does not read */
        CHECK(fi_column_table_end(table, 0, cut, 8, &entries) == -1);
    CHECK(fi_column_table_end(table, 0, end, 16, &entries) == -1);  /* version 2's positions run past the end */
    CHECK(fi_column_table_end(table, 5, 4, 8, &entries) == -1);
    const uint8_t negative[] = {0xff, 0xff, 0xff, 0xff}, no_indexes[] = {0, 0, 0, 1, 0, 0, 0x80, 0, 0, 0};
    CHECK(fi_column_table_end(negative, 0, 4, 8, &entries) == -1);
    CHECK(fi_column_table_end(no_indexes, 0, 10, 8, &entries) == -1);
    const uint8_t empty[] = {0, 0, 0, 0};
    CHECK(fi_column_table_end(empty, 0, 4, 16, &entries) == 4 && entries == 0);
}

/* runs of 3-bit values: an RLE run of 9 fives, a bit-packed group of 0..7, an RLE run of 2 sixes (19 values) */
static void hybrid(void)
{
    const uint8_t runs[] = {9 << 1, 5, (1 << 1) | 1, 0x88, 0xC6, 0xFA, 2 << 1, 6};
    const int64_t positions[] = {0, 8, 9, 12, 18};
    const uint32_t expected[] = {5, 5, 0, 3, 6};
    uint32_t out[5] = {0};
    CHECK(fi_hybrid_take(runs, sizeof runs, 3, positions, 5, out) == (int64_t)sizeof runs);
    CHECK(memcmp(out, expected, sizeof out) == 0);
    CHECK(fi_hybrid_take(runs, sizeof runs, 3, positions, 4, out) == 6);  /* read up to the run of the last */
    const int64_t past[] = {19};
    CHECK(fi_hybrid_take(runs, sizeof runs, 3, past, 1, out) == -1 - (int64_t)sizeof runs);
    for (size_t cut = 0; cut < sizeof runs; cut++) {  /* each cut in a heap block of its size: no read past it */
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, runs, cut);
        int64_t read = fi_hybrid_take(copy, cut, 3, positions, 5, out);
        CHECK(read < 0 && -1 - read <= (int64_t)cut);
        free(copy);
    }
    const uint8_t long_header[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    CHECK(fi_hybrid_take(long_header, sizeof long_header, 3, positions, 1, out) == -1);
    const uint8_t wide[] = {(1 << 1) | 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0,
                            3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0};  /* 32-bit values */
    const int64_t all[] = {0, 7};
    CHECK(fi_hybrid_take(wide, sizeof wide, 32, all, 2, out) == (int64_t)sizeof wide && out[0] == 0xffffffffu
          && out[1] == 6);
}

static void cursor(void)
{
    const uint8_t bytes[] = {0x80, 0x01, 0x02, 0xff};
    CHECK(fi_load_be(bytes, 2) == 0x8001 && fi_load_le(bytes, 2) == 0x0180);
    CHECK(fi_sign_extend(fi_load_be(bytes, 1), 1) == -128 && fi_sign_extend(fi_load_le(bytes, 4), 4) == -16645760);
    fi_cursor c = {bytes, 4, 0};
    CHECK(fi_cursor_take(&c, 3) == bytes && c.pos == 3);
    CHECK(fi_cursor_take(&c, 2) == NULL && c.pos == 4);  /* a short read consumes what was left */
    c.pos = 10;  /* a position past the end is allowed; reading there fails */
    CHECK(fi_cursor_available(&c) == 0 && fi_cursor_take(&c, 1) == NULL && c.pos == 10);
    CHECK(fi_cursor_take(&c, 0) != NULL);
    size_t n;
    fi_cursor_rest(&c, &n);
    CHECK(n == 0 && c.pos == 10);
    c.pos = 1;
    CHECK(fi_cursor_rest(&c, &n) == bytes + 1 && n == 3 && c.pos == 4);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s NUM_BITS K ROARING_FILE\n", argv[0]);
        return 2;
    }
    hashing();
    bloom_small((uint32_t)strtoul(argv[1], NULL, 10), atoi(argv[2]));
    bloom_large();
    bit_slices();
    roaring_file(argv[3]);
    column_table();
    hybrid();
    cursor();
    if (failures)
        fprintf(stderr, "%d checks failed\n", failures);
    return failures ? 1 : 0;
}
