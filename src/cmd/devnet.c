/*
 * devnet.c — `snowline devnet`: run a node whose containers come from the
 * devnet (the same as `snowline node --devnet --index-enabled`, every node
 * option accepted), or, with --out, write the history as a container log.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "devnet/devnet.h"
#include "node/clog.h"
#include "util/config.h"

typedef struct devnet_opts {
	const char *seed, *out, *manifest;
	uint64_t txs, network_id, start_time, accounts, validators;
	bool help;
} devnet_opts;

#define O(f) offsetof(devnet_opts, f)
static const sl_opt opts[] = {
	{ "out", SL_OPT_STR, O(out), NULL, 0, "write the history as a container log to this file and exit" },
	{ "manifest", SL_OPT_STR, O(manifest), NULL, 0, "with --out: write the manifest (JSON) here" },
	{ "devnet-seed", SL_OPT_STR, O(seed), "snowline", 0, "the seed the whole history follows from" },
	{ "devnet-txs", SL_OPT_U64, O(txs), "5000", 100000000, "about how many txs the history holds" },
	{ "devnet-accounts", SL_OPT_U64, O(accounts), "64", 100000, "funded secp256k1 keys" },
	{ "devnet-validators", SL_OPT_U64, O(validators), "5", 1000,
	  "primary-network validators at genesis" },
	{ "devnet-start-time", SL_OPT_U64, O(start_time), "1704067200", UINT32_MAX,
	  "unix time of the first block" },
	{ "network-id", SL_OPT_U64, O(network_id), "12345", UINT32_MAX, "network id of the devnet" },
	{ "help", SL_OPT_BOOL, O(help), NULL, 0, "show this help" },
};

typedef struct clog_sink {
	FILE *f;
	sl_buf rec;
	uint64_t n;
} clog_sink;

static sl_err to_clog(void *ctx, sl_ikind kind, const uint8_t id[32], int64_t ts_ns, const uint8_t *bytes,
		      size_t len)
{
	clog_sink *s = ctx;
	sl_container c = { .ts_ns = ts_ns, .bytes = bytes, .len = len };
	memcpy(c.id, id, 32);
	sl_buf_reset(&s->rec);
	sl_clog_encode(&s->rec, kind, &c);
	if (s->rec.err || fwrite(s->rec.p, 1, s->rec.len, s->f) != s->rec.len)
		return SL_ERR_IO;
	s->n++;
	return SL_OK;
}

static int write_log(const devnet_opts *o)
{
	char err[256];
	sl_devnet_config cfg = { .seed = o->seed,
				 .txs = o->txs,
				 .network_id = (uint32_t)o->network_id,
				 .start_time = o->start_time,
				 .accounts = (uint32_t)o->accounts,
				 .validators = (uint32_t)o->validators };
	sl_devnet *d = sl_devnet_new(&cfg, err);
	if (!d) {
		fprintf(stderr, "snowline devnet: %s\n", err);
		return 1;
	}
	clog_sink s = { .f = fopen(o->out, "wb") };
	sl_buf_init(&s.rec, 4u << 20);
	int rc = 1;
	if (!s.f) {
		perror(o->out);
		goto out;
	}
	if (fwrite(SL_CLOG_MAGIC, 1, 8, s.f) != 8 || sl_devnet_history(d, to_clog, &s) || fclose(s.f)) {
		fprintf(stderr, "snowline devnet: cannot write %s\n", o->out);
		s.f = NULL;
		goto out;
	}
	s.f = NULL;
	if (o->manifest) {
		sl_buf m;
		sl_buf_init(&m, 256u << 20);
		sl_devnet_manifest_write(d, &m);
		FILE *f = fopen(o->manifest, "wb");
		bool ok = f && !m.err && fwrite(m.p, 1, m.len, f) == m.len;
		if (f && fclose(f))
			ok = false;
		sl_buf_release(&m);
		if (!ok) {
			fprintf(stderr, "snowline devnet: cannot write %s\n", o->manifest);
			goto out;
		}
	}
	fprintf(stderr, "snowline devnet: %llu containers written to %s\n", (unsigned long long)s.n, o->out);
	rc = 0;
out:
	if (s.f)
		fclose(s.f);
	sl_buf_release(&s.rec);
	sl_devnet_free(d);
	return rc;
}

int cmd_devnet(int argc, char **argv)
{
	/* --out selects the log writer; anything else runs a devnet node. */
	bool out = false;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--out") || !strncmp(argv[i], "--out=", 6))
			out = true;
	if (!out) {
		char *nargv[256];
		int n = 0;
		nargv[n++] = "node";
		nargv[n++] = "--devnet";
		nargv[n++] = "--index-enabled";
		for (int i = 1; i < argc && n < 255; i++)
			nargv[n++] = argv[i];
		nargv[n] = NULL;
		return cmd_node(n, nargv);
	}
	devnet_opts o = { 0 };
	sl_config cfg;
	char err[512];
	if (sl_config_load(&cfg, opts, SL_ARRAY_LEN(opts), &o, argc, argv, NULL, err)) {
		fprintf(stderr, "snowline devnet: %s\n", err);
		sl_config_release(&cfg);
		return 2;
	}
	int rc = o.help ? (sl_config_usage(stdout, "usage: snowline devnet --out FILE [options]", opts,
					   SL_ARRAY_LEN(opts)),
			   0)
			: write_log(&o);
	sl_config_release(&cfg);
	return rc;
}
