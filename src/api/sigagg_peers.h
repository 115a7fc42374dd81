/*
 * sigagg_peers.h — where the validators are: node id → IP address and port,
 * from info.peers of a node the operator trusts (`snowline api --peers-from
 * URL`), and the signature source (sigagg.h) that asks them over avalanchego's
 * p2p protocol (src/p2p) with those addresses.
 *
 * info.peers answers {"result": {"peers": [{"nodeID", "ip", "publicIP", …}]}}
 * (avalanchego's network/peer.Info): publicIP is the address the peer signed
 * in its handshake — where it listens; ip is where the node's connection to
 * it comes from (for a connection the peer made, an ephemeral port). A peer's
 * publicIP is taken when it has one, else its ip. A node never lists itself,
 * so the trusted node's own id and address (info.getNodeID, info.getNodeIP)
 * join the table when it answers both: a node the operator trusts that is
 * itself a validator is asked too (a one-node network has no other).
 *
 * The table is read again every refresh interval on a thread of its own, so
 * that a validator set's changes are followed; a failed read keeps the last
 * table (logged).
 */
#ifndef SL_API_SIGAGG_PEERS_H
#define SL_API_SIGAGG_PEERS_H

#include "api/sigagg.h"

#define SL_SIGAGG_PEERS_MAX 100000 /* peers one info.peers answer may list */
#define SL_SIGAGG_PEERS_BODY_MAX (64u << 20)
#define SL_SIGAGG_PEERS_REFRESH_S 30 /* the table is read again this often, by default */

typedef struct sl_sigagg_peer {
	uint8_t node[20];
	char host[64]; /* an IPv4 or IPv6 literal, no brackets */
	uint16_t port;
} sl_sigagg_peer;

/*
 * Parse an info.peers answer into a malloc'd table sorted by node id (peers without a usable
 * address are left out; a node listed twice keeps one entry). SL_ERR_INVALID with why for an
 * answer that is not one.
 */
SL_MUST_USE sl_err sl_sigagg_peers_parse(const uint8_t *p, size_t n, sl_sigagg_peer **out, size_t *nout,
					 char why[256]);
/*
 * The trusted node itself, which its own info.peers never lists: info.getNodeID's answer
 * ({"result": {"nodeID": "NodeID-…", …}}) and info.getNodeIP's ({"result": {"ip": "1.2.3.4:9651"}},
 * the address it signs in its handshakes) as one peer. False when either answer lacks its field
 * (a node without info.getNodeIP answers an error) or the address is unspecified (0.0.0.0, ::).
 */
bool sl_sigagg_self_parse(const uint8_t *id, size_t idn, const uint8_t *ip, size_t ipn, sl_sigagg_peer *out);
/* Add p to a sorted table (realloc'd) unless its node is in it already: SL_OK or SL_ERR_NOMEM. */
SL_MUST_USE sl_err sl_sigagg_peers_add(sl_sigagg_peer **t, size_t *n, const sl_sigagg_peer *p);
/* "1.2.3.4:9651" or "[::1]:9651" into host and port; false when it is neither (or port 0). */
bool sl_sigagg_addr_parse(const char *s, size_t n, char host[64], uint16_t *port);
/* The peer of node in a sorted table, or NULL. */
const sl_sigagg_peer *sl_sigagg_peers_find(const sl_sigagg_peer *t, size_t n, const uint8_t node[20]);

/* ---- the p2p source (sigagg_p2p.c) ---- */

typedef struct sl_sigagg_p2p sl_sigagg_p2p;

typedef struct sl_sigagg_p2p_config {
	const char *peers_url;	     /* a node's URL (/ext/info is added when it has no path) */
	const sl_sigagg_peer *peers; /* without peers_url: a fixed table (copied), never refreshed */
	size_t npeers;
	uint32_t network_id;
	unsigned refresh_s; /* 0: SL_SIGAGG_PEERS_REFRESH_S */
} sl_sigagg_p2p_config;

/* Read the peers once (a failure is an error here) and start the refresher, or take the fixed table;
 * NULL with err. */
sl_sigagg_p2p *sl_sigagg_p2p_new(const sl_sigagg_p2p_config *cfg, char err[512]);
const sl_sigagg_source *sl_sigagg_p2p_source(sl_sigagg_p2p *s);
void sl_sigagg_p2p_free(sl_sigagg_p2p *s);

#endif
