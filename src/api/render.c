/*
 * render.c — the shapes every list shares: chainInfo, AssetAmount,
 * addresses and ids as the Data API writes them (docs/reference/data-api.md
 * §3, §6): amounts and block numbers as decimal strings, times and counts as
 * numbers, addresses as "<hrp>1…" without a chain prefix.
 */
#include "api/internal.h"

#include "crypto/addr.h"
#include "crypto/cb58.h"

#define ASSET_CACHE 4096 /* assets kept (open addressing; a full cache just stops caching) */

struct api_assets {
	pthread_rwlock_t lock;
	api_asset slot[ASSET_CACHE];
	size_t n;
};

struct api_assets *api_assets_new(void)
{
	struct api_assets *a = calloc(1, sizeof *a);
	if (a)
		pthread_rwlock_init(&a->lock, NULL);
	return a;
}

void api_assets_free(struct api_assets *a)
{
	if (!a)
		return;
	pthread_rwlock_destroy(&a->lock);
	free(a);
}

/* A string that needs no escaping (cb58, bech32): quoted as it is. */
static void raw_str(sl_jw *w, const char *s, size_t n)
{
	sl_jw_value(w);
	sl_buf *b = w->out;
	if (!sl_buf_reserve(b, n + 2))
		return;
	b->p[b->len] = '"';
	memcpy(b->p + b->len + 1, s, n);
	b->p[b->len + 1 + n] = '"';
	b->len += n + 2;
	b->p[b->len] = 0;
}

/* The request's copy of the asset last found (known ones only: an unknown one is looked up again). */
static void remember(api_req *r, const api_asset *a)
{
	if (!a->known)
		return;
	api_asset *m = (api_asset *)r->asset;
	if (!m && !(m = sl_arena_alloc(r->arena, sizeof *m)))
		return;
	*m = *a;
	r->asset = m;
}

static const sl_sql q_asset = { "SELECT name, symbol, denomination, type, cap, ts FROM assets WHERE id = ?" };

void api_asset_get(api_req *r, const uint8_t id[32], api_asset *out)
{
	/* a page's UTXOs are mostly of one asset: the last one found serves again without the lock */
	if (r->asset && !memcmp(r->asset->id, id, 32)) {
		*out = *r->asset;
		return;
	}
	struct api_assets *c = r->api->assets;
	size_t h = sl_be32(id) % ASSET_CACHE;
	pthread_rwlock_rdlock(&c->lock);
	for (size_t i = 0; i < ASSET_CACHE; i++) {
		const api_asset *s = &c->slot[(h + i) % ASSET_CACHE];
		if (!s->known)
			break;
		if (!memcmp(s->id, id, 32)) {
			*out = *s;
			pthread_rwlock_unlock(&c->lock);
			remember(r, out);
			return;
		}
	}
	pthread_rwlock_unlock(&c->lock);
	*out = (api_asset){ .denomination = 0 };
	memcpy(out->id, id, 32);
	sl_cb58_id(out->cb58, id);
	snprintf(out->name, sizeof out->name, "Unknown");
	snprintf(out->symbol, sizeof out->symbol, "UNKNOWN");
	sl_stmt *s = sl_stmt_get(r->db, &q_asset);
	sl_err e = SL_OK;
	if (!s)
		return;
	sl_bind_blob(s, 0, id, 32);
	if (sl_stmt_query(s) || !sl_stmt_next(s, &e))
		return; /* not (yet) indexed: shown as unknown, not cached */
	size_t n;
	const char *t = sl_col_text(s, 0, &n);
	snprintf(out->name, sizeof out->name, "%.*s", (int)SL_MIN(n, sizeof out->name - 1), t);
	t = sl_col_text(s, 1, &n);
	snprintf(out->symbol, sizeof out->symbol, "%.*s", (int)SL_MIN(n, sizeof out->symbol - 1), t);
	out->denomination = (uint8_t)sl_col_i64(s, 2);
	out->nft = sl_col_i64(s, 3) == 1;
	out->variable_cap = sl_col_i64(s, 4) == 1;
	out->created_ts = sl_col_i64(s, 5);
	out->known = true;
	pthread_rwlock_wrlock(&c->lock);
	if (c->n < ASSET_CACHE / 2) /* at most half full: probes stay short */
		for (size_t i = 0; i < ASSET_CACHE; i++) {
			api_asset *slot = &c->slot[(h + i) % ASSET_CACHE];
			if (slot->known && !memcmp(slot->id, id, 32))
				break;
			if (!slot->known) {
				*slot = *out;
				c->n++;
				break;
			}
		}
	pthread_rwlock_unlock(&c->lock);
	remember(r, out);
}

void api_asset_amount_fields(api_req *r, const uint8_t asset[32], uint64_t amount)
{
	api_asset a;
	api_asset_get(r, asset, &a);
	sl_jw *w = &r->w;
	sl_jw_key(w, "assetId");
	raw_str(w, a.cb58, strlen(a.cb58));
	sl_jw_key(w, "name");
	sl_jw_str(w, a.name);
	sl_jw_key(w, "symbol");
	sl_jw_str(w, a.symbol);
	sl_jw_key(w, "denomination");
	sl_jw_u64(w, a.denomination);
	sl_jw_key(w, "type");
	sl_jw_str(w, a.nft ? "nft" : "secp256k1");
	sl_jw_key(w, "amount");
	sl_jw_u64s(w, amount);
}

