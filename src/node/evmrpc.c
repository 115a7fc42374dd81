/*
 * evmrpc.c — the C-chain's eth JSON-RPC, answered from the C/block
 * containers the node holds (docs/node.md, "The C-chain's eth JSON-RPC").
 *
 * State: the node replays the chain from its genesis allocation (given by the
 * source: sl_feed_evm_genesis) as containers are accepted, in coreth's order
 * of effects inside a block: the EVM txs in order (the sender pays value +
 * gas × effective price and its nonce goes up, the recipient gets the value,
 * the coinbase the whole fee), then the atomic txs of extData (an ImportTx
 * credits its EVMOutputs, an ExportTx debits its EVMInputs and sets each
 * input's nonce + 1). Each account keeps the list of its changes as
 * (height, balance, nonce), so a balance at any height is a binary search.
 *
 * The node does not run the EVM: it replays plain transfers only (no data,
 * to an account that is not a precompile, 21000 gas each, the header's
 * gasUsed agreeing). At the first block with anything else, the replay stops
 * and state, receipts and logs are served up to the block before it; blocks
 * and txs are served for every block. Without a genesis allocation (a node
 * that follows or imports a real network) there is no state at all.
 *
 * Threads: everything below the framing runs under e->lock; the catch-up
 * with the store happens at the start of each request.
 */
#include "node/evmrpc.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "codec/atomic.h"
#include "codec/coreth.h"
#include "codec/json_evm.h"
#include "codec/proposervm.h"
#include "node/internal.h"
#include "util/hex.h"
#include "util/jsonv.h"
#include "util/limits.h"
#include "util/u256.h"

#define TRANSFER_GAS 21000u
#define X2C_RATE 1000000000ull /* wei per nAVAX */
#define EVM_NONE (-5)	       /* a BlockNumberOrHash object with neither field */

static const char genesis_key[] = "evm/genesis";

/* ---- 256-bit helpers ---- */

static sl_u256 u256_be(sl_span be)
{
	sl_u256 v = { { 0 } };
	for (size_t i = 0; i < be.len && i < 32; i++) {
		size_t bit = 8 * (be.len - 1 - i);
		v.w[bit / 64] |= (uint64_t)be.p[i] << (bit % 64);
	}
	return v;
}

/* a -= b; false (a unchanged) when b > a. */
static bool u256_sub(sl_u256 *a, const sl_u256 *b)
{
	if (sl_u256_cmp(a, b) < 0)
		return false;
	uint64_t borrow = 0;
	for (int i = 0; i < 4; i++) {
		uint64_t x = a->w[i], y = b->w[i];
		uint64_t d = x - y - borrow;
		borrow = (x < y) || (x - y < borrow);
		a->w[i] = d;
	}
	return true;
}

/* "0x…" without leading zeros ("0x0" for zero), as geth's hexutil.Big. */
static void jw_u256(sl_jw *w, const sl_u256 *v)
{
	static const char hx[] = "0123456789abcdef";
	char s[70];
	size_t n = 0;
	s[n++] = '"';
	s[n++] = '0';
	s[n++] = 'x';
	bool started = false;
	for (int bit = 252; bit >= 0; bit -= 4) {
		unsigned d = (unsigned)(v->w[bit / 64] >> (bit % 64)) & 15u;
		if (d || started || bit == 0) {
			s[n++] = hx[d];
			started = true;
		}
	}
	s[n++] = '"';
	sl_jw_raw(w, s, n);
}

static void jw_qty(sl_jw *w, uint64_t v)
{
	sl_u256 x = sl_u256_of(v);
	jw_u256(w, &x);
}

/* ---- parsers (geth's rules; see evmrpc.h) ---- */

