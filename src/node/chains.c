/*
 * chains.c — the primary network's three chains, their ids and aliases.
 *
 * Alias order follows avalanchego (admin.getChainAliases): the genesis
 * aliases, then the id string, then aliases added by admin.aliasChain in
 * call order. Guarded by node->chains_lock.
 */
#include "node/internal.h"

#include <stdio.h>

#include "codec/network.h"
#include "crypto/cb58.h"

static const char *const genesis_aliases[SL_CHAIN__COUNT][2] = {
	[SL_CHAIN_P] = { "P", "platform" },
	[SL_CHAIN_X] = { "X", "avm" },
	[SL_CHAIN_C] = { "C", "evm" },
};

static bool add_alias(sl_chain *c, const char *a)
{
	if (c->naliases >= SL_MAX_CHAIN_ALIASES)
		return false;
	char *d = strdup(a);
	if (!d)
		return false;
	c->aliases[c->naliases++] = d;
	return true;
}

sl_err sl_chains_init(sl_node *n, char err[256])
{
	const char *ids[SL_CHAIN__COUNT] = { SL_P_CHAIN_ID, NULL, NULL };
	const sl_network *net = sl_network_by_id(n->cfg.network_id);
	if (net) {
		ids[SL_CHAIN_X] = net->x_chain;
		ids[SL_CHAIN_C] = net->c_chain;
	}
	/* The AVAX asset: the network's, unless given (a devnet's own). */
	const char *avax = n->cfg.avax_asset_id ? n->cfg.avax_asset_id : net ? net->avax : NULL;
	if (avax) {
		const char *msg;
		char msgbuf[96];
		if (sl_cb58_decode_id(avax, strlen(avax), n->avax, &msg, msgbuf)) {
			snprintf(err, 256, "AVAX asset id %s: %s", avax, msg);
			return SL_ERR_INVALID;
		}
		n->has_avax = true;
	}
	for (int c = 0; c < SL_CHAIN__COUNT; c++) {
		if (n->cfg.chain_id[c])
			ids[c] = n->cfg.chain_id[c];
		if (!ids[c]) {
			snprintf(err, 256, "network %u has no known %s-chain id: give --%s-chain-id",
				 n->cfg.network_id, genesis_aliases[c][0], c == SL_CHAIN_X ? "x" : "c");
			return SL_ERR_INVALID;
		}
		const char *msg;
		char msgbuf[96];
		if (sl_cb58_decode_id(ids[c], strlen(ids[c]), n->chains[c].id, &msg, msgbuf)) {
			snprintf(err, 256, "%s-chain id %s: %s", genesis_aliases[c][0], ids[c], msg);
			return SL_ERR_INVALID;
		}
		sl_cb58_id(n->chains[c].id_str, n->chains[c].id);
		if (!add_alias(&n->chains[c], genesis_aliases[c][0]) ||
		    !add_alias(&n->chains[c], genesis_aliases[c][1]) ||
		    !add_alias(&n->chains[c], n->chains[c].id_str)) {
			snprintf(err, 256, "out of memory");
			return SL_ERR_NOMEM;
		}
	}
	return SL_OK;
}

void sl_chains_release(sl_node *n)
{
	for (int c = 0; c < SL_CHAIN__COUNT; c++) {
		for (size_t i = 0; i < n->chains[c].naliases; i++)
			free(n->chains[c].aliases[i]);
		n->chains[c].naliases = 0;
	}
}

int sl_chains_lookup_locked(sl_node *n, const char *alias)
{
	for (int c = 0; c < SL_CHAIN__COUNT; c++)
		for (size_t i = 0; i < n->chains[c].naliases; i++)
			if (!strcmp(n->chains[c].aliases[i], alias))
				return c;
	return -1;
}
