#include "util/hex.h"

static int nibble(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

sl_err sl_hex_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *outlen)
{
	if (n % 2)
		return SL_ERR_INVALID;
	if (n / 2 > cap)
		return SL_ERR_TOO_LARGE;
	for (size_t i = 0; i < n; i += 2) {
		int hi = nibble((unsigned char)s[i]), lo = nibble((unsigned char)s[i + 1]);
		if (hi < 0 || lo < 0)
			return SL_ERR_INVALID;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*outlen = n / 2;
	return SL_OK;
}
