/*
 * msg.c — p2p messages to and from protobuf (msg.h), over protoc-c's code
 * for wire.proto, and zstd for compressed_zstd.
 */
#include "p2p/msg.h"

#include "p2p/p2p.h"
#include "p2p/wire.pb-c.h"

#include <protobuf-c/protobuf-c.h>
#include <zstd.h>

sl_err sl_p2p_frame_len(const uint8_t hdr[SL_P2P_FRAME_HDR], uint32_t *len)
{
	*len = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	return *len > SL_P2P_MSG_MAX ? SL_ERR_TOO_LARGE : SL_OK;
}

size_t sl_p2p_uvarint(const uint8_t *b, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	unsigned s = 0;
	*v = 0;
	for (size_t i = 0; i < n && i < 10; i++) {
		uint8_t c = b[i];
		if (c < 0x80) {
			if (i == 9 && c > 1)
				return 0; /* overflow, as Go reports it */
			*v = x | (uint64_t)c << s;
			return i + 1;
		}
		x |= (uint64_t)(c & 0x7f) << s;
		s += 7;
	}
	return 0;
}

static sl_p2p_bytes bytes_of(ProtobufCBinaryData d) { return (sl_p2p_bytes){ d.data, d.len }; }
static ProtobufCBinaryData pb_bytes(sl_p2p_bytes b) { return (ProtobufCBinaryData){ b.n, (uint8_t *)b.p }; }

void sl_p2p_msg_clear(sl_p2p_msg *m)
{
	if (m->pb_)
		slp2p__message__free_unpacked(m->pb_, NULL);
	free(m->inflated_);
	memset(m, 0, sizeof *m);
}

/* Inflate a zstd frame to at most SL_P2P_MSG_MAX bytes. */
static sl_err inflate(const uint8_t *b, size_t n, uint8_t **out, size_t *len)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	size_t cap = 64 * 1024, used = 0;
	uint8_t *buf = malloc(cap);
	sl_err err = SL_ERR_INVALID;
	if (!z || !buf) {
		err = SL_ERR_NOMEM;
		goto out;
	}
	ZSTD_inBuffer in = { b, n, 0 };
	for (;;) {
		if (used == cap) {
			if (cap > SL_P2P_MSG_MAX) {
				err = SL_ERR_TOO_LARGE;
				goto out;
			}
			size_t ncap = SL_MIN(cap * 2, (size_t)SL_P2P_MSG_MAX + 1);
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				err = SL_ERR_NOMEM;
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		ZSTD_outBuffer o = { buf + used, cap - used, 0 };
		size_t r = ZSTD_decompressStream(z, &o, &in);
		used += o.pos;
		if (ZSTD_isError(r))
			goto out;
		if (r == 0 && in.pos == in.size)
			break; /* one whole frame, all input used */
		if (in.pos == in.size && o.pos < o.size)
			goto out; /* input ended inside a frame */
	}
	if (used > SL_P2P_MSG_MAX) {
		err = SL_ERR_TOO_LARGE;
		goto out;
	}
	*out = buf;
	*len = used;
	buf = NULL;
	err = SL_OK;
out:
	free(buf);
	ZSTD_freeDStream(z);
	return err;
}

static const char *str_or_empty(const char *s) { return s ? s : ""; }

static void app_fill(sl_p2p_app *a, ProtobufCBinaryData chain, uint32_t rid, uint64_t deadline,
		     ProtobufCBinaryData bytes)
{
	a->chain_id = bytes_of(chain);
	a->request_id = rid;
	a->deadline = deadline;
	a->bytes = bytes_of(bytes);
	a->error_message = "";
}

