/*
 * evm_abi.c — transfers, ICM events and token answers from ABI bytes (evm_abi.h).
 */
#include "codec/evm_abi.h"

#include <string.h>

#include "crypto/hash.h"
#include "util/limits.h"

const uint8_t sl_evm_topic_transfer[32] = { 0xdd, 0xf2, 0x52, 0xad, 0x1b, 0xe2, 0xc8, 0x9b, 0x69, 0xc2, 0xb0,
					    0x68, 0xfc, 0x37, 0x8d, 0xaa, 0x95, 0x2b, 0xa7, 0xf1, 0x63, 0xc4,
					    0xa1, 0x16, 0x28, 0xf5, 0x5a, 0x4d, 0xf5, 0x23, 0xb3, 0xef };
const uint8_t sl_evm_topic_transfer_single[32] = { 0xc3, 0xd5, 0x81, 0x68, 0xc5, 0xae, 0x73, 0x97,
						   0x73, 0x1d, 0x06, 0x3d, 0x5b, 0xbf, 0x3d, 0x65,
						   0x78, 0x54, 0x42, 0x73, 0x43, 0xf4, 0xc0, 0x83,
						   0x24, 0x0f, 0x7a, 0xac, 0xaa, 0x2d, 0x0f, 0x62 };
const uint8_t sl_evm_topic_transfer_batch[32] = { 0x4a, 0x39, 0xdc, 0x06, 0xd4, 0xc0, 0xdb, 0xc6,
						  0x4b, 0x70, 0xaf, 0x90, 0xfd, 0x69, 0x8a, 0x23,
						  0x3a, 0x51, 0x8a, 0xa5, 0xd0, 0x7e, 0x59, 0x5d,
						  0x98, 0x3b, 0x8c, 0x05, 0x26, 0xc8, 0xf7, 0xfb };
const uint8_t sl_icm_topic_send[32] = { 0x2a, 0x21, 0x1a, 0xd4, 0xa5, 0x9a, 0xb9, 0xd0, 0x03, 0x85, 0x24,
					0x04, 0xf9, 0xc5, 0x7c, 0x69, 0x07, 0x04, 0xee, 0x75, 0x5f, 0x3c,
					0x79, 0xd2, 0xc2, 0x81, 0x2a, 0xd3, 0x2d, 0xa9, 0x9d, 0xf8 };
const uint8_t sl_icm_topic_receive[32] = { 0x29, 0x2e, 0xe9, 0x0b, 0xba, 0xf7, 0x0b, 0x5d, 0x49, 0x36, 0x02,
					   0x5e, 0x09, 0xd5, 0x6b, 0xa0, 0x8f, 0x3e, 0x42, 0x11, 0x56, 0xb6,
					   0xa5, 0x68, 0xcf, 0x3c, 0x28, 0x40, 0xd9, 0x34, 0x3e, 0x34 };
const uint8_t sl_icm_topic_executed[32] = { 0x34, 0x79, 0x5c, 0xc6, 0xb1, 0x22, 0xb9, 0xa0, 0xae, 0x68, 0x49,
					    0x46, 0x31, 0x9f, 0x1e, 0x14, 0xa5, 0x77, 0xb4, 0xe8, 0xf9, 0xb3,
					    0xdd, 0xa9, 0xac, 0x94, 0xc2, 0x1a, 0x54, 0xd3, 0x18, 0x8c };
const uint8_t sl_icm_topic_failed[32] = { 0x46, 0x19, 0xad, 0xc1, 0x01, 0x7b, 0x82, 0xe0, 0x2e, 0xae, 0xfa,
					  0xc0, 0x1a, 0x43, 0xd5, 0x0d, 0x6d, 0x8d, 0xe4, 0x46, 0x07, 0x74,
					  0xbc, 0x37, 0x0c, 0x3f, 0xf0, 0x21, 0x0d, 0x40, 0xc9, 0x85 };
