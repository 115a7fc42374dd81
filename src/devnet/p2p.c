/*
 * p2p.c — the devnet's validators answering ACP-118 signature requests over
 * avalanchego's p2p protocol (devnet.h, p2p/p2p.h): one listener per node,
 * with the node's own staking certificate and BLS key.
 */
#include "devnet/world.h"

#include "crypto/cb58.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

struct sl_devnet_p2p {
	sl_p2p_server *server;
	dn_world *w;
	uint32_t n;
	uint32_t network_id;
	sl_bls_sk *bls; /* copies: the listeners' threads never read the world */
	uint8_t chains[DN_CHAINS][32];
	dn_l1view *l1; /* the world's L1 view: read under its lock, nothing else of the world */
	sl_devnet_warp_verify_fn verify;
	void *verify_ctx;
};

/* ---- what a P-chain validator signs (avalanchego's vms/platformvm/network/warp.go) ---------- */

/* The codes avalanchego's P-chain answers when it refuses a message, in its order. */
enum {
	E_PARSE_ADDRESSED_CALL = 1,
	E_HAS_SOURCE_ADDRESS,
	E_PARSE_PAYLOAD,
	E_UNSUPPORTED_PAYLOAD,
	E_PARSE_JUSTIFICATION,
	E_CONVERSION_DOES_NOT_EXIST,
	E_MISMATCHED_CONVERSION_ID,
	E_INVALID_JUSTIFICATION_TYPE,
	E_PARSE_SUBNET_ID,
	E_MISMATCHED_VALIDATION_ID,
	E_VALIDATION_DOES_NOT_EXIST,
	E_VALIDATION_EXISTS,
	E_PARSE_REGISTER_L1_VALIDATOR,
	E_VALIDATION_COULD_BE_REGISTERED,
	E_IMPOSSIBLE_NONCE,
	E_WRONG_NONCE,
	E_WRONG_WEIGHT,
};

static sl_err refuse(int32_t *code, int32_t c, char why[256], const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static sl_err refuse(int32_t *code, int32_t c, char why[256], const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, 256, fmt, ap);
	va_end(ap);
	*code = c;
	return SL_ERR_CONFLICT;
}

/* Under v->mu: the conversion of subnet s, the validation vid (NULL when the view has none). */
static const dn_l1conv *find_conv(const dn_l1view *v, const uint8_t s[32])
{
	for (size_t i = 0; i < v->nconv; i++)
		if (!memcmp(v->conv[i].subnet, s, 32))
			return &v->conv[i];
	return NULL;
}

static const dn_l1val *find_val(const dn_l1view *v, const uint8_t vid[32])
{
	for (size_t i = 0; i < v->nval; i++)
		if (!memcmp(v->val[i].vid, vid, 32))
			return &v->val[i];
	return NULL;
}

/* A protobuf varint at *p (below end); false when it runs out or passes 64 bits. */
static bool pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (*p == end)
			return false;
		uint8_t b = *(*p)++;
		if (shift == 63 && b > 1)
			return false;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

/*
 * One message's fields: calls fn(field, wire type, value, bytes) for each; false when the
 * encoding is broken (a truncated field, an unknown wire type, a group).
 */
typedef bool (*pb_field_fn)(void *ctx, uint64_t field, uint32_t wt, uint64_t val, sl_span bytes);
static bool pb_fields(sl_span m, pb_field_fn fn, void *ctx)
{
	const uint8_t *p = m.p, *end = m.p + m.len;
	while (p < end) {
		uint64_t key, val = 0;
		sl_span bytes = { 0 };
		if (!pb_varint(&p, end, &key) || key >> 3 == 0)
			return false;
		uint32_t wt = (uint32_t)(key & 7);
		switch (wt) {
		case 0:
			if (!pb_varint(&p, end, &val))
				return false;
			break;
		case 1:
		case 5: {
			size_t n = wt == 1 ? 8 : 4;
			if ((size_t)(end - p) < n)
				return false;
			p += n;
			break;
		}
		case 2:
			if (!pb_varint(&p, end, &val) || val > (uint64_t)(end - p))
				return false;
			bytes = sl_span_of(p, (size_t)val);
			p += val;
			break;
		default: return false;
		}
		if (!fn(ctx, key >> 3, wt, val, bytes))
			return false;
	}
	return true;
}

