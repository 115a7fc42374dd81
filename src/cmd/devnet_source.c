/*
 * devnet_source.c — the devnet as the node's source (`snowline devnet`,
 * `snowline node --devnet`): a producer (node/node.h) that feeds the
 * generator's containers (src/devnet/) to the node: its whole history first,
 * then one live step every --devnet-interval-ms.
 *
 * What the data dir keeps (docs/devnet.md, "Live mode and restarts"):
 *   - meta "devnet/config": the settings that define the history (seed,
 *     network, network id, start time, txs, accounts, validators), written
 *     before the first container; a start with other settings is refused;
 *   - meta "devnet/steps" and "devnet/run/<i>": how many live steps were
 *     taken and how many seconds each took (runs of equal steps), written
 *     before the step's containers, so a replay makes the same blocks even
 *     when --devnet-interval-ms changed since;
 *   - devnet-snapshot.bin: the generator's whole state (sl_devnet_snapshot),
 *     written after the history, every minute of live steps and on a clean
 *     stop (tmp + rename). A restart loads it, checks it against the store
 *     and replays only the steps after it (the feed skips known ids); a
 *     missing, damaged or foreign snapshot means generating everything
 *     again, with a warning;
 *   - devnet-manifest.json, rewritten after the history and every live step.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/wiring.h"
#include "crypto/cb58.h"
#include "store/containers.h"

#define SNAPSHOT_FILE "devnet-snapshot.bin"
#define SNAPSHOT_EVERY_NS (60ull * 1000000000)
#define PROGRESS_EVERY_NS (5ull * 1000000000)
#define SNAPSHOT_MAX (64ull << 30) /* a sanity cap on the file we read back */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- options ---- */

bool sl_option_given(int argc, char **argv, const char *name)
{
	size_t n = strlen(name);
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--", 2) && !strncmp(argv[i] + 2, name, n) &&
		    (argv[i][2 + n] == 0 || argv[i][2 + n] == '='))
			return true;
	char env[128] = "SNOWLINE_";
	size_t k = 9;
	for (const char *p = name; *p && k < sizeof env - 1; p++)
		env[k++] = *p == '-' ? '_' : (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
	env[k] = 0;
	return getenv(env) != NULL;
}

sl_err sl_devnet_options_check(const sl_devnet_options *o, sl_devnet_config *cfg, char err[512])
{
	static const struct {
		const char *name, *why;
		size_t off;
	} counts[] = {
		{ "devnet-txs", "a history of no txs has nothing to serve",
		  offsetof(sl_devnet_options, txs) },
		{ "devnet-accounts", "the history needs keys to hold and move funds",
		  offsetof(sl_devnet_options, accounts) },
		{ "devnet-validators", "the primary network needs a validator at genesis",
		  offsetof(sl_devnet_options, validators) },
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(counts); i++)
		if (!*(const uint64_t *)((const char *)o + counts[i].off)) {
			snprintf(err, 512, "--%s must be at least 1, not 0 (%s)", counts[i].name,
				 counts[i].why);
			return SL_ERR_INVALID;
		}
	if (!o->start_time) {
		snprintf(
			err, 512,
			"--devnet-start-time must be a unix time after 0 (the devnet's genesis needs a time)");
		return SL_ERR_INVALID;
	}
	if (!o->seed || !*o->seed || strlen(o->seed) > 200) {
		snprintf(err, 512, "--devnet-seed must be 1 to 200 bytes of text, not '%s'",
			 o->seed ? o->seed : "");
		return SL_ERR_INVALID;
	}
	sl_devnet_network net;
	if (!sl_devnet_network_parse(o->network, &net)) {
		snprintf(err, 512, "--network must be local, fuji or mainnet, not '%s'",
			 o->network ? o->network : "");
		return SL_ERR_INVALID;
	}
	uint32_t id = sl_devnet_network_id(net);
	if (o->network_id_given && o->network_id != id) {
		if (net != SL_DEVNET_LOCAL) {
			snprintf(err, 512,
				 "--network-id is %llu but --network %s is network %u; give one or the other",
				 (unsigned long long)o->network_id, o->network, id);
			return SL_ERR_INVALID;
		}
		if (o->network_id == 1 || o->network_id == 5 || o->network_id == 0) {
			snprintf(err, 512,
				 "--network-id %llu is %s's; a local devnet takes 12345 or an id of its own "
				 "(or use --network %s)",
				 (unsigned long long)o->network_id,
				 o->network_id == 1   ? "mainnet"
				 : o->network_id == 5 ? "fuji"
						      : "no network",
				 o->network_id == 1 ? "mainnet" : "fuji");
			return SL_ERR_INVALID;
		}
		id = (uint32_t)o->network_id;
	}
	*cfg = (sl_devnet_config){ .seed = o->seed,
				   .network = net,
				   .network_id = id,
				   .start_time = o->start_time,
				   .txs = o->txs,
				   .accounts = (uint32_t)o->accounts,
				   .validators = (uint32_t)o->validators,
				   .genesis_signers = o->genesis_signers };
	return SL_OK;
}

