/*
 * peers.c — the peers a node of the devnet has: what avalanchego's info.peers
 * answers (its `peers`, a JSON array; api/info/service.go, network/peer/info.go),
 * simulated like the uptimes getCurrentValidators reports (pchain.c observed()).
 *
 * The peers are the current primary validators that are connected (the same
 * `connected` getCurrentValidators says), in its order, then the nodes that
 * validate a subnet or an L1 but not the primary network (the L1 validators
 * not removed: the devnet simulates no downtime for them), by node index, as a
 * real node's info.peers lists every node connected to it. Each is a function
 * of its node index and its validation tx id (for the latter, its node id), so
 * it draws from no stream and changes no history:
 *   ip, publicIP    127.0.0.1:(9651 + 2 × node index), avalanchego's local-network
 *                   staking ports (node i: HTTP 9650 + 2i, p2p 9651 + 2i), taken
 *                   modulo 27,943 nodes so the port stays below 65,536; while the
 *                   devnet's p2p listeners run (p2p.c), the port each node listens on
 *   version         "avalanchego/1.14.2" (6 in 10), "avalanchego/1.14.1" (3 in 10)
 *                   or "avalanchego/1.14.0" (1 in 10)
 *   upgradeTime     the devnet's last upgrade (Durango, which also opens Etna here)
 *   lastSent,       within a few seconds before the devnet's clock (RFC 3339, UTC,
 *   lastReceived    whole seconds, as Go writes time.Unix(s, 0))
 *   observedUptime  what the peer sees of this node's uptime: 97 to 100 (json.Uint32)
 *   trackedSubnets  the primary network and every subnet and L1 the node validates
 *                   now, sorted as avalanchego's set.Set writes them (by their JSON
 *                   bytes); at most 16 besides the primary network, as a handshake
 *   supportedACPs,  empty, as a node given no --acp-support/--acp-object
 *   objectedACPs
 *   benched         the aliases of the chains on which the node is benched, in the
 *                   order P, X, C: a validator drawn with poor uptime on each with
 *                   one chance in two (on C when none came up); the others, one in
 *                   sixteen, on one chain; a node that does not validate the primary
 *                   network, on none
 */
#include "devnet/world.h"

#include <stdio.h>
#include <time.h>

#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"

#define PEER_MAX_TRACKED 16

static void jw_time(sl_jw *j, uint64_t unix_s)
{
	time_t t = (time_t)unix_s;
	struct tm tm;
	char v[40];
	gmtime_r(&t, &tm);
	size_t n = strftime(v, sizeof v, "%Y-%m-%dT%H:%M:%SZ", &tm);
	sl_jw_strn(j, v, n);
}

static int cmp_nodesub(const void *a, const void *b)
{
	const dn_nodesub *x = a, *y = b;
	return x->node != y->node ? (x->node < y->node ? -1 : 1) : memcmp(x->subnet, y->subnet, 32);
}

typedef struct idtext {
	char s[64];
} idtext;

static int cmp_idtext(const void *a, const void *b)
{
	return strcmp(((const idtext *)a)->s, ((const idtext *)b)->s);
}

static void id_text(const uint8_t id[32], idtext *out)
{
	sl_buf b = { .p = (uint8_t *)out->s, .cap = sizeof out->s, .max = sizeof out->s - 1 };
	sl_cb58_write(&b, id, 32);
	out->s[b.len] = 0;
}

/* trackedSubnets: the primary network and the node's subnets (subs[lo..hi)), sorted by text */
static void jw_tracked(sl_jw *j, const dn_nodesub *subs, size_t lo, size_t hi)
{
	static const uint8_t primary[32];
	idtext t[PEER_MAX_TRACKED + 1];
	size_t n = 0;
	id_text(primary, &t[n++]);
	for (size_t i = lo; i < hi && n < PEER_MAX_TRACKED + 1; i++)
		if (i == lo || memcmp(subs[i].subnet, subs[i - 1].subnet, 32))
			id_text(subs[i].subnet, &t[n++]);
	qsort(t, n, sizeof *t, cmp_idtext);
	sl_jw_arr(j);
	for (size_t i = 0; i < n; i++)
		sl_jw_str(j, t[i].s);
	sl_jw_arr_end(j);
}

static void jw_nodeid(sl_jw *j, const uint8_t id[20])
{
	char mem[64];
	sl_buf b = { .p = (uint8_t *)mem, .cap = sizeof mem, .max = sizeof mem - 1 };
	sl_nodeid_write(&b, id);
	sl_jw_strn(j, mem, b.len);
}

/* One peer: node, its hash-drawn fields (h), whether it validates the primary network (bad_uptime:
 * drawn with poor uptime there), its subnets subs[lo..hi). */
