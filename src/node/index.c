/*
 * index.c — the `index` service, one instance per index path
 * (/ext/index/{P/block,C/block,X/tx,X/block,X/vtx}).
 *
 * Behaviour and error texts: docs/reference/node-rpc.md §4. Where spec
 * 001 says otherwise (getContainerRange returns an array, numToFetch 0 is an
 * empty result) the spec wins, and `compat = upstream` gives avalanchego's.
 */
#include "node/internal.h"

#include "crypto/cb58.h"
#include "util/limits.h"

static void write_container(sl_jw *w, const sl_container *c, sl_encoding enc)
{
	char ts[64];
	sl_jw_obj(w);
	sl_jw_key(w, "id");
	sl_jw_cb58(w, c->id, 32);
	sl_jw_key(w, "bytes");
	sl_jw_raw(w, "\"", 1);
	if (enc == SL_ENC_HEXNC) {
		sl_buf_add(w->out, "0x", 2);
		sl_buf_add_hex(w->out, c->bytes, c->len);
	} else {
		sl_write_hex_checksum(w->out, c->bytes, c->len);
	}
	sl_buf_addc(w->out, '"');
	sl_jw_key(w, "timestamp");
	sl_format_time(ts, c->ts_ns);
	sl_jw_str(w, ts);
	sl_jw_key(w, "encoding");
	sl_jw_str(w, sl_encoding_name(enc));
	sl_jw_key(w, "index");
	sl_jw_u64s(w, c->index);
	sl_jw_obj_end(w);
}

static sl_encoding enc_arg(const sl_rpc_val *v) { return v->set ? (sl_encoding)v->enc : SL_ENC_HEX; }

/* Open a read view; on failure the call has already failed. */
static sl_cstore_rd *begin(sl_rpc_call *c, const sl_index_ctx **ix)
{
	*ix = c->ctx;
	sl_cstore_rd *rd = NULL;
	if (sl_cstore_rd_begin((*ix)->node->store, &rd)) {
		sl_rpc_fail_err(c, SL_ERR_STORE, "cannot begin a read transaction");
		return NULL;
	}
	return rd;
}

/* The three methods that answer with one container differ only in how they find it. */
typedef enum { BY_LAST, BY_INDEX, BY_ID } lookup_kind;

static int one_container(sl_rpc_call *c, lookup_kind how)
{
	const sl_index_ctx *ix;
	sl_cstore_rd *rd = begin(c, &ix);
	if (!rd)
		return -1;
	sl_container ct;
	sl_err e = SL_OK;
	uint64_t n = 0;
	int rc = -1;
	switch (how) {
	case BY_LAST:
		if ((e = sl_cstore_count(rd, ix->kind, &n)) == SL_OK)
			e = n ? sl_cstore_get(rd, ix->kind, n - 1, &ct) : SL_ERR_NOT_FOUND;
		break;
	case BY_INDEX: e = sl_cstore_get(rd, ix->kind, c->args[0].u, &ct); break;
	case BY_ID: e = sl_cstore_find(rd, ix->kind, c->args[0].id, &ct); break;
	}
	sl_encoding enc = enc_arg(&c->args[how == BY_LAST ? 0 : 1]);
	if (e == SL_ERR_NOT_FOUND && how == BY_LAST)
		sl_rpc_fail(c, "no containers have been accepted");
	else if (e == SL_ERR_NOT_FOUND && how == BY_INDEX)
		sl_rpc_fail(c, "no container at index %llu", (unsigned long long)c->args[0].u);
	else if (e)
		sl_rpc_fail_err(c, e, "cannot read container");
	else if (enc == SL_ENC_JSON) /* checked after the lookup, as avalanchego does */
		sl_rpc_fail(c, "unsupported encoding in method");
	else {
		write_container(c->w, &ct, enc);
		rc = 0;
	}
	sl_cstore_rd_end(rd);
	return rc;
}

static int get_last_accepted(sl_rpc_call *c) { return one_container(c, BY_LAST); }
static int get_container_by_index(sl_rpc_call *c) { return one_container(c, BY_INDEX); }
static int get_container_by_id(sl_rpc_call *c) { return one_container(c, BY_ID); }

/*
 * Arguments: startIndex, numToFetch, encoding, endIndex. endIndex (inclusive)
 * is what @avalanche-sdk/client sends instead of numToFetch; it is used only
 * when numToFetch is absent.
 */
