#include "packed_keys.h"

/* the first of the n values at or above `wanted` (n where none is) */
static int64_t lower_bound(const int64_t *values, int64_t n, int64_t wanted)
{
    int64_t low = 0, high = n;
    while (low < high) {
        int64_t middle = low + (high - low) / 2;
        if (values[middle] < wanted)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

int64_t fi_packed_find(const int64_t *entries, int64_t n, const int64_t *samples, int64_t m, int64_t step,
                       int32_t key)
{
    int64_t wanted = (int64_t)key * ((int64_t)1 << 32); /* the least entry that key can have */
    int64_t block = lower_bound(samples, m, wanted);     /* samples[block - 1] < wanted <= samples[block] */
    int64_t low = block ? (block - 1) * step + 1 : 0, high = block < m ? block * step : n;
    int64_t at = low + lower_bound(entries + low, high - low, wanted);
    return at < n && (entries[at] >> 32) == key ? at : -1;
}
