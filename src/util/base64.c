#include "util/base64.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void sl_base64url_write(sl_buf *out, const uint8_t *p, size_t n)
{
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		char c[4] = { alphabet[v >> 18], alphabet[v >> 12 & 63], alphabet[v >> 6 & 63],
			      alphabet[v & 63] };
		sl_buf_add(out, c, 4);
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)p[i] << 16;
		char c[2] = { alphabet[v >> 18], alphabet[v >> 12 & 63] };
		sl_buf_add(out, c, 2);
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
		char c[3] = { alphabet[v >> 18], alphabet[v >> 12 & 63], alphabet[v >> 6 & 63] };
		sl_buf_add(out, c, 3);
	}
}

static int val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '-' ? 62 : c == '_' ? 63 : -1;
}

bool sl_base64url_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *outlen)
{
	if (n % 4 == 1 || n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0) > cap)
		return false;
	size_t o = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = val((unsigned char)s[i]);
		if (v < 0)
			return false;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	/* the leftover bits of a short final group must be zero: one text per value */
	if (acc & ((1u << bits) - 1))
		return false;
	*outlen = o;
	return true;
}
