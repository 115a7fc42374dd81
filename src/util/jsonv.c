#include "util/jsonv.h"

#include <stdio.h>

#include "util/gofmt.h"
#include "util/limits.h"

/* ---- the scanner: Go's state machine, written as a loop over states ---- */

enum st {
	ST_VALUE,	 /* expecting the beginning of a value */
	ST_VALUE_OR_END, /* just after '[' */
	ST_KEY_OR_END,	 /* just after '{' */
	ST_KEY,		 /* after ',' in an object */
	ST_AFTER_VALUE,	 /* a value ended; look at the container */
	ST_STR,
	ST_STR_ESC,
	ST_STR_U1,
	ST_STR_U2,
	ST_STR_U3,
	ST_STR_U4,
	ST_NEG,
	ST_INT0,
	ST_INT,
	ST_DOT,
	ST_FRAC,
	ST_EXP,
	ST_EXP_SIGN,
	ST_EXP_DIGITS,
	ST_LIT, /* inside true/false/null; `lit` says which and `litpos` where */
};

enum { CTX_NONE, CTX_KEY, CTX_OBJ_VALUE, CTX_ARR_VALUE };

static bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
static bool is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static sl_err syntax(char msg[128], unsigned char c, const char *context)
{
	char q[16];
	sl_go_quote_char(q, c);
	snprintf(msg, 128, "invalid character %s %s", q, context);
	return SL_ERR_INVALID;
}