const uint8_t sl_icm_topic_receipt[32] = { 0xd1, 0x3a, 0x79, 0x35, 0xf2, 0x9a, 0xf0, 0x29, 0x34, 0x9b, 0xed,
					   0x0a, 0x20, 0x97, 0x45, 0x5b, 0x91, 0xfd, 0x06, 0x19, 0x0a, 0x30,
					   0x47, 0x8c, 0x57, 0x5d, 0xb3, 0xf3, 0x1e, 0x00, 0xbf, 0x57 };
const uint8_t sl_icm_topic_add_fee[32] = { 0xc1, 0xbf, 0xd1, 0xf1, 0x20, 0x89, 0x27, 0xdf, 0xbd, 0x41, 0x40,
					   0x41, 0xdc, 0xb5, 0x25, 0x6e, 0x6c, 0x9a, 0xd9, 0x0d, 0xd6, 0x1a,
					   0xec, 0x32, 0x49, 0xfa, 0xcb, 0xd3, 0x4f, 0xf7, 0xb3, 0xe1 };

/* ---- ABI words ------------------------------------------------------------------ */

static bool word(const uint8_t *p, size_t n, size_t off, const uint8_t **w)
{
	if (off > n || n - off < 32)
		return false;
	*w = p + off;
	return true;
}

/* A word holding an address: 12 zero bytes, then 20. */
static bool addr_word(const uint8_t *w, uint8_t out[20])
{
	for (int i = 0; i < 12; i++)
		if (w[i])
			return false;
	memcpy(out, w + 12, 20);
	return true;
}

/* A word as an offset or a length that must fit within n (so below 2^32 as well). */
static bool small_word(const uint8_t *w, size_t n, size_t *out)
{
	for (int i = 0; i < 24; i++)
		if (w[i])
			return false;
	uint64_t v = 0;
	for (int i = 24; i < 32; i++)
		v = v << 8 | w[i];
	if (v > n)
		return false;
	*out = (size_t)v;
	return true;
}

static bool read_addr(const uint8_t *p, size_t n, size_t off, uint8_t out[20])
{
	const uint8_t *w;
	return word(p, n, off, &w) && addr_word(w, out);
}

static bool read_u256(const uint8_t *p, size_t n, size_t off, uint8_t out[32])
{
	const uint8_t *w;
	if (!word(p, n, off, &w))
		return false;
	memcpy(out, w, 32);
	return true;
}

/* A dynamic array at base + offset-word(at): *items points at its first element of `size` bytes. */
static bool read_array(const uint8_t *p, size_t n, size_t base, size_t at, size_t size, size_t max,
		       const uint8_t **items, uint32_t *count)
{
	const uint8_t *w;
	size_t off, len;
	if (!word(p, n, at, &w) || !small_word(w, n, &off) || base > n || off > n - base ||
	    !word(p, n, base + off, &w) || !small_word(w, n, &len) || len > max)
		return false;
	size_t start = base + off + 32;
	if (len && (n - start) / size < len)
		return false;
	*items = p + start;
	*count = (uint32_t)len;
	return true;
}

/* ---- transfers ---------------------------------------------------------------------- */

static const uint8_t one[32] = { [31] = 1 };

