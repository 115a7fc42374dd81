/*
 * cb58.h — base58 (Bitcoin alphabet) with a 4-byte sha256 checksum: how
 * Avalanche writes ids. Also the plain base58 it is built on.
 *
 * Decoding reports avalanchego's exact error texts through `msg` (static
 * strings, or text formatted into the caller's `msgbuf`), because the node
 * API shows them to clients.
 */
#ifndef SL_CB58_H
#define SL_CB58_H

#include "util/buf.h"
#include "util/jw.h"

#define SL_CB58_ID_LEN 49 /* max characters of a 32-byte id in cb58 (+1 for NUL fits in 50) */

/* Append the cb58 text of p[0..n) to out. */
void sl_cb58_write(sl_buf *out, const uint8_t *p, size_t n);
/* Write the cb58 text of a 32-byte id into a caller array; returns its length. */
size_t sl_cb58_id(char out[64], const uint8_t id[32]);

/*
 * Decode cb58 text into out (at most `max` bytes, checksum removed).
 * On failure returns SL_ERR_INVALID / SL_ERR_CHECKSUM and points *msg at the
 * avalanchego error text ("base58 decoding error: ...", "invalid input
 * checksum", "input string is smaller than the checksum size").
 */
SL_MUST_USE sl_err sl_cb58_decode(const char *s, size_t slen, uint8_t *out, size_t max, size_t *outlen,
				  const char **msg, char msgbuf[96]);

/* Decode a 32-byte id; the extra length failure reads "invalid hash length: expected 32 bytes but got N". */
SL_MUST_USE sl_err sl_cb58_decode_id(const char *s, size_t slen, uint8_t id[32], const char **msg,
				     char msgbuf[96]);

/* A JSON string value: the cb58 text of p[0..n). */
void sl_jw_cb58(sl_jw *w, const uint8_t *p, size_t n);

/* Plain base58 (no checksum). */
void sl_base58_write(sl_buf *out, const uint8_t *p, size_t n);

#endif
