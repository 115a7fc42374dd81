/*
 * addr.h — how Avalanche writes addresses and node ids as text.
 *
 *   address  <chainAlias>-<bech32(hrp, 20-byte short id)>   "X-avax1…", "P-fuji1…"
 *   node id  NodeID-<cb58(20 bytes)>                          (cb58 = base58 + 4-byte sha256 checksum)
 *
 * bech32 is BIP-173 (not bech32m): the 20 bytes are regrouped 8->5 bits
 * with zero padding, a 6-character checksum is appended, output is lower
 * case. Decoding rejects mixed case, bad characters, bad checksums, strings
 * over 90 characters and non-zero padding bits.
 *
 * HRP by network id: 1 avax, 2 cascade, 3 denali, 4 everest, 5 fuji,
 * 10 testing, 12345 local, any other id custom.
 */
#ifndef SL_CRYPTO_ADDR_H
#define SL_CRYPTO_ADDR_H

#include "util/buf.h"
#include "util/err.h"
#include "util/jw.h"

#define SL_BECH32_MAX_LEN 90
#define SL_HRP_MAX_LEN 83

const char *sl_addr_hrp(uint32_t network_id);

/* Append bech32(hrp, data) (data regrouped 8->5 bits). */
void sl_bech32_write(sl_buf *out, const char *hrp, const uint8_t *data, size_t n);

/*
 * Decode bech32 text into its HRP (NUL-terminated, lower case, at most
 * SL_HRP_MAX_LEN characters) and data bytes (5->8 bits, at most `max`).
 */
SL_MUST_USE sl_err sl_bech32_decode(const char *s, size_t slen, char hrp[SL_HRP_MAX_LEN + 1], uint8_t *out,
				    size_t max, size_t *outlen);

/* Append "<alias>-<bech32>" for a 20-byte address. */
void sl_addr_write(sl_buf *out, const char *chain_alias, const char *hrp, const uint8_t addr[20]);

/*
 * Parse "<alias>-<hrp>1…": the alias (up to the first '-') is copied into
 * `alias` (NUL-terminated, at most alias_cap-1 characters), the HRP into
 * `hrp`, and the 20 address bytes into `addr`.
 */
SL_MUST_USE sl_err sl_addr_parse(const char *s, size_t slen, char *alias, size_t alias_cap,
				 char hrp[SL_HRP_MAX_LEN + 1], uint8_t addr[20]);

/* "NodeID-" + cb58 of the 20 bytes. */
void sl_nodeid_write(sl_buf *out, const uint8_t id[20]);
/* The same as a JSON string value. */
void sl_jw_nodeid(sl_jw *w, const uint8_t id[20]);
SL_MUST_USE sl_err sl_nodeid_parse(const char *s, size_t slen, uint8_t id[20]);

#endif
