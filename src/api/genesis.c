/*
 * genesis.c — a chain's genesis as GET …/subnets shows it: Blockchain's
 * genesisData and evmChainId.
 *
 * The bytes are a CreateChainTx's: anyone's, read here under bounds. The
 * OpenAPI document gives genesisData two forms, an EvmGenesisDto object or
 * "a raw JSON string". The official SDK takes the first that fits and checks
 * the object's known fields (their types; null only where the DTO says so):
 * one field of another type and it refuses the whole page, while a genesis
 * that is not an EVM one would come out of it as {} (it drops keys it does
 * not know). So:
 *   - the object form is for an EVM genesis (config.chainId a number) whose
 *     every EvmGenesisDto field has the DTO's type, nested at most
 *     API_GENESIS_DEPTH deep; keys the DTO does not name are the chain's and
 *     stay;
 *   - any other JSON is shown as its text (the string form);
 *   - bytes that are not one JSON value, or more than API_GENESIS_MAX of
 *     them, are not shown at all.
 * The object is written again from what was read (keys and strings unquoted
 * and escaped anew, numbers as validated), never copied, so the response is
 * valid UTF-8 JSON whatever the bytes held.
 */
#include "api/internal.h"

/* ---- the DTO's fields, as the SDK (@avalanche-sdk/chainkit 0.3.13) checks them ---- */

enum { T_STR, T_NUM, T_BOOL, T_OBJ, T_OBJ_MAP, T_STR_MAP, T_STR_ARR };

typedef struct gshape gshape;
typedef struct gfield {
	const char *name;
	uint8_t type;
	bool nullable;
	const gshape *sub; /* T_OBJ, T_OBJ_MAP: the object's (the map's values') fields */
} gfield;
struct gshape {
	const gfield *f;
	size_t n;
};
#define SHAPE(a)                   \
	{                          \
		a, SL_ARRAY_LEN(a) \
	}
#define F(n, t)                   \
	{                         \
		n, t, false, NULL \
	}
#define NULLABLE(n, t)           \
	{                        \
		n, t, true, NULL \
	}
#define SUB(n, t, shape)            \
	{                           \
		n, t, false, &shape \
	}

static const gfield allow_list_f[] = {
	F("blockTimestamp", T_NUM),
	F("adminAddresses", T_STR_ARR),
	F("managerAddresses", T_STR_ARR),
	F("enabledAddresses", T_STR_ARR),
};
static const gfield warp_f[] = {
	F("blockTimestamp", T_NUM),
	F("quorumNumerator", T_NUM),
	F("requirePrimaryNetworkSigners", T_BOOL),
};
static const gfield fee_f[] = {
	F("baseFeeChangeDenominator", T_NUM), F("blockGasCostStep", T_NUM), F("gasLimit", T_NUM),
	F("maxBlockGasCost", T_NUM),	      F("minBaseFee", T_NUM),	    F("minBlockGasCost", T_NUM),
	F("targetBlockRate", T_NUM),	      F("targetGas", T_NUM),
};
static const gshape allow_list = SHAPE(allow_list_f), warp = SHAPE(warp_f), fee = SHAPE(fee_f);
static const gfield config_f[] = {
	F("berlinBlock", T_NUM),
	F("byzantiumBlock", T_NUM),
	F("chainId", T_NUM),
	F("constantinopleBlock", T_NUM),
	F("eip150Block", T_NUM),
	F("eip150Hash", T_STR),
	F("eip155Block", T_NUM),
	F("eip158Block", T_NUM),
	SUB("feeConfig", T_OBJ, fee),
	F("homesteadBlock", T_NUM),
	F("istanbulBlock", T_NUM),
	F("londonBlock", T_NUM),
	F("muirGlacierBlock", T_NUM),
	F("petersburgBlock", T_NUM),
	F("subnetEVMTimestamp", T_NUM),
	F("allowFeeRecipients", T_BOOL),
	SUB("warpConfig", T_OBJ, warp),
	SUB("txAllowListConfig", T_OBJ, allow_list),
	SUB("contractDeployerAllowListConfig", T_OBJ, allow_list),
	SUB("contractNativeMinterConfig", T_OBJ, allow_list),
	SUB("feeManagerConfig", T_OBJ, allow_list),
	SUB("rewardManagerConfig", T_OBJ, allow_list),
};
static const gfield alloc_f[] = {
	F("balance", T_STR),
	F("code", T_STR),
	F("storage", T_STR_MAP),
};
static const gshape config = SHAPE(config_f), alloc = SHAPE(alloc_f);
static const gfield genesis_f[] = {
	NULLABLE("airdropAmount", T_NUM),
	F("airdropHash", T_STR),
	SUB("alloc", T_OBJ_MAP, alloc),
	NULLABLE("baseFeePerGas", T_NUM),
	NULLABLE("blobGasUsed", T_STR),
	F("coinbase", T_STR),
	SUB("config", T_OBJ, config),
	F("difficulty", T_STR),
	NULLABLE("excessBlobGas", T_STR),
	F("extraData", T_STR),
	F("gasLimit", T_STR),
	F("gasUsed", T_STR),
	F("mixHash", T_STR),
	F("nonce", T_STR),
	F("number", T_STR),
	F("parentHash", T_STR),
	F("timestamp", T_STR),
};
static const gshape genesis = SHAPE(genesis_f);

