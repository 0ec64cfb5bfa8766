/* The column table of the container (specs/file_index_format.ksy): version 1's HEAD after its length,
 * version 2's footer. An s4 column count, then per column a u2 name length and the name, an s4 index
 * count, and per index a u2 type length, the type, and its body's start and length (s4 each in
 * version 1, s8 in version 2); all big-endian. */
#ifndef FI_COLUMN_TABLE_H
#define FI_COLUMN_TABLE_H

#include <stdint.h>

/* Where the columns of the table at `start` end, reading no further than `end` of the bytes at p, or -1
 * wherever the generated reader fails: a negative count, or a field that runs past `end`. `entries` gets
 * the number of index entries. `position_bytes`: 8 (version 1) or 16 (version 2). */
int64_t fi_column_table_end(const uint8_t *p, int64_t start, int64_t end, int position_bytes, int64_t *entries);

#endif
