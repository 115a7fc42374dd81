/*
 * buf.h — a growable byte buffer that cannot exist without a maximum.
 *
 * Invariants: `len <= cap <= max`; when `p` is not NULL, `p[len] == 0`, so a
 * buffer that holds text is always a C string. Appending past `max`, or an
 * allocation failure, sets the sticky `err` and drops that append and every
 * later one, so a writer can append freely and check once at the end.
 *
 * Lifecycle: sl_buf_init() an embedded buffer, sl_buf_release() it. The
 * buffer owns `p`; sl_buf_detach() hands it to the caller (free() it).
 */
#ifndef SL_BUF_H
#define SL_BUF_H

#include "util/common.h"
#include "util/err.h"

typedef struct sl_buf {
	uint8_t *p;
	size_t len, cap, max;
	sl_err err;
} sl_buf;

void sl_buf_init(sl_buf *b, size_t max);
void sl_buf_release(sl_buf *b);
void sl_buf_reset(sl_buf *b); /* len = 0 and err cleared; keeps memory */
uint8_t *sl_buf_detach(sl_buf *b, size_t *len);

/* Make room for `n` more bytes; false (and err set) past max. */
SL_MUST_USE bool sl_buf_reserve(sl_buf *b, size_t n);
void sl_buf_add(sl_buf *b, const void *p, size_t n);
void sl_buf_addc_slow(sl_buf *b, char c);
/* One byte; inline, as JSON writers append most punctuation one byte at a time. */
static inline void sl_buf_addc(sl_buf *b, char c)
{
	if (b->len + 1 < b->cap && !b->err) {
		b->p[b->len++] = (uint8_t)c;
		b->p[b->len] = 0;
		return;
	}
	sl_buf_addc_slow(b, c);
}
void sl_buf_adds(sl_buf *b, const char *s);
void sl_buf_addf(sl_buf *b, const char *fmt, ...) SL_PRINTF(2, 3);
void sl_buf_add_u64(sl_buf *b, uint64_t v); /* decimal */
void sl_buf_add_i64(sl_buf *b, int64_t v);
void sl_buf_add_hex(sl_buf *b, const uint8_t *p, size_t n); /* lower case, no prefix */
/* Append a whole file; a file larger than the buffer's max is refused. err: the reason. */
SL_MUST_USE sl_err sl_buf_read_file(sl_buf *b, const char *path, char err[256]);

static inline const char *sl_buf_str(const sl_buf *b) { return b->p ? (const char *)b->p : ""; }

/* Decimal formatting into a caller's array; returns the length (no NUL). */
size_t sl_fmt_u64(char out[21], uint64_t v);

#endif
