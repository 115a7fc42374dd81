#include "util/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sl_buf_init(sl_buf *b, size_t max) { *b = (sl_buf){ .max = max }; }

void sl_buf_release(sl_buf *b)
{
	free(b->p);
	sl_buf_init(b, b->max);
}

void sl_buf_reset(sl_buf *b)
{
	b->len = 0;
	b->err = SL_OK;
	if (b->p)
		b->p[0] = 0;
}

uint8_t *sl_buf_detach(sl_buf *b, size_t *len)
{
	uint8_t *p = b->p;
	if (len)
		*len = b->len;
	sl_buf_init(b, b->max);
	return p;
}

bool sl_buf_reserve(sl_buf *b, size_t n)
{
	if (b->err)
		return false;
	if (n > b->max || b->len > b->max - n) {
		b->err = SL_ERR_TOO_LARGE;
		return false;
	}
	size_t need = b->len + n + 1; /* +1 for the terminating NUL */
	if (need <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	if (cap > b->max + 1)
		cap = b->max + 1;
	uint8_t *p = realloc(b->p, cap);
	if (!p) {
		b->err = SL_ERR_NOMEM;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void sl_buf_add(sl_buf *b, const void *p, size_t n)
{
	if (!sl_buf_reserve(b, n))
		return;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
}

void sl_buf_addc_slow(sl_buf *b, char c) { sl_buf_add(b, &c, 1); }

void sl_buf_adds(sl_buf *b, const char *s) { sl_buf_add(b, s, strlen(s)); }

void sl_buf_addf(sl_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char tmp[256];
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = b->err ? b->err : SL_ERR_INTERNAL;
		return;
	}
	if ((size_t)n < sizeof tmp) {
		sl_buf_add(b, tmp, (size_t)n);
		return;
	}
	if (!sl_buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

size_t sl_fmt_u64(char out[21], uint64_t v)
{
	char tmp[20];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = 0;
	return n;
}

void sl_buf_add_u64(sl_buf *b, uint64_t v)
{
	char tmp[21];
	sl_buf_add(b, tmp, sl_fmt_u64(tmp, v));
}

void sl_buf_add_i64(sl_buf *b, int64_t v)
{
	if (v < 0) {
		sl_buf_addc(b, '-');
		sl_buf_add_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		sl_buf_add_u64(b, (uint64_t)v);
	}
}

void sl_buf_add_hex(sl_buf *b, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	if (n > SIZE_MAX / 2 || !sl_buf_reserve(b, 2 * n)) {
		b->err = b->err ? b->err : SL_ERR_TOO_LARGE;
		return;
	}
	uint8_t *o = b->p + b->len;
	for (size_t i = 0; i < n; i++) {
		o[2 * i] = (uint8_t)digits[p[i] >> 4];
		o[2 * i + 1] = (uint8_t)digits[p[i] & 15];
	}
	b->len += 2 * n;
	b->p[b->len] = 0;
}

sl_err sl_buf_read_file(sl_buf *b, const char *path, char err[256])
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, 256, "%s: %s", path, strerror(errno));
		return SL_ERR_IO;
	}
	uint8_t chunk[65536];
	size_t n;
	while (!b->err && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sl_buf_add(b, chunk, n);
	bool failed = ferror(f);
	fclose(f);
	if (b->err) {
		snprintf(err, 256, "%s: larger than %zu bytes", path, b->max);
		return b->err;
	}
	if (failed) {
		snprintf(err, 256, "%s: cannot read it", path);
		return SL_ERR_IO;
	}
	return SL_OK;
}
