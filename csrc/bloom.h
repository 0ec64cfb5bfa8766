/* Paimon's BloomFilter64 over its serialized bit set: bit p is bit (p & 7) of byte (p >> 3), as Java
 * writes it. num_bits is a positive multiple of 8 below 2^31 and bits holds num_bits / 8 bytes
 * (fi_bloom_holds); k <= 0 sets nothing and finds every hash, as Java's loop does. Hashes are
 * FastHash values (hashing.h); keys are int64 keys hashed here; rows of hashes or keys are
 * little-endian int64. */
#ifndef FI_BLOOM_H
#define FI_BLOOM_H

#include <stddef.h>
#include <stdint.h>

/* 1 when `size` bytes hold num_bits bits as above, else 0 */
int fi_bloom_holds(size_t size, int64_t num_bits);

void fi_bloom_add_hashes(uint8_t *bits, uint32_t num_bits, int k, const uint8_t *hashes, size_t n);

/* FastHash of each key and BloomFilter64.addHash, in one pass */
void fi_bloom_add_longs(uint8_t *bits, uint32_t num_bits, int k, const uint8_t *keys, size_t n);

/* XXH64 of each value of an Arrow string/binary array (n values, n + 1 checked offsets) and addHash */
void fi_bloom_add_strings(uint8_t *bits, uint32_t num_bits, int k, const uint8_t *data, const uint8_t *offsets,
                          int width, size_t n);

/* out[i] = 1 where all k bits of the i-th hash are set, else 0 */
void fi_bloom_test_hashes(const uint8_t *bits, uint32_t num_bits, int k, const uint8_t *hashes, size_t n,
                          uint8_t *out);

int fi_bloom_test_hash(const uint8_t *bits, uint32_t num_bits, int k, uint64_t hash);

/* One filter's sizing for testing one hash at a time, the remainder's constant computed once (a 64-bit division) */
typedef struct {
    uint64_t magic;
    uint32_t num_bits;
    int k;
} fi_bloom_sizing;

fi_bloom_sizing fi_bloom_sizing_of(uint32_t num_bits, int k);

/* fi_bloom_test_hash with the filter's sizing */
int fi_bloom_test_sized(const uint8_t *bits, const fi_bloom_sizing *sizing, uint64_t hash);

#endif
