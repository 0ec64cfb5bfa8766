/* The framing of a portable-format Roaring bitmap (specs/roaring_bitmap.ksy). */
#ifndef FI_ROARING_H
#define FI_ROARING_H

#include <stddef.h>
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

/* Writing: the portable format Java's RoaringBitmap writes after runOptimize() (pyroaring's serialize() after
 * run_optimize(), the reference path, writes the same). A container is written as runs where that form is
 * smaller than its array (2 bytes a row, up to 4096 rows) or its bitset (8192 bytes), as Java decides. */

/* the most bytes fi_roaring_write writes for n rows */
size_t fi_roaring_write_bound(size_t n);

/* Writes the bitmap of the n rows (strictly ascending) to out (room for fi_roaring_write_bound(n) bytes), using
 * `scratch` (FI_ROARING_SCRATCH bytes, aligned as malloc aligns); returns the bytes written. */
#define FI_ROARING_SCRATCH (65536 * (16 + 4))
size_t fi_roaring_write(const uint32_t *rows, size_t n, void *scratch, uint8_t *out);

/* the most bytes fi_roaring_write_words writes for a bitset of num_words words */
size_t fi_roaring_words_bound(size_t num_words);

/* fi_roaring_write of the rows whose bits are set in the bitset `words` (row r: bit r % 64 of word r / 64) */
size_t fi_roaring_write_words(const uint64_t *words, size_t num_words, void *scratch, uint8_t *out);

#endif
