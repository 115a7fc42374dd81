#include "codec/coreth.h"

#include "crypto/hash.h"
#include "crypto/secp.h"
#include "util/limits.h"

const sl_coreth_field_info sl_coreth_header_fields[SL_CORETH_HFIELDS] = {
	[SL_CH_PARENT_HASH] = { "parentHash", SL_CF_HASH },
	[SL_CH_UNCLE_HASH] = { "sha3Uncles", SL_CF_HASH },
	[SL_CH_COINBASE] = { "miner", SL_CF_ADDRESS },
	[SL_CH_STATE_ROOT] = { "stateRoot", SL_CF_HASH },
	[SL_CH_TX_ROOT] = { "transactionsRoot", SL_CF_HASH },
	[SL_CH_RECEIPT_ROOT] = { "receiptsRoot", SL_CF_HASH },
	[SL_CH_BLOOM] = { "logsBloom", SL_CF_BLOOM },
	[SL_CH_DIFFICULTY] = { "difficulty", SL_CF_BIG },
	[SL_CH_NUMBER] = { "number", SL_CF_U64 },
	[SL_CH_GAS_LIMIT] = { "gasLimit", SL_CF_U64 },
	[SL_CH_GAS_USED] = { "gasUsed", SL_CF_U64 },
	[SL_CH_TIME] = { "timestamp", SL_CF_U64 },
	[SL_CH_EXTRA] = { "extraData", SL_CF_BYTES },
	[SL_CH_MIX_DIGEST] = { "mixHash", SL_CF_HASH },
	[SL_CH_NONCE] = { "nonce", SL_CF_NONCE },
	[SL_CH_EXT_DATA_HASH] = { "extDataHash", SL_CF_HASH },
	[SL_CH_BASE_FEE] = { "baseFeePerGas", SL_CF_BIG },
	[SL_CH_EXT_DATA_GAS_USED] = { "extDataGasUsed", SL_CF_BIG },
	[SL_CH_BLOCK_GAS_COST] = { "blockGasCost", SL_CF_BIG },
	[SL_CH_BLOB_GAS_USED] = { "blobGasUsed", SL_CF_U64 },
	[SL_CH_EXCESS_BLOB_GAS] = { "excessBlobGas", SL_CF_U64 },
	[SL_CH_PARENT_BEACON_ROOT] = { "parentBeaconBlockRoot", SL_CF_OPT_HASH },
	[SL_CH_TIME_MS] = { "timestampMilliseconds", SL_CF_U64 },
	[SL_CH_MIN_DELAY_EXCESS] = { "minDelayExcess", SL_CF_U64 },
	[SL_CH_TARGET_EXPONENT] = { "targetExponent", SL_CF_U64 },
	[SL_CH_MIN_PRICE_EXPONENT] = { "minPriceExponent", SL_CF_U64 },
	[SL_CH_SETTLED_HEIGHT] = { "settledHeight", SL_CF_U64 },
	[SL_CH_SETTLED_GAS_UNIX] = { "settledGasUnix", SL_CF_U64 },
	[SL_CH_SETTLED_GAS_NUMERATOR] = { "settledGasNumerator", SL_CF_U64 },
	[SL_CH_SETTLED_EXCESS] = { "settledExcess", SL_CF_U64 },
};

bool sl_coreth_header_u64(const sl_coreth_header *h, unsigned field, uint64_t *v)
{
	*v = 0;
	if (field >= h->nfields || field >= SL_CORETH_HFIELDS)
		return false;
	sl_coreth_fkind k = sl_coreth_header_fields[field].kind;
	if ((k != SL_CF_U64 && k != SL_CF_BIG) || h->f[field].len > 8)
		return false;
	*v = sl_rlp_be_u64(h->f[field]);
	return true;
}

