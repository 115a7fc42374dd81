/*
 * vset.c — `snowline validator-set`: a subnet's validators (weights and BLS
 * keys) at a P-chain height, as the store has them (api/vset.h), as JSON.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/vset.h"
#include "cmd/cmd.h"
#include "cmd/wiring.h"
#include "crypto/cb58.h"
#include "util/config.h"

typedef struct vset_opts {
	const char *store, *data_dir, *config_file, *subnet, *height;
	bool help;
} vset_opts;

#define O(f) offsetof(vset_opts, f)
static const sl_opt opts[] = {
	{ "config-file", SL_OPT_STR, O(config_file), NULL, 0, "JSON file of options" },
	{ "store", SL_OPT_STR, O(store), NULL, 0,
	  "postgres://… for PostgreSQL; else a SQLite file (default <data-dir>/index.db)" },
	{ "data-dir", SL_OPT_STR, O(data_dir), NULL, 0,
	  "where the SQLite store lives (default ~/.snowline)" },
	{ "subnet", SL_OPT_STR, O(subnet), "11111111111111111111111111111111LpoYY", 0,
	  "the subnet or L1 (cb58 id; the default is the primary network's), or 'all': every one with validators" },
	{ "height", SL_OPT_STR, O(height), NULL, 0, "the P-chain height (default: the last the store has)" },
	{ "help", SL_OPT_BOOL, O(help), NULL, 0, "show this help" },
};

static const char usage[] =
	"usage: snowline validator-set [options]\n\n"
	"A subnet's validator set at a P-chain height, as avalanchego's platform.getValidatorsAt gives it: each\n"
	"validator's node id, weight (a decimal string) and BLS public key (0x-hex, or null: none), by node id,\n"
	"and their total weight, as one JSON object {height, subnetId, validators, totalWeight}; with --subnet\n"
	"all, an array of them, the primary network first. An L1's inactive validators count as one member,\n"
	"NodeID-111111111111111111116DBWJs, without a key. docs/index.md says how the indexer keeps them.";

/* A decimal u64, all digits; false otherwise. */
static bool parse_height(const char *s, uint64_t *out)
{
	if (!s || !*s || strlen(s) > 20)
		return false;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	errno = 0;
	char *end = NULL;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

static sl_err print_set(sl_conn *c, const uint8_t subnet[32], uint64_t height, sl_jw *j)
{
	sl_vset set;
	sl_err e = sl_vset_read(c, subnet, height, &set);
	if (!e)
		sl_vset_json(j, &set);
	sl_vset_release(&set);
	return e;
}

int cmd_vset(int argc, char **argv)
{
	vset_opts o = { 0 };
	sl_config cfg;
	char err[512], e256[256];
	int rc = 2;
	if (sl_config_load(&cfg, opts, SL_ARRAY_LEN(opts), &o, argc, argv, NULL, err)) {
		fprintf(stderr, "snowline validator-set: %s\n", err);
		goto out;
	}
	if (o.help) {
		sl_config_usage(stdout, usage, opts, SL_ARRAY_LEN(opts));
		rc = 0;
		goto out;
	}
	bool all = !strcmp(o.subnet, "all");
	uint8_t subnet[32];
	const char *msg = NULL;
	char msgbuf[96];
	if (!all && sl_cb58_decode_id(o.subnet, strlen(o.subnet), subnet, &msg, msgbuf)) {
		fprintf(stderr, "snowline validator-set: --subnet %s: %s\n", o.subnet,
			msg ? msg : "not an id");
		goto out;
	}
	uint64_t height = 0;
	if (o.height && !parse_height(o.height, &height)) {
		fprintf(stderr,
			"snowline validator-set: --height %s: not a P-chain height (a decimal number)\n",
			o.height);
		goto out;
	}
	char store[1100];
	cmd_store(o.store, o.data_dir, false, store, sizeof store);
	rc = 1;
	sl_db_config dc = { .url = store, .mode = SL_DB_READ, .pool_size = 1 };
	sl_db *db = sl_db_open(&dc, e256);
	sl_conn *c = db ? sl_db_acquire(db, 10000, e256) : NULL;
	if (!c) {
		fprintf(stderr, "snowline validator-set: store %s: %s\n", store, e256);
		sl_db_close(db);
		goto out;
	}
	sl_buf b;
	sl_buf_init(&b, (size_t)1 << 30);
	sl_jw j;
	sl_jw_init(&j, &b);
	uint64_t tip = 0;
	bool any = false;
	/* one snapshot: the tip and the sets read at one moment while an indexer writes */
	sl_err e = sl_conn_begin_read(c);
	if (!e)
		e = sl_vset_tip(c, &tip, &any);
	if (e) {
		fprintf(stderr, "snowline validator-set: %s\n", sl_conn_error(c));
	} else if (!any) {
		fprintf(stderr, "snowline validator-set: the store has no P-chain block yet\n");
	} else if (o.height && height > tip) {
		fprintf(stderr,
			"snowline validator-set: --height %llu: the store's P-chain ends at height %llu\n",
			(unsigned long long)height, (unsigned long long)tip);
	} else {
		if (!o.height)
			height = tip;
		if (!all) {
			e = print_set(c, subnet, height, &j);
		} else {
			uint8_t(*ids)[32] = NULL;
			size_t n = 0;
			e = sl_vset_subnets(c, height, &ids, &n);
			sl_jw_arr(&j);
			for (size_t i = 0; !e && i < n; i++)
				e = print_set(c, ids[i], height, &j);
			sl_jw_arr_end(&j);
			free(ids);
		}
		if (e)
			fprintf(stderr, "snowline validator-set: %s\n", sl_conn_error(c));
		else if (b.err)
			fprintf(stderr, "snowline validator-set: out of memory\n");
		else if (fwrite(b.p, 1, b.len, stdout) != b.len || fputc('\n', stdout) == EOF ||
			 fflush(stdout))
			fprintf(stderr, "snowline validator-set: cannot write: %s\n", strerror(errno));
		else
			rc = 0;
	}
	sl_conn_rollback(c);
	sl_buf_release(&b);
	sl_db_release(db, c);
	sl_db_close(db);
out:
	sl_config_release(&cfg);
	return rc;
}
