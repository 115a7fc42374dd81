/* info.c — the `info` service at /ext/info (node-rpc.md §7.1). */
#include "node/internal.h"

#include <stdio.h>

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

const sl_rpc_method sl_info_methods[] = {
	{ "GetNodeVersion", get_node_version, { { 0 } }, 0 },
	{ "GetNetworkID", get_network_id, { { 0 } }, 0 },
	{ "GetNetworkName", get_network_name, { { 0 } }, 0 },
	{ "GetBlockchainID", get_blockchain_id, { { "alias", SL_RPC_STRING } }, 1 },
	{ "GetNodeID", get_node_id, { { 0 } }, 0 },
	{ "IsBootstrapped", is_bootstrapped, { { "chain", SL_RPC_STRING } }, 1 },
};
const size_t sl_info_nmethods = SL_ARRAY_LEN(sl_info_methods);