static bool has0x(const char *s, size_t n) { return n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'); }

bool sl_evm_parse_quantity(const char *s, size_t n, uint64_t *out, const char **err)
{
	if (n == 0) {
		*err = "empty hex string";
		return false;
	}
	if (!has0x(s, n)) {
		*err = "hex string without 0x prefix";
		return false;
	}
	s += 2;
	n -= 2;
	if (n == 0) {
		*err = "hex string \"0x\"";
		return false;
	}
	if (n > 1 && s[0] == '0') {
		*err = "hex number with leading zero digits";
		return false;
	}
	/* strconv.ParseUint(s, 16, 64): the first bad digit or the first overflow decides */
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		int d = sl_hex_digit((unsigned char)s[i]);
		if (d < 0) {
			*err = "invalid hex string";
			return false;
		}
		if (v >> 60) {
			*err = "hex number > 64 bits";
			return false;
		}
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

/* The raw text inside the quotes of a JSON string (no escapes resolved), as hexutil takes it. */
static bool raw_string(sl_span raw, const char **s, size_t *n)
{
	if (raw.len < 2 || raw.p[0] != '"' || raw.p[raw.len - 1] != '"')
		return false;
	*s = (const char *)raw.p + 1;
	*n = raw.len - 2;
	return true;
}

static bool tag_of(const char *s, size_t n, int64_t *out)
{
	static const struct {
		const char *name;
		int64_t v;
	} tags[] = { { "earliest", 0 },
		     { "latest", SL_EVM_LATEST },
		     { "pending", SL_EVM_PENDING },
		     { "finalized", SL_EVM_FINALIZED },
		     { "safe", SL_EVM_SAFE },
		     { "accepted", SL_EVM_LATEST } };
	for (size_t i = 0; i < SL_ARRAY_LEN(tags); i++)
		if (strlen(tags[i].name) == n && !memcmp(tags[i].name, s, n)) {
			*out = tags[i].v;
			return true;
		}
	return false;
}

bool sl_evm_parse_blocknum(sl_span raw, sl_evm_blockref *out, char err[SL_EVM_ERR])
{
	*out = (sl_evm_blockref){ 0 };
	const char *s = (const char *)raw.p;
	size_t n = raw.len;
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s++;
		n -= 2;
	}
	if (tag_of(s, n, &out->number))
		return true;
	uint64_t v;
	const char *why;
	if (!sl_evm_parse_quantity(s, n, &v, &why)) {
		snprintf(err, SL_EVM_ERR, "%s", why);
		return false;
	}
	if (v > INT64_MAX) {
		snprintf(err, SL_EVM_ERR, "block number larger than int64");
		return false;
	}
	out->number = (int64_t)v;
	return true;
}

/* hexutil.UnmarshalFixedText: text of exactly 2n hex digits after 0x. wrap: the JSON form's texts. */
static bool fixed_text(const char *s, size_t len, uint8_t *out, size_t n, const char *type, bool wrap,
		       char err[SL_EVM_ERR])
{
	const char *why = NULL;
	if (len && has0x(s, len)) {
		s += 2;
		len -= 2;
	} else if (len) {
		why = "hex string without 0x prefix";
	}
	if (!why && len % 2)
		why = "hex string of odd length";
	if (!why && len / 2 != n) {
		snprintf(err, SL_EVM_ERR, "hex string has length %zu, want %zu for %s", len, 2 * n, type);
		return false;
	}
	for (size_t i = 0; !why && i < n; i++) {
		int hi = sl_hex_digit((unsigned char)s[2 * i]),
		    lo = sl_hex_digit((unsigned char)s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			why = "invalid hex string";
		else
			out[i] = (uint8_t)(hi << 4 | lo);
	}
	if (!why)
		return true;
	if (wrap)
		snprintf(err, SL_EVM_ERR, "json: cannot unmarshal %s into Go value of type %s", why, type);
	else
		snprintf(err, SL_EVM_ERR, "%s", why);
	return false;
}

bool sl_evm_parse_fixed(sl_span raw, uint8_t *out, size_t n, const char *type, char err[SL_EVM_ERR])
{
	const char *s;
	size_t len;
	if (!raw_string(raw, &s, &len)) {
		snprintf(err, SL_EVM_ERR, "json: cannot unmarshal non-string into Go value of type %s", type);
		return false;
	}
	return fixed_text(s, len, out, n, type, true, err);
}

bool sl_evm_parse_bool(sl_span raw, bool *out, char err[SL_EVM_ERR])
{
	sl_jtype t = sl_json_type(raw);
	if (t == SL_JT_NULL) { /* Go leaves the value as it was */
		*out = false;
		return true;
	}
	if (t != SL_JT_BOOL) {
		snprintf(err, SL_EVM_ERR, "json: cannot unmarshal %s into Go value of type bool",
			 sl_json_kind_name(t));
		return false;
	}
	*out = raw.p[0] == 't';
	return true;
}

/* Unquote a JSON string into buf (bounded by the caller's buffer); false if it is no string. */
static bool unquote(sl_span raw, char *buf, size_t cap, size_t *n)
{
	if (sl_json_type(raw) != SL_JT_STRING)
		return false;
	sl_buf b = { .p = (uint8_t *)buf, .cap = cap, .max = cap - 1 };
	sl_json_unquote(raw, &b);
	if (b.err)
		return false;
	*n = b.len;
	return true;
}

bool sl_evm_parse_blockref(sl_span raw, sl_evm_blockref *out, char err[SL_EVM_ERR])
{
	*out = (sl_evm_blockref){ .number = EVM_NONE };
	sl_jtype t = sl_json_type(raw);
	if (t == SL_JT_NULL)
		return true;
	if (t == SL_JT_OBJECT) {
		sl_jiter it;
		sl_span k, v;
		bool has_num = false, has_hash = false, bad = false;
		sl_evm_blockref num = { 0 };
		uint8_t hash[32];
		char kb[96], sub[SL_EVM_ERR];
		sl_json_iter_init(&it, raw);
		while (sl_json_obj_next(&it, &k, &v)) {
			size_t kn = 0;
			if (!unquote(k, kb, sizeof kb, &kn))
				continue;
			bool null = sl_json_type(v) == SL_JT_NULL;
			if (sl_json_key_match(kb, kn, "blockNumber")) {
				has_num = !null;
				if (!null && !sl_evm_parse_blocknum(v, &num, sub))
					bad = true;
			} else if (sl_json_key_match(kb, kn, "blockHash")) {
				has_hash = !null;
				if (!null && !sl_evm_parse_fixed(v, hash, 32, "common.Hash", sub))
					bad = true;
			} else if (sl_json_key_match(kb, kn, "requireCanonical")) {
				bool b;
				if (!sl_evm_parse_bool(v, &b, sub))
					bad = true;
			}
		}
		if (bad) {
			snprintf(err, SL_EVM_ERR,
				 "json: cannot unmarshal object into Go value of type string");
			return false;
		}
		if (has_num && has_hash) {
			snprintf(err, SL_EVM_ERR,
				 "cannot specify both BlockHash and BlockNumber, choose one or the other");
			return false;
		}
		if (has_hash) {
			out->by_hash = true;
			memcpy(out->hash, hash, 32);
		} else if (has_num) {
			out->number = num.number;
		}
		return true;
	}
	if (t != SL_JT_STRING) {
		snprintf(err, SL_EVM_ERR, "json: cannot unmarshal %s into Go value of type string",
			 sl_json_kind_name(t));
		return false;
	}
	char s[256];
	size_t n = 0;
	if (!unquote(raw, s, sizeof s, &n)) {
		/* longer than any valid input: what hexutil says of it */
		snprintf(err, SL_EVM_ERR, "%s",
			 has0x((const char *)raw.p + 1, raw.len - 1) ? "hex number > 64 bits"
								     : "hex string without 0x prefix");
		return false;
	}
	if (tag_of(s, n, &out->number))
		return true;
	if (n == 66) {
		out->by_hash = true;
		return fixed_text(s, n, out->hash, 32, "common.Hash", false, err);
	}
	uint64_t v;
	const char *why;
	if (!sl_evm_parse_quantity(s, n, &v, &why)) {
		snprintf(err, SL_EVM_ERR, "%s", why);
		return false;
	}
	if (v > INT64_MAX) {
		snprintf(err, SL_EVM_ERR, "blocknumber too high");
		return false;
	}
	out->number = (int64_t)v;
	return true;
}

/* hexutil.Decode of a filter's address or topic, of n bytes (what names it in the error). */
static bool filter_hex(sl_span raw, uint8_t *out, size_t n, const char *what, char err[SL_EVM_ERR])
{
	char s[256];
	size_t len = 0;
	if (!unquote(raw, s, sizeof s, &len)) {
		snprintf(err, SL_EVM_ERR, "hex has invalid length %zu after decoding; expected %zu for %s",
			 raw.len / 2, n, what);
		return false;
	}
	const char *why = NULL;
	if (len == 0)
		why = "empty hex string";
	else if (!has0x(s, len))
		why = "hex string without 0x prefix";
	else if (len % 2)
		why = "hex string of odd length";
	for (size_t i = 2; !why && i < len; i++)
		if (sl_hex_digit((unsigned char)s[i]) < 0)
			why = "invalid hex string";
	if (why) {
		snprintf(err, SL_EVM_ERR, "%s", why);
		return false;
	}
	if ((len - 2) / 2 != n) {
		snprintf(err, SL_EVM_ERR, "hex has invalid length %zu after decoding; expected %zu for %s",
			 (len - 2) / 2, n, what);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)(sl_hex_digit((unsigned char)s[2 + 2 * i]) << 4 |
				   sl_hex_digit((unsigned char)s[3 + 2 * i]));
	return true;
}

static size_t arr_len(sl_span arr)
{
	sl_jiter it;
	sl_span v;
	size_t n = 0;
	sl_json_iter_init(&it, arr);
	while (sl_json_arr_next(&it, &v))
		n++;
	return n;
}

bool sl_evm_parse_filter(sl_span raw, sl_arena *a, sl_evm_filter *out, char err[SL_EVM_ERR])
{
	*out = (sl_evm_filter){ 0 };
	sl_jtype t = sl_json_type(raw);
	if (t == SL_JT_NULL)
		return true;
	if (t != SL_JT_OBJECT) {
		snprintf(err, SL_EVM_ERR, "json: cannot unmarshal %s into Go value of type filters.input",
			 sl_json_kind_name(t));
		return false;
	}
	sl_span hash = { 0 }, from = { 0 }, to = { 0 }, addr = { 0 }, topics = { 0 };
	sl_jiter it;
	sl_span k, v;
	char kb[96];
	sl_json_iter_init(&it, raw);
	while (sl_json_obj_next(&it, &k, &v)) {
		size_t kn = 0;
		if (!unquote(k, kb, sizeof kb, &kn))
			continue;
		sl_span *slot = sl_json_key_match(kb, kn, "blockHash")	 ? &hash
				: sl_json_key_match(kb, kn, "fromBlock") ? &from
				: sl_json_key_match(kb, kn, "toBlock")	 ? &to
				: sl_json_key_match(kb, kn, "address")	 ? &addr
				: sl_json_key_match(kb, kn, "topics")	 ? &topics
									 : NULL;
		if (slot)
			*slot = sl_json_type(v) == SL_JT_NULL ? (sl_span){ 0 } : v;
	}
	/* the struct's fields decode first (json.Unmarshal), then the checks run */
	if (hash.p && !sl_evm_parse_fixed(hash, out->hash, 32, "common.Hash", err))
		return false;
	if (from.p && !sl_evm_parse_blocknum(from, &out->from, err))
		return false;
	if (to.p && !sl_evm_parse_blocknum(to, &out->to, err))
		return false;
	if (topics.p && sl_json_type(topics) != SL_JT_ARRAY) {
		snprintf(err, SL_EVM_ERR,
			 "json: cannot unmarshal %s into Go struct field input.topics of type "
			 "[]interface {}",
			 sl_json_kind_name(sl_json_type(topics)));
		return false;
	}
	out->has_hash = hash.p != NULL;
	out->has_from = from.p != NULL;
	out->has_to = to.p != NULL;
	if (out->has_hash && (out->has_from || out->has_to)) {
		snprintf(err, SL_EVM_ERR,
			 "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other");
		return false;
	}
	if (addr.p) {
		sl_jtype at = sl_json_type(addr);
		if (at == SL_JT_STRING) {
			out->addrs = sl_arena_alloc(a, 20);
			if (!out->addrs) {
				snprintf(err, SL_EVM_ERR, "out of memory");
				return false;
			}
			char sub[SL_EVM_ERR];
			if (!filter_hex(addr, out->addrs[0], 20, "address", sub)) {
				snprintf(err, SL_EVM_ERR, "invalid address: %s", sub);
				return false;
			}
			out->naddrs = 1;
		} else if (at == SL_JT_ARRAY) {
			size_t n = arr_len(addr);
			if (n > SL_EVM_MAX_FILTER_ADDRS) {
				snprintf(err, SL_EVM_ERR, "exceed max addresses");
				return false;
			}
			out->addrs = sl_arena_alloc(a, 20 * (n ? n : 1));
			if (!out->addrs) {
				snprintf(err, SL_EVM_ERR, "out of memory");
				return false;
			}
			sl_json_iter_init(&it, addr);
			for (size_t i = 0; sl_json_arr_next(&it, &v); i++) {
				char sub[SL_EVM_ERR];
				if (sl_json_type(v) != SL_JT_STRING) {
					snprintf(err, SL_EVM_ERR, "non-string address at index %zu", i);
					return false;
				}
				if (!filter_hex(v, out->addrs[i], 20, "address", sub)) {
					snprintf(err, SL_EVM_ERR, "invalid address at index %zu: %.120s", i,
						 sub);
					return false;
				}
			}
			out->naddrs = n;
		} else {
			snprintf(err, SL_EVM_ERR, "invalid addresses in query");
			return false;
		}
	}
	if (topics.p) {
		size_t n = arr_len(topics);
		if (n > 4) {
			snprintf(err, SL_EVM_ERR, "exceed max topics");
			return false;
		}
		out->ntopics = n;
		sl_json_iter_init(&it, topics);
		for (size_t i = 0; sl_json_arr_next(&it, &v); i++) {
			sl_jtype tt = sl_json_type(v);
			if (tt == SL_JT_NULL)
				continue; /* any */
			size_t m = tt == SL_JT_ARRAY ? arr_len(v) : 1;
			if (tt != SL_JT_STRING && tt != SL_JT_ARRAY) {
				snprintf(err, SL_EVM_ERR, "invalid topic(s)");
				return false;
			}
			if (m > SL_EVM_MAX_FILTER_ADDRS) {
				snprintf(err, SL_EVM_ERR, "exceed max topics");
				return false;
			}
			out->sub[i] = sl_arena_alloc(a, 32 * (m ? m : 1));
			if (!out->sub[i]) {
				snprintf(err, SL_EVM_ERR, "out of memory");
				return false;
			}
			if (tt == SL_JT_STRING) {
				if (!filter_hex(v, out->sub[i][0], 32, "topic", err))
					return false;
				out->nsub[i] = 1;
				continue;
			}
			sl_jiter jt;
			sl_span e;
			bool wildcard = false;
			size_t j = 0;
			sl_json_iter_init(&jt, v);
			while (sl_json_arr_next(&jt, &e)) {
				sl_jtype et = sl_json_type(e);
				if (et == SL_JT_NULL) {
					wildcard = true; /* a null among the alternatives matches anything */
					continue;
				}
				if (et != SL_JT_STRING) {
					snprintf(err, SL_EVM_ERR, "invalid topic(s)");
					return false;
				}
				if (!filter_hex(e, out->sub[i][j++], 32, "topic", err))
					return false;
			}
			out->nsub[i] = wildcard ? 0 : j;
		}
	}
	return true;
}

bool sl_evm_genesis_parse(const uint8_t *p, size_t len, sl_evm_genesis *out)
{
	*out = (sl_evm_genesis){ 0 };
	if (len < 32 || memcmp(p, "SLEVMG01", 8))
		return false;
	out->chain_id = sl_be64(p + 8);
	out->ap5_time = sl_be64(p + 16);
	uint32_t hl = sl_be32(p + 24);
	if (hl > len - 28 || len - 28 - hl < 4 || hl > SL_MAX_CONTAINER)
		return false;
	out->header = sl_span_of(p + 28, hl);
	size_t off = 28 + (size_t)hl;
	out->nalloc = sl_be32(p + off);
	off += 4;
	if (out->nalloc > SL_EVM_MAX_ALLOC || (len - off) / SL_EVM_ALLOC_RECORD != out->nalloc ||
	    (len - off) % SL_EVM_ALLOC_RECORD)
		return false;
	out->alloc = p + off;
	return true;
}

/* ---- the replayed chain ---- */

typedef struct evm_change {
	uint64_t height, nonce;
	sl_u256 bal;
} evm_change;

typedef struct evm_acct {
	uint8_t addr[20];
	bool used;
	uint32_t n, cap;
	evm_change *v; /* by height, ascending */
} evm_acct;

typedef struct evm_txloc {
	uint8_t hash[32];
	uint32_t blk1; /* container index + 1; 0: empty slot */
	uint32_t idx;
} evm_txloc;

struct sl_evmrpc {
	sl_mutex lock;
	bool loaded;		       /* the genesis was looked for */
	bool has_genesis, has_gheader; /* an allocation; a genesis header agreeing with block 1 */
	uint8_t *gbytes;	       /* the genesis record, owned */
	sl_coreth_header gheader;      /* views into gbytes */
	uint64_t chain_id, ap5_time;
	uint64_t nblocks, first_height; /* containers replayed; the height of the first */
	uint8_t (*bhash)[32];
	size_t bcap;
	uint32_t *bmap; /* open addressing: container index + 1 */
	size_t bmap_cap;
	evm_txloc *tmap;
	size_t tmap_n, tmap_cap;
	evm_acct *accts;
	size_t nacct, acct_cap;
	bool exec;	     /* the replay is still exact */
	uint64_t exec_until; /* state is known at heights <= this (when has_genesis) */
	char exec_why[200];  /* why it stopped */
	bool broken;	     /* the container sequence does not decode or has a gap: no more blocks */
};

static uint64_t key64(const uint8_t *p)
{
	uint64_t k;
	memcpy(&k, p, 8);
	return k * 0x9e3779b97f4a7c15ull;
}

static void evm_clear(sl_evmrpc *e)
{
	for (size_t i = 0; i < e->acct_cap; i++)
		free(e->accts[i].v);
	free(e->accts);
	free(e->bhash);
	free(e->bmap);
	free(e->tmap);
	free(e->gbytes);
	/* everything but the lock, which the caller may hold */
	memset((char *)e + offsetof(sl_evmrpc, loaded), 0, sizeof *e - offsetof(sl_evmrpc, loaded));
}

sl_evmrpc *sl_evmrpc_new(void)
{
	sl_evmrpc *e = calloc(1, sizeof *e);
	if (e)
		sl_mutex_init(&e->lock, "evm");
	return e;
}

void sl_evmrpc_free(sl_evmrpc *e)
{
	if (!e)
		return;
	evm_clear(e);
	sl_mutex_destroy(&e->lock);
	free(e);
}

static evm_acct *acct_get(sl_evmrpc *e, const uint8_t addr[20], bool create)
{
	if (create && (e->nacct + 1) * 2 > e->acct_cap) {
		size_t cap = e->acct_cap ? e->acct_cap * 2 : 1024;
		evm_acct *v = calloc(cap, sizeof *v);
		if (!v)
			return NULL;
		for (size_t i = 0; i < e->acct_cap; i++) {
			if (!e->accts[i].used)
				continue;
			size_t j = key64(e->accts[i].addr) & (cap - 1);
			while (v[j].used)
				j = (j + 1) & (cap - 1);
			v[j] = e->accts[i];
		}
		free(e->accts);
		e->accts = v;
		e->acct_cap = cap;
	}
	if (!e->acct_cap)
		return NULL;
	size_t j = key64(addr) & (e->acct_cap - 1);
	while (e->accts[j].used) {
		if (!memcmp(e->accts[j].addr, addr, 20))
			return &e->accts[j];
		j = (j + 1) & (e->acct_cap - 1);
	}
	if (!create)
		return NULL;
	evm_acct *a = &e->accts[j];
	a->used = true;
	memcpy(a->addr, addr, 20);
	e->nacct++;
	return a;
}

static evm_change acct_now(const evm_acct *a) { return a && a->n ? a->v[a->n - 1] : (evm_change){ 0 }; }

/* Record the account's balance and nonce from this height on. */
static bool acct_put(evm_acct *a, uint64_t height, const sl_u256 *bal, uint64_t nonce)
{
	if (a->n && a->v[a->n - 1].height == height) {
		a->v[a->n - 1].bal = *bal;
		a->v[a->n - 1].nonce = nonce;
		return true;
	}
	if (a->n == a->cap) {
		uint32_t cap = a->cap ? a->cap * 2 : 4;
		evm_change *v = realloc(a->v, cap * sizeof *v);
		if (!v)
			return false;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = (evm_change){ .height = height, .nonce = nonce, .bal = *bal };
	return true;
}

/* The account at a height: the last change at or below it. */
static evm_change acct_at(const evm_acct *a, uint64_t h)
{
	if (!a || !a->n || a->v[0].height > h)
		return (evm_change){ 0 };
	size_t lo = 0, hi = a->n; /* v[lo].height <= h < v[hi].height */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->v[mid].height <= h)
			lo = mid;
		else
			hi = mid;
	}
	return a->v[lo];
}

static bool bmap_put(sl_evmrpc *e, uint32_t idx)
{
	if ((e->nblocks + 1) * 2 > e->bmap_cap) {
		size_t cap = e->bmap_cap ? e->bmap_cap * 2 : 4096;
		uint32_t *v = calloc(cap, sizeof *v);
		if (!v)
			return false;
		for (size_t i = 0; i < e->bmap_cap; i++) {
			if (!e->bmap[i])
				continue;
			size_t j = key64(e->bhash[e->bmap[i] - 1]) & (cap - 1);
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = e->bmap[i];
		}
		free(e->bmap);
		e->bmap = v;
		e->bmap_cap = cap;
	}
	size_t j = key64(e->bhash[idx]) & (e->bmap_cap - 1);
	while (e->bmap[j])
		j = (j + 1) & (e->bmap_cap - 1);
	e->bmap[j] = idx + 1;
	return true;
}

static bool bmap_find(const sl_evmrpc *e, const uint8_t hash[32], uint32_t *idx)
{
	if (!e->bmap_cap)
		return false;
	size_t j = key64(hash) & (e->bmap_cap - 1);
	while (e->bmap[j]) {
		if (!memcmp(e->bhash[e->bmap[j] - 1], hash, 32)) {
			*idx = e->bmap[j] - 1;
			return true;
		}
		j = (j + 1) & (e->bmap_cap - 1);
	}
	return false;
}

static bool tmap_put(sl_evmrpc *e, const uint8_t hash[32], uint32_t blk, uint32_t idx)
{
	if ((e->tmap_n + 1) * 2 > e->tmap_cap) {
		size_t cap = e->tmap_cap ? e->tmap_cap * 2 : 8192;
		evm_txloc *v = calloc(cap, sizeof *v);
		if (!v)
			return false;
		for (size_t i = 0; i < e->tmap_cap; i++) {
			if (!e->tmap[i].blk1)
				continue;
			size_t j = key64(e->tmap[i].hash) & (cap - 1);
			while (v[j].blk1)
				j = (j + 1) & (cap - 1);
			v[j] = e->tmap[i];
		}
		free(e->tmap);
		e->tmap = v;
		e->tmap_cap = cap;
	}
	size_t j = key64(hash) & (e->tmap_cap - 1);
	while (e->tmap[j].blk1) {
		if (!memcmp(e->tmap[j].hash, hash, 32))
			return true; /* the first inclusion wins */
		j = (j + 1) & (e->tmap_cap - 1);
	}
	memcpy(e->tmap[j].hash, hash, 32);
	e->tmap[j].blk1 = blk + 1;
	e->tmap[j].idx = idx;
	e->tmap_n++;
	return true;
}

static const evm_txloc *tmap_find(const sl_evmrpc *e, const uint8_t hash[32])
{
	if (!e->tmap_cap)
		return NULL;
	size_t j = key64(hash) & (e->tmap_cap - 1);
	while (e->tmap[j].blk1) {
		if (!memcmp(e->tmap[j].hash, hash, 32))
			return &e->tmap[j];
		j = (j + 1) & (e->tmap_cap - 1);
	}
	return NULL;
}

/* The price per gas a tx paid in a block: gasPrice, or min(feeCap, baseFee + tip). */
static bool effective_price(const sl_evm_tx *tx, const sl_coreth_header *h, sl_u256 *out)
{
	if (tx->present & (1u << SL_TX_GAS_PRICE)) {
		*out = u256_be(tx->f[SL_TX_GAS_PRICE]);
		return true;
	}
	if (!(tx->present & (1u << SL_TX_FEE_CAP)) || h->nfields <= SL_CH_BASE_FEE)
		return false;
	sl_u256 cap = u256_be(tx->f[SL_TX_FEE_CAP]), p = u256_be(h->f[SL_CH_BASE_FEE]),
		tip = u256_be(tx->f[SL_TX_TIP_CAP]);
	sl_u256_add(&p, &tip);
	*out = sl_u256_cmp(&p, &cap) < 0 ? p : cap;
	return true;
}

/* Precompiles and Avalanche's special addresses: 0x00…00XX and 0x0X00…00XX for X <= 3, but not
 * the blackhole 0x0100…00, a plain account. */
static bool special_address(const uint8_t a[20])
{
	if (a[0] > 3)
		return false;
	for (int i = 1; i < 18; i++)
		if (a[i])
			return false;
	return !(a[0] == 1 && !a[18] && !a[19]);
}

static bool add_to(sl_evmrpc *e, const uint8_t addr[20], uint64_t height, const sl_u256 *v)
{
	evm_acct *a = acct_get(e, addr, true);
	if (!a)
		return false;
	evm_change c = acct_now(a);
	sl_u256_add(&c.bal, v);
	return acct_put(a, height, &c.bal, c.nonce);
}

/* Apply one block's effects; false (with e->exec_why) where the replay cannot follow. */
static bool apply_block(sl_node *n, sl_evmrpc *e, const sl_coreth_block *b, sl_arena *ar)
{
	const sl_coreth_header *h = &b->header;
	uint64_t ht = h->number;
	if (h->gas_used != (uint64_t)TRANSFER_GAS * b->ntx) {
		snprintf(e->exec_why, sizeof e->exec_why,
			 "block %llu used %llu gas for %u txs: not plain transfers only",
			 (unsigned long long)ht, (unsigned long long)h->gas_used, b->ntx);
		return false;
	}
	const uint8_t *coinbase = h->f[SL_CH_COINBASE].p;
	for (uint32_t i = 0; i < b->ntx; i++) {
		const sl_evm_tx *tx = &b->txs[i];
		sl_span to = tx->f[SL_TX_TO];
		bool plain =
			tx->type <= 2 && tx->f[SL_TX_DATA].len == 0 && to.len == 20 &&
			!special_address(to.p) && tx->gas >= TRANSFER_GAS &&
			(!(tx->present & (1u << SL_TX_ACCESS_LIST)) || tx->f[SL_TX_ACCESS_LIST].len <= 1);
		uint8_t from[20];
		sl_u256 price;
		if (!plain || sl_evm_tx_sender(tx, from) || !effective_price(tx, h, &price)) {
			snprintf(e->exec_why, sizeof e->exec_why,
				 "tx %u of block %llu is not a plain transfer the node can replay", i,
				 (unsigned long long)ht);
			return false;
		}
		evm_acct *s = acct_get(e, from, true);
		if (!s)
			goto nomem;
		evm_change c = acct_now(s);
		sl_u256 fee = price, value = u256_be(tx->f[SL_TX_VALUE]), cost;
		sl_u256_mul64(&fee, TRANSFER_GAS);
		cost = fee;
		sl_u256_add(&cost, &value);
		if (c.nonce != tx->nonce || !u256_sub(&c.bal, &cost)) {
			snprintf(
				e->exec_why, sizeof e->exec_why,
				"tx %u of block %llu: its sender's nonce or balance disagrees with the replay",
				i, (unsigned long long)ht);
			return false;
		}
		if (!acct_put(s, ht, &c.bal, c.nonce + 1) || !add_to(e, to.p, ht, &value) ||
		    !add_to(e, coinbase, ht, &fee))
			goto nomem;
	}
	if (!b->ext_data.len)
		return true;
	sl_atomic_txs atx;
	if (!n->has_avax || sl_atomic_extdata_decode(ar, b->ext_data.p, b->ext_data.len,
						     h->time >= e->ap5_time, &atx, NULL)) {
		snprintf(e->exec_why, sizeof e->exec_why, "the atomic txs of block %llu do not decode",
			 (unsigned long long)ht);
		return false;
	}
	for (uint32_t i = 0; i < atx.ntxs; i++) {
		const sl_atomic_utx *u = &atx.txs[i].utx;
		for (uint32_t j = 0; u->type_id == SL_ATOMIC_IMPORT_TX && j < u->nevm_outs; j++) {
			const sl_evm_output *o = &u->evm_outs[j];
			if (memcmp(o->asset_id, n->avax, 32))
				continue; /* multicoin balances are not native balances */
			sl_u256 v = sl_u256_of(o->amount);
			sl_u256_mul64(&v, X2C_RATE);
			if (!add_to(e, o->address, ht, &v))
				goto nomem;
		}
		for (uint32_t j = 0; u->type_id == SL_ATOMIC_EXPORT_TX && j < u->nevm_ins; j++) {
			const sl_evm_input *in = &u->evm_ins[j];
			evm_acct *a = acct_get(e, in->address, true);
			if (!a)
				goto nomem;
			evm_change c = acct_now(a);
			sl_u256 v = sl_u256_of(in->amount);
			sl_u256_mul64(&v, X2C_RATE);
			if (c.nonce != in->nonce ||
			    (!memcmp(in->asset_id, n->avax, 32) && !u256_sub(&c.bal, &v))) {
				snprintf(
					e->exec_why, sizeof e->exec_why,
					"an ExportTx of block %llu disagrees with the replay (nonce or balance)",
					(unsigned long long)ht);
				return false;
			}
			if (!acct_put(a, ht, &c.bal, in->nonce + 1))
				goto nomem;
		}
	}
	return true;
nomem:
	snprintf(e->exec_why, sizeof e->exec_why, "out of memory at block %llu", (unsigned long long)ht);
	return false;
}

static uint64_t default_chain_id(uint32_t network_id)
{
	return network_id == 1 ? 43114 : network_id == 5 ? 43113 : 43112;
}

/* Look for the genesis the source gave; set up the accounts at height 0. */
static void load_genesis(sl_node *n, sl_evmrpc *e, sl_cstore_rd *rd)
{
	e->loaded = true;
	e->chain_id = default_chain_id(n->cfg.network_id);
	e->ap5_time = sl_atomic_ap5_time(n->cfg.network_id);
	sl_span v;
	sl_evm_genesis g;
	if (sl_cstore_state_get(rd, genesis_key, sizeof genesis_key - 1, &v) ||
	    !(e->gbytes = malloc(v.len ? v.len : 1))) {
		snprintf(e->exec_why, sizeof e->exec_why,
			 "the source gave no genesis allocation for this chain");
		return;
	}
	memcpy(e->gbytes, v.p, v.len);
	if (!sl_evm_genesis_parse(e->gbytes, v.len, &g)) {
		snprintf(e->exec_why, sizeof e->exec_why, "the stored genesis allocation does not parse");
		return;
	}
	e->chain_id = g.chain_id;
	e->ap5_time = g.ap5_time;
	e->has_gheader = g.header.len &&
			 !sl_coreth_header_decode(g.header.p, g.header.len, &e->gheader, NULL) &&
			 e->gheader.number == 0;
	for (uint32_t i = 0; i < g.nalloc; i++) {
		const uint8_t *r = g.alloc + (size_t)i * SL_EVM_ALLOC_RECORD;
		sl_u256 bal = u256_be(sl_span_of(r + 20, 32));
		evm_acct *a = acct_get(e, r, true);
		if (!a || !acct_put(a, 0, &bal, sl_be64(r + 52))) {
			snprintf(e->exec_why, sizeof e->exec_why, "out of memory");
			return;
		}
	}
	e->has_genesis = e->exec = true;
}

/* Replay container i of C/block. */
static void replay_one(sl_node *n, sl_evmrpc *e, sl_cstore_rd *rd, uint64_t i)
{
	sl_container c;
	sl_arena a;
	sl_arena_init(&a, SL_EVM_BLOCK_ARENA);
	sl_span inner;
	sl_coreth_block b;
	bool ok = !sl_cstore_get(rd, SL_IDX_C_BLOCK, i, &c);
	if (ok) {
		(void)sl_proposervm_unwrap(c.bytes, c.len, &a, &inner, NULL);
		ok = !sl_coreth_block_decode(inner.p, inner.len, &a, &b, NULL);
	}
	if (ok && i == 0)
		e->first_height = b.header.number;
	if (!ok || b.header.number != e->first_height + i || i >= UINT32_MAX) {
		SL_LOG(n->log_chain[SL_CHAIN_C], SL_WARN,
		       "eth rpc: C/block container %llu is not the next C-chain block; blocks after it are not served",
		       (unsigned long long)i);
		e->broken = true;
		goto out;
	}
	if (e->nblocks == e->bcap) {
		size_t cap = e->bcap ? e->bcap * 2 : 4096;
		uint8_t(*v)[32] = realloc(e->bhash, cap * 32);
		if (!v) {
			e->broken = true;
			goto out;
		}
		e->bhash = v;
		e->bcap = cap;
	}
	memcpy(e->bhash[i], b.header.hash, 32);
	if (!bmap_put(e, (uint32_t)i)) {
		e->broken = true;
		goto out;
	}
	for (uint32_t t = 0; t < b.ntx; t++)
		if (!tmap_put(e, b.txs[t].hash, (uint32_t)i, t)) {
			e->broken = true;
			goto out;
		}
	e->nblocks = i + 1;
	if (i == 0 && e->has_gheader && memcmp(b.header.f[SL_CH_PARENT_HASH].p, e->gheader.hash, 32)) {
		SL_LOG(n->log_chain[SL_CHAIN_C], SL_WARN,
		       "eth rpc: the genesis header is not block %llu's parent; block 0 is not served",
		       (unsigned long long)b.header.number);
		e->has_gheader = false;
	}
	if (e->exec && i == 0 && b.header.number != 1) {
		snprintf(e->exec_why, sizeof e->exec_why, "the node's C-chain blocks start at %llu, not 1",
			 (unsigned long long)b.header.number);
		e->exec = false;
	}
	if (e->exec) {
		if (apply_block(n, e, &b, &a)) {
			e->exec_until = b.header.number;
		} else {
			e->exec = false;
			SL_LOG(n->log_chain[SL_CHAIN_C], SL_WARN, "eth rpc: state replay stops: %s",
			       e->exec_why);
		}
	}
out:
	sl_arena_release(&a);
}

/* Take in the containers accepted since the last request. Caller holds e->lock. */
static void catch_up(sl_node *n, sl_evmrpc *e)
{
	sl_cstore_rd *rd;
	if (sl_cstore_rd_begin(n->store, &rd))
		return;
	if (!e->loaded)
		load_genesis(n, e, rd);
	uint64_t count = 0;
	if (!sl_cstore_count(rd, SL_IDX_C_BLOCK, &count))
		for (uint64_t i = e->nblocks; i < count && !e->broken; i++)
			replay_one(n, e, rd, i);
	sl_cstore_rd_end(rd);
}

void sl_evm_warm(sl_node *n)
{
	sl_evmrpc *e = n->evm;
	if (!e)
		return;
	sl_mutex_lock(&e->lock);
	if (!e->loaded) {
		sl_cstore_rd *rd;
		if (!sl_cstore_rd_begin(n->store, &rd)) {
			load_genesis(n, e, rd);
			sl_cstore_rd_end(rd);
		}
	}
	if (e->has_genesis)
		catch_up(n, e);
	sl_mutex_unlock(&e->lock);
}

sl_err sl_feed_evm_genesis(sl_feed *f, const uint8_t *p, size_t len)
{
	sl_evm_genesis g;
	if (len > SL_CSTORE_MAX_STATE || !sl_evm_genesis_parse(p, len, &g))
		return SL_ERR_INVALID;
	sl_node *n = sl_feed_node(f);
	sl_err e = sl_cstore_state_put(n->store, genesis_key, sizeof genesis_key - 1, p, len);
	if (!e && n->evm) { /* replay again from it at the next request */
		sl_mutex_lock(&n->evm->lock);
		evm_clear(n->evm);
		sl_mutex_unlock(&n->evm->lock);
	}
	return e;
}

/* ---- answering ---- */

typedef enum { A_BLOCKNUM, A_BLOCKREF, A_ADDR, A_HASH, A_BOOL, A_FILTER } arg_kind;

typedef struct evm_arg {
	sl_evm_blockref ref;
	uint8_t b[32];
	bool flag;
	sl_evm_filter filter;
} evm_arg;

typedef struct evm_call {
	sl_node *n;
	sl_evmrpc *e;
	const evm_arg *args;
	sl_jw *w;
	sl_arena *a;
	int code;
	char err[256];
} evm_call;

static int fail(evm_call *c, const char *fmt, ...) SL_PRINTF(2, 3);
static int fail(evm_call *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof c->err, fmt, ap);
	va_end(ap);
	c->code = -32000;
	return -1;
}

