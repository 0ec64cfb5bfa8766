#include "packed_keys.h"

int64_t fi_packed_find(const int64_t *entries, int64_t n, int32_t key)
{
    int64_t low = 0, high = n, wanted = (int64_t)key * ((int64_t)1 << 32); /* the least entry of that key */
    while (low < high) {
        int64_t middle = low + (high - low) / 2;
        if (entries[middle] < wanted)
            low = middle + 1;
        else
            high = middle;
    }
    return low < n && (entries[low] >> 32) == key ? low : -1;
}
