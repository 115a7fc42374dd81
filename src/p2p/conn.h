/*
 * conn.h — one p2p link (internal to src/p2p): TLS already up, then the
 * Handshake/PeerList exchange both sides make, then framed messages.
 */
#ifndef SL_P2P_CONN_H
#define SL_P2P_CONN_H

#include "crypto/tls.h"
#include "p2p/msg.h"
#include "p2p/p2p.h"

/* The client version we announce: one avalanchego at its HEAD we read treats as current. */
#define SL_P2P_CLIENT_NAME "snowline"
#define SL_P2P_CLIENT_MAJOR 1
#define SL_P2P_CLIENT_MINOR 14
#define SL_P2P_CLIENT_PATCH 2
/* The oldest peer version avalanchego stays connected to before its next upgrade (version/constants.go). */
#define SL_P2P_MIN_MAJOR 1
#define SL_P2P_MIN_MINOR 13
#define SL_P2P_MAX_CLOCK_SKEW_S 60    /* constants.DefaultNetworkMaxClockDifference */
#define SL_P2P_MAX_TRACKED_SUBNETS 16 /* avalanchego's maxNumTrackedSubnets */

typedef struct sl_p2p_conn {
	sl_tls *tls;
	uint8_t peer_node_id[20];
	struct {
		uint32_t major, minor, patch;
	} peer_version;
	/*
	 * Set by a send or receive that failed in a way that leaves the stream unusable: the peer
	 * closed it, sent what does not decode, a write failed, or a deadline passed in the middle
	 * of a frame. A receive that timed out or was woken before a frame's first byte leaves it
	 * false: nothing was consumed, and the link may be used again.
	 */
	bool broken;
} sl_p2p_conn;

/* What we announce. */
typedef struct sl_p2p_self {
	const sl_p2p_identity *id;
	uint32_t network_id;
	uint8_t ip16[16]; /* the claimed IP, IPv4 as ::ffff:a.b.c.d */
	bool ipv4;
	uint16_t port;
} sl_p2p_self;

/* Parse an IPv4/IPv6 literal into self->ip16. */
SL_MUST_USE sl_err sl_p2p_self_ip(sl_p2p_self *self, const char *host, uint16_t port);

/*
 * Exchange Handshakes and PeerLists over tls (owned by the link on success;
 * still the caller's on failure). Checks the peer's handshake as avalanchego does: network id,
 * clock skew, version, the IP's staking-key signature, a parsable BLS
 * signature, tracked-subnet count.
 */
SL_MUST_USE sl_err sl_p2p_conn_open(const sl_p2p_self *self, sl_tls *tls, int64_t deadline_ms,
				    sl_p2p_conn **out);
void sl_p2p_conn_free(sl_p2p_conn *c);

SL_MUST_USE sl_err sl_p2p_conn_send(sl_p2p_conn *c, const sl_p2p_msg *m, int64_t deadline_ms);
/* Read one message; Pings are answered (a Pong) here and not returned. Clear m when done. */
SL_MUST_USE sl_err sl_p2p_conn_recv(sl_p2p_conn *c, sl_p2p_msg *m, int64_t deadline_ms);
/*
 * The same, but while waiting for a frame's first byte also watch wake_fd (-1: none; see
 * sl_tls_wait): when it becomes readable first, SL_OK with *woken true and m empty (cleared).
 * Once a frame has begun, the rest of it must come by the deadline (a frame cut short there
 * breaks the link: c->broken).
 */
SL_MUST_USE sl_err sl_p2p_conn_recv_wake(sl_p2p_conn *c, sl_p2p_msg *m, int64_t deadline_ms, int wake_fd,
					 bool *woken);

#endif
