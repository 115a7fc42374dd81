/*
 * devnet.c — `snowline devnet`: run a node whose containers come from the
 * devnet (the same as `snowline node --devnet --index-enabled`, every node
 * option accepted), or, with --out, write the history as a container log.
 *
 * The node's own checks (cmd/node.c, devnet block) cover the first form;
 * --out is parsed here, with the same devnet options and, so that one
 * config file serves both forms, the node's options accepted in a config
 * file or the environment and ignored (on the command line they are
 * refused: they cannot mean anything to a log writer).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/wiring.h"
#include "node/clog.h"
#include "util/config.h"

typedef struct devnet_opts {
	const char *seed, *out, *manifest, *network, *config_file;
	uint64_t txs, network_id, start_time, accounts, validators;
	bool help, genesis_signers;
	uint64_t ignored; /* the node's options, under --out */
} devnet_opts;

#define O(f) offsetof(devnet_opts, f)
static const sl_opt out_opts[] = {
	{ "out", SL_OPT_STR, O(out), NULL, 0, "write the history as a container log to this file and exit" },
	{ "manifest", SL_OPT_STR, O(manifest), NULL, 0, "with --out: write the manifest (JSON) here" },
	{ "devnet-seed", SL_OPT_STR, O(seed), "snowline", 0, "the seed the whole history follows from" },
	{ "devnet-txs", SL_OPT_U64, O(txs), "5000", 100000000, "about how many txs the history holds" },
	{ "devnet-accounts", SL_OPT_U64, O(accounts), "64", 100000, "funded secp256k1 keys" },
	{ "devnet-validators", SL_OPT_U64, O(validators), "5", 1000,
	  "primary-network validators at genesis" },
	{ "devnet-genesis-signers", SL_OPT_BOOL, O(genesis_signers), "false", 0,
	  "genesis validators are AddPermissionlessValidatorTx stakers with BLS keys (signers)" },
	{ "devnet-start-time", SL_OPT_U64, O(start_time), "1704067200", UINT32_MAX,
	  "unix time of the first block" },
	{ "network", SL_OPT_STR, O(network), "local", 0,
	  "whose ids the devnet carries: local, fuji or mainnet" },
	{ "network-id", SL_OPT_U64, O(network_id), NULL, UINT32_MAX,
	  "network id (default: the --network's: 12345 local, 5 fuji, 1 mainnet; a local one may take another)" },
	{ "config-file", SL_OPT_STR, O(config_file), NULL, 0, "JSON file of options" },
	{ "help", SL_OPT_BOOL, O(help), NULL, 0, "show this help" },
};
#undef O

static const sl_opt *out_opt(const char *name)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(out_opts); i++)
		if (!strcmp(out_opts[i].name, name))
			return &out_opts[i];
	return NULL;
}

/* Node options that make no sense for a devnet node: it is the source. */
static bool not_for_devnet(const char *name)
{
	static const char *const no[] = { "devnet", "import", "follow", "follow-poll-ms" };
	for (size_t i = 0; i < SL_ARRAY_LEN(no); i++)
		if (!strcmp(no[i], name))
			return true;
	return false;
}