/* Read one header field of the given kind from the header's list cursor. */
static sl_span read_hfield(sl_reader *r, sl_coreth_fkind k)
{
	size_t at = r->off;
	sl_span s;
	switch (k) {
	case SL_CF_HASH: return sl_rlp_fixed(r, 32);
	case SL_CF_ADDRESS: return sl_rlp_fixed(r, 20);
	case SL_CF_BLOOM: return sl_rlp_fixed(r, 256);
	case SL_CF_NONCE: return sl_rlp_fixed(r, 8);
	case SL_CF_BYTES: return sl_rlp_str(r, SL_MAX_CONTAINER);
	case SL_CF_BIG: return sl_rlp_uint(r, 32);
	case SL_CF_U64: return sl_rlp_uint(r, 8);
	case SL_CF_OPT_HASH:
		s = sl_rlp_str(r, 32);
		if (sl_rd_ok(r) && s.len != 0 && s.len != 32) {
			r->off = at;
			sl_rd_fail(r, SL_ERR_INVALID, "rlp: input string has the wrong size for its field");
		}
		return s;
	}
	return sl_span_of(NULL, 0);
}

/* Decode a header from the next item of r. */
static void header_read(sl_reader *r, sl_coreth_header *h)
{
	sl_reader c;
	size_t at = r->off;
	*h = (sl_coreth_header){ 0 };
	if (!sl_rlp_list(r, &c))
		return;
	h->rlp = sl_span_of(r->p + at, r->off - at);
	unsigned i = 0;
	while (sl_rd_ok(&c) && sl_rd_left(&c) > 0) {
		if (i == SL_CORETH_HFIELDS) {
			sl_rd_fail(&c, SL_ERR_INVALID, "rlp: header has too many fields");
			break;
		}
		h->f[i] = read_hfield(&c, sl_coreth_header_fields[i].kind);
		i++;
	}
	if (sl_rd_ok(&c) && i < SL_CORETH_HFIELDS_MIN) {
		sl_rd_fail(&c, SL_ERR_INVALID, "rlp: too few elements for header");
		c.err.offset = at; /* point at the header, not past its end */
	}
	h->nfields = i;
	sl_rlp_close(r, &c);
	if (!sl_rd_ok(r))
		return;
	h->number = sl_rlp_be_u64(h->f[SL_CH_NUMBER]);
	h->gas_limit = sl_rlp_be_u64(h->f[SL_CH_GAS_LIMIT]);
	h->gas_used = sl_rlp_be_u64(h->f[SL_CH_GAS_USED]);
	h->time = sl_rlp_be_u64(h->f[SL_CH_TIME]);
	sl_keccak256(h->rlp.p, h->rlp.len, h->hash);
}

sl_err sl_coreth_header_decode(const uint8_t *p, size_t len, sl_coreth_header *out, sl_err_detail *detail)
{
	sl_reader r;
	sl_rd_init(&r, p, len);
	header_read(&r, out);
	sl_rd_end(&r);
	if (detail)
		*detail = r.err;
	return r.err.code;
}

void sl_coreth_header_write(sl_buf *out, const sl_coreth_header *h)
{
	size_t st = sl_rlp_list_begin(out);
	for (unsigned i = 0; i < h->nfields && i < SL_CORETH_HFIELDS; i++)
		sl_rlp_put_span(out, h->f[i]);
	sl_rlp_list_end(out, st);
}

void sl_coreth_ext_data_hash(sl_span ext, uint8_t out[32])
{
	static const uint8_t empty_root[32] = {
		0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45,
		0xe6, 0x92, 0xc0, 0xf8, 0x6e, 0x5b, 0x48, 0xe0, 0x1b, 0x99, 0x6c,
		0xad, 0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21,
	};
	if (ext.len == 0) {
		memcpy(out, empty_root, 32);
		return;
	}
	/* rlp(bytes) = a header of at most 9 bytes, then the bytes: hash it in two pieces' worth of memory */
	sl_buf b;
	sl_buf_init(&b, ext.len + 16);
	sl_rlp_put_span(&b, ext);
	if (b.err)
		memset(out, 0, 32);
	else
		sl_keccak256(b.p, b.len, out);
	sl_buf_release(&b);
}

