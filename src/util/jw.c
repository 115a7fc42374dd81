#include "util/jw.h"

#include <assert.h>

/* Before a value or key: the comma, unless first in its container or right after a key. */
static void sep(sl_jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	uint64_t bit = 1ull << (w->depth - 1);
	if (w->has_items & bit)
		sl_buf_addc(w->out, ',');
	w->has_items |= bit;
}

static void open(sl_jw *w, char c)
{
	sep(w);
	assert(w->depth < SL_JW_MAX_DEPTH);
	sl_buf_addc(w->out, c);
	w->depth++;
	w->has_items &= ~(1ull << (w->depth - 1));
}

static void close_(sl_jw *w, char c)
{
	assert(w->depth > 0);
	w->depth--;
	sl_buf_addc(w->out, c);
}

void sl_jw_obj(sl_jw *w) { open(w, '{'); }
void sl_jw_obj_end(sl_jw *w) { close_(w, '}'); }
void sl_jw_arr(sl_jw *w) { open(w, '['); }
void sl_jw_arr_end(sl_jw *w) { close_(w, ']'); }

void sl_jw_key(sl_jw *w, const char *key)
{
	sep(w);
	sl_buf_addc(w->out, '"');
	sl_buf_adds(w->out, key);
	sl_buf_add(w->out, "\":", 2);
	w->after_key = true;
}

void sl_jw_keyn(sl_jw *w, const char *key, size_t n)
{
	sep(w);
	sl_buf_addc(w->out, '"');
	sl_json_escape(w->out, key, n);
	sl_buf_add(w->out, "\":", 2);
	w->after_key = true;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. Go's rules: no surrogates, no overlongs. */
static size_t utf8_valid(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	if (c < 0xe0)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c < 0xf0) {
		if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0;
		if (c == 0xed && s[1] > 0x9f)
			return 0; /* surrogates */
		return 3;
	}
	if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
		return 0;
	if (c == 0xf0 && s[1] < 0x90)
		return 0;
	if (c == 0xf4 && s[1] > 0x8f)
		return 0;
	return 4;
}

void sl_json_escape(sl_buf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t start = 0, i = 0;
	while (i < n) {
		unsigned char c = s[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&') {
			i++;
			continue;
		}
		if (c < 0x80) {
			sl_buf_add(b, s + start, i - start);
			switch (c) {
			case '"': sl_buf_add(b, "\\\"", 2); break;
			case '\\': sl_buf_add(b, "\\\\", 2); break;
			case '\n': sl_buf_add(b, "\\n", 2); break;
			case '\r': sl_buf_add(b, "\\r", 2); break;
			case '\t': sl_buf_add(b, "\\t", 2); break;
			default: {
				char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
				sl_buf_add(b, e, 6);
			}
			}
			start = ++i;
			continue;
		}
		size_t k = utf8_valid(s + i, n - i);
		if (k == 0) {
			sl_buf_add(b, s + start, i - start);
			sl_buf_add(b, "\\ufffd", 6);
			start = ++i;
			continue;
		}
		if (k == 3 && c == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
			sl_buf_add(b, s + start, i - start);
			sl_buf_add(b, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
			start = i += 3;
			continue;
		}
		i += k;
	}
	sl_buf_add(b, s + start, n - start);
}

void sl_jw_strn(sl_jw *w, const char *s, size_t n)
{
	sep(w);
	sl_buf_addc(w->out, '"');
	sl_json_escape(w->out, s, n);
	sl_buf_addc(w->out, '"');
}

void sl_jw_str(sl_jw *w, const char *s) { sl_jw_strn(w, s, strlen(s)); }

void sl_jw_u64(sl_jw *w, uint64_t v)
{
	sep(w);
	sl_buf_add_u64(w->out, v);
}

void sl_jw_i64(sl_jw *w, int64_t v)
{
	sep(w);
	sl_buf_add_i64(w->out, v);
}

void sl_jw_u64s(sl_jw *w, uint64_t v)
{
	sep(w);
	sl_buf_addc(w->out, '"');
	sl_buf_add_u64(w->out, v);
	sl_buf_addc(w->out, '"');
}

void sl_jw_bool(sl_jw *w, bool v)
{
	sep(w);
	sl_buf_adds(w->out, v ? "true" : "false");
}

void sl_jw_null(sl_jw *w)
{
	sep(w);
	sl_buf_add(w->out, "null", 4);
}

void sl_jw_raw(sl_jw *w, const char *json, size_t n)
{
	sep(w);
	sl_buf_add(w->out, json, n);
}

void sl_jw_hex(sl_jw *w, const uint8_t *p, size_t n)
{
	sep(w);
	sl_buf_add(w->out, "\"0x", 3);
	sl_buf_add_hex(w->out, p, n);
	sl_buf_addc(w->out, '"');
}

void sl_jw_value(sl_jw *w) { sep(w); }
