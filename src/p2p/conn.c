/*
 * conn.c — identities, and one p2p link's handshake and framed messages (conn.h).
 */
#include "p2p/conn.h"

#include "crypto/hash.h"

#include <arpa/inet.h>
#include <sys/random.h>
#include <time.h>

sl_err sl_p2p_identity_make(sl_p2p_identity *id, const uint8_t seed_in[32])
{
	uint8_t seed[32], h[32];
	memset(id, 0, sizeof *id);
	if (seed_in)
		memcpy(seed, seed_in, 32);
	else if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed)
		return SL_ERR_IO;
	sl_err err = sl_staking_key_from_seed(&id->key, seed);
	if (err)
		return err;
	uint8_t serial[8];
	sl_sha256(seed, 32, h);
	memcpy(serial, h, 8);
	if ((err = sl_staking_cert(&id->key, serial, "snowline", id->cert, &id->cert_len)))
		return err;
	sl_staking_node_id(id->cert, id->cert_len, id->node_id);
	/* The BLS key: sha256("bls" | seed | counter) until it is a valid scalar. */
	for (uint8_t ctr = 0;; ctr++) {
		uint8_t in[3 + 32 + 1];
		memcpy(in, "bls", 3);
		memcpy(in + 3, seed, 32);
		in[35] = ctr;
		sl_sha256(in, sizeof in, h);
		if (sl_bls_sk_decode(&id->bls, h) == SL_OK)
			break;
		if (ctr == 255)
			return SL_ERR_INTERNAL;
	}
	memset(seed, 0, sizeof seed);
	memset(h, 0, sizeof h);
	return SL_OK;
}

sl_err sl_p2p_self_ip(sl_p2p_self *self, const char *host, uint16_t port)
{
	struct in_addr v4;
	struct in6_addr v6;
	memset(self->ip16, 0, 16);
	if (inet_pton(AF_INET, host, &v4) == 1) {
		self->ip16[10] = self->ip16[11] = 0xff;
		memcpy(self->ip16 + 12, &v4, 4);
		self->ipv4 = true;
	} else if (inet_pton(AF_INET6, host, &v6) == 1) {
		memcpy(self->ip16, &v6, 16);
		self->ipv4 = false;
	} else {
		return SL_ERR_INVALID;
	}
	self->port = port;
	return SL_OK;
}

/* avalanchego's UnsignedIP.bytes(): ip (16) | port (u16 BE) | timestamp (u64 BE). */
static void unsigned_ip(const uint8_t ip16[16], uint16_t port, uint64_t ts, uint8_t out[26])
{
	memcpy(out, ip16, 16);
	out[16] = (uint8_t)(port >> 8);
	out[17] = (uint8_t)port;
	for (int i = 0; i < 8; i++)
		out[18 + i] = (uint8_t)(ts >> (56 - 8 * i));
}

static uint64_t unix_now(void) { return (uint64_t)time(NULL); }

void sl_p2p_conn_free(sl_p2p_conn *c)
{
	if (!c)
		return;
	sl_tls_free(c->tls);
	free(c);
}

sl_err sl_p2p_conn_send(sl_p2p_conn *c, const sl_p2p_msg *m, int64_t deadline_ms)
{
	uint8_t *b;
	size_t n;
	sl_err err = sl_p2p_msg_encode(m, &b, &n);
	if (err)
		return err;
	err = sl_tls_write(c->tls, b, n, deadline_ms);
	free(b);
	if (err)
		c->broken = true; /* part of a frame may have gone out */
	return err;
}

/*
 * One frame, decoded. Its first byte is awaited with sl_tls_wait (a timeout or a wake there
 * consumes nothing); from then on every failure breaks the link, a deadline inside the frame
 * included, as no state of a partial frame is kept.
 */
static sl_err recv_one(sl_p2p_conn *c, sl_p2p_msg *m, int64_t deadline_ms, int wake_fd, bool *woken)
{
	uint8_t hdr[SL_P2P_FRAME_HDR];
	uint32_t len;
	memset(m, 0, sizeof *m);
	sl_err err = sl_tls_wait(c->tls, wake_fd, deadline_ms, woken);
	if (err || *woken) {
		if (err && err != SL_ERR_TIMEOUT)
			c->broken = true;
		return err;
	}
	err = sl_tls_read(c->tls, hdr, sizeof hdr, deadline_ms);
	if (!err)
		err = sl_p2p_frame_len(hdr, &len);
	uint8_t *body = err ? NULL : malloc(len ? len : 1);
	if (!err && !body)
		err = SL_ERR_NOMEM;
	if (!err)
		err = sl_tls_read(c->tls, body, len, deadline_ms);
	if (!err)
		err = sl_p2p_msg_decode(body, len, m);
	free(body);
	if (err)
		c->broken = true;
	return err;
}

sl_err sl_p2p_conn_recv_wake(sl_p2p_conn *c, sl_p2p_msg *m, int64_t deadline_ms, int wake_fd, bool *woken)
{
	for (;;) {
		sl_err err = recv_one(c, m, deadline_ms, wake_fd, woken);
		if (err || *woken || m->op != SL_P2P_OP_PING)
			return err;
		sl_p2p_msg_clear(m);
		sl_p2p_msg pong = { .op = SL_P2P_OP_PONG };
		if ((err = sl_p2p_conn_send(c, &pong, deadline_ms)))
			return err;
	}
}

sl_err sl_p2p_conn_recv(sl_p2p_conn *c, sl_p2p_msg *m, int64_t deadline_ms)
{
	bool woken;
	return sl_p2p_conn_recv_wake(c, m, deadline_ms, -1, &woken);
}