/* L1ValidatorRegistrationJustification: preimage oneof { 1: SubnetIDIndex, 2: bytes } (the last
 * one given wins, as protobuf's oneof); SubnetIDIndex { 1: bytes subnet_id, 2: uint32 index }. */
typedef struct reg_just {
	int which; /* 0: no preimage, 1: SubnetIDIndex, 2: RegisterL1ValidatorMessage */
	sl_span subnet_id;
	uint32_t index;
	sl_span message;
} reg_just;

static bool subnet_index_field(void *ctx, uint64_t field, uint32_t wt, uint64_t val, sl_span bytes)
{
	reg_just *j = ctx;
	if (field == 1 && wt == 2)
		j->subnet_id = bytes;
	else if (field == 2 && wt == 0)
		j->index = (uint32_t)val; /* uint32: protobuf keeps the low 32 bits */
	return true;
}

static bool reg_just_field(void *ctx, uint64_t field, uint32_t wt, uint64_t val, sl_span bytes)
{
	reg_just *j = ctx;
	(void)val;
	if (wt != 2 || (field != 1 && field != 2))
		return true;
	j->which = (int)field;
	if (field == 2) {
		j->message = bytes;
		return true;
	}
	j->subnet_id = (sl_span){ 0 };
	j->index = 0;
	return pb_fields(bytes, subnet_index_field, j);
}

static sl_err verify_conversion(dn_l1view *v, const sl_warp_l1_msg *m, sl_span just, int32_t *code,
				char why[256])
{
	char a[64], b[64];
	if (just.len != 32)
		return refuse(code, E_PARSE_JUSTIFICATION, why,
			      "failed to parse justification: expected 32 bytes but got %zu", just.len);
	pthread_mutex_lock(&v->mu);
	const dn_l1conv *c = find_conv(v, just.p);
	uint8_t cid[32];
	if (c)
		memcpy(cid, c->conversion_id, 32);
	pthread_mutex_unlock(&v->mu);
	sl_cb58_id(a, just.p);
	if (!c)
		return refuse(code, E_CONVERSION_DOES_NOT_EXIST, why, "subnet \"%s\" has not been converted",
			      a);
	if (memcmp(m->conversion_id.p, cid, 32)) {
		sl_cb58_id(a, m->conversion_id.p);
		sl_cb58_id(b, cid);
		return refuse(code, E_MISMATCHED_CONVERSION_ID, why,
			      "provided conversionID \"%s\" != expected conversionID \"%s\"", a, b);
	}
	return SL_OK;
}

