/* The framing of a portable-format Roaring bitmap (specs/roaring_bitmap.ksy). */
#ifndef FI_ROARING_H
#define FI_ROARING_H

#include <stdint.h>

/* How many bytes the bitmap at `start` of the `end` bytes at p takes (as roaring.portable_size
 * computes it), or -1 wherever that raises: a cookie of neither kind, more than 2^16 containers,
 * or a bitmap that runs past the end. */
int64_t fi_roaring_size(const uint8_t *p, int64_t end, int64_t start);

#endif
