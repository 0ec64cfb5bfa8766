/* Parquet's RLE / bit-packed hybrid (the dictionary indices of a data page, bit width 0 to 32): the values at
 * chosen positions, read run by run up to the run holding the last of them. A run that holds no chosen position
 * is skipped from its header, without unpacking. */
#ifndef FI_HYBRID_H
#define FI_HYBRID_H

#include <stddef.h>
#include <stdint.h>

#define FI_HYBRID_MAX_WIDTH 32

/* The values at the n ascending positions into out, from the runs in data[0:len] (after the page's bit-width
 * byte; width in [0, FI_HYBRID_MAX_WIDTH]). Returns the bytes read (through the run holding the last position),
 * or -1 - at where the run at byte `at` does not fit in the len bytes (a header running past them or longer than
 * five bytes, a run's values past them; at == len: the runs end before a position). */
int64_t fi_hybrid_take(const uint8_t *data, size_t len, int width, const int64_t *positions, size_t n,
                       uint32_t *out);

#endif