sl_err sl_json_scan(const char *p, size_t n, size_t *start, size_t *end, char msg[128])
{
	/* Container stack as bits: 1 = object, 0 = array. */
	static const char *const lits[] = { "true", "false", "null" };
	uint64_t stack[SL_JSON_MAX_DEPTH / 64 + 1];
	size_t depth = 0;
	int ctx = CTX_NONE; /* what the innermost container expects next */
	enum st s = ST_VALUE;
	int lit = 0;
	size_t litpos = 0;
	size_t i = 0;
	bool began = false;

#define PUSH(is_obj)                                                  \
	do {                                                          \
		if (depth >= SL_JSON_MAX_DEPTH)                       \
			return syntax(msg, c, "exceeded max depth");  \
		if (is_obj)                                           \
			stack[depth / 64] |= 1ull << (depth % 64);    \
		else                                                  \
			stack[depth / 64] &= ~(1ull << (depth % 64)); \
		depth++;                                              \
	} while (0)
#define TOP_IS_OBJ() ((stack[(depth - 1) / 64] >> ((depth - 1) % 64)) & 1)

	for (; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
again:
		switch (s) {
		case ST_VALUE_OR_END:
			if (is_space(c))
				continue;
			if (c == ']')
				goto close_container;
			s = ST_VALUE;
			goto again;
		case ST_KEY_OR_END:
			if (is_space(c))
				continue;
			if (c == '}')
				goto close_container;
			s = ST_KEY;
			goto again;
		case ST_KEY:
			if (is_space(c))
				continue;
			if (c != '"')
				return syntax(msg, c, "looking for beginning of object key string");
			ctx = CTX_KEY;
			s = ST_STR;
			continue;
		case ST_VALUE:
			if (is_space(c))
				continue;
			if (!began) {
				began = true;
				*start = i;
			}
			switch (c) {
			case '{':
				PUSH(1);
				s = ST_KEY_OR_END;
				continue;
			case '[':
				PUSH(0);
				s = ST_VALUE_OR_END;
				continue;
			case '"': s = ST_STR; continue;
			case '-': s = ST_NEG; continue;
			case '0': s = ST_INT0; continue;
			case 't':
				lit = 0;
				litpos = 1;
				s = ST_LIT;
				continue;
			case 'f':
				lit = 1;
				litpos = 1;
				s = ST_LIT;
				continue;
			case 'n':
				lit = 2;
				litpos = 1;
				s = ST_LIT;
				continue;
			}
			if (c >= '1' && c <= '9') {
				s = ST_INT;
				continue;
			}
			return syntax(msg, c, "looking for beginning of value");
		case ST_STR:
			/* a run of plain characters in one go (hex payloads are long) */
			while (c >= 0x20 && c != '"' && c != '\\' && i + 1 < n)
				c = (unsigned char)p[++i];
			if (c == '"') {
				if (ctx == CTX_KEY) {
					s = ST_AFTER_VALUE;
					continue;
				}
				s = ST_AFTER_VALUE;
				continue;
			}
			if (c == '\\') {
				s = ST_STR_ESC;
				continue;
			}
			if (c < 0x20)
				return syntax(msg, c, "in string literal");
			continue;
		case ST_STR_ESC:
			switch (c) {
			case 'b':
			case 'f':
			case 'n':
			case 'r':
			case 't':
			case '\\':
			case '/':
			case '"': s = ST_STR; continue;
			case 'u': s = ST_STR_U1; continue;
			}
			return syntax(msg, c, "in string escape code");
		case ST_STR_U1:
		case ST_STR_U2:
		case ST_STR_U3:
		case ST_STR_U4:
			if (!is_hex(c))
				return syntax(msg, c, "in \\u hexadecimal character escape");
			s = s == ST_STR_U4 ? ST_STR : s + 1;
			continue;
		case ST_NEG:
			if (c == '0') {
				s = ST_INT0;
				continue;
			}
			if (c >= '1' && c <= '9') {
				s = ST_INT;
				continue;
			}
			return syntax(msg, c, "in numeric literal");
		case ST_INT:
			if (c >= '0' && c <= '9')
				continue;
			/* fall through */
		case ST_INT0:
			if (c == '.') {
				s = ST_DOT;
				continue;
			}
			if (c == 'e' || c == 'E') {
				s = ST_EXP;
				continue;
			}
			s = ST_AFTER_VALUE;
			goto again;
		case ST_DOT:
			if (c >= '0' && c <= '9') {
				s = ST_FRAC;
				continue;
			}
			return syntax(msg, c, "after decimal point in numeric literal");
		case ST_FRAC:
			if (c >= '0' && c <= '9')
				continue;
			if (c == 'e' || c == 'E') {
				s = ST_EXP;
				continue;
			}
			s = ST_AFTER_VALUE;
			goto again;
		case ST_EXP:
			if (c == '+' || c == '-') {
				s = ST_EXP_SIGN;
				continue;
			}
			/* fall through */
		case ST_EXP_SIGN:
			if (c >= '0' && c <= '9') {
				s = ST_EXP_DIGITS;
				continue;
			}
			return syntax(msg, c, "in exponent of numeric literal");
		case ST_EXP_DIGITS:
			if (c >= '0' && c <= '9')
				continue;
			s = ST_AFTER_VALUE;
			goto again;
		case ST_LIT: {
			const char *w = lits[lit];
			if (c != (unsigned char)w[litpos]) {
				char ctxmsg[48];
				snprintf(ctxmsg, sizeof ctxmsg, "in literal %s (expecting '%c')", w,
					 w[litpos]);
				return syntax(msg, c, ctxmsg);
			}
			if (w[++litpos] == 0)
				s = ST_AFTER_VALUE;
			continue;
		}
		case ST_AFTER_VALUE:
			if (depth == 0) {
				*end = i; /* the value ended before this byte */
				return SL_OK;
			}
			if (ctx == CTX_KEY) {
				if (is_space(c))
					continue;
				if (c != ':')
					return syntax(msg, c, "after object key");
				ctx = CTX_OBJ_VALUE;
				s = ST_VALUE;
				continue;
			}
			if (is_space(c))
				continue;
			if (TOP_IS_OBJ()) {
				if (c == ',') {
					s = ST_KEY;
					continue;
				}
				if (c == '}')
					goto close_container;
				return syntax(msg, c, "after object key:value pair");
			}
			if (c == ',') {
				s = ST_VALUE;
				continue;
			}
			if (c == ']')
				goto close_container;
			return syntax(msg, c, "after array element");
		}
		continue;
close_container:
		depth--;
		s = ST_AFTER_VALUE;
		ctx = depth ? (TOP_IS_OBJ() ? CTX_OBJ_VALUE : CTX_ARR_VALUE) : CTX_NONE;
		if (depth == 0) {
			*end = i + 1;
			return SL_OK;
		}
		continue;
	}
	/* Input ended. A top-level number is complete at EOF; anything else is not. */
	if (depth == 0 && (s == ST_INT || s == ST_INT0 || s == ST_FRAC || s == ST_EXP_DIGITS ||
			   (s == ST_AFTER_VALUE && began))) {
		*end = n;
		return SL_OK;
	}
	snprintf(msg, 128, "%s", began ? "unexpected EOF" : "EOF");
	return SL_ERR_TRUNCATED;
#undef PUSH
#undef TOP_IS_OBJ
}

/* ---- reading validated values ---- */

sl_jtype sl_json_type(sl_span v)
{
	if (!v.len)
		return SL_JT_INVALID;
	switch (v.p[0]) {
	case '{': return SL_JT_OBJECT;
	case '[': return SL_JT_ARRAY;
	case '"': return SL_JT_STRING;
	case 't':
	case 'f': return SL_JT_BOOL;
	case 'n': return SL_JT_NULL;
	}
	return SL_JT_NUMBER;
}

