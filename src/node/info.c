/*
 * info.c — the `info` service at /ext/info (node-rpc.md §7.1).
 *
 *   info.peers {"numPeers","peers"}: the peers the source says this node has
 *       (the devnet: its connected validators, simulated; docs/devnet.md), each
 *       as avalanchego's peer.Info plus `benched`; `nodeIDs` picks those peers,
 *       in the order given (a node id that is no peer is left out, one given
 *       twice is listed twice); none given: all. Kept in the store's "state"
 *       sub-database under "pe", as the JSON array (sl_feed_peers).
 */
#include "node/internal.h"

#include <stdio.h>

#include "crypto/addr.h"
#include "util/jsonv.h"
#include "util/version.h"

static int get_node_version(sl_rpc_call *c)
{
	sl_jw *w = c->w;
	sl_jw_obj(w);
	sl_jw_key(w, "version");
	sl_jw_str(w, "snowline/" SL_VERSION);
	sl_jw_key(w, "databaseVersion");
	sl_jw_str(w, "v1.0.0");
	sl_jw_key(w, "rpcProtocolVersion");
	sl_jw_str(w, "45");
	sl_jw_key(w, "gitCommit");
	sl_jw_str(w, sl_git_commit());
	sl_jw_key(w, "vmVersions");
	sl_jw_obj(w);
	sl_jw_key(w, "avm");
	sl_jw_str(w, "snowline/" SL_VERSION);
	sl_jw_key(w, "evm");
	sl_jw_str(w, "snowline/" SL_VERSION);
	sl_jw_key(w, "platform");
	sl_jw_str(w, "snowline/" SL_VERSION);
	sl_jw_obj_end(w);
	sl_jw_obj_end(w);
	return 0;
}

static int get_network_id(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	sl_jw_obj(c->w);
	sl_jw_key(c->w, "networkID");
	sl_jw_u64s(c->w, n->cfg.network_id);
	sl_jw_obj_end(c->w);
	return 0;
}

static int get_network_name(sl_rpc_call *c)
{
	static const struct {
		uint32_t id;
		const char *name;
	} names[] = { { 1, "mainnet" }, { 2, "cascade" },  { 3, "denali" },   { 4, "everest" },
		      { 5, "fuji" },	{ 10, "testing" }, { 12345, "local" } };
	sl_node *n = c->ctx;
	char buf[32];
	const char *name = NULL;
	for (size_t i = 0; i < SL_ARRAY_LEN(names); i++)
		if (names[i].id == n->cfg.network_id)
			name = names[i].name;
	if (!name) {
		snprintf(buf, sizeof buf, "network-%u", n->cfg.network_id);
		name = buf;
	}
	sl_jw_obj(c->w);
	sl_jw_key(c->w, "networkName");
	sl_jw_str(c->w, name);
	sl_jw_obj_end(c->w);
	return 0;
}

static int get_blockchain_id(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	sl_mutex_lock(&n->chains_lock);
	int ci = sl_chains_lookup_locked(n, c->args[0].set ? c->args[0].s : "");
	char id[64] = "";
	if (ci >= 0)
		memcpy(id, n->chains[ci].id_str, sizeof id);
	sl_mutex_unlock(&n->chains_lock);
	if (ci < 0)
		return sl_rpc_fail(c, "there is no chain with alias/ID '%s'",
				   c->args[0].set ? c->args[0].s : "");
	sl_jw_obj(c->w);
	sl_jw_key(c->w, "blockchainID");
	sl_jw_str(c->w, id);
	sl_jw_obj_end(c->w);
	return 0;
}

static int get_node_id(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	sl_jw_obj(c->w);
	sl_jw_key(c->w, "nodeID");
	sl_jw_str(c->w, n->node_id_str);
	sl_jw_obj_end(c->w);
	return 0;
}

static int is_bootstrapped(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	if (!c->args[0].set || !c->args[0].slen)
		return sl_rpc_fail(c, "argument 'chain' not given");
	sl_mutex_lock(&n->chains_lock);
	int ci = sl_chains_lookup_locked(n, c->args[0].s);
	sl_mutex_unlock(&n->chains_lock);
	if (ci < 0)
		return sl_rpc_fail(c, "there is no chain with alias/ID '%s'", c->args[0].s);
	sl_jw_obj(c->w);
	sl_jw_key(c->w, "isBootstrapped");
	sl_jw_bool(c->w, atomic_load(&n->source_caught_up));
	sl_jw_obj_end(c->w);
	return 0;
}

static const uint8_t peers_key[] = { 'p', 'e' };

