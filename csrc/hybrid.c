#include "hybrid.h"

#include "load.h"

/* a ULEB128 run header of at most five bytes at data[*at], *at moved past it; -1 where it does not fit */
static int run_header(const uint8_t *data, size_t len, size_t *at, uint64_t *header)
{
    uint64_t value = 0;
    for (int i = 0; i < 5 && *at < len; i++) {
        uint8_t byte = data[(*at)++];
        value |= (uint64_t)(byte & 0x7F) << (7 * i);
        if (!(byte & 0x80)) {
            *header = value;
            return 0;
        }
    }
    return -1;
}

/* the k-th value of a bit-packed run of `size` bytes (k * width + width <= 8 * size: checked by the caller) */
static inline uint32_t unpacked(const uint8_t *run, size_t size, int width, uint64_t k)
{
    uint64_t bit = k * (uint64_t)width;
    size_t byte = (size_t)(bit >> 3);
    uint64_t word = 0;
    if (byte + 8 <= size)
        word = fi_load64(run + byte);
    else
        for (size_t i = byte; i < size; i++)
            word |= (uint64_t)run[i] << (8 * (i - byte));
    return (uint32_t)((word >> (bit & 7)) & (((uint64_t)1 << width) - 1));
}

int64_t fi_hybrid_take(const uint8_t *data, size_t len, int width, const int64_t *positions, size_t n,
                       uint32_t *out)
{
    const size_t value_bytes = (size_t)(width + 7) / 8;
    size_t at = 0, i = 0;
    uint64_t first = 0; /* the position of the run's first value */
    while (i < n) {
        size_t run_at = at;
        uint64_t header;
        if (run_header(data, len, &at, &header) < 0)
            return -1 - (int64_t)run_at;
        uint64_t count;
        if (header & 1) { /* bit-packed: header >> 1 groups of 8 values, width bytes a group */
            count = (header >> 1) * 8;
            uint64_t size = (header >> 1) * (uint64_t)width;
            if (size > len - at)
                return -1 - (int64_t)run_at;
            for (; i < n && (uint64_t)positions[i] - first < count; i++)
                out[i] = unpacked(data + at, (size_t)size, width, (uint64_t)positions[i] - first);
            at += (size_t)size;
        } else { /* RLE: header >> 1 repeats of one value of value_bytes bytes */
            count = header >> 1;
            if (value_bytes > len - at)
                return -1 - (int64_t)run_at;
            uint32_t value = value_bytes ? (uint32_t)fi_load_le(data + at, (int)value_bytes) : 0;
            for (; i < n && (uint64_t)positions[i] - first < count; i++)
                out[i] = value;
            at += value_bytes;
        }
        first += count;
    }
    return (int64_t)at;
}