/* ---- the history's settings, as kept in the store ---- */

enum { F_SEED, F_NETWORK, F_NETWORK_ID, F_START, F_TXS, F_ACCOUNTS, F_VALIDATORS, F_SIGNERS, NFIELDS };
static const struct {
	const char *key, *option;
} fields[NFIELDS] = {
	{ "seed", "--devnet-seed" },
	{ "network", "--network" },
	{ "network-id", "--network-id" },
	{ "start-time", "--devnet-start-time" },
	{ "txs", "--devnet-txs" },
	{ "accounts", "--devnet-accounts" },
	{ "validators", "--devnet-validators" },
	{ "genesis-signers", "--devnet-genesis-signers" },
};

static void field_values(const sl_devnet_config *c, char v[NFIELDS][256])
{
	snprintf(v[F_SEED], 256, "%s", c->seed ? c->seed : "snowline");
	snprintf(v[F_NETWORK], 256, "%s", sl_devnet_network_name(c->network));
	snprintf(v[F_NETWORK_ID], 256, "%u",
		 c->network_id ? c->network_id : sl_devnet_network_id(c->network));
	snprintf(v[F_START], 256, "%llu", (unsigned long long)c->start_time);
	snprintf(v[F_TXS], 256, "%llu", (unsigned long long)c->txs);
	snprintf(v[F_ACCOUNTS], 256, "%u", c->accounts);
	snprintf(v[F_VALIDATORS], 256, "%u", c->validators);
	snprintf(v[F_SIGNERS], 256, "%s", c->genesis_signers ? "true" : "false");
}

/* key NUL value NUL ... */
static size_t config_record(const sl_devnet_config *c, uint8_t out[4096])
{
	char v[NFIELDS][256];
	field_values(c, v);
	size_t n = 0;
	for (int i = 0; i < NFIELDS; i++) {
		size_t kl = strlen(fields[i].key) + 1, vl = strlen(v[i]) + 1;
		memcpy(out + n, fields[i].key, kl);
		memcpy(out + n + kl, v[i], vl);
		n += kl + vl;
	}
	return n;
}

/* SL_ERR_CONFLICT with the message when the record names other settings than c. */
static sl_err config_compare(const sl_devnet_config *c, const uint8_t *rec, size_t len, const char *data_dir,
			     char err[512])
{
	char v[NFIELDS][256];
	field_values(c, v);
	bool seen[NFIELDS] = { 0 };
	for (size_t at = 0; at < len;) {
		const char *key = (const char *)rec + at;
		size_t kl = strnlen(key, len - at);
		if (at + kl + 1 >= len)
			break;
		const char *val = key + kl + 1;
		size_t vl = strnlen(val, len - at - kl - 1);
		for (int i = 0; i < NFIELDS; i++)
			if (!strcmp(key, fields[i].key) && (seen[i] = true) && strcmp(val, v[i])) {
				snprintf(
					err, 512,
					"%s is '%s' but the data in %s was made with '%.*s'; use another --data-dir or "
					"the same setting",
					fields[i].option, v[i], data_dir, (int)vl, val);
				return SL_ERR_CONFLICT;
			}
		at += kl + 1 + vl + 1;
	}
	/* a record from before --devnet-genesis-signers was made without them */
	if (!seen[F_SIGNERS] && c->genesis_signers) {
		snprintf(err, 512,
			 "%s is 'true' but the data in %s was made without genesis signers; use another "
			 "--data-dir or --devnet-genesis-signers=false",
			 fields[F_SIGNERS].option, data_dir);
		return SL_ERR_CONFLICT;
	}
	return SL_OK;
}

