/*
 * index.c — `snowline index`: read a node's container indexes into the SQL
 * store the Data API serves (src/index/index.h).
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/wiring.h"
#include "index/index.h"
#include "util/config.h"
#include "util/log.h"

typedef struct index_opts {
	const char *node, *store, *data_dir, *progress, *order, *log_level, *config_file, *genesis;
	uint64_t range, poll_ms, observe_s;
	bool help, dry_run;
} index_opts;

#define O(f) offsetof(index_opts, f)
static const sl_opt opts[] = {
	{ "config-file", SL_OPT_STR, O(config_file), NULL, 0, "JSON file of options" },
	{ "node", SL_OPT_STR, O(node), "http://127.0.0.1:9650", 0,
	  "the node whose /ext/index to read (snowline, or avalanchego with --index-enabled)" },
	{ "store", SL_OPT_STR, O(store), NULL, 0,
	  "postgres://… for PostgreSQL; else a SQLite file (default <data-dir>/index.db)" },
	{ "data-dir", SL_OPT_STR, O(data_dir), NULL, 0,
	  "where the SQLite store lives (default ~/.snowline)" },
	{ "genesis", SL_OPT_STR, O(genesis), NULL, 0,
	  "the network's genesis file (its genesis UTXOs and validators; snowline devnet writes one)" },
	{ "range", SL_OPT_U64, O(range), "1024", 1024, "containers per request to the node (1 to 1024)" },
	{ "poll-ms", SL_OPT_U64, O(poll_ms), "250", 60000,
	  "how often a caught-up index asks the node again" },
	{ "observe-s", SL_OPT_U64, O(observe_s), "60", 86400,
	  "how often to sample the node's view of its validators (platform.getCurrentValidators: uptime, "
	  "connectivity); 0: never" },
	{ "progress", SL_OPT_STR, O(progress), "auto", 0,
	  "auto (a line per index on a terminal, else a log line every 5 s), tty, log or off" },
	{ "order", SL_OPT_STR, O(order), "round-robin", 0,
	  "how the five indexes' batches interleave: round-robin, random:SEED, or sequential:K1,K2,… "
	  "(each index until caught up, e.g. sequential:C/block,X/block,X/tx,X/vtx,P/block)" },
	{ "log-level", SL_OPT_STR, O(log_level), "info", 0, "verbo debug trace info warn error fatal off" },
	{ "dry-run", SL_OPT_BOOL, O(dry_run), NULL, 0,
	  "fetch and derive every container, but open no store and write nothing (a benchmark's baseline)" },
	{ "help", SL_OPT_BOOL, O(help), NULL, 0, "show this help" },
};

static volatile sig_atomic_t stop;

/* --order: round-robin | random:SEED | sequential:K,K,K,K,K */
static bool parse_order(const char *s, sl_indexer_config *c, char err[256])
{
	if (!strcmp(s, "round-robin")) {
		c->order = SL_ORDER_ROUND_ROBIN;
		return true;
	}
	if (!strncmp(s, "random:", 7)) {
		char *end;
		c->seed = strtoull(s + 7, &end, 10);
		c->order = SL_ORDER_RANDOM;
		if (*end || end == s + 7) {
			snprintf(err, 256, "--order random:SEED needs a number, not '%s'", s + 7);
			return false;
		}
		return true;
	}
	if (!strncmp(s, "sequential:", 11)) {
		c->order = SL_ORDER_SEQUENTIAL;
		bool seen[SL_IDX__COUNT] = { 0 };
		int n = 0;
		char buf[128];
		snprintf(buf, sizeof buf, "%s", s + 11);
		for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
			sl_ikind k;
			if (!sl_ikind_parse(tok, &k) || seen[k] || n == SL_IDX__COUNT) {
				snprintf(
					err, 256,
					"--order sequential: '%s' is not one of the five indexes (each once)",
					tok);
				return false;
			}
			seen[k] = true;
			c->sequence[n++] = k;
		}
		if (n != SL_IDX__COUNT) {
			snprintf(err, 256,
				 "--order sequential: name all five indexes, in the order to apply them");
			return false;
		}
		return true;
	}
	snprintf(err, 256, "--order must be round-robin, random:SEED or sequential:…, not '%s'", s);
	return false;
}

int cmd_index(int argc, char **argv)
{
	index_opts o = { 0 };
	sl_config cfg;
	char err[512], e256[256];
	int rc = 2;
	if (sl_config_load(&cfg, opts, SL_ARRAY_LEN(opts), &o, argc, argv, NULL, err)) {
		fprintf(stderr, "snowline index: %s\n", err);
		goto out;
	}
	if (o.help) {
		sl_config_usage(stdout, "usage: snowline index [options]", opts, SL_ARRAY_LEN(opts));
		rc = 0;
		goto out;
	}
	sl_indexer_config ic = { .node_url = o.node,
				 .range = (unsigned)o.range,
				 .poll_ms = (unsigned)o.poll_ms,
				 .observe_s = (unsigned)o.observe_s,
				 .genesis_file = o.genesis,
				 .dry_run = o.dry_run };
	if (!o.range) {
		fprintf(stderr, "snowline index: --range must be from 1 to 1024, not 0\n");
		goto out;
	}
	if (!parse_order(o.order, &ic, e256)) {
		fprintf(stderr, "snowline index: %s\n", e256);
		goto out;
	}
	sl_level level;
	if (!cmd_progress("index", o.progress, &ic.progress) ||
	    !cmd_level("index", "log-level", o.log_level, &level))
		goto out;
	char store[1100];
	cmd_store(o.store, o.data_dir, true, store, sizeof store);
	ic.store_url = store;
	size_t nl = strlen(o.node);
	static char node[1024];
	snprintf(node, sizeof node, "%.*s", (int)(nl && o.node[nl - 1] == '/' ? nl - 1 : nl), o.node);
	ic.node_url = node;
	sl_log_setup(NULL, level, level);

	cmd_signals(&stop);
	sl_indexer *ix = sl_indexer_new(&ic, err);
	if (!ix) {
		fprintf(stderr, "snowline index: %s\n", err);
		rc = 1;
		goto out;
	}
	rc = sl_indexer_run(ix, &stop);
	sl_indexer_free(ix);
out:
	sl_config_release(&cfg);
	return rc;
}
