/* The bit slices of a bsi or range-bitmap: for each bit b in [first_bit, first_bit + num_bits), the
 * rows whose value has bit b set. Values are unsigned little-endian integers of `width` (4 or 8)
 * bytes, rows uint32; slice j holds the rows of bit first_bit + j, in row order. Two passes, so the
 * caller can allocate each slice exactly: count, then fill. */
#ifndef FI_BIT_SLICES_H
#define FI_BIT_SLICES_H

#include <stddef.h>
#include <stdint.h>

#define FI_MAX_SLICES 64

/* 1 when width is 4 or 8 and [first_bit, first_bit + num_bits) lies in [0, 64), else 0 */
int fi_bit_slices_valid(int width, int first_bit, int num_bits);

/* counts[j] = how many of the n values have bit first_bit + j set (counts has num_bits zeroed entries) */
void fi_bit_slice_counts(const uint8_t *values, int width, size_t n, int first_bit, int num_bits, size_t *counts);

/* append the row of each value to slice j = out[j] (4 * counts[j] bytes) for each of its bits; each
 * out[j] is left past its slice */
void fi_bit_slice_rows(const uint8_t *rows, const uint8_t *values, int width, size_t n, int first_bit, int num_bits,
                       uint8_t **out);

#endif