static uint64_t head(const sl_evmrpc *e) { return e->nblocks ? e->first_height + e->nblocks - 1 : 0; }

/* A block number or tag as a height (earliest: 0; every other tag: the last accepted block). */
static uint64_t height_of(const sl_evmrpc *e, int64_t number)
{
	return number >= 0 ? (uint64_t)number : head(e);
}

/* Does the node have block h? (Block 0 only when it knows the genesis header.) */
static bool has_height(const sl_evmrpc *e, uint64_t h)
{
	if (h == 0)
		return e->has_gheader;
	return e->nblocks && h >= e->first_height && h - e->first_height < e->nblocks;
}

/* A block by reference; false when the node does not have it (found says whether it is unknown). */
static bool resolve(const sl_evmrpc *e, const sl_evm_blockref *r, uint64_t *h)
{
	if (r->by_hash) {
		uint32_t idx;
		if (e->has_gheader && !memcmp(r->hash, e->gheader.hash, 32)) {
			*h = 0;
			return true;
		}
		if (!bmap_find(e, r->hash, &idx))
			return false;
		*h = e->first_height + idx;
		return true;
	}
	*h = height_of(e, r->number);
	return has_height(e, *h);
}

/* Block h decoded into the arena (its bytes copied there). */
static bool load_block(evm_call *c, uint64_t h, sl_coreth_block *out)
{
	sl_evmrpc *e = c->e;
	if (h == 0) {
		*out = (sl_coreth_block){ .header = e->gheader };
		/* [header, [], [], 0, ""]: the header and four one-byte items in a list */
		size_t payload = e->gheader.rlp.len + 4, pre = 1;
		for (size_t x = payload; payload >= 56 && x; x >>= 8)
			pre++;
		out->bytes = sl_span_of(NULL, payload + pre);
		return true;
	}
	sl_cstore_rd *rd;
	if (sl_cstore_rd_begin(c->n->store, &rd))
		return false;
	sl_container ct;
	sl_span inner;
	bool ok = !sl_cstore_get(rd, SL_IDX_C_BLOCK, h - e->first_height, &ct);
	uint8_t *copy = NULL;
	if (ok) {
		(void)sl_proposervm_unwrap(ct.bytes, ct.len, c->a, &inner, NULL);
		copy = sl_arena_alloc(c->a, inner.len ? inner.len : 1);
		ok = copy != NULL;
		if (ok)
			memcpy(copy, inner.p, inner.len);
	}
	sl_cstore_rd_end(rd);
	return ok && !sl_coreth_block_decode(copy, inner.len, c->a, out, NULL);
}

