#include "bit_slices.h"

#include <string.h>

#include "load.h"

static inline uint64_t value_at(const uint8_t *values, int width, size_t i)
{
    return width == 8 ? fi_load64(values + 8 * i) : fi_load32(values + 4 * i);
}

static inline uint64_t kept_bits(int num_bits)
{
    return num_bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << num_bits) - 1);
}

int fi_bit_slices_valid(int width, int first_bit, int num_bits)
{
    return (width == 4 || width == 8) && first_bit >= 0 && num_bits >= 0 && first_bit + num_bits <= 64;
}

/* the loops below, with width a constant in each copy (the callers branch on it once) */
static inline void counts_of(const uint8_t *values, const int width, size_t n, int first_bit, int num_bits,
                             size_t *counts)
{
    const int shift = num_bits ? first_bit : 0;
    const uint64_t kept = kept_bits(num_bits);
    for (size_t i = 0; i < n; i++)
        for (uint64_t bits = (value_at(values, width, i) >> shift) & kept; bits; bits &= bits - 1)
            counts[__builtin_ctzll(bits)]++;
}

static inline void rows_of(const uint8_t *rows, const uint8_t *values, const int width, size_t n, int first_bit,
                           int num_bits, uint8_t **out)
{
    const int shift = num_bits ? first_bit : 0;
    const uint64_t kept = kept_bits(num_bits);
    for (size_t i = 0; i < n; i++)
        for (uint64_t bits = (value_at(values, width, i) >> shift) & kept; bits; bits &= bits - 1) {
            int b = __builtin_ctzll(bits);
            memcpy(out[b], rows + 4 * i, 4);
            out[b] += 4;
        }
}

void fi_bit_slice_counts(const uint8_t *values, int width, size_t n, int first_bit, int num_bits, size_t *counts)
{
    if (width == 8)
        counts_of(values, 8, n, first_bit, num_bits, counts);
    else
        counts_of(values, 4, n, first_bit, num_bits, counts);
}

void fi_bit_slice_rows(const uint8_t *rows, const uint8_t *values, int width, size_t n, int first_bit, int num_bits,
                       uint8_t **out)
{
    if (width == 8)
        rows_of(rows, values, 8, n, first_bit, num_bits, out);
    else
        rows_of(rows, values, 4, n, first_bit, num_bits, out);
}