static void jw_peer(const dn_world *w, sl_jw *j, uint32_t node, const uint8_t h[32], bool primary,
		    bool bad_uptime, const dn_nodesub *subs, size_t lo, size_t hi)
{
	char ip[96];
	if (w->p2p_ports && w->p2p_ports[node])
		snprintf(ip, sizeof ip, strchr(w->p2p_host, ':') ? "[%s]:%u" : "%s:%u", w->p2p_host,
			 w->p2p_ports[node]);
	else
		snprintf(ip, sizeof ip, "127.0.0.1:%u", 9651u + 2u * (node % 27943u));
	sl_jw_obj(j);
	sl_jw_key(j, "ip");
	sl_jw_str(j, ip);
	sl_jw_key(j, "publicIP");
	sl_jw_str(j, ip);
	sl_jw_key(j, "nodeID");
	jw_nodeid(j, w->nodes[node].node_id);
	sl_jw_key(j, "version");
	sl_jw_str(j, h[0] % 10 < 6   ? "avalanchego/1.14.2"
		     : h[0] % 10 < 9 ? "avalanchego/1.14.1"
				     : "avalanchego/1.14.0");
	sl_jw_key(j, "upgradeTime");
	sl_jw_u64(j, w->params.durango_time);
	sl_jw_key(j, "lastSent");
	jw_time(j, w->now - h[1] % 4);
	sl_jw_key(j, "lastReceived");
	jw_time(j, w->now - h[2] % 6);
	sl_jw_key(j, "observedUptime");
	sl_jw_u64s(j, 97 + h[3] % 4);
	sl_jw_key(j, "trackedSubnets");
	jw_tracked(j, subs, lo, hi);
	sl_jw_key(j, "supportedACPs");
	sl_jw_arr(j);
	sl_jw_arr_end(j);
	sl_jw_key(j, "objectedACPs");
	sl_jw_arr(j);
	sl_jw_arr_end(j);
	sl_jw_key(j, "benched");
	unsigned bits = !primary	 ? 0
			: bad_uptime	 ? (h[4] & 7u ? h[4] & 7u : 4u)
			: h[5] % 16 == 0 ? 1u << (h[6] % 3)
					 : 0;
	sl_jw_arr(j);
	static const char *const alias[3] = { "P", "X", "C" };
	for (int c = 0; c < 3; c++)
		if (bits & (1u << c))
			sl_jw_str(j, alias[c]);
	sl_jw_arr_end(j);
	sl_jw_obj_end(j);
}

void dn_peers(const dn_world *w, sl_jw *j)
{
	size_t nv = dn_p_current_primary(w, NULL, 0), ns = dn_p_node_subnets(w, NULL, 0);
	dn_pval *v = calloc(nv ? nv : 1, sizeof *v);
	dn_nodesub *subs = calloc(ns ? ns : 1, sizeof *subs);
	bool *primary = calloc(w->nnodes ? w->nnodes : 1, sizeof *primary);
	sl_jw_arr(j);
	if (!v || !subs || !primary) {
		j->out->err = SL_ERR_NOMEM; /* the writer's buffer says it failed */
		goto done;
	}
	nv = SL_MIN(nv, dn_p_current_primary(w, v, nv));
	ns = SL_MIN(ns, dn_p_node_subnets(w, subs, ns));
	qsort(subs, ns, sizeof *subs, cmp_nodesub);
	/* the connected primary validators, in getCurrentValidators' order */
	for (size_t i = 0; i < nv; i++) {
		primary[v[i].node] = true;
		if (!v[i].connected)
			continue;
		uint8_t h[32], in[36];
		memcpy(in, v[i].tx_id, 32);
		memcpy(in + 32, "peer", 4);
		sl_sha256(in, sizeof in, h);
		size_t lo = 0, hi = ns;
		while (lo < hi) { /* the first of the node's subnets */
			size_t mid = lo + (hi - lo) / 2;
			if (subs[mid].node < v[i].node)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (hi = lo; hi < ns && subs[hi].node == v[i].node; hi++)
			;
		jw_peer(w, j, v[i].node, h, true, v[i].bad_uptime, subs, lo, hi);
	}
	/* then the nodes that validate only subnets or L1s, by node index */
	for (size_t lo = 0, hi; lo < ns; lo = hi) {
		for (hi = lo; hi < ns && subs[hi].node == subs[lo].node; hi++)
			;
		uint32_t node = subs[lo].node;
		if (primary[node])
			continue;
		uint8_t h[32], in[24];
		memcpy(in, w->nodes[node].node_id, 20);
		memcpy(in + 20, "peer", 4);
		sl_sha256(in, sizeof in, h);
		jw_peer(w, j, node, h, false, false, subs, lo, hi);
	}
done:
	sl_jw_arr_end(j);
	free(v);
	free(subs);
	free(primary);
}