/* ---- reading ---- */

/* An object key as a client reads it (escapes resolved) into scratch. */
static void unquote(sl_span raw, sl_buf *scratch)
{
	sl_buf_reset(scratch);
	sl_json_unquote(raw, scratch);
}

/* scratch's bytes (never NULL: an empty buffer has no memory yet) */
static const char *text(const sl_buf *scratch) { return scratch->p ? (const char *)scratch->p : ""; }

static bool key_is(sl_buf *scratch, const char *name)
{
	size_t n = strlen(name);
	return scratch->len == n && !scratch->err && !memcmp(scratch->p, name, n);
}

static bool shape_fits(sl_span obj, const gshape *s, sl_buf *scratch);

static bool all_of(sl_span v, sl_jtype want, const gshape *sub, sl_buf *scratch)
{
	sl_jiter it;
	sl_span k, x;
	sl_json_iter_init(&it, v);
	bool obj = sl_json_type(v) == SL_JT_OBJECT;
	while (obj ? sl_json_obj_next(&it, &k, &x) : sl_json_arr_next(&it, &x)) {
		if (sl_json_type(x) != want || (sub && !shape_fits(x, sub, scratch)))
			return false;
	}
	return true;
}

/* Does v have the type the field says (recursion is as deep as the DTO: four levels)? */
static bool fits(sl_span v, const gfield *f, sl_buf *scratch)
{
	sl_jtype t = sl_json_type(v);
	if (t == SL_JT_NULL)
		return f->nullable;
	switch (f->type) {
	case T_STR: return t == SL_JT_STRING;
	case T_NUM: return t == SL_JT_NUMBER;
	case T_BOOL: return t == SL_JT_BOOL;
	case T_OBJ: return t == SL_JT_OBJECT && shape_fits(v, f->sub, scratch);
	case T_OBJ_MAP: return t == SL_JT_OBJECT && all_of(v, SL_JT_OBJECT, f->sub, scratch);
	case T_STR_MAP: return t == SL_JT_OBJECT && all_of(v, SL_JT_STRING, NULL, scratch);
	case T_STR_ARR: return t == SL_JT_ARRAY && all_of(v, SL_JT_STRING, NULL, scratch);
	default: return false;
	}
}

/* Every field of the shape the object has (each time it has it: a key may repeat) has its type. */
static bool shape_fits(sl_span obj, const gshape *s, sl_buf *scratch)
{
	sl_jiter it;
	sl_span k, v;
	sl_json_iter_init(&it, obj);
	while (sl_json_obj_next(&it, &k, &v)) {
		unquote(k, scratch);
		for (size_t i = 0; i < s->n; i++)
			if (key_is(scratch, s->f[i].name) && !fits(v, &s->f[i], scratch))
				return false;
	}
	return true;
}

