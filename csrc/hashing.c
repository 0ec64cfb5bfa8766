#include "hashing.h"

int64_t fi_offsets_first_bad(const uint8_t *offsets, int width, size_t count, size_t data_size)
{
    int64_t previous = -1;
    for (size_t i = 0; i < count; i++) {
        int64_t at = fi_offset_at(offsets, width, i);
        if (at < previous || at < 0 || (uint64_t)at > data_size)
            return (int64_t)i;
        previous = at;
    }
    return -1;
}

void fi_wang_mix(const uint8_t *keys, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++)
        fi_store64(out + 8 * i, fi_wang(fi_load64(keys + 8 * i)));
}

static inline void xxh64_offsets_of(const uint8_t *data, const uint8_t *offsets, const int width, size_t n,
                                    uint8_t *out)
{
    for (size_t i = 0; i < n; i++)
        fi_store64(out + 8 * i, fi_string_hash(data, offsets, width, i));
}

void fi_xxh64_offsets(const uint8_t *data, const uint8_t *offsets, int width, size_t n, uint8_t *out)
{
    if (width == 8)  /* a copy of the loop for each width, the branch out of it */
        xxh64_offsets_of(data, offsets, 8, n, out);
    else
        xxh64_offsets_of(data, offsets, 4, n, out);
}