sl_err sl_evm_log_transfers(const uint8_t *topics, size_t ntopics, const uint8_t *data, size_t len,
			    sl_evm_transfer_fn fn, void *ctx)
{
	if (!ntopics)
		return SL_ERR_NOT_FOUND;
	sl_evm_transfer t;
	memset(&t, 0, sizeof t);
	if (!memcmp(topics, sl_evm_topic_transfer, 32)) {
		if (!addr_word(topics + 32 * (ntopics > 1), t.from) || ntopics < 3 ||
		    !addr_word(topics + 64, t.to))
			return SL_ERR_NOT_FOUND;
		if (ntopics == 3 && len == 32) {
			t.std = 20;
			memcpy(t.value, data, 32);
		} else if (ntopics == 4 && len == 0) {
			t.std = 721;
			t.has_id = true;
			memcpy(t.token_id, topics + 96, 32);
			memcpy(t.value, one, 32);
		} else
			return SL_ERR_NOT_FOUND;
		return fn(ctx, 0, &t);
	}
	bool single = !memcmp(topics, sl_evm_topic_transfer_single, 32);
	bool batch = !memcmp(topics, sl_evm_topic_transfer_batch, 32);
	if (!single && !batch)
		return SL_ERR_NOT_FOUND;
	if (ntopics != 4 || !addr_word(topics + 64, t.from) || !addr_word(topics + 96, t.to))
		return SL_ERR_NOT_FOUND;
	t.std = 1155;
	t.has_id = true;
	if (single) {
		if (len != 64)
			return SL_ERR_NOT_FOUND;
		memcpy(t.token_id, data, 32);
		memcpy(t.value, data + 32, 32);
		return fn(ctx, 0, &t);
	}
	const uint8_t *ids, *vals;
	uint32_t nids, nvals;
	if (!read_array(data, len, 0, 0, 32, len / 32, &ids, &nids) ||
	    !read_array(data, len, 0, 32, 32, len / 32, &vals, &nvals) || nids != nvals)
		return SL_ERR_NOT_FOUND;
	for (uint32_t i = 0; i < nids; i++) {
		memcpy(t.token_id, ids + 32 * (size_t)i, 32);
		memcpy(t.value, vals + 32 * (size_t)i, 32);
		sl_err e = fn(ctx, i, &t);
		if (e)
			return e;
	}
	return SL_OK;
}

/* ---- ICM ------------------------------------------------------------------------- */

/* The TeleporterMessage tuple whose offset is the word at `at` (offsets relative to 0). */
static bool read_message(const uint8_t *p, size_t n, size_t at, sl_icm_message *m)
{
	const uint8_t *w;
	size_t base;
	if (!word(p, n, at, &w) || !small_word(w, n, &base))
		return false;
	if (!read_u256(p, n, base, m->nonce) || !read_addr(p, n, base + 32, m->origin) ||
	    !read_u256(p, n, base + 64, m->dst_blockchain) || !read_addr(p, n, base + 96, m->dst_addr) ||
	    !read_u256(p, n, base + 128, m->gas_limit))
		return false;
	if (!read_array(p, n, base, base + 160, 32, SL_EVM_MAX_ICM_ITEMS, &m->relayers, &m->nrelayers) ||
	    !read_array(p, n, base, base + 192, 64, SL_EVM_MAX_ICM_ITEMS, &m->receipts, &m->nreceipts))
		return false;
	uint8_t a[20];
	for (uint32_t i = 0; i < m->nrelayers; i++)
		if (!addr_word(m->relayers + 32 * (size_t)i, a))
			return false;
	for (uint32_t i = 0; i < m->nreceipts; i++)
		if (!addr_word(m->receipts + 64 * (size_t)i + 32, a))
			return false;
	const uint8_t *bytes;
	uint32_t blen;
	if (!read_array(p, n, base, base + 224, 1, SL_EVM_MAX_BYTES, &bytes, &blen))
		return false;
	m->payload = bytes;
	m->payload_len = blen;
	return true;
}