const char *sl_json_kind_name(sl_jtype t)
{
	switch (t) {
	case SL_JT_OBJECT: return "object";
	case SL_JT_ARRAY: return "array";
	case SL_JT_STRING: return "string";
	case SL_JT_NUMBER: return "number";
	case SL_JT_BOOL: return "bool";
	default: return "null";
	}
}

/* End of the validated value starting at p[i] (not whitespace). Iterative. */
static size_t skip_value(const char *p, size_t n, size_t i)
{
	size_t depth = 0;
	bool in_str = false;
	for (; i < n; i++) {
		char c = p[i];
		if (in_str) {
			/* to the next quote that no escape takes. The quote found stays found while the
			 * escapes before it are passed, so each byte is looked at a bounded number of
			 * times: looking for it again after each escape made a string of escapes
			 * quadratic (a megabyte of them took seconds) */
			const char *q = memchr(p + i, '"', n - i);
			for (;;) {
				if (!q)
					return n;
				const char *bs = memchr(p + i, '\\', (size_t)(q - (p + i)));
				if (!bs)
					break;
				i = (size_t)(bs - p) + 2; /* past the escape and what it escapes */
				if (p + i > q)		  /* that was the quote */
					q = i < n ? memchr(p + i, '"', n - i) : NULL;
			}
			i = (size_t)(q - p);
			in_str = false;
			if (depth == 0)
				return i + 1;
			continue;
		}
		switch (c) {
		case '"': in_str = true; break;
		case '{':
		case '[': depth++; break;
		case '}':
		case ']':
			if (depth == 0)
				return i; /* a literal or number ends at its container's close */
			if (--depth == 0)
				return i + 1;
			break;
		case ',':
		case ' ':
		case '\t':
		case '\r':
		case '\n':
		case ':':
			if (depth == 0)
				return i;
			break;
		}
	}
	return n;
}

static size_t skip_ws(const char *p, size_t n, size_t i)
{
	while (i < n && is_space((unsigned char)p[i]))
		i++;
	return i;
}

void sl_json_iter_init(sl_jiter *it, sl_span c) { *it = (sl_jiter){ (const char *)c.p, c.len, 1 }; }

bool sl_json_arr_next(sl_jiter *it, sl_span *val)
{
	size_t i = skip_ws(it->p, it->n, it->off);
	if (i < it->n && it->p[i] == ',')
		i = skip_ws(it->p, it->n, i + 1);
	if (i >= it->n || it->p[i] == ']' || it->p[i] == '}') {
		it->off = it->n;
		return false;
	}
	size_t e = skip_value(it->p, it->n, i);
	*val = sl_span_of(it->p + i, e - i);
	it->off = e;
	return true;
}

bool sl_json_obj_next(sl_jiter *it, sl_span *key, sl_span *val)
{
	if (!sl_json_arr_next(it, key))
		return false;
	size_t i = skip_ws(it->p, it->n, it->off);
	if (i >= it->n || it->p[i] != ':')
		return false;
	it->off = i + 1;
	i = skip_ws(it->p, it->n, it->off);
	size_t e = skip_value(it->p, it->n, i);
	*val = sl_span_of(it->p + i, e - i);
	it->off = e;
	return true;
}

static int hexval(unsigned char c)
{
	if (c <= '9')
		return c - '0';
	return (c | 0x20) - 'a' + 10;
}

static void put_rune(sl_buf *out, uint32_t r)
{
	uint8_t b[4];
	size_t n;
	if (r < 0x80) {
		b[0] = (uint8_t)r;
		n = 1;
	} else if (r < 0x800) {
		b[0] = (uint8_t)(0xc0 | r >> 6);
		b[1] = (uint8_t)(0x80 | (r & 0x3f));
		n = 2;
	} else if (r < 0x10000) {
		b[0] = (uint8_t)(0xe0 | r >> 12);
		b[1] = (uint8_t)(0x80 | ((r >> 6) & 0x3f));
		b[2] = (uint8_t)(0x80 | (r & 0x3f));
		n = 3;
	} else {
		b[0] = (uint8_t)(0xf0 | r >> 18);
		b[1] = (uint8_t)(0x80 | ((r >> 12) & 0x3f));
		b[2] = (uint8_t)(0x80 | ((r >> 6) & 0x3f));
		b[3] = (uint8_t)(0x80 | (r & 0x3f));
		n = 4;
	}
	sl_buf_add(out, b, n);
}

