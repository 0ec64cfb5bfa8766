#include <string.h>

#include "roaring.h"

#define SERIAL_COOKIE_NO_RUNCONTAINER 12346
#define SERIAL_COOKIE 12347
#define ARRAY_MAX 4096          /* Java's ArrayContainer.DEFAULT_MAX_SIZE: more rows make a bitset */
#define BITSET_BYTES 8192
#define NO_OFFSET_THRESHOLD 4
#define WORDS 1024              /* 64-bit words of a bitset container */   /* a bitmap with runs lists its containers' offsets from this many containers */

enum container_kind { ARRAY, BITSET, RUN };

typedef struct {
    uint32_t first, card, runs;  /* the container's first row (an index into the rows), its rows and runs */
    uint16_t key;
    uint8_t kind;
} container_t;

_Static_assert(sizeof(container_t) <= 16, "FI_ROARING_SCRATCH holds 65536 containers and a container's rows");

static inline void put16(uint8_t **p, uint32_t v) { uint16_t x = (uint16_t)v; memcpy(*p, &x, 2); *p += 2; }

static inline void put32(uint8_t **p, uint32_t v) { memcpy(*p, &v, 4); *p += 4; }

/* runOptimize: runs where they serialize smaller (RunContainer.serializedSizeInBytes: 2 + 4 a run) */
static uint8_t kind_of(uint32_t card, uint32_t runs)
{
    uint32_t bytes = card <= ARRAY_MAX ? 2 * card : BITSET_BYTES;
    if (bytes > 2 + 4 * runs)
        return RUN;
    return card <= ARRAY_MAX ? ARRAY : BITSET;
}

static uint32_t container_bytes(const container_t *c)
{
    return c->kind == RUN ? 2 + 4 * c->runs : c->kind == ARRAY ? 2 * c->card : BITSET_BYTES;
}

/* the container of c->card rows (ascending; their low 16 bits are written) */
static uint8_t *put_rows_container(uint8_t *p, const container_t *c, const uint32_t *rows)
{
    if (c->kind == ARRAY) {
        for (uint32_t i = 0; i < c->card; i++)
            put16(&p, rows[i]);
    } else if (c->kind == BITSET) {
        memset(p, 0, BITSET_BYTES);  /* the little-endian 64-bit words, a byte at a time */
        for (uint32_t i = 0; i < c->card; i++)
            p[(rows[i] & 0xFFFF) >> 3] |= (uint8_t)(1u << (rows[i] & 7));
        p += BITSET_BYTES;
    } else {
        put16(&p, c->runs);
        for (uint32_t i = 0; i < c->card;) {
            uint32_t j = i + 1;
            while (j < c->card && rows[j] == rows[j - 1] + 1)
                j++;
            put16(&p, rows[i]);
            put16(&p, j - i - 1);  /* (start, length - 1) */
            i = j;
        }
    }
    return p;
}

size_t fi_roaring_write_bound(size_t n)
{
    /* cookie and count or run flags (at most 5 + n/8), 8 bytes a container's description and offset, and
     * its rows in at most 2 bytes each (runs and bitsets are only chosen where smaller than an array) */
    return 9 + 11 * n;
}

static uint8_t *put_header(uint8_t *p, const container_t *containers, uint32_t count)
{
    uint8_t *start = p;
    int any_run = 0;
    for (uint32_t k = 0; k < count; k++)
        any_run |= containers[k].kind == RUN;
    if (any_run) {
        put32(&p, SERIAL_COOKIE | (count - 1) << 16);
        memset(p, 0, (count + 7) / 8);
        for (uint32_t k = 0; k < count; k++)
            p[k / 8] |= (uint8_t)((containers[k].kind == RUN) << (k % 8));
        p += (count + 7) / 8;
    } else {
        put32(&p, SERIAL_COOKIE_NO_RUNCONTAINER);
        put32(&p, count);
    }
    for (uint32_t k = 0; k < count; k++) {
        put16(&p, containers[k].key);
        put16(&p, containers[k].card - 1);
    }
    if (!any_run || count >= NO_OFFSET_THRESHOLD) {
        uint32_t at = (uint32_t)(p - start) + 4 * count;
        for (uint32_t k = 0; k < count; k++) {
            put32(&p, at);
            at += container_bytes(&containers[k]);
        }
    }
    return p;
}

static void describe(container_t *c, uint32_t key, uint32_t first, uint32_t card, uint32_t runs)
{
    c->first = first;
    c->card = card;
    c->runs = runs;
    c->key = (uint16_t)key;
    c->kind = kind_of(card, runs);
}

size_t fi_roaring_write(const uint32_t *rows, size_t n, void *scratch, uint8_t *out)
{
    container_t *containers = scratch;
    uint32_t count = 0;
    for (size_t i = 0; i < n;) {
        uint32_t key = rows[i] >> 16, runs = 1;
        size_t j = i + 1;
        for (; j < n && rows[j] >> 16 == key; j++)
            runs += rows[j] != rows[j - 1] + 1;
        describe(&containers[count++], key, (uint32_t)i, (uint32_t)(j - i), runs);
        i = j;
    }
    uint8_t *p = put_header(out, containers, count);
    for (uint32_t k = 0; k < count; k++)
        p = put_rows_container(p, &containers[k], rows + containers[k].first);
    return (size_t)(p - out);
}

size_t fi_roaring_words_bound(size_t num_words)
{
    size_t containers = (num_words + WORDS - 1) / WORDS;
    return 9 + containers * (9 + BITSET_BYTES);  /* no container takes more than a bitset */
}

size_t fi_roaring_write_words(const uint64_t *words, size_t num_words, void *scratch, uint8_t *out)
{
    container_t *containers = scratch;
    uint32_t *values = (uint32_t *)(containers + 65536);
    uint32_t count = 0;
    for (size_t first = 0; first < num_words; first += WORDS) {
        size_t end = first + WORDS < num_words ? first + WORDS : num_words;
        uint32_t card = 0, runs = 0;
        uint64_t before = 0;  /* the previous word, whose top bit may run on into this one */
        for (size_t w = first; w < end; w++) {
            card += (uint32_t)__builtin_popcountll(words[w]);
            runs += (uint32_t)__builtin_popcountll(words[w] & ~(words[w] << 1 | before >> 63));
            before = words[w];
        }
        if (card)
            describe(&containers[count++], (uint32_t)(first / WORDS), (uint32_t)first, card, runs);
    }
    uint8_t *p = put_header(out, containers, count);
    for (uint32_t k = 0; k < count; k++) {
        const container_t *c = &containers[k];
        size_t available = num_words - c->first < WORDS ? num_words - c->first : WORDS;
        if (c->kind == BITSET) {
            memcpy(p, words + c->first, 8 * available);
            memset(p + 8 * available, 0, BITSET_BYTES - 8 * available);
            p += BITSET_BYTES;
            continue;
        }
        uint32_t n = 0;
        for (uint32_t w = 0; w < available; w++)
            for (uint64_t word = words[c->first + w]; word; word &= word - 1)
                values[n++] = 64 * w + (uint32_t)__builtin_ctzll(word);
        p = put_rows_container(p, c, values);
    }
    return (size_t)(p - out);
}
