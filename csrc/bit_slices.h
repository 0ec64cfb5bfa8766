/* The bit slices of a bsi or range-bitmap: for each bit b in [first_bit, first_bit + num_bits), the
 * rows whose value has bit b set, as a bitset (row r: bit r % 64 of word r / 64). Values are unsigned
 * little-endian integers of `width` (4 or 8) bytes, rows uint32. */
#ifndef FI_BIT_SLICES_H
#define FI_BIT_SLICES_H

#include <stddef.h>
#include <stdint.h>

#define FI_MAX_SLICES 64

/* 1 when width is 4 or 8 and [first_bit, first_bit + num_bits) lies in [0, 64), else 0 */
int fi_bit_slices_valid(int width, int first_bit, int num_bits);

/* Sets, in slice j's bitset (the num_words zeroed words at words + j * num_words), the bit of the row of each
 * of the n values that has bit first_bit + j set; every row is below 64 * num_words. */
void fi_bit_slice_words(const uint8_t *rows, const uint8_t *values, int width, size_t n, int first_bit, int num_bits,
                        uint64_t *words, size_t num_words);

#endif