sl_err sl_icm_decode(const uint8_t *topics, size_t ntopics, const uint8_t *data, size_t len, sl_icm_event *ev)
{
	memset(ev, 0, sizeof *ev);
	if (!ntopics)
		return SL_OK;
	struct {
		const uint8_t *topic;
		sl_icm_kind kind;
		size_t ntopics;
	} known[] = {
		{ sl_icm_topic_send, SL_ICM_SEND, 3 },	       { sl_icm_topic_receive, SL_ICM_RECEIVE, 4 },
		{ sl_icm_topic_executed, SL_ICM_EXECUTED, 3 }, { sl_icm_topic_failed, SL_ICM_FAILED, 3 },
		{ sl_icm_topic_receipt, SL_ICM_RECEIPT, 4 },   { sl_icm_topic_add_fee, SL_ICM_ADD_FEE, 2 },
	};
	size_t k = 0;
	while (k < SL_ARRAY_LEN(known) && memcmp(topics, known[k].topic, 32))
		k++;
	if (k == SL_ARRAY_LEN(known))
		return SL_OK;
	if (ntopics != known[k].ntopics)
		return SL_ERR_INVALID;
	ev->kind = known[k].kind;
	memcpy(ev->id, topics + 32, 32);
	if (ntopics > 2)
		memcpy(ev->chain, topics + 64, 32);
	bool ok = true;
	switch (ev->kind) {
	case SL_ICM_SEND:
		/* (TeleporterMessage message, (address feeTokenAddress, uint256 amount) feeInfo) */
		ok = read_message(data, len, 0, &ev->msg) && read_addr(data, len, 32, ev->fee_token) &&
		     read_u256(data, len, 64, ev->fee_amount);
		ev->has_msg = true;
		break;
	case SL_ICM_RECEIVE:
		/* topics: id, source, deliverer; data: (address rewardRedeemer, TeleporterMessage message) */
		ok = addr_word(topics + 96, ev->addr) && read_addr(data, len, 0, ev->redeemer) &&
		     read_message(data, len, 32, &ev->msg);
		ev->has_msg = true;
		break;
	case SL_ICM_EXECUTED: ok = true; break;
	case SL_ICM_FAILED:
		ok = read_message(data, len, 0, &ev->msg);
		ev->has_msg = true;
		break;
	case SL_ICM_RECEIPT:
		/* topics: id, destination, relayerRewardAddress; data: feeInfo */
		ok = addr_word(topics + 96, ev->addr) && read_addr(data, len, 0, ev->fee_token) &&
		     read_u256(data, len, 32, ev->fee_amount);
		break;
	case SL_ICM_ADD_FEE:
		ok = read_addr(data, len, 0, ev->fee_token) && read_u256(data, len, 32, ev->fee_amount);
		break;
	case SL_ICM_NONE: break;
	}
	if (!ok) {
		memset(ev, 0, sizeof *ev);
		return SL_ERR_INVALID;
	}
	return SL_OK;
}

void sl_icm_message_id(const uint8_t messenger[20], const uint8_t src[32], const uint8_t dst[32],
		       const uint8_t nonce[32], uint8_t out[32])
{
	uint8_t buf[128] = { 0 };
	memcpy(buf + 12, messenger, 20);
	memcpy(buf + 32, src, 32);
	memcpy(buf + 64, dst, 32);
	memcpy(buf + 96, nonce, 32);
	sl_keccak256(buf, sizeof buf, out);
}

/* ---- token answers ----------------------------------------------------------------------- */

/* Valid UTF-8 without control characters (U+0000..U+001F, U+007F). */
static bool clean_utf8(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t c = s[i];
		if (c < 0x20 || c == 0x7f)
			return false;
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t k = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : 0;
		if (!k || c > 0xf4 || n - i <= k)
			return false;
		uint32_t cp = c & (0x3f >> k);
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((k == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		i += k + 1;
	}
	return true;
}

bool sl_evm_abi_string(const uint8_t *p, size_t n, char *out, size_t cap)
{
	const uint8_t *s;
	size_t len;
	if (n == 32) { /* bytes32: up to the first zero */
		s = p;
		for (len = 0; len < 32 && p[len]; len++)
			;
		for (size_t i = len; i < 32; i++)
			if (p[i])
				return false;
	} else {
		const uint8_t *items;
		uint32_t count;
		if (!read_array(p, n, 0, 0, 1, n, &items, &count))
			return false;
		s = items;
		len = count;
	}
	if (!cap || len > cap - 1 || !clean_utf8(s, len))
		return false;
	memcpy(out, s, len);
	out[len] = 0;
	return true;
}

bool sl_evm_abi_uint8(const uint8_t *p, size_t n, unsigned *out)
{
	if (n != 32)
		return false;
	for (int i = 0; i < 31; i++)
		if (p[i])
			return false;
	*out = p[31];
	return true;
}