sl_err sl_devnet_source_check(const sl_devnet_config *cfg, const char *data_dir, char err[512])
{
	char path[1200];
	snprintf(path, sizeof path, "%s/containers", data_dir);
	struct stat st;
	if (stat(path, &st))
		return SL_OK; /* a new data dir */
	char e256[256];
	sl_cstore *s = sl_cstore_open(path, e256);
	if (!s) {
		snprintf(err, 512, "cannot open the store in %s: %s", path, e256);
		return SL_ERR_STORE;
	}
	uint8_t rec[4096];
	size_t len = 0;
	sl_err e = sl_cstore_meta_get(s, "devnet/config", rec, sizeof rec, &len);
	sl_cstore_close(s);
	if (e == SL_ERR_NOT_FOUND)
		return SL_OK;
	if (e) {
		snprintf(err, 512, "cannot read the devnet settings in %s: %s", path, sl_err_name(e));
		return e;
	}
	return config_compare(cfg, rec, len, data_dir, err);
}

/* ---- the producer ---- */

typedef struct run {
	sl_feed *f;
	sl_devnet *d;
	sl_logger *log, *chain_log[3];
	bool history; /* generating the history: a stop may cut it short */
	uint64_t t0, last_progress;
	/* live steps: seconds per step, as runs (first step, seconds) */
	uint64_t steps, (*runs)[2];
	size_t nruns;
	sl_devnet_p2p *p2p; /* the validators' p2p listeners, or NULL */
} run;

static sl_err sink(void *ctx, sl_ikind kind, const uint8_t id[32], int64_t ts_ns, const uint8_t *bytes,
		   size_t len)
{
	run *r = ctx;
	if (r->history && sl_feed_stopping(r->f))
		return SL_ERR_UNAVAILABLE; /* stopping: end the history early (a live step is finished) */
	/* each container is logged at debug by the node as it is appended (on the P, X or C logger) */
	return sl_feed_add(r->f, kind, id, ts_ns, bytes, len);
}

static uint64_t total_emitted(const sl_devnet_stats *s)
{
	uint64_t n = 0;
	for (int k = 0; k < SL_IDX__COUNT; k++)
		n += s->emitted[k];
	return n;
}

static void progress(void *ctx, const sl_devnet_stats *s)
{
	run *r = ctx;
	uint64_t t = now_ns();
	if (t - r->last_progress < PROGRESS_EVERY_NS)
		return;
	r->last_progress = t;
	double el = (double)(t - r->t0) / 1e9, rate = el > 0 ? (double)s->txs / el : 0;
	double left = rate > 0 ? (double)(s->txs_target - SL_MIN(s->txs, s->txs_target)) / rate : 0;
	SL_LOG(r->log, SL_INFO,
	       "devnet: history %llu%% (%llu of %llu txs, %llu containers, %.0f tx/s, about %.0f s left)",
	       (unsigned long long)(s->steps_total ? s->steps * 100 / s->steps_total : 0),
	       (unsigned long long)s->txs, (unsigned long long)s->txs_target,
	       (unsigned long long)total_emitted(s), rate, left);
}

/* Write a file of the data dir whole: readers see the old or the new one (tmp file, rename). */
static void write_whole(sl_feed *f, const char *name, const sl_buf *b)
{
	char path[1200], tmp[1210];
	snprintf(path, sizeof path, "%s/%s", sl_feed_data_dir(f), name);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if (b->err)
		return;
	FILE *fp = fopen(tmp, "wb");
	if (!fp)
		return;
	bool ok = fwrite(b->p, 1, b->len, fp) == b->len;
	if (fclose(fp) == 0 && ok)
		rename(tmp, path);
	else
		unlink(tmp);
}

static void write_manifest(sl_feed *f, sl_devnet *d)
{
	sl_buf b;
	sl_buf_init(&b, 256u << 20);
	sl_devnet_manifest_write(d, &b);
	write_whole(f, "devnet-manifest.json", &b);
	/* and what platform.getCurrentValidators answers from now on */
	sl_buf_reset(&b);
	sl_devnet_current_validators_write(d, &b);
	sl_err e = b.err ? SL_ERR_TOO_LARGE : sl_feed_current_validators(f, b.p, b.len);
	if (e)
		sl_feed_fail(f, "cannot keep the current validators: %s", sl_err_name(e));
	/* and what info.peers answers */
	sl_buf_reset(&b);
	sl_devnet_peers_write(d, &b);
	e = b.err ? SL_ERR_TOO_LARGE : sl_feed_peers(f, b.p, b.len);
	if (e)
		sl_feed_fail(f, "cannot keep the peers: %s", sl_err_name(e));
	sl_buf_release(&b);
}

