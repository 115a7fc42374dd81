/*
 * hex.h — hex text to bytes, and the index API's "0x…" with a 4-byte
 * checksum (the last 4 bytes of sha256 of the payload).
 */
#ifndef SL_HEX_H
#define SL_HEX_H

#include "util/common.h"
#include "util/err.h"

/* Decode n hex digits (no prefix; n even) into out (cap bytes). */
SL_MUST_USE sl_err sl_hex_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *outlen);

/*
 * Decode "0x" + hex(payload ‖ checksum) and verify the checksum. On failure
 * *msg is avalanchego's text ("missing 0x prefix to hex encoding",
 * "input string is smaller than the checksum size", "invalid input checksum",
 * "invalid hex").
 */
SL_MUST_USE sl_err sl_hex_checksum_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *outlen,
					  const char **msg);

#endif