/* ---- transactions ---------------------------------------------------- */

#define T(x) (1u << (x))
/* The field order of each tx type, by slot; SL_TX_NFIELDS ends a row. */
static const uint8_t tx_order[5][SL_TX_NFIELDS + 1] = {
	{ SL_TX_NONCE, SL_TX_GAS_PRICE, SL_TX_GAS, SL_TX_TO, SL_TX_VALUE, SL_TX_DATA, SL_TX_V, SL_TX_R,
	  SL_TX_S, SL_TX_NFIELDS },
	{ SL_TX_CHAIN_ID, SL_TX_NONCE, SL_TX_GAS_PRICE, SL_TX_GAS, SL_TX_TO, SL_TX_VALUE, SL_TX_DATA,
	  SL_TX_ACCESS_LIST, SL_TX_V, SL_TX_R, SL_TX_S, SL_TX_NFIELDS },
	{ SL_TX_CHAIN_ID, SL_TX_NONCE, SL_TX_TIP_CAP, SL_TX_FEE_CAP, SL_TX_GAS, SL_TX_TO, SL_TX_VALUE,
	  SL_TX_DATA, SL_TX_ACCESS_LIST, SL_TX_V, SL_TX_R, SL_TX_S, SL_TX_NFIELDS },
	{ SL_TX_CHAIN_ID, SL_TX_NONCE, SL_TX_TIP_CAP, SL_TX_FEE_CAP, SL_TX_GAS, SL_TX_TO, SL_TX_VALUE,
	  SL_TX_DATA, SL_TX_ACCESS_LIST, SL_TX_BLOB_FEE_CAP, SL_TX_BLOB_HASHES, SL_TX_V, SL_TX_R, SL_TX_S,
	  SL_TX_NFIELDS },
	{ SL_TX_CHAIN_ID, SL_TX_NONCE, SL_TX_TIP_CAP, SL_TX_FEE_CAP, SL_TX_GAS, SL_TX_TO, SL_TX_VALUE,
	  SL_TX_DATA, SL_TX_ACCESS_LIST, SL_TX_AUTH_LIST, SL_TX_V, SL_TX_R, SL_TX_S, SL_TX_NFIELDS },
};
#define TX_LISTS (T(SL_TX_ACCESS_LIST) | T(SL_TX_BLOB_HASHES) | T(SL_TX_AUTH_LIST))

bool sl_evm_tx_layout(sl_evm_tx *tx)
{
	tx->present = 0;
	if (tx->type > 4)
		return false;
	for (const uint8_t *o = tx_order[tx->type]; *o != SL_TX_NFIELDS; o++)
		tx->present |= T(*o);
	return true;
}

/* Whether a list reader has another item, failing it past SL_EVM_MAX_LIST items. */
static bool more_items(sl_reader *c, uint32_t *count)
{
	if (!sl_rd_ok(c) || sl_rd_left(c) == 0)
		return false;
	if (++*count > SL_EVM_MAX_LIST) {
		sl_rd_fail(c, SL_ERR_TOO_LARGE, "rlp: list longer than its limit");
		return false;
	}
	return true;
}

/* A list whose every item is a string of exactly n bytes. */
static void check_fixed_list(sl_reader *r, size_t n)
{
	sl_reader c;
	uint32_t count = 0;
	if (!sl_rlp_list(r, &c))
		return;
	while (more_items(&c, &count)) {
		(void)sl_rlp_fixed(&c, n);
	}
	sl_rlp_close(r, &c);
}

