#include "util/hex.h"

sl_err sl_hex_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *outlen)
{
	if (n % 2)
		return SL_ERR_INVALID;
	if (n / 2 > cap)
		return SL_ERR_TOO_LARGE;
	for (size_t i = 0; i < n; i += 2) {
		int hi = sl_hex_digit((unsigned char)s[i]), lo = sl_hex_digit((unsigned char)s[i + 1]);
		if (hi < 0 || lo < 0)
			return SL_ERR_INVALID;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*outlen = n / 2;
	return SL_OK;
}