static void write_block(sl_jw *w, const sl_coreth_block *b, bool full)
{
	sl_jw_obj(w);
	sl_coreth_header_write_json_fields(w, &b->header);
	sl_jw_key(w, "blockExtraData");
	sl_jw_hex(w, b->ext_data.p, b->ext_data.len);
	sl_jw_key(w, "size");
	jw_qty(w, b->bytes.len);
	sl_jw_key(w, "transactions");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < b->ntx; i++) {
		if (full)
			sl_evm_tx_write_json(w, &b->txs[i], b, i);
		else
			sl_jw_hex(w, b->txs[i].hash, 32);
	}
	sl_jw_arr_end(w);
	sl_jw_key(w, "uncles");
	sl_jw_arr(w);
	for (uint32_t i = 0; i < b->nuncles; i++)
		sl_jw_hex(w, b->uncles[i].hash, 32);
	sl_jw_arr_end(w);
	sl_jw_obj_end(w);
}

/* Receipts exist where the replay is exact: plain transfers, status 1, 21000 gas each. */
static bool receipts_known(evm_call *c, uint64_t h)
{
	if (c->e->has_genesis && h <= c->e->exec_until)
		return true;
	fail(c, "receipts unavailable at block %llu: the node replays this chain only up to block %llu (%s)",
	     (unsigned long long)h, (unsigned long long)(c->e->has_genesis ? c->e->exec_until : 0),
	     c->e->exec_why[0] ? c->e->exec_why : "its state is still exact");
	return false;
}

