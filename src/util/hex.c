#include "util/hex.h"

#include "crypto/hash.h"

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

sl_err sl_hex_checksum_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *outlen,
			      const char **msg)
{
	if (n < 2 || s[0] != '0' || (s[1] | 0x20) != 'x') {
		*msg = "missing 0x prefix to hex encoding";
		return SL_ERR_INVALID;
	}
	size_t len = 0;
	sl_err e = sl_hex_decode(s + 2, n - 2, out, cap, &len);
	if (e) {
		*msg = e == SL_ERR_TOO_LARGE ? "payload too large" : "invalid hex";
		return e;
	}
	if (len < 4) {
		*msg = "input string is smaller than the checksum size";
		return SL_ERR_INVALID;
	}
	uint8_t sum[4];
	sl_checksum4(out, len - 4, sum);
	if (memcmp(sum, out + len - 4, 4)) {
		*msg = "invalid input checksum";
		return SL_ERR_CHECKSUM;
	}
	*outlen = len - 4;
	return SL_OK;
}