static sl_err fill(sl_p2p_msg *m, const Slp2p__Message *pb)
{
	switch (pb->message_case) {
	case SLP2P__MESSAGE__MESSAGE_PING:
		m->op = SL_P2P_OP_PING;
		m->uptime = pb->ping->uptime;
		break;
	case SLP2P__MESSAGE__MESSAGE_PONG: m->op = SL_P2P_OP_PONG; break;
	case SLP2P__MESSAGE__MESSAGE_HANDSHAKE: {
		const Slp2p__Handshake *h = pb->handshake;
		sl_p2p_handshake *o = &m->hs;
		m->op = SL_P2P_OP_HANDSHAKE;
		o->network_id = h->network_id;
		o->my_time = h->my_time;
		o->ip_addr = bytes_of(h->ip_addr);
		o->ip_port = h->ip_port;
		o->upgrade_time = h->upgrade_time;
		o->ip_signing_time = h->ip_signing_time;
		o->ip_node_id_sig = bytes_of(h->ip_node_id_sig);
		o->ip_bls_sig = bytes_of(h->ip_bls_sig);
		o->client_name = h->client ? str_or_empty(h->client->name) : "";
		if (h->client) {
			o->major = h->client->major;
			o->minor = h->client->minor;
			o->patch = h->client->patch;
		}
		o->n_tracked_subnets = h->n_tracked_subnets;
		o->n_supported_acps = h->n_supported_acps;
		o->supported_acps = h->supported_acps;
		o->n_objected_acps = h->n_objected_acps;
		o->objected_acps = h->objected_acps;
		if (h->known_peers) {
			o->has_known_peers = true;
			o->known_peers_filter = bytes_of(h->known_peers->filter);
			o->known_peers_salt = bytes_of(h->known_peers->salt);
		}
		o->all_subnets = h->all_subnets;
		break;
	}
	case SLP2P__MESSAGE__MESSAGE_GET_PEER_LIST: m->op = SL_P2P_OP_GET_PEER_LIST; break;
	case SLP2P__MESSAGE__MESSAGE_PEER_LIST:
		m->op = SL_P2P_OP_PEER_LIST;
		m->n_peers = pb->peer_list->n_claimed_ip_ports;
		break;
	case SLP2P__MESSAGE__MESSAGE_APP_REQUEST: {
		const Slp2p__AppRequest *a = pb->app_request;
		m->op = SL_P2P_OP_APP_REQUEST;
		app_fill(&m->app, a->chain_id, a->request_id, a->deadline, a->app_bytes);
		break;
	}
	case SLP2P__MESSAGE__MESSAGE_APP_RESPONSE: {
		const Slp2p__AppResponse *a = pb->app_response;
		m->op = SL_P2P_OP_APP_RESPONSE;
		app_fill(&m->app, a->chain_id, a->request_id, 0, a->app_bytes);
		break;
	}
	case SLP2P__MESSAGE__MESSAGE_APP_GOSSIP: {
		const Slp2p__AppGossip *a = pb->app_gossip;
		m->op = SL_P2P_OP_APP_GOSSIP;
		app_fill(&m->app, a->chain_id, 0, 0, a->app_bytes);
		break;
	}
	case SLP2P__MESSAGE__MESSAGE_APP_ERROR: {
		const Slp2p__AppError *a = pb->app_error;
		m->op = SL_P2P_OP_APP_ERROR;
		app_fill(&m->app, a->chain_id, a->request_id, 0, (ProtobufCBinaryData){ 0, NULL });
		m->app.error_code = a->error_code;
		m->app.error_message = str_or_empty(a->error_message);
		break;
	}
	default: m->op = SL_P2P_OP_OTHER; break;
	}
	return SL_OK;
}

sl_err sl_p2p_msg_decode(const uint8_t *b, size_t n, sl_p2p_msg *m)
{
	memset(m, 0, sizeof *m);
	if (n > SL_P2P_MSG_MAX)
		return SL_ERR_TOO_LARGE;
	Slp2p__Message *pb = slp2p__message__unpack(NULL, n, b);
	if (!pb)
		return SL_ERR_INVALID;
	if (pb->message_case == SLP2P__MESSAGE__MESSAGE_COMPRESSED_ZSTD) {
		uint8_t *raw;
		size_t len;
		sl_err err = inflate(pb->compressed_zstd.data, pb->compressed_zstd.len, &raw, &len);
		slp2p__message__free_unpacked(pb, NULL);
		if (err)
			return err;
		m->inflated_ = raw;
		pb = slp2p__message__unpack(NULL, len, raw);
		if (!pb)
			return SL_ERR_INVALID;
		m->pb_ = pb;
		if (pb->message_case == SLP2P__MESSAGE__MESSAGE_COMPRESSED_ZSTD)
			return SL_ERR_INVALID;
		m->was_compressed = true;
		return fill(m, pb);
	}
	m->pb_ = pb;
	return fill(m, pb);
}