/* The genesis the history starts from, for an indexer of this node (snowline index --genesis), and the
 * C-chain's for the node's eth JSON-RPC. */
static void write_genesis(sl_feed *f, sl_devnet *d)
{
	sl_buf b;
	sl_buf_init(&b, 256u << 20);
	sl_devnet_genesis_write(d, &b);
	write_whole(f, "devnet-genesis.json", &b);
	/* and the C-chain's genesis, for the node's eth JSON-RPC (balances at any block) */
	sl_buf_reset(&b);
	sl_err e = sl_devnet_c_genesis_write(d, &b);
	if (!e)
		e = sl_feed_evm_genesis(f, b.p, b.len);
	if (e)
		sl_feed_fail(f, "cannot keep the C-chain's genesis: %s", sl_err_name(e));
	sl_buf_release(&b);
}

/* Reward UTXOs as the devnet pays them, kept for platform.getRewardUTXOs. */
static sl_err rewards_sink(void *ctx, const uint8_t staking_tx[32], const sl_span *utxos, size_t n)
{
	run *r = ctx;
	return sl_feed_reward_utxos(r->f, staking_tx, utxos, n);
}

/* Write the snapshot: tmp file, fsync, rename, so a crash leaves the old one or the new one. */
static void write_snapshot(run *r)
{
	uint64_t t = now_ns();
	sl_buf b;
	sl_buf_init(&b, SNAPSHOT_MAX);
	sl_err e = sl_devnet_snapshot(r->d, &b);
	char path[1200], tmp[1210];
	snprintf(path, sizeof path, "%s/%s", sl_feed_data_dir(r->f), SNAPSHOT_FILE);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	int fd = e ? -1 : open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	bool ok = fd >= 0;
	for (size_t off = 0; ok && off < b.len;) {
		ssize_t n = write(fd, b.p + off, b.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		ok = n > 0;
		off += ok ? (size_t)n : 0;
	}
	ok = ok && !fsync(fd);
	if (fd >= 0 && close(fd))
		ok = false;
	ok = ok && !rename(tmp, path);
	if (!ok) {
		SL_LOG(r->log, SL_WARN, "devnet: cannot write %s: %s", path,
		       e ? sl_err_name(e) : strerror(errno));
		unlink(tmp);
	} else {
		sl_devnet_stats st;
		sl_devnet_stats_get(r->d, &st);
		SL_LOG(r->log, SL_DEBUG, "devnet: snapshot at live step %llu: %zu bytes in %.3f s",
		       (unsigned long long)st.live_steps, b.len, (double)(now_ns() - t) / 1e9);
	}
	sl_buf_release(&b);
}

/* The snapshot file into memory; NULL when there is none (or it cannot be read: why says so). */
static uint8_t *read_snapshot(const char *path, size_t *len, char why[256])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, 256, "%s", errno == ENOENT ? "" : strerror(errno));
		return NULL;
	}
	struct stat st;
	uint8_t *p = NULL;
	if (fstat(fd, &st) || st.st_size <= 0 || (uint64_t)st.st_size > SNAPSHOT_MAX ||
	    !(p = malloc((size_t)st.st_size))) {
		snprintf(why, 256, "cannot read it (%lld bytes)", (long long)st.st_size);
		close(fd);
		return NULL;
	}
	size_t off = 0;
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, p + off, (size_t)st.st_size - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	if (off != (size_t)st.st_size) {
		snprintf(why, 256, "short read");
		free(p);
		return NULL;
	}
	*len = off;
	return p;
}

/*
 * Continue from the snapshot when it belongs to this store: the same
 * settings (sl_devnet_restore checks), no more containers per index than the
 * store holds, no more live steps than were recorded. Returns a devnet ready
 * for the steps after it, or NULL (the caller generates everything again).
 */