static void usage(FILE *f)
{
	size_t nn;
	const sl_opt *node = cmd_node_options(&nn);
	sl_opt *all = calloc(nn + SL_ARRAY_LEN(out_opts), sizeof *all);
	if (!all)
		return;
	size_t n = 0;
	all[n++] = *out_opt("out");
	all[n++] = *out_opt("manifest");
	/* the devnet's own options first, then the node's, with the devnet's defaults */
	for (size_t i = 0; i < nn; i++)
		if (!strncmp(node[i].name, "devnet-", 7))
			all[n++] = node[i];
	for (size_t i = 0; i < nn; i++)
		if (!strcmp(node[i].name, "network"))
			all[n++] = node[i];
	all[n++] = *out_opt("network-id");
	for (size_t i = 0; i < nn; i++) {
		const sl_opt *o = &node[i];
		if (not_for_devnet(o->name) || !strncmp(o->name, "devnet-", 7) ||
		    !strcmp(o->name, "network") || !strcmp(o->name, "network-id") || !strcmp(o->name, "help"))
			continue;
		all[n] = *o;
		if (!strcmp(o->name, "index-enabled"))
			all[n].def = "true";
		n++;
	}
	all[n++] = *out_opt("help");
	sl_config_usage(
		f,
		"usage: snowline devnet [options]                  a node serving the devnet: its history, "
		"then live blocks\n"
		"       snowline devnet --out FILE [--manifest FILE] [devnet options]\n"
		"                                                  write the history as a container log and exit\n"
		"\n"
		"With --out only --out, --manifest, --devnet-* (but --devnet-interval-ms), --network,\n"
		"--network-id and --config-file apply. The node's options are avalanchego's (docs/node.md);\n"
		"the devnet and its data dir: docs/devnet.md.",
		all, n);
	free(all);
}

/* ---- progress ---- */

typedef struct clog_sink {
	FILE *f;
	sl_buf rec;
	uint64_t n;
	bool tty;
	struct timespec t0, last;
} clog_sink;

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void show_progress(void *ctx, const sl_devnet_stats *s)
{
	clog_sink *c = ctx;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	/* a terminal gets one line redrawn a few times a second; a log a line every few seconds */
	if (since(&c->last, &t) < (c->tty ? 0.2 : 5.0) && s->steps < s->steps_total)
		return;
	c->last = t;
	double el = since(&c->t0, &t), rate = el > 0 ? (double)s->txs / el : 0;
	double left = rate > 0 ? (double)(s->txs_target - SL_MIN(s->txs, s->txs_target)) / rate : 0;
	fprintf(stderr, "%ssnowline devnet: %llu/%llu txs, %llu containers, %.0f tx/s, ETA %.0f s%s",
		c->tty ? "\r\033[K" : "", (unsigned long long)s->txs, (unsigned long long)s->txs_target,
		(unsigned long long)c->n, rate, left, c->tty ? "" : "\n");
	fflush(stderr);
}

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

static int write_log(const devnet_opts *o, const sl_devnet_config *cfg)
{
	char err[256];
	sl_devnet *d = sl_devnet_new(cfg, err);
	if (!d) {
		fprintf(stderr, "snowline devnet: %s\n", err);
		return 1;
	}
	clog_sink s = { .tty = isatty(2) };
	s.f = fopen(o->out, "wb");
	int open_errno = errno;
	clock_gettime(CLOCK_MONOTONIC, &s.t0);
	s.last = s.t0;
	sl_devnet_on_progress(d, show_progress, &s);
	sl_buf_init(&s.rec, 4u << 20);
	int rc = 1;
	if (!s.f) {
		fprintf(stderr, "snowline devnet: --out %s: %s\n", o->out, strerror(open_errno));
		rc = 2;
		goto out;
	}
	if (fwrite(SL_CLOG_MAGIC, 1, 8, s.f) != 8 || sl_devnet_history(d, to_clog, &s) || fclose(s.f)) {
		fprintf(stderr, "%ssnowline devnet: cannot write %s\n", s.tty ? "\n" : "", o->out);
		s.f = NULL;
		goto out;
	}
	s.f = NULL;
	if (s.tty)
		fputc('\n', stderr);
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
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	fprintf(stderr, "snowline devnet: %llu containers written to %s in %.1f s\n", (unsigned long long)s.n,
		o->out, since(&s.t0, &t));
	rc = 0;
out:
	if (s.f)
		fclose(s.f);
	sl_buf_release(&s.rec);
	sl_devnet_free(d);
	return rc;
}

/* --out and --manifest name files: a value that looks like an option is a mistake, not a name. */
static bool file_arg(const char *name, const char *v)
{
	if (v && (!*v || !strncmp(v, "--", 2))) {
		fprintf(stderr, "snowline devnet: --%s needs a file name, not '%s'\n", name, v);
		return false;
	}
	return true;
}