/* Pack a Message into a frame (optionally wrapping it zstd-compressed). */
static sl_err frame(const Slp2p__Message *pb, bool compress, uint8_t **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	size_t n = slp2p__message__get_packed_size(pb);
	if (n > SL_P2P_MSG_MAX)
		return SL_ERR_TOO_LARGE;
	uint8_t *body = malloc(n ? n : 1);
	if (!body)
		return SL_ERR_NOMEM;
	slp2p__message__pack(pb, body);
	if (compress) {
		size_t cap = ZSTD_compressBound(n);
		uint8_t *z = malloc(cap);
		size_t zn = z ? ZSTD_compress(z, cap, body, n, 3) : 0;
		free(body);
		if (!z || ZSTD_isError(zn)) {
			free(z);
			return SL_ERR_NOMEM;
		}
		Slp2p__Message w;
		slp2p__message__init(&w);
		w.message_case = SLP2P__MESSAGE__MESSAGE_COMPRESSED_ZSTD;
		w.compressed_zstd = (ProtobufCBinaryData){ zn, z };
		sl_err err = frame(&w, false, out, len);
		free(z);
		return err;
	}
	uint8_t *f = malloc(SL_P2P_FRAME_HDR + n);
	if (!f) {
		free(body);
		return SL_ERR_NOMEM;
	}
	f[0] = (uint8_t)(n >> 24);
	f[1] = (uint8_t)(n >> 16);
	f[2] = (uint8_t)(n >> 8);
	f[3] = (uint8_t)n;
	memcpy(f + SL_P2P_FRAME_HDR, body, n);
	free(body);
	*out = f;
	*len = SL_P2P_FRAME_HDR + n;
	return SL_OK;
}

sl_err sl_p2p_msg_encode(const sl_p2p_msg *m, uint8_t **out, size_t *len)
{
	Slp2p__Message pb;
	Slp2p__Ping ping;
	Slp2p__Pong pong;
	Slp2p__Handshake hs;
	Slp2p__Client client;
	Slp2p__BloomFilter bloom;
	Slp2p__GetPeerList gpl;
	Slp2p__PeerList pl;
	Slp2p__AppRequest areq;
	Slp2p__AppResponse aresp;
	Slp2p__AppError aerr;
	Slp2p__AppGossip agos;
	ProtobufCBinaryData subnets[16];
	slp2p__message__init(&pb);
	const sl_p2p_app *a = &m->app;
	switch (m->op) {
	case SL_P2P_OP_PING:
		slp2p__ping__init(&ping);
		ping.uptime = m->uptime;
		pb.message_case = SLP2P__MESSAGE__MESSAGE_PING;
		pb.ping = &ping;
		break;
	case SL_P2P_OP_PONG:
		slp2p__pong__init(&pong);
		pb.message_case = SLP2P__MESSAGE__MESSAGE_PONG;
		pb.pong = &pong;
		break;
	case SL_P2P_OP_HANDSHAKE: {
		const sl_p2p_handshake *h = &m->hs;
		if (h->n_tracked_subnets > SL_ARRAY_LEN(subnets))
			return SL_ERR_TOO_LARGE;
		slp2p__handshake__init(&hs);
		slp2p__client__init(&client);
		hs.network_id = h->network_id;
		hs.my_time = h->my_time;
		hs.ip_addr = pb_bytes(h->ip_addr);
		hs.ip_port = h->ip_port;
		hs.upgrade_time = h->upgrade_time;
		hs.ip_signing_time = h->ip_signing_time;
		hs.ip_node_id_sig = pb_bytes(h->ip_node_id_sig);
		hs.ip_bls_sig = pb_bytes(h->ip_bls_sig);
		client.name = (char *)(h->client_name ? h->client_name : "");
		client.major = h->major;
		client.minor = h->minor;
		client.patch = h->patch;
		hs.client = &client;
		for (size_t i = 0; i < h->n_tracked_subnets; i++)
			subnets[i] = pb_bytes(h->tracked_subnets[i]);
		hs.n_tracked_subnets = h->n_tracked_subnets;
		hs.tracked_subnets = subnets;
		hs.n_supported_acps = h->n_supported_acps;
		hs.supported_acps = (uint32_t *)h->supported_acps;
		hs.n_objected_acps = h->n_objected_acps;
		hs.objected_acps = (uint32_t *)h->objected_acps;
		if (h->has_known_peers) {
			slp2p__bloom_filter__init(&bloom);
			bloom.filter = pb_bytes(h->known_peers_filter);
			bloom.salt = pb_bytes(h->known_peers_salt);
			hs.known_peers = &bloom;
		}
		hs.all_subnets = h->all_subnets;
		pb.message_case = SLP2P__MESSAGE__MESSAGE_HANDSHAKE;
		pb.handshake = &hs;
		break;
	}
	case SL_P2P_OP_GET_PEER_LIST:
		slp2p__get_peer_list__init(&gpl);
		pb.message_case = SLP2P__MESSAGE__MESSAGE_GET_PEER_LIST;
		pb.get_peer_list = &gpl;
		break;
	case SL_P2P_OP_PEER_LIST:
		if (m->n_peers)
			return SL_ERR_UNSUPPORTED; /* we never tell peers about others */
		slp2p__peer_list__init(&pl);
		pb.message_case = SLP2P__MESSAGE__MESSAGE_PEER_LIST;
		pb.peer_list = &pl;
		break;
	case SL_P2P_OP_APP_REQUEST:
		slp2p__app_request__init(&areq);
		areq.chain_id = pb_bytes(a->chain_id);
		areq.request_id = a->request_id;
		areq.deadline = a->deadline;
		areq.app_bytes = pb_bytes(a->bytes);
		pb.message_case = SLP2P__MESSAGE__MESSAGE_APP_REQUEST;
		pb.app_request = &areq;
		break;
	case SL_P2P_OP_APP_RESPONSE:
		slp2p__app_response__init(&aresp);
		aresp.chain_id = pb_bytes(a->chain_id);
		aresp.request_id = a->request_id;
		aresp.app_bytes = pb_bytes(a->bytes);
		pb.message_case = SLP2P__MESSAGE__MESSAGE_APP_RESPONSE;
		pb.app_response = &aresp;
		break;
	case SL_P2P_OP_APP_ERROR:
		slp2p__app_error__init(&aerr);
		aerr.chain_id = pb_bytes(a->chain_id);
		aerr.request_id = a->request_id;
		aerr.error_code = a->error_code;
		aerr.error_message = (char *)(a->error_message ? a->error_message : "");
		pb.message_case = SLP2P__MESSAGE__MESSAGE_APP_ERROR;
		pb.app_error = &aerr;
		break;
	case SL_P2P_OP_APP_GOSSIP:
		slp2p__app_gossip__init(&agos);
		agos.chain_id = pb_bytes(a->chain_id);
		agos.app_bytes = pb_bytes(a->bytes);
		pb.message_case = SLP2P__MESSAGE__MESSAGE_APP_GOSSIP;
		pb.app_gossip = &agos;
		break;
	default: return SL_ERR_INVALID;
	}
	return frame(&pb, m->was_compressed, out, len);
}

