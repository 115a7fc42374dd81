/*
 * base64.h — base64url without padding (RFC 4648 §5), the alphabet of page
 * tokens: safe in a query string without escaping.
 */
#ifndef SL_BASE64_H
#define SL_BASE64_H

#include "util/buf.h"

/* Append the base64url text of p[0..n). */
void sl_base64url_write(sl_buf *out, const uint8_t *p, size_t n);
/* Decode s[0..n) into out (cap bytes); false when it is not base64url or does not fit. */
SL_MUST_USE bool sl_base64url_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *outlen);

#endif