static sl_devnet *resume(run *r, const sl_devnet_config *cfg)
{
	char path[1200], why[256] = "", err[256];
	snprintf(path, sizeof path, "%s/%s", sl_feed_data_dir(r->f), SNAPSHOT_FILE);
	uint64_t t = now_ns();
	size_t len = 0;
	uint8_t *p = read_snapshot(path, &len, why);
	if (!p) {
		if (*why)
			SL_LOG(r->log, SL_WARN, "devnet: ignoring %s: %s; generating the history again", path,
			       why);
		return NULL;
	}
	sl_devnet *d = sl_devnet_new(cfg, err);
	sl_err e = d ? sl_devnet_restore(d, p, len, why) : SL_ERR_NOMEM;
	free(p);
	sl_devnet_stats st;
	if (!e) {
		sl_devnet_stats_get(d, &st);
		for (int k = 0; k < SL_IDX__COUNT && !e; k++) {
			uint64_t have = 0;
			if (sl_feed_count(r->f, (sl_ikind)k, &have) || have < st.emitted[k]) {
				snprintf(why, sizeof why, "it has %llu %s containers, the store %llu",
					 (unsigned long long)st.emitted[k], sl_ikind_name((sl_ikind)k),
					 (unsigned long long)have);
				e = SL_ERR_CONFLICT;
			}
		}
		if (!e && st.live_steps > r->steps) {
			snprintf(why, sizeof why, "it is at live step %llu, the store recorded %llu",
				 (unsigned long long)st.live_steps, (unsigned long long)r->steps);
			e = SL_ERR_CONFLICT;
		}
	}
	if (e) {
		SL_LOG(r->log, SL_WARN, "devnet: ignoring %s: %s; generating the history again", path,
		       d ? why : err);
		sl_devnet_free(d);
		return NULL;
	}
	SL_LOG(r->log, SL_INFO, "devnet: resumed from %s (live step %llu, %llu containers) in %.3f s", path,
	       (unsigned long long)st.live_steps, (unsigned long long)total_emitted(&st),
	       (double)(now_ns() - t) / 1e9);
	return d;
}

/* ---- live steps and their seconds ---- */

static uint64_t seconds_of(const run *r, uint64_t step)
{
	uint64_t s = 0;
	for (size_t i = 0; i < r->nruns && r->runs[i][0] <= step; i++)
		s = r->runs[i][1];
	return s;
}

static bool meta_u64(sl_feed *f, const char *key, uint64_t *v)
{
	uint8_t b[8];
	size_t len = 0;
	if (sl_feed_meta_get(f, key, b, sizeof b, &len) || len != 8)
		return false;
	*v = sl_be64(b);
	return true;
}

static sl_err meta_put_u64(sl_feed *f, const char *key, uint64_t v)
{
	uint8_t b[8];
	sl_put_be64(b, v);
	return sl_feed_meta_put(f, key, b, 8);
}

/* Append the run (first step, seconds) to the store and to r. */
static sl_err add_run(run *r, uint64_t first, uint64_t seconds)
{
	uint64_t(*grown)[2] = realloc(r->runs, (r->nruns + 1) * sizeof *r->runs);
	if (!grown)
		return SL_ERR_NOMEM;
	r->runs = grown;
	uint8_t b[16];
	sl_put_be64(b, first);
	sl_put_be64(b + 8, seconds);
	char key[64];
	snprintf(key, sizeof key, "devnet/run/%llu", (unsigned long long)r->nruns);
	sl_err e = sl_feed_meta_put(r->f, key, b, 16);
	if (!e)
		e = meta_put_u64(r->f, "devnet/runs", r->nruns + 1);
	if (e)
		return e;
	r->runs[r->nruns][0] = first;
	r->runs[r->nruns][1] = seconds;
	r->nruns++;
	return SL_OK;
}

/*
 * The recorded steps and their runs. A run that starts after the recorded
 * steps (a crash between the two writes of record_step) is dropped: the next
 * step overwrites it. Steps recorded by a build that kept no runs used the
 * period of their time, which only the current one can stand for.
 */
static sl_err load_runs(run *r, uint64_t seconds_now)
{
	uint64_t n = 0;
	(void)meta_u64(r->f, "devnet/steps", &r->steps);
	(void)meta_u64(r->f, "devnet/runs", &n);
	for (uint64_t i = 0; i < n; i++) {
		char key[64];
		uint8_t b[16];
		size_t len = 0;
		snprintf(key, sizeof key, "devnet/run/%llu", (unsigned long long)i);
		if (sl_feed_meta_get(r->f, key, b, sizeof b, &len) || len != 16 || sl_be64(b) > r->steps)
			break;
		uint64_t(*grown)[2] = realloc(r->runs, (r->nruns + 1) * sizeof *r->runs);
		if (!grown)
			return SL_ERR_NOMEM;
		r->runs = grown;
		r->runs[r->nruns][0] = sl_be64(b);
		r->runs[r->nruns][1] = sl_be64(b + 8);
		r->nruns++;
	}
	if (r->steps && !r->nruns) {
		SL_LOG(r->log, SL_WARN,
		       "devnet: %llu live steps without recorded periods: taking %llu s for each",
		       (unsigned long long)r->steps, (unsigned long long)seconds_now);
		return add_run(r, 1, seconds_now);
	}
	return SL_OK;
}

