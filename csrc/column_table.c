#include "column_table.h"

#include "load.h"

/* a u2 length and its bytes at *at, advancing; 0 when they run past end */
static int skip_name(const uint8_t *p, int64_t *at, int64_t end)
{
    if (end - *at < 2)
        return 0;
    int64_t stop = *at + 2 + (int64_t)fi_load_be(p + *at, 2);
    if (stop > end)
        return 0;
    *at = stop;
    return 1;
}

/* an s4 count at *at, advancing; -1 when it runs past end or is negative */
static int64_t take_count(const uint8_t *p, int64_t *at, int64_t end)
{
    if (end - *at < 4)
        return -1;
    int64_t count = fi_sign_extend(fi_load_be(p + *at, 4), 4);
    *at += 4;
    return count;
}

int64_t fi_column_table_end(const uint8_t *p, int64_t start, int64_t end, int position_bytes, int64_t *entries)
{
    *entries = 0;
    if (start < 0 || start > end)
        return -1;
    int64_t at = start, columns = take_count(p, &at, end);
    if (columns < 0)
        return -1;
    for (int64_t c = 0; c < columns; c++) {
        if (!skip_name(p, &at, end))
            return -1;
        int64_t indexes = take_count(p, &at, end);
        if (indexes < 0)
            return -1;
        for (int64_t i = 0; i < indexes; i++) {
            if (!skip_name(p, &at, end) || end - at < position_bytes)
                return -1;
            at += position_bytes;
        }
        *entries += indexes;
    }
    return at;
}