/* Registered false: the justification shows the validation is not current and never can be. */
static sl_err verify_not_registered(dn_l1view *v, const uint8_t vid[32], sl_span just, int32_t *code,
				    char why[256])
{
	char a[64], b[64];
	reg_just j = { 0 };
	if (!pb_fields(just, reg_just_field, &j))
		return refuse(code, E_PARSE_JUSTIFICATION, why,
			      "failed to parse justification: malformed protobuf");
	if (j.which == 0)
		return refuse(code, E_INVALID_JUSTIFICATION_TYPE, why, "invalid justification type: <nil>");
	uint8_t jid[32];
	uint64_t expiry = 0;
	if (j.which == 1) {
		if (j.subnet_id.len != 32)
			return refuse(code, E_PARSE_SUBNET_ID, why,
				      "failed to parse subnetID: expected 32 bytes but got %zu",
				      j.subnet_id.len);
		sl_warp_conversion_validation_id(j.subnet_id.p, j.index, jid);
	} else {
		sl_warp_l1_msg reg;
		sl_err_detail d;
		if (sl_warp_l1_decode(j.message.p, j.message.len, &reg, &d))
			return refuse(code, E_PARSE_REGISTER_L1_VALIDATOR, why,
				      "failed to parse RegisterL1Validator justification: %s", d.msg);
		if (reg.type != SL_WARP_L1_REGISTER_VALIDATOR)
			return refuse(code, E_PARSE_REGISTER_L1_VALIDATOR, why,
				      "failed to parse RegisterL1Validator justification: a %s message",
				      sl_warp_l1_type_name(reg.type));
		memcpy(jid, reg.id, 32);
		expiry = reg.expiry;
	}
	if (memcmp(jid, vid, 32)) {
		sl_cb58_id(a, vid);
		sl_cb58_id(b, jid);
		return refuse(code, E_MISMATCHED_VALIDATION_ID, why,
			      "validationID \"%s\" != justificationID \"%s\"", a, b);
	}
	sl_cb58_id(a, vid);
	pthread_mutex_lock(&v->mu);
	bool converted = j.which == 1 && find_conv(v, j.subnet_id.p);
	const dn_l1val *l = find_val(v, vid);
	bool current = l && !l->removed, removed = l && l->removed;
	uint64_t now = v->time;
	pthread_mutex_unlock(&v->mu);
	if (j.which == 1 && !converted) {
		sl_cb58_id(b, j.subnet_id.p);
		return refuse(code, E_CONVERSION_DOES_NOT_EXIST, why, "subnet \"%s\" has not been converted",
			      b);
	}
	if (current)
		return refuse(code, E_VALIDATION_EXISTS, why, "validation \"%s\" exists", a);
	if (j.which == 1 || expiry <= now || removed)
		return SL_OK; /* removed, or never registered and now it cannot be */
	return refuse(code, E_VALIDATION_COULD_BE_REGISTERED, why,
		      "validation \"%s\" can be registered until %llu", a, (unsigned long long)expiry);
}

static sl_err verify_weight(dn_l1view *v, const sl_warp_l1_msg *m, int32_t *code, char why[256])
{
	char a[64];
	if (m->nonce == UINT64_MAX)
		return refuse(code, E_IMPOSSIBLE_NONCE, why, "impossible nonce");
	pthread_mutex_lock(&v->mu);
	const dn_l1val *l = find_val(v, m->validation_id.p);
	dn_l1val c = l ? *l : (dn_l1val){ .removed = true };
	pthread_mutex_unlock(&v->mu);
	sl_cb58_id(a, m->validation_id.p);
	if (c.removed)
		return refuse(code, E_VALIDATION_DOES_NOT_EXIST, why, "validation \"%s\" does not exist", a);
	if (m->nonce + 1 != c.nonce)
		return refuse(code, E_WRONG_NONCE, why, "provided nonce %llu != expected nonce (%llu - 1)",
			      (unsigned long long)m->nonce, (unsigned long long)c.nonce);
	if (m->weight != c.weight)
		return refuse(code, E_WRONG_WEIGHT, why, "provided weight %llu != expected weight %llu",
			      (unsigned long long)m->weight, (unsigned long long)c.weight);
	return SL_OK;
}

