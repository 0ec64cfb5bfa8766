#include "roaring.h"

#include "load.h"

#define SERIAL_COOKIE_NO_RUNCONTAINER 12346
#define SERIAL_COOKIE 12347

int64_t fi_roaring_size(const uint8_t *p, int64_t end, int64_t start)
{
    if (start < 0 || start > end || end - start < 4)
        return -1;
    uint32_t cookie = fi_load32(p + start);
    int64_t pos = start + 4, count;
    const uint8_t *run_flags = NULL;
    int has_runs = (cookie & 0xFFFF) == SERIAL_COOKIE;
    if (has_runs) {
        count = (int64_t)(cookie >> 16) + 1;
        if (end - pos < (count + 7) / 8)
            return -1;
        run_flags = p + pos;
        pos += (count + 7) / 8;
    } else if (cookie == SERIAL_COOKIE_NO_RUNCONTAINER) {
        if (end - pos < 4)
            return -1;
        count = (int64_t)fi_load32(p + pos);
        pos += 4;
    } else {
        return -1;
    }
    if (count > 65536 || end - pos < 4 * count)
        return -1;
    const uint8_t *descriptions = p + pos;
    pos += 4 * count;
    if (!has_runs || count >= 4)
        pos += 4 * count; /* the offsets table, unread */
    for (int64_t i = 0; i < count; i++) {
        if (has_runs && (run_flags[i / 8] >> (i % 8)) & 1) {
            if (pos < 0 || pos > end || end - pos < 2)
                return -1;
            pos += 2 + 4 * (int64_t)fi_load16(p + pos);
        } else {
            int64_t card = (int64_t)fi_load16(descriptions + 4 * i + 2) + 1;
            pos += card <= 4096 ? 2 * card : 8192;
        }
    }
    return pos > end ? -1 : pos - start;
}
