/* Rows grouped by a small integer code (a dictionary's): a counting sort. */
#ifndef FI_GROUPING_H
#define FI_GROUPING_H

#include <stddef.h>
#include <stdint.h>

/* counts[c] = the rows i < n with codes[i] == c (count codes, counts zeroed); 0, or -1 where a code is count or
 * more (a negative code is a null row, in no group) */
int fi_code_counts(const int32_t *codes, size_t n, int64_t *counts, int64_t count);

/* The rows of each code, code by code, ascending within each, into rows (room for the sum of counts): the
 * counting sort's second pass. `next` (count entries) is scratch. */
void fi_group_rows(const int32_t *codes, size_t n, const int64_t *counts, int64_t count, int64_t *next,
                   uint32_t *rows);

#endif