/* accessList = [[address, [key...]]...] */
static void check_access_list(sl_reader *r)
{
	sl_reader c;
	uint32_t count = 0;
	if (!sl_rlp_list(r, &c))
		return;
	while (more_items(&c, &count)) {
		sl_reader e;
		if (!sl_rlp_list(&c, &e))
			break;
		(void)sl_rlp_fixed(&e, 20);
		check_fixed_list(&e, 32);
		sl_rlp_close(&c, &e);
	}
	sl_rlp_close(r, &c);
}

/* authorizationList = [[chainId, address, nonce, yParity, r, s]...] */
static void check_auth_list(sl_reader *r)
{
	sl_reader c;
	uint32_t count = 0;
	if (!sl_rlp_list(r, &c))
		return;
	while (more_items(&c, &count)) {
		sl_reader e;
		if (!sl_rlp_list(&c, &e))
			break;
		(void)sl_rlp_uint(&e, 32);
		(void)sl_rlp_fixed(&e, 20);
		(void)sl_rlp_uint(&e, 8);
		(void)sl_rlp_uint(&e, 1);
		(void)sl_rlp_uint(&e, 32);
		(void)sl_rlp_uint(&e, 32);
		sl_rlp_close(&c, &e);
	}
	sl_rlp_close(r, &c);
}

static sl_span read_tx_field(sl_reader *r, unsigned slot, uint8_t type)
{
	size_t at = r->off;
	sl_span s = sl_span_of(NULL, 0);
	switch (slot) {
	case SL_TX_NONCE:
	case SL_TX_GAS: return sl_rlp_uint(r, 8);
	case SL_TX_TO:
		s = sl_rlp_str(r, 20);
		/* types 3 and 4 cannot create contracts: `to` is a plain address */
		if (sl_rd_ok(r) && (s.len != 20 && (s.len != 0 || type >= 3))) {
			r->off = at;
			sl_rd_fail(r, SL_ERR_INVALID, "rlp: input string has the wrong size for an address");
		}
		return s;
	case SL_TX_DATA: return sl_rlp_str(r, SL_MAX_CONTAINER);
	case SL_TX_ACCESS_LIST: check_access_list(r); break;
	case SL_TX_BLOB_HASHES: check_fixed_list(r, 32); break;
	case SL_TX_AUTH_LIST: check_auth_list(r); break;
	default: /* chain id, prices, value, v, r, s: uint256 */ return sl_rlp_uint(r, 32);
	}
	return sl_rd_ok(r) ? sl_span_of(r->p + at, r->off - at) : s;
}

/* Read the fields of a tx of `type` from the list cursor c. */
static void tx_fields_read(sl_reader *c, sl_evm_tx *tx)
{
	for (const uint8_t *o = tx_order[tx->type]; *o != SL_TX_NFIELDS && sl_rd_ok(c); o++) {
		if (sl_rd_left(c) == 0) {
			sl_rd_fail(c, SL_ERR_INVALID, "rlp: too few elements for transaction");
			return;
		}
		tx->f[*o] = read_tx_field(c, *o, tx->type);
	}
	tx->nonce = sl_rlp_be_u64(tx->f[SL_TX_NONCE]);
	tx->gas = sl_rlp_be_u64(tx->f[SL_TX_GAS]);
}

/*
 * Read a tx from the next item of r: a list is a legacy tx, a string holds
 * a typed one (`type || list`, which must fill the string exactly).
 */