/* Length of a valid UTF-8 sequence at s, or 0 (Go's rules). */
static size_t utf8_len(const uint8_t *s, size_t n)
{
	uint8_t c = s[0];
	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	size_t k = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || (c == 0xf0 && s[1] < 0x90) ||
	    (c == 0xf4 && s[1] > 0x8f))
		return 0;
	return k;
}

static uint32_t read_u4(const uint8_t *p)
{
	return (uint32_t)(hexval(p[0]) << 12 | hexval(p[1]) << 8 | hexval(p[2]) << 4 | hexval(p[3]));
}

void sl_json_unquote(sl_span raw, sl_buf *out)
{
	if (raw.len < 2)
		return;
	const uint8_t *s = raw.p + 1;
	size_t n = raw.len - 2;
	size_t i = 0;
	while (i < n) {
		uint8_t c = s[i];
		if (c == '\\' && i + 1 < n) {
			uint8_t e = s[i + 1];
			i += 2;
			switch (e) {
			case 'b': sl_buf_addc(out, '\b'); continue;
			case 'f': sl_buf_addc(out, '\f'); continue;
			case 'n': sl_buf_addc(out, '\n'); continue;
			case 'r': sl_buf_addc(out, '\r'); continue;
			case 't': sl_buf_addc(out, '\t'); continue;
			case 'u': {
				if (i + 4 > n)
					return;
				uint32_t r = read_u4(s + i);
				i += 4;
				if (r >= 0xd800 && r < 0xdc00) {
					/* A high surrogate needs a low one right after it. */
					if (i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
						uint32_t r2 = read_u4(s + i + 2);
						if (r2 >= 0xdc00 && r2 < 0xe000) {
							put_rune(out, 0x10000 + ((r - 0xd800) << 10) +
									      (r2 - 0xdc00));
							i += 6;
							continue;
						}
					}
					r = 0xfffd;
				} else if (r >= 0xdc00 && r < 0xe000) {
					r = 0xfffd;
				}
				put_rune(out, r);
				continue;
			}
			default: sl_buf_addc(out, (char)e); continue; /* \\ \/ \" */
			}
		}
		if (c < 0x80) {
			sl_buf_addc(out, (char)c);
			i++;
			continue;
		}
		size_t k = utf8_len(s + i, n - i);
		if (!k) {
			sl_buf_add(out, "\xef\xbf\xbd", 3);
			i++;
			continue;
		}
		sl_buf_add(out, s + i, k);
		i += k;
	}
}

bool sl_json_key_match(const char *key, size_t n, const char *field)
{
	const uint8_t *k = (const uint8_t *)key;
	size_t i = 0, j = 0;
	while (i < n) {
		if (!field[j])
			return false;
		uint8_t want = (uint8_t)field[j];
		if (want >= 'a' && want <= 'z')
			want = (uint8_t)(want - 32);
		uint8_t got;
		if (k[i] < 0x80) {
			got = k[i] >= 'a' && k[i] <= 'z' ? (uint8_t)(k[i] - 32) : k[i];
			i++;
		} else if (i + 1 < n && k[i] == 0xc5 && k[i + 1] == 0xbf) { /* U+017F long s */
			got = 'S';
			i += 2;
		} else if (i + 2 < n && k[i] == 0xe2 && k[i + 1] == 0x84 && k[i + 2] == 0xaa) { /* Kelvin */
			got = 'K';
			i += 3;
		} else {
			return false;
		}
		if (got != want)
			return false;
		j++;
	}
	return field[j] == 0;
}

void sl_json_compact(sl_span raw, sl_buf *out)
{
	const uint8_t *s = raw.p;
	size_t n = raw.len, start = 0;
	bool in_str = false;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (in_str) {
			if (c == '\\') {
				i++;
				continue;
			}
			if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (is_space(c)) {
			sl_buf_add(out, s + start, i - start);
			start = i + 1;
			continue;
		}
		if (c == '<' || c == '>' || c == '&') {
			sl_buf_add(out, s + start, i - start);
			sl_buf_add(out, c == '<' ? "\\u003c" : c == '>' ? "\\u003e" : "\\u0026", 6);
			start = i + 1;
		} else if (c == 0xe2 && i + 2 < n && s[i + 1] == 0x80 && (s[i + 2] & 0xfe) == 0xa8) {
			sl_buf_add(out, s + start, i - start);
			sl_buf_add(out, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
			i += 2;
			start = i + 1;
		}
	}
	sl_buf_add(out, s + start, n - start);
}
