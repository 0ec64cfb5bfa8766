/* A read cursor over one buffer with the semantics of Kaitai Struct's KaitaiStream: the position may
 * be set past the end (reading there fails), and a read of more bytes than remain fails and leaves
 * the cursor at the end, as the runtime's short read consumed what was left. */
#ifndef FI_BYTE_STREAM_H
#define FI_BYTE_STREAM_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t pos;
} fi_cursor;

static inline size_t fi_cursor_available(const fi_cursor *c) { return c->size > c->pos ? c->size - c->pos : 0; }

/* the next n bytes, advancing; NULL when fewer remain */
static inline const uint8_t *fi_cursor_take(fi_cursor *c, size_t n)
{
    if (n > fi_cursor_available(c)) {
        if (c->pos < c->size)
            c->pos = c->size;
        return NULL;
    }
    const uint8_t *at = c->data + (n ? c->pos : 0);  /* n == 0 may sit past the end */
    c->pos += n;
    return at;
}

/* the bytes from the position to the end (none when past it), moving the position to the end */
static inline const uint8_t *fi_cursor_rest(fi_cursor *c, size_t *n)
{
    size_t start = c->pos < c->size ? c->pos : c->size;
    if (c->pos < c->size)
        c->pos = c->size;
    *n = c->size - start;
    return c->data + start;
}

#endif