/* The checks avalanchego's handleHandshake makes, on our side of the link. */
static sl_err check_handshake(const sl_p2p_self *self, sl_p2p_conn *c, const sl_p2p_handshake *h)
{
	if (h->network_id != self->network_id)
		return SL_ERR_CONFLICT;
	uint64_t now = unix_now();
	if ((h->my_time > now ? h->my_time - now : now - h->my_time) > SL_P2P_MAX_CLOCK_SKEW_S)
		return SL_ERR_RANGE;
	if (h->major > SL_P2P_CLIENT_MAJOR ||
	    (h->major < SL_P2P_MIN_MAJOR || (h->major == SL_P2P_MIN_MAJOR && h->minor < SL_P2P_MIN_MINOR)))
		return SL_ERR_UNSUPPORTED;
	if (h->n_tracked_subnets > SL_P2P_MAX_TRACKED_SUBNETS)
		return SL_ERR_TOO_LARGE;
	uint8_t ip16[16] = { 0 };
	if (h->ip_addr.n == 4) {
		ip16[10] = ip16[11] = 0xff;
		memcpy(ip16 + 12, h->ip_addr.p, 4);
	} else if (h->ip_addr.n == 16) {
		memcpy(ip16, h->ip_addr.p, 16);
	} else {
		return SL_ERR_INVALID;
	}
	if (h->ip_port == 0 || h->ip_port > 0xffff)
		return SL_ERR_INVALID;
	if (h->ip_signing_time > now + SL_P2P_MAX_CLOCK_SKEW_S)
		return SL_ERR_RANGE;
	uint8_t uip[26];
	unsigned_ip(ip16, (uint16_t)h->ip_port, h->ip_signing_time, uip);
	size_t cert_len;
	const uint8_t *cert = sl_tls_peer_cert(c->tls, &cert_len);
	sl_err err =
		sl_staking_verify(cert, cert_len, uip, sizeof uip, h->ip_node_id_sig.p, h->ip_node_id_sig.n);
	if (err)
		return SL_ERR_CHECKSUM;
	sl_bls_sig sig;
	if (h->ip_bls_sig.n != SL_BLS_SIG_LEN || sl_bls_sig_decode(&sig, h->ip_bls_sig.p))
		return SL_ERR_INVALID;
	c->peer_version.major = h->major;
	c->peer_version.minor = h->minor;
	c->peer_version.patch = h->patch;
	return SL_OK;
}

static sl_err send_handshake(const sl_p2p_self *self, sl_p2p_conn *c, int64_t deadline_ms)
{
	uint64_t now = unix_now();
	uint8_t uip[26], tls_sig[SL_STAKING_SIG_MAX], bls_sig[SL_BLS_SIG_LEN];
	size_t tls_sig_len;
	unsigned_ip(self->ip16, self->port, now, uip);
	sl_err err = sl_staking_sign(&self->id->key, uip, sizeof uip, tls_sig, &tls_sig_len);
	if (err)
		return err;
	/* avalanchego signs the IP with its BLS key's proof-of-possession scheme (SignProofOfPossession). */
	sl_bls_sig pop;
	sl_bls_sign_pop_dst(&self->id->bls, uip, sizeof uip, &pop);
	sl_bls_sig_encode(&pop, bls_sig);
	sl_p2p_msg m = { .op = SL_P2P_OP_HANDSHAKE };
	sl_p2p_handshake *h = &m.hs;
	h->network_id = self->network_id;
	h->my_time = now;
	h->ip_addr = self->ipv4 ? (sl_p2p_bytes){ self->ip16 + 12, 4 } : (sl_p2p_bytes){ self->ip16, 16 };
	h->ip_port = self->port;
	h->ip_signing_time = now;
	h->ip_node_id_sig = (sl_p2p_bytes){ tls_sig, tls_sig_len };
	h->ip_bls_sig = (sl_p2p_bytes){ bls_sig, sizeof bls_sig };
	h->client_name = SL_P2P_CLIENT_NAME;
	h->major = SL_P2P_CLIENT_MAJOR;
	h->minor = SL_P2P_CLIENT_MINOR;
	h->patch = SL_P2P_CLIENT_PATCH;
	return sl_p2p_conn_send(c, &m, deadline_ms);
}

sl_err sl_p2p_conn_open(const sl_p2p_self *self, sl_tls *tls, int64_t deadline_ms, sl_p2p_conn **out)
{
	*out = NULL;
	sl_p2p_conn *c = calloc(1, sizeof *c);
	if (!c)
		return SL_ERR_NOMEM;
	c->tls = tls;
	size_t cert_len;
	const uint8_t *cert = sl_tls_peer_cert(tls, &cert_len);
	sl_staking_node_id(cert, cert_len, c->peer_node_id);
	sl_err err = send_handshake(self, c, deadline_ms);
	bool got_hs = false, got_pl = false;
	while (!err && !(got_hs && got_pl)) {
		sl_p2p_msg m;
		err = sl_p2p_conn_recv(c, &m, deadline_ms);
		if (err) {
			sl_p2p_msg_clear(&m);
			break;
		}
		if (m.op == SL_P2P_OP_HANDSHAKE) {
			if (got_hs) {
				err = SL_ERR_INVALID; /* a second handshake: avalanchego closes too */
			} else if (!(err = check_handshake(self, c, &m.hs))) {
				got_hs = true;
				sl_p2p_msg pl = { .op = SL_P2P_OP_PEER_LIST };
				err = sl_p2p_conn_send(c, &pl, deadline_ms);
			}
		} else if (m.op == SL_P2P_OP_PEER_LIST) {
			got_pl = got_hs; /* a PeerList before the Handshake is ignored, as avalanchego does */
		}
		sl_p2p_msg_clear(&m);
	}
	if (err) {
		free(c); /* the caller still owns tls */
		return err;
	}
	*out = c;
	return SL_OK;
}
