/*
 * rlp.h — Ethereum's Recursive Length Prefix encoding, read and written.
 *
 * An item is a string (bytes) or a list (a concatenation of items). The
 * first byte says which, and how long:
 *
 *   first byte   meaning                         payload
 *   00..7f       one-byte string, the byte itself  (no header)
 *   80..b7       string of 0..55 bytes            next (b - 0x80) bytes
 *   b8..bf       long string                      (b - 0xb7) length bytes, big-endian, then the bytes
 *   c0..f7       list of 0..55 payload bytes      next (b - 0xc0) bytes
 *   f8..ff       long list                        (b - 0xf7) length bytes, then the payload
 *
 * Only the canonical form is accepted, as go-ethereum's decoder demands:
 * a single byte below 0x80 must stand alone (not 81 xx), long forms only
 * for 56 bytes and more, length fields without leading zeros. Integers
 * are strings holding the big-endian value without leading zeros (zero is
 * the empty string, 0x80); decoding an integer rejects leading zeros.
 * Under these rules every value has exactly one encoding, so decoding
 * then re-encoding reproduces the input byte for byte.
 *
 * Reading goes through the bounded cursor of codec/reader.h. A list is
 * read by opening a child cursor over its payload; the child keeps the
 * parent's base pointer, so error offsets are offsets into the whole
 * input. Close the child with sl_rlp_close(), which requires that every
 * item of the list was read and carries the child's error to the parent.
 * All returned spans are views into the input.
 *
 * Writing appends to an sl_buf (sticky error). A list is written by
 * sl_rlp_list_begin(), its items, then sl_rlp_list_end(), which inserts
 * the header in front of the payload.
 */
#ifndef SL_CODEC_RLP_H
#define SL_CODEC_RLP_H

#include "codec/reader.h"
#include "util/buf.h"
#include "util/limits.h"

/* RLP lists nest; deeper than SL_RLP_MAX_DEPTH (util/limits.h) is refused. */

typedef struct sl_rlp_item {
	bool is_list;
	sl_span payload; /* the string's bytes, or the list's payload */
	sl_span raw;	 /* header and payload: the item's whole encoding */
	size_t off;	 /* offset of the item's first byte in the input */
} sl_rlp_item;

/* Read the next item's header and skip over it. False (sticky error) at a bad or missing item. */
bool sl_rlp_next(sl_reader *r, sl_rlp_item *it);

/* A cursor over a list item's payload (absolute offsets kept). */
void sl_rlp_child(const sl_reader *r, const sl_rlp_item *it, sl_reader *child);

/* The next item must be a list: open it in *child. False on error. */
bool sl_rlp_list(sl_reader *r, sl_reader *child);

/* Finish a list: every item must have been read. Copies the child's error to r. */
void sl_rlp_close(sl_reader *r, sl_reader *child);

/* The next item must be a string of at most max bytes. */
sl_span sl_rlp_str(sl_reader *r, size_t max);

/* The next item must be a string of exactly n bytes (hashes, addresses). */
sl_span sl_rlp_fixed(sl_reader *r, size_t n);

/* The next item must be a canonical unsigned integer of at most max bytes (big-endian, no leading zero). */
sl_span sl_rlp_uint(sl_reader *r, size_t max);

/* A canonical unsigned integer that fits in 64 bits. */
uint64_t sl_rlp_u64(sl_reader *r);

/* A big-endian integer (at most 8 bytes, any leading zeros) as a u64. */
uint64_t sl_rlp_be_u64(sl_span be);

/* Decode a whole buffer that must hold exactly one item. */
SL_MUST_USE sl_err sl_rlp_decode(const uint8_t *p, size_t len, sl_rlp_item *it, sl_err_detail *detail);

/* Writing. */
void sl_rlp_put_str(sl_buf *b, const uint8_t *p, size_t n);
void sl_rlp_put_span(sl_buf *b, sl_span s);
void sl_rlp_put_uint(sl_buf *b, sl_span be); /* leading zeros are dropped */
void sl_rlp_put_u64(sl_buf *b, uint64_t v);
void sl_rlp_put_raw(sl_buf *b, sl_span encoded); /* an already-encoded item */
size_t sl_rlp_list_begin(sl_buf *b);
void sl_rlp_list_end(sl_buf *b, size_t start);

#endif