static void tx_read(sl_reader *r, sl_evm_tx *tx)
{
	sl_rlp_item it;
	*tx = (sl_evm_tx){ 0 };
	if (!sl_rlp_next(r, &it))
		return;
	sl_reader c;
	if (it.is_list) {
		tx->type = 0;
		tx->raw = it.raw;
		sl_rlp_child(r, &it, &c);
	} else {
		size_t start = (size_t)(it.payload.p - r->p);
		if (it.payload.len == 0 || it.payload.p[0] == 0 || it.payload.p[0] > 4) {
			r->off = it.off;
			sl_rd_fail(r,
				   it.payload.len && it.payload.p[0] < 0x80 ? SL_ERR_UNSUPPORTED
									    : SL_ERR_INVALID,
				   it.payload.len && it.payload.p[0] < 0x80 ? "transaction type not supported"
									    : "typed transaction too short");
			return;
		}
		tx->type = it.payload.p[0];
		tx->raw = it.payload;
		/* the typed payload is one list that fills the string */
		sl_reader s = { .p = r->p, .len = start + it.payload.len, .off = start + 1 };
		if (!sl_rlp_list(&s, &c)) {
			sl_rlp_close(r, &s);
			return;
		}
		if (s.off != s.len) {
			sl_rd_fail(&s, SL_ERR_TRAILING, "rlp: trailing bytes after typed transaction");
			sl_rlp_close(r, &s);
			return;
		}
	}
	sl_evm_tx_layout(tx);
	tx_fields_read(&c, tx);
	sl_rlp_close(r, &c);
	if (sl_rd_ok(r))
		sl_keccak256(tx->raw.p, tx->raw.len, tx->hash);
}

sl_err sl_evm_tx_decode(const uint8_t *p, size_t len, sl_evm_tx *out, sl_err_detail *detail)
{
	sl_reader r;
	sl_rd_init(&r, p, len);
	*out = (sl_evm_tx){ 0 };
	if (len == 0) {
		sl_rd_fail(&r, SL_ERR_TRUNCATED, "empty transaction");
	} else if (p[0] >= 0xc0) {
		tx_read(&r, out);
		sl_rd_end(&r);
	} else if (p[0] >= 1 && p[0] <= 4) {
		sl_reader c;
		out->type = p[0];
		out->raw = sl_span_of(p, len);
		r.off = 1;
		if (sl_rlp_list(&r, &c)) {
			sl_evm_tx_layout(out);
			tx_fields_read(&c, out);
			sl_rlp_close(&r, &c);
		}
		sl_rd_end(&r);
		if (sl_rd_ok(&r))
			sl_keccak256(p, len, out->hash);
	} else {
		sl_rd_fail(&r, p[0] < 0x80 ? SL_ERR_UNSUPPORTED : SL_ERR_INVALID,
			   p[0] < 0x80 ? "transaction type not supported"
				       : "rlp: expected input list for transaction");
	}
	if (detail)
		*detail = r.err;
	return r.err.code;
}

/* The tx's fields as an RLP list; signing drops v, r, s (and adds chainId, 0, 0 for EIP-155). */
static void tx_list_write(sl_buf *out, const sl_evm_tx *tx, bool signing, const uint8_t *cid, size_t cidlen)
{
	size_t st = sl_rlp_list_begin(out);
	for (const uint8_t *o = tx_order[tx->type]; *o != SL_TX_NFIELDS; o++) {
		if (signing && (*o == SL_TX_V || *o == SL_TX_R || *o == SL_TX_S))
			continue;
		if (T(*o) & TX_LISTS) {
			if (tx->f[*o].len)
				sl_rlp_put_raw(out, tx->f[*o]);
			else
				sl_buf_addc(out, (char)0xc0); /* an unset list is the empty list */
		} else {
			sl_rlp_put_span(out, tx->f[*o]);
		}
	}
	if (signing && cid) {
		sl_rlp_put_uint(out, sl_span_of(cid, cidlen));
		sl_rlp_put_u64(out, 0);
		sl_rlp_put_u64(out, 0);
	}
	sl_rlp_list_end(out, st);
}

void sl_evm_tx_write(sl_buf *out, const sl_evm_tx *tx)
{
	if (tx->type > 4) {
		if (!out->err)
			out->err = SL_ERR_INVALID;
		return;
	}
	if (tx->type)
		sl_buf_addc(out, (char)tx->type);
	tx_list_write(out, tx, false, NULL, 0);
}

/* v of a legacy tx as a u64; false if wider. */
static bool legacy_v(const sl_evm_tx *tx, uint64_t *v)
{
	sl_span s = tx->f[SL_TX_V];
	if (s.len > 8)
		return false;
	*v = sl_rlp_be_u64(s);
	return true;
}

