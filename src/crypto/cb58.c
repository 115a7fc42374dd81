#include "crypto/cb58.h"

#include <stdio.h>
#include <stdlib.h>

#include "crypto/hash.h"
#include "util/gofmt.h"

static const char alphabet[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/* Base58 is quadratic; texts longer than this are refused before any work. */
#define B58_MAX_TEXT 4096

/*
 * Base conversion with limbs of five base-58 digits (58^5 < 2^30), fed 32 bits
 * at a time: about 20 times fewer steps than digit-by-digit for a 36-byte id,
 * which matters because every id the node writes goes through here.
 */
#define B58_LIMB 656356768u /* 58^5 */

void sl_base58_write(sl_buf *out, const uint8_t *p, size_t n)
{
	size_t zeros = 0;
	while (zeros < n && p[zeros] == 0)
		zeros++;
	size_t maxlimbs = (n - zeros) * 138 / 500 + 2;
	uint32_t stackbuf[64];
	uint32_t *limb = maxlimbs <= SL_ARRAY_LEN(stackbuf) ? stackbuf : malloc(maxlimbs * sizeof *limb);
	if (!limb) {
		out->err = out->err ? out->err : SL_ERR_NOMEM;
		return;
	}
	size_t len = 0; /* limbs in use, least significant first */
	size_t i = zeros;
	while (i < n) {
		/* Take 4 bytes at a time (fewer at the start so the rest divides evenly). */
		size_t take = (n - i) % 4 ? (n - i) % 4 : 4;
		uint64_t carry = 0;
		for (size_t k = 0; k < take; k++)
			carry = carry << 8 | p[i + k];
		unsigned shift = (unsigned)(8 * take);
		for (size_t j = 0; j < len; j++) {
			uint64_t t = ((uint64_t)limb[j] << shift) | carry;
			limb[j] = (uint32_t)(t % B58_LIMB);
			carry = t / B58_LIMB;
		}
		while (carry) {
			limb[len++] = (uint32_t)(carry % B58_LIMB);
			carry /= B58_LIMB;
		}
		i += take;
	}
	/* Digits, most significant first, without the top limb's leading zeros. */
	char digits[5];
	size_t ndig = 0;
	if (sl_buf_reserve(out, zeros + len * 5)) {
		for (size_t k = 0; k < zeros; k++)
			out->p[out->len++] = '1';
		for (size_t j = len; j-- > 0;) {
			uint32_t v = limb[j];
			for (int d = 4; d >= 0; d--) {
				digits[d] = alphabet[v % 58];
				v /= 58;
			}
			size_t from = 0;
			if (j == len - 1)
				while (from < 4 && digits[from] == '1')
					from++;
			for (size_t d = from; d < 5; d++)
				out->p[out->len++] = (uint8_t)digits[d];
			ndig += 5 - from;
		}
		out->p[out->len] = 0;
	}
	(void)ndig;
	if (limb != stackbuf)
		free(limb);
}

void sl_cb58_write(sl_buf *out, const uint8_t *p, size_t n)
{
	uint8_t stackbuf[128];
	uint8_t *tmp = n + 4 <= sizeof stackbuf ? stackbuf : malloc(n + 4);
	if (!tmp) {
		out->err = out->err ? out->err : SL_ERR_NOMEM;
		return;
	}
	memcpy(tmp, p, n);
	sl_checksum4(p, n, tmp + n);
	sl_base58_write(out, tmp, n + 4);
	if (tmp != stackbuf)
		free(tmp);
}

size_t sl_cb58_id(char out[64], const uint8_t id[32])
{
	uint8_t mem[64];
	sl_buf b = { .p = mem, .cap = sizeof mem, .max = sizeof mem - 1 };
	sl_cb58_write(&b, id, 32);
	memcpy(out, mem, b.len + 1);
	return b.len;
}

static sl_err base58_decode(const char *s, size_t slen, uint8_t **out, size_t *outlen, const char **msg,
			    char msgbuf[96])
{
	static signed char map[256];
	static bool map_ready; /* benign race: every thread writes the same table */
	if (!map_ready) {
		memset(map, -1, sizeof map);
		for (int i = 0; i < 58; i++)
			map[(unsigned char)alphabet[i]] = (signed char)i;
		map_ready = true;
	}
	if (slen == 0) {
		*msg = "base58 decoding error: zero length string";
		return SL_ERR_INVALID;
	}
	for (size_t i = 0; i < slen; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c > 127) {
			*msg = "base58 decoding error: high-bit set on invalid digit";
			return SL_ERR_INVALID;
		}
		if (map[c] < 0) {
			char q[16];
			sl_go_quote_char(q, c);
			snprintf(msgbuf, 96, "base58 decoding error: invalid base58 digit (%s)", q);
			*msg = msgbuf;
			return SL_ERR_INVALID;
		}
	}
	if (slen > B58_MAX_TEXT) {
		*msg = "invalid hash length: input too long";
		return SL_ERR_TOO_LARGE;
	}
	size_t zeros = 0;
	while (zeros < slen && s[zeros] == '1')
		zeros++;
	size_t size = (slen - zeros) * 733 / 1000 + 1; /* log(58)/log(256) */
	uint8_t *bytes = calloc(1, zeros + size);
	if (!bytes) {
		*msg = "out of memory";
		return SL_ERR_NOMEM;
	}
	uint8_t *num = bytes + zeros; /* little-endian big number */
	size_t len = 0;
	for (size_t i = zeros; i < slen; i++) {
		unsigned carry = (unsigned)map[(unsigned char)s[i]];
		for (size_t j = 0; j < len; j++) {
			carry += num[j] * 58u;
			num[j] = (uint8_t)carry;
			carry >>= 8;
		}
		while (carry) {
			num[len++] = (uint8_t)carry;
			carry >>= 8;
		}
	}
	for (size_t i = 0; i < len / 2; i++) { /* to big-endian */
		uint8_t t = num[i];
		num[i] = num[len - 1 - i];
		num[len - 1 - i] = t;
	}
	*out = bytes;
	*outlen = zeros + len;
	return SL_OK;
}