/* Record live step `step` of `seconds` before making it (write-ahead: a replay makes the same step). */
static sl_err record_step(run *r, uint64_t step, uint64_t seconds)
{
	sl_err e;
	if ((!r->nruns || r->runs[r->nruns - 1][1] != seconds) && (e = add_run(r, step, seconds)))
		return e;
	if ((e = meta_put_u64(r->f, "devnet/steps", step)))
		return e;
	r->steps = step;
	return SL_OK;
}

/* Each chain's growth since the last call, at info on its own logger. */
static void log_growth(run *r, sl_devnet_stats *last)
{
	sl_devnet_stats st;
	sl_devnet_stats_get(r->d, &st);
	static const char *const names[3] = { "P", "X", "C" };
	for (int c = 0; c < 3; c++)
		SL_LOG(r->chain_log[c], SL_INFO,
		       "%s-chain: +%llu blocks, +%llu txs in the last minute (height %llu)", names[c],
		       (unsigned long long)(st.blocks[c] - last->blocks[c]),
		       (unsigned long long)(st.chain_txs[c] - last->chain_txs[c]),
		       (unsigned long long)st.height[c]);
	*last = st;
}

static void run_devnet(void *ctx, sl_feed *f)
{
	const sl_devnet_source *src = ctx;
	run r = { .f = f, .log = sl_feed_log(f), .t0 = now_ns() };
	r.chain_log[0] = sl_log_get("P");
	r.chain_log[1] = sl_log_get("X");
	r.chain_log[2] = sl_log_get("C");
	char err[512];
	sl_devnet_config cfg = src->cfg;
	uint64_t live_seconds = src->interval_ms / 1000 + 1;

	/* The settings that define the history: recorded before the first container, refused if others. */
	uint8_t rec[4096];
	size_t len = 0;
	sl_err e = sl_feed_meta_get(f, "devnet/config", rec, sizeof rec, &len);
	if (e == SL_OK && config_compare(&cfg, rec, len, sl_feed_data_dir(f), err)) {
		sl_feed_fail(f, "%s", err);
		return;
	}
	if (e == SL_ERR_NOT_FOUND) {
		len = config_record(&cfg, rec);
		e = sl_feed_meta_put(f, "devnet/config", rec, len);
	}
	if (e || (e = load_runs(&r, live_seconds))) {
		sl_feed_fail(f, "cannot read or record the devnet's settings: %s", sl_err_name(e));
		return;
	}

	bool fresh = false;
	r.d = resume(&r, &cfg);
	if (r.d) {
		sl_devnet_on_rewards(r.d, rewards_sink, &r);
		write_genesis(f, r.d);
	} else {
		fresh = true;
		if (!(r.d = sl_devnet_new(&cfg, err))) {
			sl_feed_fail(f, "%s", err);
			goto out;
		}
		SL_LOG(r.log, SL_INFO, "devnet: generating the history of seed '%s' on %s (%llu txs)",
		       cfg.seed, sl_devnet_network_name(cfg.network), (unsigned long long)cfg.txs);
		sl_devnet_on_progress(r.d, progress, &r);
		sl_devnet_on_rewards(r.d, rewards_sink, &r);
		write_genesis(f, r.d);
		r.history = true;
		r.last_progress = now_ns();
		e = sl_devnet_history(r.d, sink, &r);
		r.history = false;
		if (!e)
			e = sl_feed_flush(f);
		if (e) {
			if (!sl_feed_stopping(f))
				sl_feed_fail(f, "%s", sl_err_name(e));
			goto out;
		}
		sl_devnet_stats st;
		sl_devnet_stats_get(r.d, &st);
		SL_LOG(r.log, SL_INFO,
		       "devnet: history made in %.1f s: %llu txs, %llu containers (P/block %llu, C/block %llu, "
		       "X/tx %llu, X/block %llu, X/vtx %llu), %llu new to the store",
		       (double)(now_ns() - r.t0) / 1e9, (unsigned long long)st.txs,
		       (unsigned long long)total_emitted(&st), (unsigned long long)st.emitted[SL_IDX_P_BLOCK],
		       (unsigned long long)st.emitted[SL_IDX_C_BLOCK],
		       (unsigned long long)st.emitted[SL_IDX_X_TX],
		       (unsigned long long)st.emitted[SL_IDX_X_BLOCK],
		       (unsigned long long)st.emitted[SL_IDX_X_VTX], (unsigned long long)sl_feed_added(f));
	}

	/* Replay the recorded live steps after the snapshot (or all of them), with their own seconds. */
	sl_devnet_stats st;
	sl_devnet_stats_get(r.d, &st);
	uint64_t from = st.live_steps;
	for (uint64_t i = from + 1; !e && i <= r.steps && !sl_feed_stopping(f); i++)
		e = sl_devnet_step(r.d, seconds_of(&r, i) ? seconds_of(&r, i) : live_seconds, sink, &r);
	if (!e)
		e = sl_feed_flush(f);
	if (e) {
		sl_feed_fail(f, "replaying live steps: %s", sl_err_name(e));
		goto out;
	}
	if (sl_feed_stopping(f))
		goto out;
	if (r.steps > from)
		SL_LOG(r.log, SL_INFO, "devnet: replayed live steps %llu to %llu",
		       (unsigned long long)from + 1, (unsigned long long)r.steps);
	if (src->p2p_port) {
		r.p2p = sl_devnet_p2p_start(r.d,
					    &(sl_devnet_p2p_options){ .base_port = src->p2p_port,
								      .policy = src->p2p_policy },
					    err);
		if (!r.p2p) {
			sl_feed_fail(f, "%s", err);
			goto out;
		}
		SL_LOG(r.log, SL_INFO, "devnet: validators answer on p2p from 127.0.0.1:%u (node i: + 2i)",
		       src->p2p_port);
	}
	write_manifest(f, r.d);
	if (fresh || r.steps > from)
		write_snapshot(&r);
	SL_LOG(r.log, SL_INFO, "devnet: ready in %.1f s (%llu containers new to the store); %s",
	       (double)(now_ns() - r.t0) / 1e9, (unsigned long long)sl_feed_added(f),
	       src->interval_ms ? "live steps follow" : "no live steps (--devnet-interval-ms 0)");
	sl_feed_caught_up(f);

	uint64_t last_snap = now_ns(), last_growth = last_snap;
	sl_devnet_stats growth;
	sl_devnet_stats_get(r.d, &growth);
	bool dirty = false;
	while (!sl_feed_stopping(f) && src->interval_ms) {
		sl_feed_sleep_ms(f, src->interval_ms);
		if (sl_feed_stopping(f))
			break;
		if ((e = record_step(&r, r.steps + 1, live_seconds))) {
			sl_feed_fail(f, "cannot record live step %llu: %s", (unsigned long long)r.steps + 1,
				     sl_err_name(e));
			break;
		}
		e = sl_devnet_step(r.d, live_seconds, sink, &r);
		if (!e)
			e = sl_feed_flush(f);
		if (e) {
			sl_feed_fail(f, "live step: %s", sl_err_name(e));
			break;
		}
		dirty = true;
		SL_LOG(r.log, SL_DEBUG, "devnet: live step %llu (%llu s)", (unsigned long long)r.steps,
		       (unsigned long long)live_seconds);
		write_manifest(f, r.d);
		uint64_t t = now_ns();
		if (t - last_growth >= SNAPSHOT_EVERY_NS) {
			log_growth(&r, &growth);
			last_growth = t;
		}
		if (t - last_snap >= SNAPSHOT_EVERY_NS) {
			write_snapshot(&r);
			last_snap = t;
			dirty = false;
		}
	}
	if (dirty && !e)
		write_snapshot(&r); /* a clean stop: the next start continues from here */
	/* Without live steps the validators still answer on p2p until the node stops. */
	while (r.p2p && !e && !sl_feed_stopping(f))
		sl_feed_sleep_ms(f, 500);
out:
	sl_devnet_p2p_stop(r.p2p);
	free(r.runs);
	sl_devnet_free(r.d);
}

sl_node_producer sl_devnet_producer(const sl_devnet_source *src)
{
	return (sl_node_producer){ .name = "devnet", .run = run_devnet, .ctx = (void *)src };
}