bool sl_evm_tx_chain_id(const sl_evm_tx *tx, uint64_t *chain_id)
{
	*chain_id = 0;
	if (tx->type != 0) {
		if (tx->f[SL_TX_CHAIN_ID].len > 8)
			return false;
		*chain_id = sl_rlp_be_u64(tx->f[SL_TX_CHAIN_ID]);
		return true;
	}
	uint64_t v;
	if (!legacy_v(tx, &v) || v < 35)
		return false;
	*chain_id = (v - 35) / 2;
	return true;
}

bool sl_evm_tx_y_parity(const sl_evm_tx *tx, uint8_t *y)
{
	uint64_t v;
	*y = 0;
	if (tx->type != 0) {
		if (tx->f[SL_TX_V].len > 1)
			return false;
		v = sl_rlp_be_u64(tx->f[SL_TX_V]);
		if (v > 1)
			return false;
		*y = (uint8_t)v;
		return true;
	}
	if (!legacy_v(tx, &v))
		return false;
	if (v == 27 || v == 28) {
		*y = (uint8_t)(v - 27);
		return true;
	}
	if (v < 35)
		return false;
	*y = (uint8_t)((v - 35) & 1);
	return true;
}

sl_err sl_evm_tx_signing_hash(const sl_evm_tx *tx, uint8_t out[32])
{
	uint8_t y;
	memset(out, 0, 32);
	if (tx->type > 4 || !sl_evm_tx_y_parity(tx, &y))
		return SL_ERR_INVALID;
	sl_buf b;
	sl_buf_init(&b, SL_MAX_CONTAINER + 64);
	if (tx->type) {
		sl_buf_addc(&b, (char)tx->type);
		tx_list_write(&b, tx, true, NULL, 0);
	} else {
		uint64_t v = 0, cid;
		uint8_t cidbe[8];
		(void)legacy_v(tx, &v);
		if (v >= 35) {
			cid = (v - 35) / 2;
			sl_put_be64(cidbe, cid);
			tx_list_write(&b, tx, true, cidbe, 8);
		} else {
			tx_list_write(&b, tx, true, NULL, 0);
		}
	}
	sl_err e = b.err;
	if (!e)
		sl_keccak256(b.p, b.len, out);
	sl_buf_release(&b);
	return e;
}

sl_err sl_evm_tx_sender(const sl_evm_tx *tx, uint8_t out[20])
{
	uint8_t h[32], y;
	memset(out, 0, 20);
	sl_err e = sl_evm_tx_signing_hash(tx, h);
	if (e)
		return e;
	if (!sl_evm_tx_y_parity(tx, &y) || tx->f[SL_TX_R].len > 32 || tx->f[SL_TX_S].len > 32)
		return SL_ERR_INVALID;
	if (!sl_secp_recover_address_rs(h, tx->f[SL_TX_R].p, tx->f[SL_TX_R].len, tx->f[SL_TX_S].p,
					tx->f[SL_TX_S].len, y, out))
		return SL_ERR_CHECKSUM;
	return SL_OK;
}

/* ---- blocks ----------------------------------------------------------- */

/* Count the items of a list cursor without consuming it; stops at `max + 1`. */
static uint32_t count_items(const sl_reader *c, uint32_t max)
{
	sl_reader t = *c;
	uint32_t n = 0;
	sl_rlp_item it;
	while (sl_rd_left(&t) > 0 && n <= max && sl_rlp_next(&t, &it))
		n++;
	return n;
}