/* geth's receipt fields, in the order of its map (sorted keys). */
static void write_receipt(sl_jw *w, const sl_coreth_block *b, uint32_t i)
{
	static const uint8_t zero_bloom[256];
	const sl_evm_tx *tx = &b->txs[i];
	uint8_t from[20];
	bool has_from = !sl_evm_tx_sender(tx, from);
	sl_u256 price = { { 0 } };
	(void)effective_price(tx, &b->header, &price);
	sl_jw_obj(w);
	sl_jw_key(w, "blockHash");
	sl_jw_hex(w, b->header.hash, 32);
	sl_jw_key(w, "blockNumber");
	jw_qty(w, b->header.number);
	sl_jw_key(w, "contractAddress");
	sl_jw_null(w);
	sl_jw_key(w, "cumulativeGasUsed");
	jw_qty(w, (uint64_t)TRANSFER_GAS * (i + 1));
	sl_jw_key(w, "effectiveGasPrice");
	jw_u256(w, &price);
	sl_jw_key(w, "from");
	if (has_from)
		sl_jw_hex(w, from, 20);
	else
		sl_jw_null(w);
	sl_jw_key(w, "gasUsed");
	jw_qty(w, TRANSFER_GAS);
	sl_jw_key(w, "logs");
	sl_jw_arr(w);
	sl_jw_arr_end(w);
	sl_jw_key(w, "logsBloom");
	sl_jw_hex(w, zero_bloom, sizeof zero_bloom);
	sl_jw_key(w, "status");
	jw_qty(w, 1);
	sl_jw_key(w, "to");
	sl_jw_hex(w, tx->f[SL_TX_TO].p, tx->f[SL_TX_TO].len);
	sl_jw_key(w, "transactionHash");
	sl_jw_hex(w, tx->hash, 32);
	sl_jw_key(w, "transactionIndex");
	jw_qty(w, i);
	sl_jw_key(w, "type");
	jw_qty(w, tx->type);
	sl_jw_obj_end(w);
}

