/* The framing of a portable-format Roaring bitmap (specs/roaring_bitmap.ksy). */
#ifndef FI_ROARING_H
#define FI_ROARING_H

#include <stdint.h>

/* How many bytes the bitmap at `start` of the `end` bytes at p takes (as roaring.portable_size
 * computes it), or -1 wherever that raises: a cookie of neither kind, more than 2^16 containers,
 * or a bitmap that runs past the end. */
int64_t fi_roaring_size(const uint8_t *p, int64_t end, int64_t start);

/* fi_roaring_size where every container's key is below 2^15 (so every row below 2^31, a Java int), else -1. */
int64_t fi_roaring_signed_size(const uint8_t *p, int64_t end, int64_t start);

/* The index of the first of the n offsets whose bytes at p[start + offset:end] do not start with a Roaring cookie
 * (of either kind: a look at 2 bytes, not a parse), or -1 where all do. */
int64_t fi_roaring_first_uncookied(const uint8_t *p, int64_t end, int64_t start, const int64_t *offsets, int64_t n);

/* The rows the bitmap at `start` holds by its header (the sum of its containers' cardinalities), or -1 where
 * its header does not frame. */
int64_t fi_roaring_cardinality(const uint8_t *p, int64_t end, int64_t start);

/* Decodes the bitmap at `start` into `out` (room for `room` rows): its rows, ascending; returns how many. Only a
 * bitmap that CRoaring's validation accepts (keys and values strictly ascending, runs apart, each container
 * holding the rows its header says) with every row below 2^31 is decoded, and only if its rows fit: anywhere
 * else -1, and the caller decodes it the slow way (which raises the placed error). */
int64_t fi_roaring_rows(const uint8_t *p, int64_t end, int64_t start, uint32_t *out, int64_t room);

/* Sorts the n rows ascending and drops repeats, in place; returns how many are left. */
int64_t fi_rows_sorted_distinct(uint32_t *rows, int64_t n);

#endif
