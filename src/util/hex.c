#include "util/hex.h"

sl_err sl_hex_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *outlen)
{
	if (n % 2)
		return SL_ERR_INVALID;
	if (n / 2 > cap)
		return SL_ERR_TOO_LARGE;
	/* a table: every container's bytes come through here as hex (index API answers) */
	static const uint8_t val[256] = {
#define H(c, v) [c] = (v) + 1
		H('0', 0),  H('1', 1),	H('2', 2),  H('3', 3),	H('4', 4),  H('5', 5),
		H('6', 6),  H('7', 7),	H('8', 8),  H('9', 9),	H('a', 10), H('b', 11),
		H('c', 12), H('d', 13), H('e', 14), H('f', 15), H('A', 10), H('B', 11),
		H('C', 12), H('D', 13), H('E', 14), H('F', 15),
#undef H
	};
	const unsigned char *u = (const unsigned char *)s;
	unsigned bad = 0;
	for (size_t i = 0; i < n; i += 2) {
		unsigned hi = val[u[i]], lo = val[u[i + 1]];
		bad |= (hi - 1) | (lo - 1); /* 0 (not a digit) wraps to set high bits */
		out[i / 2] = (uint8_t)((hi - 1) << 4 | (lo - 1));
	}
	if (bad > 15)
		return SL_ERR_INVALID;
	*outlen = n / 2;
	return SL_OK;
}