static int m_chain_id(evm_call *c)
{
	jw_qty(c->w, c->e->chain_id);
	return 0;
}

static int m_net_version(evm_call *c)
{
	sl_jw_u64s(c->w, c->e->chain_id);
	return 0;
}

static int m_block_number(evm_call *c)
{
	jw_qty(c->w, head(c->e));
	return 0;
}

static int m_syncing(evm_call *c)
{
	sl_jw_bool(c->w, false);
	return 0;
}

static int block_common(evm_call *c, const sl_evm_blockref *r, bool full)
{
	uint64_t h;
	sl_coreth_block b;
	if (!resolve(c->e, r, &h)) {
		sl_jw_null(c->w);
		return 0;
	}
	if (!load_block(c, h, &b))
		return fail(c, "cannot read block %llu", (unsigned long long)h);
	write_block(c->w, &b, full);
	return 0;
}

static int m_block_by_number(evm_call *c) { return block_common(c, &c->args[0].ref, c->args[1].flag); }

static int m_block_by_hash(evm_call *c)
{
	sl_evm_blockref r = { .by_hash = true };
	memcpy(r.hash, c->args[0].b, 32);
	return block_common(c, &r, c->args[1].flag);
}

static int m_tx_by_hash(evm_call *c)
{
	const evm_txloc *t = tmap_find(c->e, c->args[0].b);
	sl_coreth_block b;
	if (!t) {
		sl_jw_null(c->w);
		return 0;
	}
	uint64_t h = c->e->first_height + t->blk1 - 1;
	if (!load_block(c, h, &b) || t->idx >= b.ntx)
		return fail(c, "cannot read block %llu", (unsigned long long)h);
	sl_evm_tx_write_json(c->w, &b.txs[t->idx], &b, t->idx);
	return 0;
}