typedef struct peer_ref {
	uint8_t node[20];
	sl_span json;
} peer_ref;

static int cmp_peer_ref(const void *a, const void *b)
{
	return memcmp(((const peer_ref *)a)->node, ((const peer_ref *)b)->node, 20);
}

/* A peer's nodeID, from its JSON object; false when it has none. */
static bool peer_node(sl_span peer, uint8_t node[20])
{
	sl_jiter it;
	sl_span k, v;
	if (sl_json_type(peer) != SL_JT_OBJECT)
		return false;
	sl_json_iter_init(&it, peer);
	while (sl_json_obj_next(&it, &k, &v))
		if (k.len == 8 && !memcmp(k.p, "\"nodeID\"", 8))
			return sl_json_type(v) == SL_JT_STRING &&
			       !sl_nodeid_parse((const char *)v.p + 1, v.len - 2, node);
	return false;
}

static int peers(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	const sl_rpc_val *want = &c->args[0];
	sl_cstore_rd *rd;
	if (sl_cstore_rd_begin(n->store, &rd))
		return sl_rpc_fail_err(c, SL_ERR_STORE, "cannot begin a read transaction");
	sl_span v = { 0 };
	sl_err e = sl_cstore_state_get(rd, peers_key, sizeof peers_key, &v);
	if (e && e != SL_ERR_NOT_FOUND) {
		sl_cstore_rd_end(rd);
		return sl_rpc_fail_err(c, e, "couldn't get the peers");
	}
	if (e)
		v = (sl_span){ (const uint8_t *)"[]", 2 }; /* a source that says nothing of peers: none */
	sl_jiter it;
	sl_span p;
	size_t np = 0, nout = 0;
	sl_json_iter_init(&it, v);
	while (sl_json_arr_next(&it, &p))
		np++;
	peer_ref *refs = sl_arena_array(c->arena, np ? np : 1, sizeof *refs);
	if (!refs) {
		sl_cstore_rd_end(rd);
		return sl_rpc_fail_err(c, SL_ERR_NOMEM, "couldn't list the peers");
	}
	size_t nr = 0;
	sl_json_iter_init(&it, v);
	while (sl_json_arr_next(&it, &p))
		if (peer_node(p, refs[nr].node))
			refs[nr++].json = p;
	qsort(refs, nr, sizeof *refs, cmp_peer_ref);
	bool all = !want->set || !want->nstrs;
	if (!all)
		for (size_t i = 0; i < want->nstrs; i++) {
			peer_ref key;
			memcpy(key.node, want->nodes[i], 20);
			nout += bsearch(&key, refs, nr, sizeof *refs, cmp_peer_ref) != NULL;
		}
	sl_jw_obj(c->w);
	sl_jw_key(c->w, "numPeers");
	sl_jw_u64s(c->w, all ? np : nout);
	sl_jw_key(c->w, "peers");
	if (all) {
		sl_jw_raw(c->w, (const char *)v.p, v.len);
	} else {
		sl_jw_arr(c->w);
		for (size_t i = 0; i < want->nstrs; i++) {
			peer_ref key;
			memcpy(key.node, want->nodes[i], 20);
			const peer_ref *r = bsearch(&key, refs, nr, sizeof *refs, cmp_peer_ref);
			if (r)
				sl_jw_raw(c->w, (const char *)r->json.p, r->json.len);
		}
		sl_jw_arr_end(c->w);
	}
	sl_jw_obj_end(c->w);
	sl_cstore_rd_end(rd);
	return 0;
}

sl_err sl_feed_peers(sl_feed *f, const uint8_t *json, size_t len)
{
	if (len > SL_CSTORE_MAX_STATE)
		return SL_ERR_TOO_LARGE;
	return sl_cstore_state_put(sl_feed_node(f)->store, peers_key, sizeof peers_key, json, len);
}

const sl_rpc_method sl_info_methods[] = {
	{ "GetNodeVersion", get_node_version, { { 0 } }, 0 },
	{ "GetNetworkID", get_network_id, { { 0 } }, 0 },
	{ "GetNetworkName", get_network_name, { { 0 } }, 0 },
	{ "GetBlockchainID", get_blockchain_id, { { "alias", SL_RPC_STRING } }, 1 },
	{ "GetNodeID", get_node_id, { { 0 } }, 0 },
	{ "IsBootstrapped", is_bootstrapped, { { "chain", SL_RPC_STRING } }, 1 },
	{ "Peers", peers, { { "nodeIDs", SL_RPC_NODEIDS } }, 1 },
};
const size_t sl_info_nmethods = SL_ARRAY_LEN(sl_info_methods);