sl_err sl_coreth_block_decode(const uint8_t *p, size_t len, sl_arena *a, sl_coreth_block *out,
			      sl_err_detail *detail)
{
	sl_reader r, c, l;
	sl_rd_init(&r, p, len);
	*out = (sl_coreth_block){ .bytes = sl_span_of(p, len) };
	if (len > SL_MAX_CONTAINER) {
		sl_rd_fail(&r, SL_ERR_TOO_LARGE, "block larger than a container");
		goto done;
	}
	if (!sl_rlp_list(&r, &c))
		goto done;
	header_read(&c, &out->header);

	/* transactions */
	if (sl_rd_ok(&c) && sl_rlp_list(&c, &l)) {
		uint32_t n = count_items(&l, SL_CORETH_MAX_TXS);
		if (n > SL_CORETH_MAX_TXS) {
			sl_rd_fail(&l, SL_ERR_TOO_LARGE, "too many transactions in block");
		} else if (n) {
			out->txs = sl_arena_array(a, n, sizeof *out->txs);
			if (!out->txs)
				sl_rd_fail(&l, SL_ERR_NOMEM, "arena exhausted");
		}
		for (uint32_t i = 0; i < n && sl_rd_ok(&l); i++) {
			tx_read(&l, &out->txs[i]);
			out->ntx = i + 1;
		}
		sl_rlp_close(&c, &l);
	}

	/* uncles */
	if (sl_rd_ok(&c) && sl_rlp_list(&c, &l)) {
		uint32_t n = count_items(&l, SL_CORETH_MAX_UNCLES);
		if (n > SL_CORETH_MAX_UNCLES) {
			sl_rd_fail(&l, SL_ERR_TOO_LARGE, "too many uncles in block");
		} else if (n) {
			out->uncles = sl_arena_array(a, n, sizeof *out->uncles);
			if (!out->uncles)
				sl_rd_fail(&l, SL_ERR_NOMEM, "arena exhausted");
		}
		for (uint32_t i = 0; i < n && sl_rd_ok(&l); i++) {
			header_read(&l, &out->uncles[i]);
			out->nuncles = i + 1;
		}
		sl_rlp_close(&c, &l);
	}

	if (sl_rd_ok(&c) && sl_rd_left(&c) == 0)
		sl_rd_fail(&c, SL_ERR_INVALID, "rlp: too few elements for block");
	out->version = (uint32_t)sl_rlp_be_u64(sl_rlp_uint(&c, 4));
	if (sl_rd_ok(&c) && sl_rd_left(&c) == 0)
		sl_rd_fail(&c, SL_ERR_INVALID, "rlp: too few elements for block");
	out->ext_data = sl_rlp_str(&c, SL_MAX_CONTAINER);
	sl_rlp_close(&r, &c);
	sl_rd_end(&r);
done:
	if (detail)
		*detail = r.err;
	return r.err.code;
}

sl_err sl_coreth_block_encode(const sl_coreth_block *b, sl_buf *out)
{
	size_t st = sl_rlp_list_begin(out);
	sl_coreth_header_write(out, &b->header);
	size_t tl = sl_rlp_list_begin(out);
	for (uint32_t i = 0; i < b->ntx; i++) {
		const sl_evm_tx *tx = &b->txs[i];
		if (tx->type == 0) {
			sl_evm_tx_write(out, tx);
			continue;
		}
		/* a typed tx sits in the block as a string holding its canonical bytes */
		sl_buf t;
		sl_buf_init(&t, SL_MAX_CONTAINER + 64);
		sl_evm_tx_write(&t, tx);
		if (t.err && !out->err)
			out->err = t.err;
		else
			sl_rlp_put_str(out, t.p, t.len);
		sl_buf_release(&t);
	}
	sl_rlp_list_end(out, tl);
	size_t ul = sl_rlp_list_begin(out);
	for (uint32_t i = 0; i < b->nuncles; i++)
		sl_coreth_header_write(out, &b->uncles[i]);
	sl_rlp_list_end(out, ul);
	sl_rlp_put_u64(out, b->version);
	sl_rlp_put_span(out, b->ext_data);
	sl_rlp_list_end(out, st);
	return out->err;
}