static int m_receipt(evm_call *c)
{
	const evm_txloc *t = tmap_find(c->e, c->args[0].b);
	sl_coreth_block b;
	if (!t) {
		sl_jw_null(c->w);
		return 0;
	}
	uint64_t h = c->e->first_height + t->blk1 - 1;
	if (!receipts_known(c, h))
		return -1;
	if (!load_block(c, h, &b) || t->idx >= b.ntx)
		return fail(c, "cannot read block %llu", (unsigned long long)h);
	write_receipt(c->w, &b, t->idx);
	return 0;
}

static int m_block_receipts(evm_call *c)
{
	const sl_evm_blockref *r = &c->args[0].ref;
	uint64_t h;
	sl_coreth_block b;
	if (!r->by_hash && r->number == EVM_NONE)
		return fail(c, "invalid arguments; neither block nor hash specified");
	if (!resolve(c->e, r, &h)) {
		sl_jw_null(c->w);
		return 0;
	}
	if (h && !receipts_known(c, h))
		return -1;
	if (!load_block(c, h, &b))
		return fail(c, "cannot read block %llu", (unsigned long long)h);
	sl_jw_arr(c->w);
	for (uint32_t i = 0; i < b.ntx; i++)
		write_receipt(c->w, &b, i);
	sl_jw_arr_end(c->w);
	return 0;
}

static int m_logs(evm_call *c)
{
	const sl_evm_filter *f = &c->args[0].filter;
	sl_evmrpc *e = c->e;
	uint64_t from, to;
	if (f->has_hash) {
		sl_evm_blockref r = { .by_hash = true };
		memcpy(r.hash, f->hash, 32);
		if (!resolve(e, &r, &from))
			return fail(c, "unknown block");
		to = from;
	} else {
		from = f->has_from ? height_of(e, f->from.number) : head(e);
		to = f->has_to ? height_of(e, f->to.number) : head(e);
		if (from > to)
			return fail(c, "invalid block range params");
		if (to - from >= SL_EVM_MAX_LOG_RANGE)
			return fail(c, "requested too many blocks from %llu to %llu, maximum is set to %u",
				    (unsigned long long)from, (unsigned long long)to, SL_EVM_MAX_LOG_RANGE);
		if (to > head(e)) /* blocks not yet accepted have no logs yet */
			to = head(e);
	}
	if (from <= to && to > 0 && !receipts_known(c, to))
		return -1;
	/* plain transfers emit no logs */
	sl_jw_arr(c->w);
	sl_jw_arr_end(c->w);
	return 0;
}

/* The account's state at the block: SL_OK, or a failure already reported. */
static int state_at(evm_call *c, const sl_evm_blockref *r, evm_change *out)
{
	sl_evmrpc *e = c->e;
	uint64_t h;
	if (!r->by_hash && r->number == EVM_NONE)
		return fail(c, "invalid arguments; neither block nor hash specified");
	if (!resolve(e, r, &h)) {
		if (r->by_hash)
			return fail(c, "header for hash not found");
		if (!(h == 0 && e->has_genesis))
			return fail(c, "header not found");
	}
	if (!e->has_genesis || h > e->exec_until)
		return fail(
			c,
			"state unavailable at block %llu: the node replays this chain only up to block %llu (%s)",
			(unsigned long long)h, (unsigned long long)(e->has_genesis ? e->exec_until : 0),
			e->exec_why[0] ? e->exec_why : "its state is still exact");
	*out = acct_at(acct_get(e, c->args[0].b, false), h);
	return 0;
}

static int m_balance(evm_call *c)
{
	evm_change s;
	if (state_at(c, &c->args[1].ref, &s))
		return -1;
	jw_u256(c->w, &s.bal);
	return 0;
}

static int m_nonce(evm_call *c)
{
	evm_change s;
	if (state_at(c, &c->args[1].ref, &s))
		return -1;
	jw_qty(c->w, s.nonce);
	return 0;
}

static int m_code(evm_call *c)
{
	evm_change s;
	if (state_at(c, &c->args[1].ref, &s))
		return -1;
	sl_jw_str(c->w, "0x"); /* the chain the node replays has no contracts */
	return 0;
}

typedef struct evm_method {
	const char *name;
	int (*fn)(evm_call *c);
	unsigned nargs;
	arg_kind args[2];
} evm_method;

static const evm_method methods[] = {
	{ "eth_chainId", m_chain_id, 0, { 0 } },
	{ "net_version", m_net_version, 0, { 0 } },
	{ "eth_blockNumber", m_block_number, 0, { 0 } },
	{ "eth_syncing", m_syncing, 0, { 0 } },
	{ "eth_getBlockByNumber", m_block_by_number, 2, { A_BLOCKNUM, A_BOOL } },
	{ "eth_getBlockByHash", m_block_by_hash, 2, { A_HASH, A_BOOL } },
	{ "eth_getTransactionByHash", m_tx_by_hash, 1, { A_HASH } },
	{ "eth_getTransactionReceipt", m_receipt, 1, { A_HASH } },
	{ "eth_getBlockReceipts", m_block_receipts, 1, { A_BLOCKREF } },
	{ "eth_getLogs", m_logs, 1, { A_FILTER } },
	{ "eth_getBalance", m_balance, 2, { A_ADDR, A_BLOCKREF } },
	{ "eth_getTransactionCount", m_nonce, 2, { A_ADDR, A_BLOCKREF } },
	{ "eth_getCode", m_code, 2, { A_ADDR, A_BLOCKREF } },
};

static bool parse_arg(arg_kind k, sl_span raw, sl_arena *a, evm_arg *out, char err[SL_EVM_ERR])
{
	switch (k) {
	case A_BLOCKNUM: return sl_evm_parse_blocknum(raw, &out->ref, err);
	case A_BLOCKREF: return sl_evm_parse_blockref(raw, &out->ref, err);
	case A_ADDR: return sl_evm_parse_fixed(raw, out->b, 20, "common.Address", err);
	case A_HASH: return sl_evm_parse_fixed(raw, out->b, 32, "common.Hash", err);
	case A_BOOL: return sl_evm_parse_bool(raw, &out->flag, err);
	case A_FILTER: return sl_evm_parse_filter(raw, a, &out->filter, err);
	}
	return false;
}

/* geth's parsePositionalArguments: -32602 with its texts. */
static bool parse_params(const evm_method *m, sl_span params, sl_arena *a, evm_arg *args, char err[256])
{
	sl_jtype t = params.p ? sl_json_type(params) : SL_JT_NULL;
	unsigned n = 0;
	if (t != SL_JT_NULL && t != SL_JT_ARRAY) {
		snprintf(err, 256, "non-array args");
		return false;
	}
	if (t == SL_JT_ARRAY) {
		sl_jiter it;
		sl_span v;
		sl_json_iter_init(&it, params);
		while (sl_json_arr_next(&it, &v)) {
			char sub[SL_EVM_ERR];
			if (n >= m->nargs) {
				snprintf(err, 256, "too many arguments, want at most %u", m->nargs);
				return false;
			}
			if (!parse_arg(m->args[n], v, a, &args[n], sub)) {
				snprintf(err, 256, "invalid argument %u: %s", n, sub);
				return false;
			}
			n++;
		}
	}
	if (n < m->nargs) {
		snprintf(err, 256, "missing value for required argument %u", n);
		return false;
	}
	return true;
}