/* A message from the P-chain: one of its three L1 messages, true to its state. */
static sl_err verify_p(sl_devnet_p2p *p, const sl_warp_unsigned *m, sl_span just, int32_t *code,
		       char why[256])
{
	sl_warp_payload pl;
	sl_err_detail d;
	if (sl_warp_payload_decode(m->payload.p, m->payload.len, &pl, &d))
		return refuse(code, E_PARSE_ADDRESSED_CALL, why, "failed to parse warp addressed call: %s",
			      d.msg);
	if (pl.type != SL_WARP_PAYLOAD_ADDRESSED_CALL)
		return refuse(code, E_PARSE_ADDRESSED_CALL, why,
			      "failed to parse warp addressed call: the payload is a %s",
			      sl_warp_payload_type_name(pl.type));
	if (pl.source_address.len)
		return refuse(code, E_HAS_SOURCE_ADDRESS, why, "source address should be empty");
	sl_warp_l1_msg l1;
	if (sl_warp_l1_decode(pl.payload.p, pl.payload.len, &l1, &d))
		return refuse(code, E_PARSE_PAYLOAD, why, "failed to parse warp addressed call payload: %s",
			      d.msg);
	switch (l1.type) {
	case SL_WARP_L1_SUBNET_CONVERSION: return verify_conversion(p->l1, &l1, just, code, why);
	case SL_WARP_L1_VALIDATOR_REGISTRATION:
		if (!l1.registered) {
			uint8_t vid[32];
			memcpy(vid, l1.validation_id.p, 32);
			return verify_not_registered(p->l1, vid, just, code, why);
		}
		pthread_mutex_lock(&p->l1->mu);
		const dn_l1val *l = find_val(p->l1, l1.validation_id.p);
		bool current = l && !l->removed;
		pthread_mutex_unlock(&p->l1->mu);
		if (!current) {
			char a[64];
			sl_cb58_id(a, l1.validation_id.p);
			return refuse(code, E_VALIDATION_DOES_NOT_EXIST, why,
				      "validation \"%s\" does not exist", a);
		}
		return SL_OK;
	case SL_WARP_L1_VALIDATOR_WEIGHT: return verify_weight(p->l1, &l1, code, why);
	default:
		return refuse(code, E_UNSUPPORTED_PAYLOAD, why,
			      "unsupported warp addressed call payload type: %s",
			      sl_warp_l1_type_name(l1.type));
	}
}

/* ---- a chain of a subnet or an L1 ------------------------------------------------------------ */

static int cmp_member(const void *a, const void *b)
{
	const dn_vmember *x = a, *y = b;
	return x->node != y->node ? (x->node < y->node ? -1 : 1) : memcmp(x->subnet, y->subnet, 32);
}

/*
 * A message from a chain a CreateChainTx made: signed by node `index` only while it validates
 * that chain's subnet (a current permissioned validator, or an active L1 validator), the nodes
 * that run the chain. The devnet does not run those chains, so any payload is signed, as for the
 * X- and C-chain. NOT_FOUND when no such chain exists.
 */
static sl_err verify_subnet_chain(sl_devnet_p2p *p, uint32_t index, const sl_warp_unsigned *m, int32_t *code,
				  char why[256])
{
	dn_l1view *v = p->l1;
	dn_vmember key = { .node = index };
	bool chain = false, member = false;
	pthread_mutex_lock(&v->mu);
	for (size_t i = 0; i < v->nchains && !chain; i++)
		if (!memcmp(v->chains[i].chain, m->source_chain_id.p, 32)) {
			chain = true;
			memcpy(key.subnet, v->chains[i].subnet, 32);
		}
	if (chain && v->nmembers)
		member = bsearch(&key, v->members, v->nmembers, sizeof key, cmp_member) != NULL;
	pthread_mutex_unlock(&v->mu);
	if (!chain) {
		*code = 1;
		snprintf(why, 256, "unknown source chain");
		return SL_ERR_NOT_FOUND;
	}
	if (member)
		return SL_OK;
	char c[64], s[64];
	sl_cb58_id(c, m->source_chain_id.p);
	sl_cb58_id(s, key.subnet);
	return refuse(code, 1, why, "not a validator of subnet %s: chain %s is not run here", s, c);
}

static sl_err default_verify(sl_devnet_p2p *p, uint32_t index, const sl_warp_unsigned *m, sl_span just,
			     int32_t *code, char why[256])
{
	if (m->network_id != p->network_id) {
		*code = 1;
		snprintf(why, 256, "wrong network id %u (this is %u)", m->network_id, p->network_id);
		return SL_ERR_CONFLICT;
	}
	if (!memcmp(m->source_chain_id.p, p->chains[DN_P], 32))
		return verify_p(p, m, just, code, why);
	for (int c = 0; c < DN_CHAINS; c++)
		if (!memcmp(m->source_chain_id.p, p->chains[c], 32))
			return SL_OK;
	return verify_subnet_chain(p, index, m, code, why);
}

