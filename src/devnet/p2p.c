/*
 * p2p.c — the devnet's validators answering ACP-118 signature requests over
 * avalanchego's p2p protocol (devnet.h, p2p/p2p.h): one listener per node,
 * with the node's own staking certificate and BLS key.
 */
#include "devnet/world.h"

#include <stdio.h>

struct sl_devnet_p2p {
	sl_p2p_server *server;
	dn_world *w;
	uint32_t n;
	uint32_t network_id;
	sl_bls_sk *bls; /* copies: the listeners' threads never read the world */
	uint8_t chains[DN_CHAINS][32];
	sl_devnet_warp_verify_fn verify;
	void *verify_ctx;
};

static sl_err default_verify(sl_devnet_p2p *p, const sl_warp_unsigned *m, int32_t *code, char why[256])
{
	if (m->network_id != p->network_id) {
		*code = 1;
		snprintf(why, 256, "wrong network id %u (this is %u)", m->network_id, p->network_id);
		return SL_ERR_CONFLICT;
	}
	for (int c = 0; c < DN_CHAINS; c++)
		if (!memcmp(m->source_chain_id.p, p->chains[c], 32))
			return SL_OK;
	*code = 1;
	snprintf(why, 256, "unknown source chain");
	return SL_ERR_NOT_FOUND;
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
	sl_err err = p->verify ? p->verify(p->verify_ctx, (uint32_t)index, &m, just, just_len, code, why)
			       : default_verify(p, &m, code, why);
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
