/* Paimon's FastHash: Thomas Wang's mix of int64 keys and XXH64 (seed 0) of bytes, one value inline
 * and whole columns (int64 arrays, Arrow string/binary arrays) as loops. */
#ifndef FI_HASHING_H
#define FI_HASHING_H

#include <stddef.h>
#include <stdint.h>

#include "load.h"

#define FI_P1 UINT64_C(0x9E3779B185EBCA87)
#define FI_P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define FI_P3 UINT64_C(0x165667B19E3779F9)
#define FI_P4 UINT64_C(0x85EBCA77C2B2AE63)
#define FI_P5 UINT64_C(0x27D4EB2F165667C5)

static inline uint64_t fi_rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t fi_xxh_round(uint64_t acc, uint64_t lane) { return fi_rotl64(acc + lane * FI_P2, 31) * FI_P1; }

static inline uint64_t fi_xxh_merge(uint64_t h, uint64_t v) { return (h ^ fi_xxh_round(0, v)) * FI_P1 + FI_P4; }

/* the steps of XXH64's tail: 8, 4 and 1 bytes at p into h */
#define FI_XXH_8 h = fi_rotl64(h ^ fi_xxh_round(0, fi_load64(p)), 27) * FI_P1 + FI_P4; p += 8;
#define FI_XXH_4 h = fi_rotl64(h ^ ((uint64_t)fi_load32(p) * FI_P1), 23) * FI_P2 + FI_P3; p += 4;
#define FI_XXH_1 h = fi_rotl64(h ^ (*p++ * FI_P5), 11) * FI_P1;

static inline uint64_t fi_xxh64(const uint8_t *p, size_t length)
{
    const uint8_t *end = p + length;
    uint64_t h;
    if (length >= 32) {
        uint64_t v1 = FI_P1 + FI_P2, v2 = FI_P2, v3 = 0, v4 = 0 - FI_P1;
        do {
            v1 = fi_xxh_round(v1, fi_load64(p));
            v2 = fi_xxh_round(v2, fi_load64(p + 8));
            v3 = fi_xxh_round(v3, fi_load64(p + 16));
            v4 = fi_xxh_round(v4, fi_load64(p + 24));
            p += 32;
        } while (p + 32 <= end);
        h = fi_rotl64(v1, 1) + fi_rotl64(v2, 7) + fi_rotl64(v3, 12) + fi_rotl64(v4, 18);
        h = fi_xxh_merge(fi_xxh_merge(fi_xxh_merge(fi_xxh_merge(h, v1), v2), v3), v4);
    } else {
        h = FI_P5;
    }
    h += (uint64_t)length;
    /* The tail (under 32 bytes) in one jump, unrolled: the loops over its 8-, 4- and 1-byte steps mispredicted
     * their exits about twice a string of mixed short lengths (xxHash's own XXH64_finalize does the same). */
    switch ((size_t)(end - p)) {
    case 0: break;
    case 1: FI_XXH_1 break;
    case 2: FI_XXH_1 FI_XXH_1 break;
    case 3: FI_XXH_1 FI_XXH_1 FI_XXH_1 break;
    case 4: FI_XXH_4 break;
    case 5: FI_XXH_4 FI_XXH_1 break;
    case 6: FI_XXH_4 FI_XXH_1 FI_XXH_1 break;
    case 7: FI_XXH_4 FI_XXH_1 FI_XXH_1 FI_XXH_1 break;
    case 8: FI_XXH_8 break;
    case 9: FI_XXH_8 FI_XXH_1 break;
    case 10: FI_XXH_8 FI_XXH_1 FI_XXH_1 break;
    case 11: FI_XXH_8 FI_XXH_1 FI_XXH_1 FI_XXH_1 break;
    case 12: FI_XXH_8 FI_XXH_4 break;
    case 13: FI_XXH_8 FI_XXH_4 FI_XXH_1 break;
    case 14: FI_XXH_8 FI_XXH_4 FI_XXH_1 FI_XXH_1 break;
    case 15: FI_XXH_8 FI_XXH_4 FI_XXH_1 FI_XXH_1 FI_XXH_1 break;
    case 16: FI_XXH_8 FI_XXH_8 break;
    case 17: FI_XXH_8 FI_XXH_8 FI_XXH_1 break;
    case 18: FI_XXH_8 FI_XXH_8 FI_XXH_1 FI_XXH_1 break;
    case 19: FI_XXH_8 FI_XXH_8 FI_XXH_1 FI_XXH_1 FI_XXH_1 break;
    case 20: FI_XXH_8 FI_XXH_8 FI_XXH_4 break;
    case 21: FI_XXH_8 FI_XXH_8 FI_XXH_4 FI_XXH_1 break;
    case 22: FI_XXH_8 FI_XXH_8 FI_XXH_4 FI_XXH_1 FI_XXH_1 break;
    case 23: FI_XXH_8 FI_XXH_8 FI_XXH_4 FI_XXH_1 FI_XXH_1 FI_XXH_1 break;
    case 24: FI_XXH_8 FI_XXH_8 FI_XXH_8 break;
    case 25: FI_XXH_8 FI_XXH_8 FI_XXH_8 FI_XXH_1 break;
    case 26: FI_XXH_8 FI_XXH_8 FI_XXH_8 FI_XXH_1 FI_XXH_1 break;
    case 27: FI_XXH_8 FI_XXH_8 FI_XXH_8 FI_XXH_1 FI_XXH_1 FI_XXH_1 break;
    case 28: FI_XXH_8 FI_XXH_8 FI_XXH_8 FI_XXH_4 break;
    case 29: FI_XXH_8 FI_XXH_8 FI_XXH_8 FI_XXH_4 FI_XXH_1 break;
    case 30: FI_XXH_8 FI_XXH_8 FI_XXH_8 FI_XXH_4 FI_XXH_1 FI_XXH_1 break;
    case 31: FI_XXH_8 FI_XXH_8 FI_XXH_8 FI_XXH_4 FI_XXH_1 FI_XXH_1 FI_XXH_1 break;
    }
    h ^= h >> 33;
    h *= FI_P2;
    h ^= h >> 29;
    h *= FI_P3;
    return h ^ (h >> 32);
}

