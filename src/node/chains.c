/*
 * chains.c — the primary network's three chains, their ids and aliases.
 *
 * Alias order follows avalanchego (admin.getChainAliases): the genesis
 * aliases, then the id string, then aliases added by admin.aliasChain in
 * call order. Guarded by node->chains_lock.
 */
#include "node/internal.h"

#include <stdio.h>

#include "crypto/cb58.h"

/* Chain ids of the public networks (P is the zero id everywhere). */
static const struct {
	uint32_t network_id;
	const char *x, *c;
} known[] = {
	{ 1, "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
	  "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5" },
	{ 5, "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
	  "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp" },
	{ 12345, "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed",
	  "2CA6j5zYzasynPsFeNoqWkmTCt3VScMvXUZHbfDJ8k3oGzAPtU" },
};

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
	const char *ids[SL_CHAIN__COUNT] = { "11111111111111111111111111111111LpoYY", NULL, NULL };
	for (size_t i = 0; i < SL_ARRAY_LEN(known); i++)
		if (known[i].network_id == n->cfg.network_id) {
			ids[SL_CHAIN_X] = known[i].x;
			ids[SL_CHAIN_C] = known[i].c;
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
