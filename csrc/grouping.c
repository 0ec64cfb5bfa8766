#include "grouping.h"

int fi_code_counts(const int32_t *codes, size_t n, int64_t *counts, int64_t count)
{
    for (size_t i = 0; i < n; i++) {
        if (codes[i] >= count)
            return -1;
        if (codes[i] >= 0)
            counts[codes[i]]++;
    }
    return 0;
}

void fi_group_rows(const int32_t *codes, size_t n, const int64_t *counts, int64_t count, int64_t *next,
                   uint32_t *rows)
{
    int64_t at = 0;
    for (int64_t c = 0; c < count; c++) {
        next[c] = at;
        at += counts[c];
    }
    for (size_t i = 0; i < n; i++)
        if (codes[i] >= 0)
            rows[next[codes[i]]++] = (uint32_t)i;
}