/* Java's signed shift: >> on a negative long keeps the sign (gcc's >> on int64_t does) */
static inline uint64_t fi_sar(uint64_t x, int n) { return (uint64_t)((int64_t)x >> n); }

static inline uint64_t fi_wang(uint64_t key)
{
    key = ~key + (key << 21);
    key ^= fi_sar(key, 24);
    key = key + (key << 3) + (key << 8);
    key ^= fi_sar(key, 14);
    key = key + (key << 2) + (key << 4);
    key ^= fi_sar(key, 28);
    return key + (key << 31);
}

/* the i-th offset of an Arrow offsets buffer of 4- or 8-byte offsets */
static inline int64_t fi_offset_at(const uint8_t *offsets, int width, size_t i)
{
    return width == 4 ? (int32_t)fi_load32(offsets + 4 * i) : (int64_t)fi_load64(offsets + 8 * i);
}

/* XXH64 of the i-th value of an Arrow string/binary array (offsets checked by fi_offsets_first_bad) */
static inline uint64_t fi_string_hash(const uint8_t *data, const uint8_t *offsets, int width, size_t i)
{
    int64_t start = fi_offset_at(offsets, width, i);
    return fi_xxh64(data + start, (size_t)(fi_offset_at(offsets, width, i + 1) - start));
}

/* -1 when the `count` offsets (width 4 or 8) are non-decreasing and inside [0, data_size]; else the
 * index of the first that is not. An Arrow array of n values has n + 1 offsets. */
int64_t fi_offsets_first_bad(const uint8_t *offsets, int width, size_t count, size_t data_size);

/* out[i] = fi_wang(keys[i]) for n little-endian int64 keys */
void fi_wang_mix(const uint8_t *keys, size_t n, uint8_t *out);

/* out[i] = XXH64 of the i-th of the n values of an Arrow string/binary array (n + 1 checked offsets) */
void fi_xxh64_offsets(const uint8_t *data, const uint8_t *offsets, int width, size_t n, uint8_t *out);

#endif
