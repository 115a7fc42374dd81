/*
 * hex.h — hex text to bytes. (The index API's "0x…" with a checksum is
 * crypto/hash.h's sl_hex_checksum_decode.)
 */
#ifndef SL_HEX_H
#define SL_HEX_H

#include "util/common.h"
#include "util/err.h"

/* The value of one hex digit (either case), or -1. */
static inline int sl_hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode n hex digits (no prefix; n even) into out (cap bytes). */
SL_MUST_USE sl_err sl_hex_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *outlen);

#endif