sl_err sl_p2p_sigreq_encode(const uint8_t *msg, size_t msg_len, const uint8_t *just, size_t just_len,
			    uint8_t **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	if (msg_len > SL_P2P_WARP_MSG_MAX || just_len > SL_P2P_WARP_MSG_MAX)
		return SL_ERR_TOO_LARGE;
	Slp2p__SignatureRequest r;
	slp2p__signature_request__init(&r);
	r.message = (ProtobufCBinaryData){ msg_len, (uint8_t *)msg };
	r.justification = (ProtobufCBinaryData){ just_len, (uint8_t *)just };
	size_t n = slp2p__signature_request__get_packed_size(&r);
	uint8_t *b = malloc(1 + n);
	if (!b)
		return SL_ERR_NOMEM;
	b[0] = SL_P2P_HANDLER_ACP118; /* uvarint of a value below 0x80: one byte */
	slp2p__signature_request__pack(&r, b + 1);
	*out = b;
	*len = 1 + n;
	return SL_OK;
}

sl_err sl_p2p_sigreq_decode(const uint8_t *b, size_t n, sl_p2p_sigreq *r)
{
	memset(r, 0, sizeof *r);
	size_t k = sl_p2p_uvarint(b, n, &r->handler);
	if (!k)
		return SL_ERR_INVALID;
	Slp2p__SignatureRequest *pb = slp2p__signature_request__unpack(NULL, n - k, b + k);
	if (!pb)
		return SL_ERR_INVALID;
	r->pb_ = pb;
	r->message = bytes_of(pb->message);
	r->justification = bytes_of(pb->justification);
	return SL_OK;
}

void sl_p2p_sigreq_clear(sl_p2p_sigreq *r)
{
	if (r->pb_)
		slp2p__signature_request__free_unpacked(r->pb_, NULL);
	memset(r, 0, sizeof *r);
}

sl_err sl_p2p_sigresp_encode(const uint8_t sig[96], uint8_t **out, size_t *len)
{
	Slp2p__SignatureResponse r;
	slp2p__signature_response__init(&r);
	r.signature = (ProtobufCBinaryData){ 96, (uint8_t *)sig };
	size_t n = slp2p__signature_response__get_packed_size(&r);
	*out = malloc(n);
	if (!*out)
		return SL_ERR_NOMEM;
	slp2p__signature_response__pack(&r, *out);
	*len = n;
	return SL_OK;
}

sl_err sl_p2p_sigresp_decode(const uint8_t *b, size_t n, uint8_t sig[96])
{
	Slp2p__SignatureResponse *pb = slp2p__signature_response__unpack(NULL, n, b);
	if (!pb)
		return SL_ERR_INVALID;
	sl_err err = pb->signature.len == 96 ? SL_OK : SL_ERR_INVALID;
	if (!err)
		memcpy(sig, pb->signature.data, 96);
	slp2p__signature_response__free_unpacked(pb, NULL);
	return err;
}
