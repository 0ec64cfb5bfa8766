/* A bitmap V1 dictionary of 4-byte keys as fileindex.indexes.bitmap.reader._PackedDictionary holds it: each
 * entry one int64, key << 32 | unsigned offset, sorted ascending. */
#ifndef FI_PACKED_KEYS_H
#define FI_PACKED_KEYS_H

#include <stdint.h>

/* The index of the entry of `key` among the n entries, or -1 where none holds it. `samples` holds every
 * `step`-th entry (entries[0], entries[step], ...: m of them): searched first, they narrow the search to one
 * block of `step` entries, so a lookup touches a few pages of a large dictionary, not one per probe. */
int64_t fi_packed_find(const int64_t *entries, int64_t n, const int64_t *samples, int64_t m, int64_t step,
                       int32_t key);

#endif