/* Is v nested at most `left` levels deep (containers count)? */
static bool depth_ok(sl_span v, int left)
{
	sl_jtype t = sl_json_type(v);
	if (t != SL_JT_OBJECT && t != SL_JT_ARRAY)
		return true;
	if (left <= 0)
		return false;
	sl_jiter it;
	sl_span k, x;
	sl_json_iter_init(&it, v);
	while (t == SL_JT_OBJECT ? sl_json_obj_next(&it, &k, &x) : sl_json_arr_next(&it, &x))
		if (!depth_ok(x, left - 1))
			return false;
	return true;
}

/* A JSON number that is an unsigned integer of 64 bits (digits only). */
static bool u64_of(sl_span v, uint64_t *out)
{
	if (sl_json_type(v) != SL_JT_NUMBER || !v.len || v.len > 20)
		return false;
	uint64_t x = 0;
	for (size_t i = 0; i < v.len; i++) {
		if (v.p[i] < '0' || v.p[i] > '9')
			return false;
		unsigned d = v.p[i] - '0';
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*out = x;
	return true;
}

/* config.chainId of the root object, as a client would read it (a repeated key: the last one). */
static void chain_id(sl_span root, api_genesis *g, sl_buf *scratch)
{
	sl_jiter it, ic;
	sl_span k, v, ck, cv;
	sl_json_iter_init(&it, root);
	while (sl_json_obj_next(&it, &k, &v)) {
		unquote(k, scratch);
		if (!key_is(scratch, "config"))
			continue;
		g->has_chain_id = false;
		if (sl_json_type(v) != SL_JT_OBJECT)
			continue;
		sl_json_iter_init(&ic, v);
		while (sl_json_obj_next(&ic, &ck, &cv)) {
			unquote(ck, scratch);
			if (key_is(scratch, "chainId"))
				g->has_chain_id = u64_of(cv, &g->chain_id);
		}
	}
}

static bool is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void api_genesis_read(const uint8_t *p, size_t n, api_genesis *g, sl_buf *scratch)
{
	*g = (api_genesis){ .form = API_GENESIS_NONE };
	size_t start, end;
	char msg[128];
	if (!p || !n || n > API_GENESIS_MAX || sl_json_scan((const char *)p, n, &start, &end, msg))
		return;
	for (size_t i = end; i < n; i++)
		if (!is_ws(p[i]))
			return; /* one value and nothing after it */
	g->value = sl_span_of(p + start, end - start);
	g->form = API_GENESIS_STRING;
	if (sl_json_type(g->value) != SL_JT_OBJECT)
		return;
	chain_id(g->value, g, scratch);
	if (g->has_chain_id && depth_ok(g->value, API_GENESIS_DEPTH) &&
	    shape_fits(g->value, &genesis, scratch) && !scratch->err)
		g->form = API_GENESIS_OBJECT;
}

/* ---- writing ---- */

static void emit(sl_jw *w, sl_span v, sl_buf *scratch)
{
	sl_jiter it;
	sl_span k, x;
	switch (sl_json_type(v)) {
	case SL_JT_OBJECT:
		sl_jw_obj(w);
		sl_json_iter_init(&it, v);
		while (sl_json_obj_next(&it, &k, &x)) {
			unquote(k, scratch);
			sl_jw_keyn(w, text(scratch), scratch->len);
			emit(w, x, scratch);
		}
		sl_jw_obj_end(w);
		break;
	case SL_JT_ARRAY:
		sl_jw_arr(w);
		sl_json_iter_init(&it, v);
		while (sl_json_arr_next(&it, &x))
			emit(w, x, scratch);
		sl_jw_arr_end(w);
		break;
	case SL_JT_STRING:
		unquote(v, scratch);
		sl_jw_strn(w, text(scratch), scratch->len);
		break;
	case SL_JT_NUMBER: sl_jw_raw(w, (const char *)v.p, v.len); break;
	case SL_JT_BOOL: sl_jw_bool(w, v.p[0] == 't'); break;
	default: sl_jw_null(w); break;
	}
}

void api_genesis_write(sl_jw *w, const uint8_t *p, size_t n, const api_genesis *g, sl_buf *scratch)
{
	if (g->form == API_GENESIS_OBJECT)
		emit(w, g->value, scratch);
	else if (g->form == API_GENESIS_STRING)
		sl_jw_strn(w, (const char *)p, n);
}