static sl_err sign(void *ctx, size_t index, const uint8_t chain_id[32], const uint8_t *msg, size_t msg_len,
		   const uint8_t *just, size_t just_len, uint8_t sig[SL_BLS_SIG_LEN], int32_t *code,
		   char why[256])
{
	sl_devnet_p2p *p = ctx;
	sl_warp_unsigned m;
	if (index >= p->n)
		return SL_ERR_INTERNAL;
	if (sl_warp_unsigned_decode(msg, msg_len, &m, NULL)) {
		*code = -1; /* p2p.ErrUnexpected, as acp118's handler answers */
		snprintf(why, 256, "failed to parse warp unsigned message");
		return SL_ERR_INVALID;
	}
	sl_err err = p->verify
			     ? p->verify(p->verify_ctx, (uint32_t)index, &m, just, just_len, code, why)
			     : default_verify(p, (uint32_t)index, &m, sl_span_of(just, just_len), code, why);
	if (err)
		return err;
	sl_bls_sig s;
	sl_bls_sign(&p->bls[index], msg, msg_len, &s);
	sl_bls_sig_encode(&s, sig);
	return SL_OK;
}

/* "i=policy[:ms],...": policy honest, absent, silent, slow (ms, default 1000) or wrong. */
static bool parse_policy(const char *s, sl_p2p_listener *ls, uint32_t n, char err[256])
{
	static const struct {
		const char *name;
		sl_p2p_policy p;
	} names[] = { { "honest", SL_P2P_HONEST },
		      { "absent", SL_P2P_ABSENT },
		      { "silent", SL_P2P_SILENT },
		      { "slow", SL_P2P_SLOW },
		      { "wrong", SL_P2P_WRONG } };
	while (s && *s) {
		char *end;
		unsigned long i = strtoul(s, &end, 10);
		if (end == s || *end != '=' || i >= n) {
			snprintf(
				err, 256,
				"--devnet-p2p-policy: '%s' does not start with a node index below %u and '='",
				s, n);
			return false;
		}
		s = end + 1;
		size_t len = strcspn(s, ":,");
		size_t k = 0;
		while (k < SL_ARRAY_LEN(names) &&
		       (strlen(names[k].name) != len || strncmp(s, names[k].name, len)))
			k++;
		if (k == SL_ARRAY_LEN(names)) {
			snprintf(err, 256,
				 "--devnet-p2p-policy: node %lu: unknown policy '%.*s' (honest, absent, "
				 "silent, slow[:ms], wrong)",
				 i, (int)len, s);
			return false;
		}
		ls[i].policy = names[k].p;
		ls[i].slow_ms = 1000;
		s += len;
		if (*s == ':') {
			unsigned long ms = strtoul(s + 1, &end, 10);
			if (end == s + 1 || ms > 600000 || names[k].p != SL_P2P_SLOW) {
				snprintf(
					err, 256,
					"--devnet-p2p-policy: node %lu: ':ms' (0 to 600000) follows slow only",
					i);
				return false;
			}
			ls[i].slow_ms = (int)ms;
			s = end;
		}
		if (*s == ',')
			s++;
		else if (*s) {
			snprintf(err, 256, "--devnet-p2p-policy: expected ',' at '%s'", s);
			return false;
		}
	}
	return true;
}

/* Ports and host (the policy is parsed where it is applied). */
static bool check_ports(uint32_t nnodes, const sl_devnet_p2p_options *o, char err[256])
{
	const char *host = o->host ? o->host : "127.0.0.1";
	if (strlen(host) >= SL_P2P_HOST_MAX) {
		snprintf(err, 256, "--devnet-p2p-host: too long");
		return false;
	}
	if (o->base_port && (uint32_t)o->base_port + 2u * (nnodes - 1) > 65535u) {
		snprintf(err, 256, "--devnet-p2p-port %u: the devnet's %u nodes need ports up to %u",
			 o->base_port, nnodes, (uint32_t)o->base_port + 2u * (nnodes - 1));
		return false;
	}
	return true;
}