/* The fields of one message, as geth's jsonrpcMessage decodes them (type errors leave a field empty). */
typedef struct evm_msg {
	sl_span id, params;
	char version[8], method[64];
	size_t vlen, mlen;
	bool method_long;
} evm_msg;

static void read_msg(sl_span raw, evm_msg *m)
{
	*m = (evm_msg){ 0 };
	if (sl_json_type(raw) != SL_JT_OBJECT)
		return;
	sl_jiter it;
	sl_span k, v;
	char kb[96];
	sl_json_iter_init(&it, raw);
	while (sl_json_obj_next(&it, &k, &v)) {
		size_t kn = 0;
		if (!unquote(k, kb, sizeof kb, &kn))
			continue;
		sl_jtype t = sl_json_type(v);
		if (sl_json_key_match(kb, kn, "id")) {
			m->id = v;
		} else if (sl_json_key_match(kb, kn, "params")) {
			m->params = t == SL_JT_NULL ? (sl_span){ 0 } : v;
		} else if (sl_json_key_match(kb, kn, "jsonrpc")) {
			m->vlen = 0;
			if (t == SL_JT_STRING && !unquote(v, m->version, sizeof m->version, &m->vlen))
				m->vlen = sizeof m->version; /* too long to be "2.0" */
		} else if (sl_json_key_match(kb, kn, "method")) {
			m->mlen = 0;
			m->method_long = false;
			if (t == SL_JT_STRING && !unquote(v, m->method, sizeof m->method - 1, &m->mlen))
				m->method_long = true; /* no method is that long: not found */
		}
	}
}

/* Drop what was appended after mark (and a sticky error from it). */
static void truncate_to(sl_buf *b, size_t mark)
{
	b->err = SL_OK;
	b->len = mark;
	if (b->p)
		b->p[mark] = 0;
}

static void write_id(sl_buf *b, sl_span id)
{
	if (id.p)
		sl_json_compact(id, b);
	else
		sl_buf_adds(b, "null");
}

static void write_err(sl_buf *b, sl_span id, int code, const char *msg)
{
	sl_buf_adds(b, "{\"jsonrpc\":\"2.0\",\"id\":");
	write_id(b, id);
	sl_buf_adds(b, ",\"error\":{\"code\":");
	sl_buf_add_i64(b, code);
	sl_buf_adds(b, ",\"message\":\"");
	sl_json_escape(b, msg, strlen(msg));
	sl_buf_adds(b, "\"}}");
}

/* Answer one message into b; false when it is a notification (nothing written). */
static bool handle_msg_in(sl_node *n, sl_evmrpc *e, sl_span raw, sl_arena *a, sl_buf *b, bool too_large)
{
	evm_msg m;
	read_msg(raw, &m);
	bool version_ok = m.vlen == 3 && !memcmp(m.version, "2.0", 3);
	bool has_method = m.mlen > 0 || m.method_long;
	bool valid_id = m.id.p && m.id.p[0] != '{' && m.id.p[0] != '[';
	if (version_ok && !m.id.p && has_method) {
		/* a notification: run for nothing, answer nothing (none of these methods has effects) */
		return false;
	}
	if (!version_ok || !valid_id || !has_method) {
		write_err(b, valid_id ? m.id : (sl_span){ 0 }, -32600, "invalid request");
		return true;
	}
	if (too_large) {
		write_err(b, m.id, -32003, "response too large");
		return true;
	}
	const evm_method *me = NULL;
	for (size_t i = 0; !m.method_long && i < SL_ARRAY_LEN(methods); i++)
		if (strlen(methods[i].name) == m.mlen && !memcmp(methods[i].name, m.method, m.mlen))
			me = &methods[i];
	if (!me) {
		char msg[160];
		m.method[m.mlen] = 0;
		snprintf(msg, sizeof msg, "the method %s does not exist/is not available",
			 m.method_long ? "(too long)" : m.method);
		write_err(b, m.id, -32601, msg);
		return true;
	}
	evm_arg args[2];
	char err[256];
	memset(args, 0, sizeof args);
	if (!parse_params(me, m.params, a, args, err)) {
		write_err(b, m.id, -32602, err);
		return true;
	}
	size_t mark = b->len;
	sl_buf_adds(b, "{\"jsonrpc\":\"2.0\",\"id\":");
	write_id(b, m.id);
	sl_buf_adds(b, ",\"result\":");
	sl_jw w;
	sl_jw_init(&w, b);
	evm_call c = { .n = n, .e = e, .args = args, .w = &w, .a = a };
	if (me->fn(&c) || b->err) {
		if (b->err && !c.err[0])
			snprintf(c.err, sizeof c.err, "response too large");
		truncate_to(b, mark);
		write_err(b, m.id, c.code ? c.code : -32603, c.err);
		return true;
	}
	sl_buf_addc(b, '}');
	return true;
}

static bool handle_msg(sl_node *n, sl_evmrpc *e, sl_span raw, sl_buf *b, bool too_large)
{
	sl_arena a;
	sl_arena_init(&a, SL_EVM_BLOCK_ARENA);
	bool r = handle_msg_in(n, e, raw, &a, b, too_large);
	sl_arena_release(&a);
	return r;
}

static bool content_type_ok(const char *ct)
{
	if (!ct)
		return false;
	size_t n = strcspn(ct, ";");
	while (n && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
		n--;
	while (n && (*ct == ' ' || *ct == '\t')) {
		ct++;
		n--;
	}
	static const char *const ok[] = { "application/json", "application/json-rpc",
					  "application/jsonrequest" };
	for (size_t i = 0; i < SL_ARRAY_LEN(ok); i++)
		if (strlen(ok[i]) == n && !strncasecmp(ct, ok[i], n))
			return true;
	return false;
}

void sl_route_evm(sl_node *n, const route *r, const sl_http_req *req, sl_http_resp *resp)
{
	(void)r;
	if (!atomic_load(&n->source_caught_up)) {
		sl_http_resp_text(resp, 503, "API call rejected because chain is not done bootstrapping\n");
		return;
	}
	if (strcmp(req->method, "POST")) {
		sl_http_resp_text(resp, 405, "method not allowed\n");
		return;
	}
	if (!content_type_ok(sl_http_req_header(req, "Content-Type"))) {
		sl_http_resp_text(resp, 415, "invalid content type, only application/json is supported\n");
		return;
	}
	resp->status = 200;
	resp->content_type = "application/json";
	sl_buf *b = &resp->body;
	sl_buf_reset(b);
	size_t start, end;
	char msg[128];
	if (sl_json_scan((const char *)req->body, req->body_len, &start, &end, msg)) {
		write_err(b, (sl_span){ 0 }, -32700, "parse error");
		sl_buf_addc(b, '\n');
		return;
	}
	sl_span body = sl_span_of(req->body + start, end - start);
	sl_evmrpc *e = n->evm;
	sl_mutex_lock(&e->lock);
	catch_up(n, e);
	if (sl_json_type(body) != SL_JT_ARRAY) {
		if (!handle_msg(n, e, body, b, false))
			sl_buf_reset(b);
		else
			sl_buf_addc(b, '\n');
	} else {
		size_t count = arr_len(body);
		if (count == 0) {
			write_err(b, (sl_span){ 0 }, -32600, "empty batch");
		} else if (count > SL_EVM_RPC_MAX_BATCH) {
			write_err(b, (sl_span){ 0 }, -32600, "batch too large");
		} else {
			sl_jiter it;
			sl_span v;
			bool any = false;
			sl_buf_addc(b, '[');
			sl_json_iter_init(&it, body);
			while (sl_json_arr_next(&it, &v)) {
				size_t mark = b->len;
				if (any)
					sl_buf_addc(b, ',');
				if (handle_msg(n, e, v, b, b->len > SL_EVM_RPC_MAX_BATCH_RESPONSE))
					any = true;
				else
					truncate_to(b, mark);
			}
			sl_buf_addc(b, ']');
			if (!any)
				sl_buf_reset(b);
		}
		if (b->len)
			sl_buf_addc(b, '\n');
	}
	sl_mutex_unlock(&e->lock);
}