sl_err sl_cb58_decode(const char *s, size_t slen, uint8_t *out, size_t max, size_t *outlen, const char **msg,
		      char msgbuf[96])
{
	uint8_t *raw = NULL;
	size_t n = 0;
	sl_err err = base58_decode(s, slen, &raw, &n, msg, msgbuf);
	if (err)
		return err;
	if (n < 4) {
		*msg = "input string is smaller than the checksum size";
		err = SL_ERR_INVALID;
		goto out;
	}
	uint8_t sum[4];
	sl_checksum4(raw, n - 4, sum);
	if (memcmp(sum, raw + n - 4, 4) != 0) {
		*msg = "invalid input checksum";
		err = SL_ERR_CHECKSUM;
		goto out;
	}
	*outlen = n - 4;
	if (n - 4 > max) {
		snprintf(msgbuf, 96, "invalid hash length: expected %zu bytes but got %zu", max, n - 4);
		*msg = msgbuf;
		err = SL_ERR_TOO_LARGE;
		goto out;
	}
	memcpy(out, raw, n - 4);
out:
	free(raw);
	return err;
}

sl_err sl_cb58_decode_id(const char *s, size_t slen, uint8_t id[32], const char **msg, char msgbuf[96])
{
	size_t n = 0;
	sl_err err = sl_cb58_decode(s, slen, id, 32, &n, msg, msgbuf);
	if (!err && n != 32) {
		snprintf(msgbuf, 96, "invalid hash length: expected 32 bytes but got %zu", n);
		*msg = msgbuf;
		err = SL_ERR_INVALID;
	}
	return err;
}

void sl_jw_cb58(sl_jw *w, const uint8_t *p, size_t n)
{
	sl_jw_value(w);
	sl_buf_addc(w->out, '"');
	sl_cb58_write(w->out, p, n);
	sl_buf_addc(w->out, '"');
}