static int out_mode(int argc, char **argv)
{
	/* the node's options too, ignored, so that a config file of the devnet node serves here as well */
	size_t nn;
	const sl_opt *node = cmd_node_options(&nn);
	sl_opt *all = calloc(nn + SL_ARRAY_LEN(out_opts), sizeof *all);
	if (!all)
		return 1;
	size_t n = 0;
	for (size_t i = 0; i < SL_ARRAY_LEN(out_opts); i++)
		all[n++] = out_opts[i];
	for (size_t i = 0; i < nn; i++)
		if (!out_opt(node[i].name)) {
			all[n] = node[i];
			all[n].offset = offsetof(devnet_opts, ignored);
			all[n].def = NULL;
			n++;
		}
	for (int i = 1; i + 1 < argc; i++)
		if ((!strcmp(argv[i], "--out") || !strcmp(argv[i], "--manifest")) &&
		    !file_arg(argv[i] + 2, argv[i + 1])) {
			free(all);
			return 2;
		}
	for (int i = 1; i < argc; i++)
		for (size_t k = SL_ARRAY_LEN(out_opts); k < n; k++) {
			size_t l = strlen(all[k].name);
			if (!strncmp(argv[i], "--", 2) && !strncmp(argv[i] + 2, all[k].name, l) &&
			    (argv[i][2 + l] == 0 || argv[i][2 + l] == '=')) {
				fprintf(stderr,
					"snowline devnet: --%s is a node option; it means nothing with --out\n",
					all[k].name);
				free(all);
				return 2;
			}
		}
	devnet_opts o = { 0 };
	sl_config cfg;
	char err[512];
	int rc = 2;
	if (sl_config_load(&cfg, all, n, &o, argc, argv, NULL, err)) {
		fprintf(stderr, "snowline devnet: %s\n", err);
		goto out;
	}
	if (!file_arg("out", o.out) || !file_arg("manifest", o.manifest))
		goto out;
	sl_devnet_options dop = { .seed = o.seed,
				  .network = o.network,
				  .txs = o.txs,
				  .accounts = o.accounts,
				  .validators = o.validators,
				  .genesis_signers = o.genesis_signers,
				  .start_time = o.start_time,
				  .network_id = o.network_id,
				  .network_id_given = o.network_id != 0 };
	sl_devnet_config dc;
	if (sl_devnet_options_check(&dop, &dc, err)) {
		fprintf(stderr, "snowline devnet: %s\n", err);
		goto out;
	}
	rc = write_log(&o, &dc);
out:
	sl_config_release(&cfg);
	free(all);
	return rc;
}

int cmd_devnet(int argc, char **argv)
{
	/* --help anywhere, even where an option's value would be, is a request for help */
	bool out = false, manifest = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help=true")) {
			usage(stdout);
			return 0;
		}
		out |= !strcmp(argv[i], "--out") || !strncmp(argv[i], "--out=", 6);
		manifest |= !strcmp(argv[i], "--manifest") || !strncmp(argv[i], "--manifest=", 11);
	}
	if (out)
		return out_mode(argc, argv);
	if (manifest) {
		fprintf(stderr, "snowline devnet: --manifest goes with --out (a devnet node writes "
				"<data-dir>/devnet-manifest.json)\n");
		return 2;
	}
	/* A node with the devnet as its source: the node checks and runs it (argv[0] names us in messages). */
	char **nargv = calloc((size_t)argc + 3, sizeof *nargv);
	if (!nargv)
		return 1;
	int n = 0;
	nargv[n++] = "devnet";
	nargv[n++] = "--devnet";
	nargv[n++] = "--index-enabled";
	for (int i = 1; i < argc; i++)
		nargv[n++] = argv[i];
	int rc = cmd_node(n, nargv);
	free(nargv);
	return rc;
}