sl_err sl_devnet_p2p_options_check(const sl_devnet_config *cfg, const sl_devnet_p2p_options *o, char err[256])
{
	uint32_t n = cfg->validators + DN_LATER_NODES;
	err[0] = 0;
	sl_p2p_listener *ls = calloc(n, sizeof *ls);
	if (!ls) {
		snprintf(err, 256, "out of memory");
		return SL_ERR_NOMEM;
	}
	bool ok = check_ports(n, o, err) && parse_policy(o->policy, ls, n, err);
	free(ls);
	return ok ? SL_OK : SL_ERR_INVALID;
}

sl_devnet_p2p *sl_devnet_p2p_start(sl_devnet *d, const sl_devnet_p2p_options *o, char err[256])
{
	dn_world *w = dn_world_of(d);
	const char *host = o->host ? o->host : "127.0.0.1";
	err[0] = 0;
	if (!check_ports(w->nnodes, o, err))
		return NULL;
	sl_devnet_p2p *p = calloc(1, sizeof *p);
	sl_p2p_listener *ls = calloc(w->nnodes, sizeof *ls);
	uint16_t *ports = calloc(w->nnodes, sizeof *ports);
	if (p)
		p->bls = calloc(w->nnodes, sizeof *p->bls);
	if (!p || !ls || !ports || !p->bls) {
		snprintf(err, 256, "out of memory");
		goto fail;
	}
	p->w = w;
	p->n = w->nnodes;
	p->network_id = w->cfg.network_id;
	p->l1 = &w->l1view;
	p->verify = o->verify;
	p->verify_ctx = o->verify_ctx;
	for (int c = 0; c < DN_CHAINS; c++)
		memcpy(p->chains[c], w->chain[c].id, 32);
	for (uint32_t i = 0; i < w->nnodes; i++) {
		const dn_node *nd = &w->nodes[i];
		sl_p2p_identity *id = &ls[i].identity;
		id->key = nd->staking;
		memcpy(id->cert, nd->cert, nd->cert_len);
		id->cert_len = nd->cert_len;
		memcpy(id->node_id, nd->node_id, 20);
		id->bls = nd->bls;
		p->bls[i] = nd->bls;
		ls[i].host = host;
		ls[i].port = o->base_port ? (uint16_t)(o->base_port + 2u * i) : 0;
	}
	if (!parse_policy(o->policy, ls, w->nnodes, err))
		goto fail;
	sl_err e;
	p->server = sl_p2p_server_start(&(sl_p2p_server_config){ .network_id = p->network_id,
								 .listeners = ls,
								 .n = w->nnodes,
								 .sign = sign,
								 .ctx = p },
					&e);
	if (!p->server) {
		snprintf(err, 256, "cannot start the validators' p2p listeners on %s (ports from %u): %s",
			 host, o->base_port, sl_err_name(e));
		goto fail;
	}
	for (uint32_t i = 0; i < w->nnodes; i++)
		ports[i] = sl_p2p_server_port(p->server, i);
	snprintf(w->p2p_host, sizeof w->p2p_host, "%s", host);
	w->p2p_ports = ports;
	memset(ls, 0, w->nnodes * sizeof *ls);
	free(ls);
	return p;
fail:
	if (ls)
		memset(ls, 0, w->nnodes * sizeof *ls);
	free(ls);
	free(ports);
	if (p)
		free(p->bls);
	free(p);
	return NULL;
}

uint16_t sl_devnet_p2p_port(const sl_devnet_p2p *p, uint32_t node)
{
	return p && node < p->n ? sl_p2p_server_port(p->server, node) : 0;
}

sl_err sl_devnet_p2p_set_policy(sl_devnet_p2p *p, uint32_t node, sl_p2p_policy policy, int slow_ms)
{
	if (!p || node >= p->n)
		return SL_ERR_INVALID;
	return sl_p2p_server_set_policy(p->server, node, policy, slow_ms);
}

void sl_devnet_p2p_stop(sl_devnet_p2p *p)
{
	if (!p)
		return;
	sl_p2p_server_stop(p->server);
	free(p->w->p2p_ports);
	p->w->p2p_ports = NULL;
	memset(p->bls, 0, p->n * sizeof *p->bls);
	free(p->bls);
	free(p);
}
