/* Unaligned loads of little- and big-endian integers from byte buffers. */
#ifndef FI_LOAD_H
#define FI_LOAD_H

#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the loads assume a little-endian machine; build without the kernels (the numpy path)"
#endif

static inline uint16_t fi_load16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

static inline uint32_t fi_load32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static inline uint64_t fi_load64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static inline void fi_store64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* an n-byte (1 to 8) unsigned integer, most significant byte first */
static inline uint64_t fi_load_be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

/* an n-byte (1 to 8) unsigned integer, least significant byte first */
static inline uint64_t fi_load_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* the n-byte two's complement value in the low bytes of v */
static inline int64_t fi_sign_extend(uint64_t v, int n)
{
    int shift = 64 - 8 * n;
    return shift ? (int64_t)(v << shift) >> shift : (int64_t)v;
}

#endif
