/*
 * fuzz_sigagg_peers.c — hostile answers of the --peers-from node into the
 * signature aggregator's table (api/sigagg_peers.h): info.peers, and
 * info.getNodeID / info.getNodeIP for the node itself.
 *
 * Input: the info.peers answer; the same bytes split at the first NUL are the
 * getNodeID and getNodeIP answers. Properties:
 *  - parsing ends; a refusal is SL_ERR_INVALID or SL_ERR_TOO_LARGE with a
 *    reason;
 *  - an accepted table is sorted by node id with no node twice, and every
 *    entry has an IP literal and a port other than 0;
 *  - an accepted node itself has an address that is an IP literal, neither
 *    unspecified nor port 0, and adding it keeps the table sorted and unique.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "api/sigagg_peers.h"
#include "fuzz.h"

static void check_entry(const sl_sigagg_peer *p)
{
	uint8_t a[16];
	bool v6 = strchr(p->host, ':') != NULL;
	if (!p->port || strnlen(p->host, sizeof p->host) >= sizeof p->host ||
	    inet_pton(v6 ? AF_INET6 : AF_INET, p->host, a) != 1)
		abort();
}

static void check_table(const sl_sigagg_peer *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		check_entry(&t[i]);
		if (i && memcmp(t[i - 1].node, t[i].node, 20) >= 0)
			abort();
		if (sl_sigagg_peers_find(t, n, t[i].node) != &t[i])
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_sigagg_peer *t = NULL;
	size_t n = 0;
	char why[256] = "";
	sl_err e = sl_sigagg_peers_parse(data, size, &t, &n, why);
	if (e == SL_ERR_NOMEM)
		return 0;
	if (e) {
		if ((e != SL_ERR_INVALID && e != SL_ERR_TOO_LARGE) || !why[0])
			abort();
		t = NULL;
		n = 0;
	}
	check_table(t, n);
	const uint8_t *nul = memchr(data, 0, size);
	size_t idn = nul ? (size_t)(nul - data) : size;
	const uint8_t *ip = nul ? nul + 1 : data;
	size_t ipn = nul ? size - idn - 1 : size;
	sl_sigagg_peer self;
	if (sl_sigagg_self_parse(data, idn, ip, ipn, &self)) {
		check_entry(&self);
		uint8_t a[16] = { 0 }, zero[16] = { 0 };
		bool v6 = strchr(self.host, ':') != NULL;
		if (inet_pton(v6 ? AF_INET6 : AF_INET, self.host, a) != 1 || !memcmp(a, zero, v6 ? 16 : 4))
			abort();
		size_t before = n;
		bool listed = sl_sigagg_peers_find(t, n, self.node) != NULL;
		if (sl_sigagg_peers_add(&t, &n, &self) == SL_OK) {
			if (n != before + !listed || !sl_sigagg_peers_find(t, n, self.node))
				abort();
			check_table(t, n);
		}
	}
	free(t);
	return 0;
}