void api_asset_amount(api_req *r, const uint8_t asset[32], uint64_t amount, const char *extra_key,
		      int64_t extra)
{
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	api_asset_amount_fields(r, asset, amount);
	if (extra_key) {
		sl_jw_key(w, extra_key);
		sl_jw_i64(w, extra);
	}
	sl_jw_obj_end(w);
}

static const char *const chain_names[3] = { "p-chain", "x-chain", "c-chain" };

void api_chain_info(api_req *r)
{
	sl_jw_key(&r->w, "chainInfo");
	sl_jw_obj(&r->w);
	sl_jw_key(&r->w, "chainName");
	sl_jw_str(&r->w, chain_names[r->chain >= 0 ? r->chain : 0]);
	sl_jw_key(&r->w, "network");
	sl_jw_str(&r->w, r->network);
	sl_jw_obj_end(&r->w);
}

const char *api_chain_id(const api_req *r, int chain)
{
	return chain >= 0 && chain < 3 ? r->api->net.chain_str[chain] : "";
}

/*
 * Ids (cb58) and addresses (bech32) already written in this response: a tx's id comes back as
 * the creating or consuming tx of each of its UTXOs, the listed address in most of them. A small
 * table per request, direct-mapped on the bytes' first word; encoding costs ~0.3 us each.
 */
#define ENC_SLOTS 256
struct api_enc {
	uint8_t key[32];
	uint8_t klen, slen;
	char s[54];
};

static void write_encoded(api_req *r, const uint8_t *key, size_t klen)
{
	if (!r->enc)
		r->enc = sl_arena_zalloc(r->arena, ENC_SLOTS * sizeof *r->enc);
	struct api_enc *e = r->enc ? &r->enc[(sl_be32(key) ^ (uint32_t)klen) % ENC_SLOTS] : NULL;
	if (e && e->klen == klen && !memcmp(e->key, key, klen)) {
		raw_str(&r->w, e->s, e->slen);
		return;
	}
	char mem[64];
	sl_buf b = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
	if (klen == 20)
		sl_bech32_write(&b, r->api->net.hrp, key, 20);
	else
		sl_cb58_write(&b, key, klen);
	if (b.err || b.len > sizeof e->s)
		return; /* cannot happen: a 20-byte address and a 32-byte id fit */
	raw_str(&r->w, mem, b.len);
	if (e) {
		memcpy(e->key, key, klen);
		e->klen = (uint8_t)klen;
		e->slen = (uint8_t)b.len;
		memcpy(e->s, mem, b.len);
	}
}

void api_write_address(api_req *r, const uint8_t addr[20]) { write_encoded(r, addr, 20); }

void api_write_id(api_req *r, const uint8_t id[32]) { write_encoded(r, id, 32); }

void api_write_node_id(api_req *r, const uint8_t node[20]) { sl_jw_nodeid(&r->w, node); }

/* "2.5" for 25,000 parts per million: the fee in percent, no trailing zeros. */
void api_write_fee_percent(api_req *r, uint32_t ppm)
{
	char t[32];
	int n = snprintf(t, sizeof t, "%u.%04u", ppm / 10000, ppm % 10000);
	while (n > 0 && t[n - 1] == '0')
		n--;
	if (n > 0 && t[n - 1] == '.')
		n--;
	sl_jw_strn(&r->w, t, (size_t)n);
}

const char *api_reward_type(int kind)
{
	static const char *const names[] = { NULL, "VALIDATOR", "DELEGATOR", "VALIDATOR_FEE" };
	return kind > 0 && kind < (int)SL_ARRAY_LEN(names) ? names[kind] : NULL;
}

void api_write_id_col(api_req *r, sl_stmt *s, int col)
{
	size_t len = 0;
	const uint8_t *p = sl_col_blob(s, col, &len);
	if (p && len == 32)
		api_write_id(r, p);
	else
		sl_jw_str(&r->w, "");
}
void api_write_u64s(api_req *r, uint64_t v) { sl_jw_u64s(&r->w, v); }

/* ---- owners ---- */

bool api_owner_read(const uint8_t *p, size_t n, api_owner *o)
{
	*o = (api_owner){ .threshold = 0 };
	if (!p || n < 12 || (n - 12) % 20)
		return false;
	o->threshold = sl_be32(p);
	o->locktime = sl_be64(p + 4);
	o->addrs = p + 12;
	o->naddrs = (n - 12) / 20;
	return true;
}

void api_owner_addresses(api_req *r, const char *key, const api_owner *o)
{
	sl_jw_key(&r->w, key);
	sl_jw_arr(&r->w);
	for (size_t i = 0; i < o->naddrs; i++)
		api_write_address(r, o->addrs + 20 * i);
	sl_jw_arr_end(&r->w);
}
