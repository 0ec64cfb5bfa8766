#include "roaring.h"

#include <stdlib.h>

#include "load.h"

#define SERIAL_COOKIE_NO_RUNCONTAINER 12346
#define SERIAL_COOKIE 12347

/* The header of the bitmap at `start`: its containers' count and descriptions (key, cardinality - 1), whether
 * each has a run flag, and where the containers' data begins; 0, or -1 where it does not frame. */
struct fi_roaring_header {
    int64_t count, data;
    const uint8_t *descriptions, *run_flags;
};

static int read_header(const uint8_t *p, int64_t end, int64_t start, struct fi_roaring_header *h)
{
    if (start < 0 || start > end || end - start < 4)
        return -1;
    uint32_t cookie = fi_load32(p + start);
    int64_t pos = start + 4;
    h->run_flags = NULL;
    if ((cookie & 0xFFFF) == SERIAL_COOKIE) {
        h->count = (int64_t)(cookie >> 16) + 1;
        if (end - pos < (h->count + 7) / 8)
            return -1;
        h->run_flags = p + pos;
        pos += (h->count + 7) / 8;
    } else if (cookie == SERIAL_COOKIE_NO_RUNCONTAINER) {
        if (end - pos < 4)
            return -1;
        h->count = (int64_t)fi_load32(p + pos);
        pos += 4;
    } else {
        return -1;
    }
    if (h->count > 65536 || end - pos < 4 * h->count)
        return -1;
    h->descriptions = p + pos;
    pos += 4 * h->count;
    if (!h->run_flags || h->count >= 4)
        pos += 4 * h->count; /* the offsets table, unread */
    h->data = pos;
    return pos > end ? -1 : 0;
}

int64_t fi_roaring_size(const uint8_t *p, int64_t end, int64_t start)
{
    struct fi_roaring_header h;
    if (read_header(p, end, start, &h) < 0)
        return -1;
    int64_t pos = h.data;
    for (int64_t i = 0; i < h.count; i++) {
        if (h.run_flags && (h.run_flags[i / 8] >> (i % 8)) & 1) {
            if (pos > end || end - pos < 2)
                return -1;
            pos += 2 + 4 * (int64_t)fi_load16(p + pos);
        } else {
            int64_t card = (int64_t)fi_load16(h.descriptions + 4 * i + 2) + 1;
            pos += card <= 4096 ? 2 * card : 8192;
        }
    }
    return pos > end ? -1 : pos - start;
}

int64_t fi_roaring_first_uncookied(const uint8_t *p, int64_t end, int64_t start, const int64_t *offsets, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t at = offsets[i];
        if (at < 0 || at > end - start - 4 || (fi_load16(p + start + at) | 1) != SERIAL_COOKIE)
            return i; /* the two cookies differ in the low bit only */
    }
    return -1;
}

int64_t fi_roaring_cardinality(const uint8_t *p, int64_t end, int64_t start)
{
    struct fi_roaring_header h;
    if (read_header(p, end, start, &h) < 0)
        return -1;
    int64_t total = 0;
    for (int64_t i = 0; i < h.count; i++)
        total += (int64_t)fi_load16(h.descriptions + 4 * i + 2) + 1;
    return total;
}

/* the rows of one container (its key's high bits in `high`), checked as CRoaring's validation does; how many
 * were written, or -1 */
static int64_t container_rows(const uint8_t *p, int64_t end, int64_t *pos, int is_run, int64_t card,
                              uint32_t high, uint32_t *out)
{
    int64_t n = 0;
    if (is_run) {
        if (end - *pos < 2)
            return -1;
        int64_t runs = fi_load16(p + *pos);
        *pos += 2;
        if (runs == 0 || end - *pos < 4 * runs)
            return -1;
        uint32_t last_end = 0;
        for (int64_t r = 0; r < runs; r++) {
            uint32_t first = fi_load16(p + *pos + 4 * r), stop = first + fi_load16(p + *pos + 4 * r + 2) + 1;
            if (stop > 65536 || first < last_end || (first == last_end && last_end != 0) || n + (stop - first) > card)
                return -1; /* out of order, touching (CRoaring merges those) or more rows than the header says */
            for (uint32_t v = first; v < stop; v++)
                out[n++] = high | v;
            last_end = stop;
        }
        *pos += 4 * runs;
    } else if (card <= 4096) {
        if (end - *pos < 2 * card)
            return -1;
        /* two branch-free passes the compiler vectorizes (a null bitmap of 10,000 rows: 100k instructions in one
         * pass that checked and stopped at each row, 40k in these): the rows, then whether the values all rise,
         * read as the 16-bit values they are (twice the values a vector holds than as rows: 32k) */
        const uint8_t *values = p + *pos;
        for (int64_t j = 0; j < card; j++)
            out[j] = high | fi_load16(values + 2 * j);
        uint32_t falls = 0;
        for (int64_t j = 1; j < card; j++)
            falls |= fi_load16(values + 2 * j) <= fi_load16(values + 2 * (j - 1));
        if (falls)
            return -1;
        n = card;
        *pos += 2 * card;
    } else {
        if (end - *pos < 8192)
            return -1;
        for (uint32_t w = 0; w < 1024; w++) {
            uint64_t word = fi_load64(p + *pos + 8 * w);
            while (word) {
                if (n == card)
                    return -1;
                out[n++] = high | (w * 64 + (uint32_t)__builtin_ctzll(word));
                word &= word - 1;
            }
        }
        *pos += 8192;
    }
    return n == card ? n : -1;
}

int64_t fi_roaring_rows(const uint8_t *p, int64_t end, int64_t start, uint32_t *out, int64_t room)
{
    struct fi_roaring_header h;
    if (read_header(p, end, start, &h) < 0)
        return -1;
    int64_t pos = h.data, total = 0;
    uint32_t previous_key = 0;
    for (int64_t i = 0; i < h.count; i++) {
        uint32_t key = fi_load16(h.descriptions + 4 * i);
        int64_t card = (int64_t)fi_load16(h.descriptions + 4 * i + 2) + 1;
        if ((i && key <= previous_key) || key >= 0x8000 || total + card > room)
            return -1; /* keys out of order; a row past Java's signed int; more rows than promised */
        int is_run = h.run_flags && (h.run_flags[i / 8] >> (i % 8)) & 1;
        int64_t n = container_rows(p, end, &pos, is_run, card, key << 16, out + total);
        if (n < 0)
            return -1;
        total += n;
        previous_key = key;
    }
    return total;
}

int64_t fi_roaring_signed_size(const uint8_t *p, int64_t end, int64_t start)
{
    struct fi_roaring_header h;
    if (read_header(p, end, start, &h) < 0)
        return -1;
    for (int64_t i = 0; i < h.count; i++)
        if (fi_load16(h.descriptions + 4 * i) >= 0x8000)
            return -1;
    return fi_roaring_size(p, end, start);
}

static int compare_rows(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int64_t fi_rows_sorted_distinct(uint32_t *rows, int64_t n)
{
    if (n < 2)
        return n;
    qsort(rows, (size_t)n, sizeof *rows, compare_rows);
    int64_t kept = 1;
    for (int64_t i = 1; i < n; i++)
        if (rows[i] != rows[kept - 1])
            rows[kept++] = rows[i];
    return kept;
}