static int get_container_range(sl_rpc_call *c)
{
	const sl_rpc_val *start = &c->args[0], *num = &c->args[1], *endi = &c->args[3];
	sl_encoding enc = enc_arg(&c->args[2]);
	bool upstream = c->compat == SL_COMPAT_UPSTREAM;
	uint64_t n = num->u;
	if (!num->set && endi->set) {
		if (endi->u < start->u)
			return sl_rpc_fail(c, "endIndex (%llu) < startIndex (%llu)",
					   (unsigned long long)endi->u, (unsigned long long)start->u);
		n = endi->u - start->u + 1;
		if (n == 0) /* the whole uint64 range */
			n = UINT64_MAX;
	}
	if (upstream && (n == 0 || n > SL_INDEX_MAX_RANGE))
		return sl_rpc_fail(c, "numToFetch must be in [1,%u] but is %llu", SL_INDEX_MAX_RANGE,
				   (unsigned long long)n);
	if (!upstream && n > SL_INDEX_MAX_RANGE)
		return sl_rpc_fail(c, "numToFetch must be in [0,%u] but is %llu", SL_INDEX_MAX_RANGE,
				   (unsigned long long)n);
	if (n == 0) { /* spec 001 §4.2 rule 1 */
		sl_jw_arr(c->w);
		sl_jw_arr_end(c->w);
		return 0;
	}
	const sl_index_ctx *ix;
	sl_cstore_rd *rd = begin(c, &ix);
	if (!rd)
		return -1;
	int rc = -1;
	uint64_t count;
	if (sl_cstore_count(rd, ix->kind, &count)) {
		sl_rpc_fail_err(c, SL_ERR_STORE, "cannot count containers");
		goto out;
	}
	if (count == 0) {
		sl_rpc_fail(c, "no containers have been accepted");
		goto out;
	}
	if (start->u > count - 1) {
		sl_rpc_fail(c, "start index (%llu) > last accepted index (%llu)",
			    (unsigned long long)start->u, (unsigned long long)(count - 1));
		goto out;
	}
	if (enc == SL_ENC_JSON) {
		sl_rpc_fail(c, "unsupported encoding in method");
		goto out;
	}
	uint64_t last = SL_MIN(count - 1, start->u + (n - 1));
	if (upstream) {
		sl_jw_obj(c->w);
		sl_jw_key(c->w, "containers");
	}
	sl_jw_arr(c->w);
	for (uint64_t i = start->u; i <= last; i++) {
		sl_container ct;
		if (sl_cstore_get(rd, ix->kind, i, &ct)) {
			sl_rpc_fail_err(c, SL_ERR_STORE, "container missing in range");
			goto out;
		}
		write_container(c->w, &ct, enc);
	}
	sl_jw_arr_end(c->w);
	if (upstream)
		sl_jw_obj_end(c->w);
	rc = 0;
out:
	sl_cstore_rd_end(rd);
	return rc;
}

/* getIndex and isAccepted: the position of an id, or whether it has one. */
static int id_position(sl_rpc_call *c, bool as_bool)
{
	const sl_index_ctx *ix;
	sl_cstore_rd *rd = begin(c, &ix);
	if (!rd)
		return -1;
	uint64_t i;
	int rc = -1;
	sl_err e = sl_cstore_index_of(rd, ix->kind, c->args[0].id, &i);
	if (e && !(as_bool && e == SL_ERR_NOT_FOUND)) {
		sl_rpc_fail_err(c, e, "couldn't get index");
	} else {
		sl_jw_obj(c->w);
		sl_jw_key(c->w, as_bool ? "isAccepted" : "index");
		if (as_bool)
			sl_jw_bool(c->w, e == SL_OK);
		else
			sl_jw_u64s(c->w, i);
		sl_jw_obj_end(c->w);
		rc = 0;
	}
	sl_cstore_rd_end(rd);
	return rc;
}

static int get_index(sl_rpc_call *c) { return id_position(c, false); }
static int is_accepted(sl_rpc_call *c) { return id_position(c, true); }

const sl_rpc_method sl_index_methods[] = {
	{ "GetLastAccepted", get_last_accepted, { { "encoding", SL_RPC_ENCODING } }, 1 },
	{ "GetContainerByIndex",
	  get_container_by_index,
	  { { "index", SL_RPC_UINT64 }, { "encoding", SL_RPC_ENCODING } },
	  2 },
	{ "GetContainerByID",
	  get_container_by_id,
	  { { "id", SL_RPC_ID }, { "encoding", SL_RPC_ENCODING } },
	  2 },
	{ "GetContainerRange",
	  get_container_range,
	  { { "startIndex", SL_RPC_UINT64 },
	    { "numToFetch", SL_RPC_UINT64 },
	    { "encoding", SL_RPC_ENCODING },
	    { "endIndex", SL_RPC_UINT64 } },
	  4 },
	{ "GetIndex", get_index, { { "id", SL_RPC_ID } }, 1 },
	{ "IsAccepted", is_accepted, { { "id", SL_RPC_ID } }, 1 },
};
const size_t sl_index_nmethods = SL_ARRAY_LEN(sl_index_methods);
