/*
 * indexer.c — the fetchers, the applier, the network check and progress
 * (index.h describes the whole).
 */
#include "index/index.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "codec/network.h"
#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "crypto/hash.h"
#include "http/client.h"
#include "http/indexapi.h"
#include "index/derive.h"
#include "index/genesis.h"
#include "index/observe.h"
#include "index/write.h"
#include "store/sql.h"
#include "util/hex.h"
#include "util/jsonv.h"
#include "util/jw.h"
#include "util/limits.h"
#include "util/lock.h"
#include "util/log.h"

/*
 * While catching up, the batches that are ready share one transaction, up to a number of txs: a
 * commit costs about the pages it rewrites, so fewer, larger ones are faster, as far as the
 * writer's cache holds the pages a transaction dirties and the memory holds the batches. Both
 * scale with the writer's cache (--store-cache-mb): IX_MB_PER_QUEUE MiB of it per batch a fetcher
 * may derive ahead (IX_QUEUE_MIN to IX_QUEUE_MAX; a batch of 1024 containers holds a few MiB),
 * IX_TXS_PER_MB txs a transaction per MiB (IX_GROUP_MIN to IX_GROUP_MAX_TXS).
 */
#define IX_QUEUE_MIN 3
#define IX_QUEUE_MAX 32
#define IX_MB_PER_QUEUE 128
#define IX_GROUP_MAX (IX_QUEUE_MAX * SL_IDX__COUNT) /* batches one transaction may apply */
#define IX_TXS_PER_MB 50
#define IX_GROUP_MIN 50000
#define IX_GROUP_MAX_TXS 200000
#define IX_CACHE_MIN_MB 256 /* the writer's cache when not set: a quarter of the memory, within these */
#define IX_CACHE_MAX_MB 4096
#define IX_MAX_RESPONSE (256u << 20)	    /* one range answer (hex of up to 1024 containers) */
#define IX_BULK_MIN 50000		    /* containers behind from which the indexes are deferred */
#define IX_MAX_BATCH_DATA (96u << 20)	    /* their decoded bytes */
#define IX_HEAD_EVERY_NS (2 * 1000000000ll) /* how often a fetcher asks for the node's head */
#define IX_RPC_TIMEOUT_MS 60000

typedef struct fetcher {
	struct sl_indexer *ix;
	sl_ikind kind;
	pthread_t thread;
	bool started;
	uint64_t next;	     /* the next container to fetch */
	uint8_t prev_id[32]; /* the id of container next - 1 (as the store applied it) */
	bool has_prev;
	uint32_t want; /* containers per request (halved when an answer is too large) */
	/* the queue of derived batches; guarded by ix->lock */
	ix_batch *queue[IX_QUEUE_MAX];
	size_t qhead, qlen;
	/* applied batches given back for the next ones, their memory kept (a catch-up's churn of
	 * a few MB a batch through the allocator cost page faults); guarded by ix->lock */
	ix_batch *spare[IX_QUEUE_MAX];
	size_t nspare;
	/* state shown in progress and metrics */
	_Atomic uint64_t head;	  /* containers the node has (as last asked) */
	_Atomic uint64_t applied; /* containers applied (the cursor) */
	_Atomic bool caught_up;	  /* the last request found nothing new */
	_Atomic bool ever_caught_up;
	_Atomic int64_t caught_up_ms; /* when it last held everything the node had */
	_Atomic bool failed;	      /* a container could not be derived: this index stops */
	char error[256];	      /* guarded by ix->lock */
	ix_pstate pstate;	      /* P/block only */
	sl_http_client *hc;
	/* rates for progress */
	uint64_t rate_base;
	int64_t rate_ns;
	double rate;
} fetcher;

struct sl_indexer {
	sl_indexer_config cfg;
	sl_db *db;
	sl_conn *conn; /* the writer's one connection */
	ix_net net;
	ix_rules rules;
	ix_memo memo; /* the writer's memory of UTXOs (memo.h); the writer thread's alone */
	/* bulk catch-up: whether the store's deferred indexes are dropped (sl_store_defer_indexes),
	 * to be built once caught up; decided at the first batch (the writer thread's, read by
	 * sl_indexer_caught_up) */
	_Atomic bool deferred;
	bool bulk_decided;
	unsigned cache_mb;  /* the writer's SQLite cache */
	size_t qmax;	    /* batches a fetcher may derive ahead */
	uint64_t group_txs; /* txs one transaction gathers while catching up */
	char network_name[32];
	volatile sig_atomic_t *stop;
	pthread_mutex_t lock; /* guards every fetcher's queue and error */
	pthread_cond_t changed;
	fetcher f[SL_IDX__COUNT];
	sl_logger *log;
	uint64_t rng;
	_Atomic uint64_t txs_applied;
	_Atomic bool quit; /* set by sl_indexer_free: the fetchers end */
	bool tty;
	int64_t started_ns;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool stopping(const sl_indexer *ix) { return atomic_load(&ix->quit) || (ix->stop && *ix->stop); }

static void sleep_ms(const sl_indexer *ix, unsigned ms)
{
	for (unsigned t = 0; t < ms && !stopping(ix); t += 20) {
		struct timespec ts = { 0, 20 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* ---- JSON-RPC to the node -------------------------------------------------------- */

/* POST a JSON-RPC call and put result.<field> (a string) into out. */
static sl_err rpc_string(sl_http_client *hc, const char *url, const char *body, const char *field, char *out,
			 size_t cap, char err[256])
{
	sl_buf resp;
	sl_buf_init(&resp, 1u << 20);
	long status = 0;
	sl_err e = sl_http_post_json(hc, url, body, strlen(body), IX_RPC_TIMEOUT_MS, &resp, &status, err);
	if (!e && status != 200) {
		snprintf(err, 256, "%s: HTTP %ld", url, status);
		e = SL_ERR_UNAVAILABLE;
	}
	size_t a, z;
	char msg[128];
	if (!e && sl_json_scan((const char *)resp.p, resp.len, &a, &z, msg)) {
		snprintf(err, 256, "%s: not JSON: %s", url, msg);
		e = SL_ERR_INVALID;
	}
	if (!e) {
		sl_span root = { resp.p + a, z - a }, k, v, result = { 0 }, error = { 0 };
		sl_jiter it;
		sl_json_iter_init(&it, root);
		while (sl_json_type(root) == SL_JT_OBJECT && sl_json_obj_next(&it, &k, &v)) {
			if (sl_span_eq(k, "\"result\""))
				result = v;
			else if (sl_span_eq(k, "\"error\""))
				error = v;
		}
		e = SL_ERR_INVALID;
		snprintf(err, 256, "%s: %s", url, error.len ? "the node answered an error" : "no result");
		if (result.len && sl_json_type(result) == SL_JT_OBJECT) {
			char key[64];
			snprintf(key, sizeof key, "\"%s\"", field);
			sl_json_iter_init(&it, result);
			while (sl_json_obj_next(&it, &k, &v))
				if (sl_span_eq(k, key) && sl_json_type(v) == SL_JT_STRING &&
				    v.len - 2 < cap) {
					memcpy(out, v.p + 1, v.len - 2);
					out[v.len - 2] = 0;
					e = SL_OK;
				} else if (sl_span_eq(k, key) && sl_json_type(v) == SL_JT_NUMBER &&
					   v.len < cap) {
					memcpy(out, v.p, v.len);
					out[v.len] = 0;
					e = SL_OK;
				}
		}
	}
	sl_buf_release(&resp);
	return e;
}

/*
 * The P-chain's L1 validator fee, as the node reports it (platform.getValidatorFeeConfig,
 * avalanchego since Etna), else the network's own (mainnet, Fuji); unknown otherwise, which only
 * matters once an L1 validator appears (write.c refuses it then).
 */
static void node_l1_fee(sl_indexer *ix, sl_http_client *hc)
{
	static const char *const fields[4] = { "capacity", "target", "minPrice", "excessConversionConstant" };
	uint64_t v[4];
	char url[1100], s[32], err[256];
	snprintf(url, sizeof url, "%s/ext/bc/P", ix->cfg.node_url);
	bool ok = true;
	for (int i = 0; ok && i < 4; i++) {
		char *end;
		ok = !rpc_string(
			hc, url,
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"platform.getValidatorFeeConfig\",\"params\":{}}",
			fields[i], s, sizeof s, err);
		errno = 0;
		v[i] = ok ? strtoull(s, &end, 10) : 0;
		ok = ok && *s >= '0' && *s <= '9' && !*end && !errno;
	}
	ix_rules *r = &ix->rules;
	r->avax = ix->net.avax;
	r->etna = sl_l1_etna_time(ix->net.network_id);
	if (ok) {
		r->l1_fee = (sl_l1_fee_config){ v[0], v[1], v[2], v[3] };
		r->has_l1_fee = true;
	} else {
		r->has_l1_fee = sl_l1_fee_config_of(ix->net.network_id, &r->l1_fee);
	}
	if (r->has_l1_fee)
		SL_LOG(ix->log, SL_DEBUG,
		       "L1 validator fee: min price %llu nAVAX/s, target %llu, K %llu (%s)",
		       (unsigned long long)r->l1_fee.min_price, (unsigned long long)r->l1_fee.target,
		       (unsigned long long)r->l1_fee.excess_k, ok ? "from the node" : "the network's");
	else
		SL_LOG(ix->log, SL_WARN,
		       "the node does not report the L1 validator fee (platform.getValidatorFeeConfig) and network "
		       "%u is not mainnet or Fuji: an L1 validator will stop the indexer",
		       ix->net.network_id);
}

/* The node's network: id, chain ids, AVAX asset. */
static sl_err node_identity(sl_indexer *ix, sl_http_client *hc, char err[256])
{
	char url[1100], v[128];
	const char *msg;
	char mb[96];
	snprintf(url, sizeof url, "%s/ext/info", ix->cfg.node_url);
	sl_err e = rpc_string(hc, url,
			      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"info.getNetworkID\",\"params\":{}}",
			      "networkID", v, sizeof v, err);
	if (e)
		return e;
	char *end;
	unsigned long long id = strtoull(v, &end, 10);
	if (*end || !*v || id > UINT32_MAX) {
		snprintf(err, 256, "the node's network id '%s' is not a number", v);
		return SL_ERR_INVALID;
	}
	ix->net.network_id = (uint32_t)id;
	snprintf(ix->net.hrp, sizeof ix->net.hrp, "%s", sl_addr_hrp(ix->net.network_id));
	const sl_network *known = sl_network_by_id(ix->net.network_id);
	if (known)
		snprintf(ix->network_name, sizeof ix->network_name, "%s", known->name);
	else
		snprintf(ix->network_name, sizeof ix->network_name, "network-%u", ix->net.network_id);
	static const char *const aliases[2] = { "X", "C" };
	for (int c = 0; c < 2; c++) {
		char body[160];
		snprintf(
			body, sizeof body,
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"info.getBlockchainID\",\"params\":{\"alias\":\"%s\"}}",
			aliases[c]);
		if ((e = rpc_string(hc, url, body, "blockchainID", v, sizeof v, err)))
			return e;
		if (sl_cb58_decode_id(v, strlen(v), ix->net.chain_id[1 + c], &msg, mb)) {
			snprintf(err, 256, "the node's %s-chain id: %s", aliases[c], msg);
			return SL_ERR_INVALID;
		}
	}
	snprintf(url, sizeof url, "%s/ext/bc/P", ix->cfg.node_url);
	e = rpc_string(
		hc, url,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"platform.getStakingAssetID\",\"params\":{}}",
		"assetID", v, sizeof v, err);
	if (e)
		return e;
	if (sl_cb58_decode_id(v, strlen(v), ix->net.avax, &msg, mb)) {
		snprintf(err, 256, "the node's AVAX asset id: %s", msg);
		return SL_ERR_INVALID;
	}
	return SL_OK;
}

/* The reward UTXOs of a staking tx, as the node reports them (derive.h). */
static sl_err fetch_rewards(void *ctx, const uint8_t staking_tx[32], ix_batch *b, sl_span **utxos,
			    uint32_t *n)
{
	fetcher *f = ctx;
	char url[1100], body[256], err[256], id[64];
	sl_cb58_id(id, staking_tx);
	snprintf(url, sizeof url, "%s/ext/bc/P", f->ix->cfg.node_url);
	snprintf(
		body, sizeof body,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"platform.getRewardUTXOs\",\"params\":{\"txID\":\"%s\","
		"\"encoding\":\"hex\"}}",
		id);
	sl_buf resp;
	sl_buf_init(&resp, 16u << 20);
	long status = 0;
	sl_err e = sl_http_post_json(f->hc, url, body, strlen(body), IX_RPC_TIMEOUT_MS, &resp, &status, err);
	*n = 0;
	*utxos = NULL;
	size_t a, z;
	char msg[128];
	if (!e && (status != 200 || sl_json_scan((const char *)resp.p, resp.len, &a, &z, msg)))
		e = SL_ERR_UNAVAILABLE;
	sl_span list = { 0 };
	if (!e) {
		sl_span root = { resp.p + a, z - a }, k, v;
		sl_jiter it, jt;
		sl_json_iter_init(&it, root);
		while (sl_json_type(root) == SL_JT_OBJECT && sl_json_obj_next(&it, &k, &v))
			if (sl_span_eq(k, "\"result\"") && sl_json_type(v) == SL_JT_OBJECT) {
				sl_json_iter_init(&jt, v);
				while (sl_json_obj_next(&jt, &k, &v))
					if (sl_span_eq(k, "\"utxos\"") && sl_json_type(v) == SL_JT_ARRAY)
						list = v;
			}
		if (!list.len)
			e = SL_ERR_UNAVAILABLE; /* no result: an error answer (no getRewardUTXOs on this node?) */
	}
	if (!e) {
		sl_jiter it;
		sl_span v;
		uint32_t count = 0;
		sl_json_iter_init(&it, list);
		while (sl_json_arr_next(&it, &v))
			count++;
		sl_span *out = count ? sl_arena_array(&b->arena, count, sizeof *out) : NULL;
		if (count && !out)
			e = SL_ERR_NOMEM;
		sl_json_iter_init(&it, list);
		for (uint32_t i = 0; !e && sl_json_arr_next(&it, &v); i++) {
			const char *m;
			size_t len = 0;
			uint8_t *bytes = v.len > 2 ? sl_arena_alloc(&b->arena, v.len / 2) : NULL;
			if (sl_json_type(v) != SL_JT_STRING || !bytes ||
			    sl_hex_checksum_decode((const char *)v.p + 1, v.len - 2, bytes, v.len / 2, &len,
						   &m))
				e = SL_ERR_INVALID;
			else
				out[i] = sl_span_of(bytes, len);
		}
		if (!e) {
			*utxos = out;
			*n = count;
		}
	}
	sl_buf_release(&resp);
	return e;
}

/* ---- fetchers ------------------------------------------------------------------ */

static void fetcher_fail(fetcher *f, const char *msg)
{
	sl_indexer *ix = f->ix;
	pthread_mutex_lock(&ix->lock);
	bool same = !strcmp(f->error, msg);
	snprintf(f->error, sizeof f->error, "%s", msg);
	pthread_mutex_unlock(&ix->lock);
	if (!same)
		SL_LOG(ix->log, SL_WARN, "%s: %s", sl_ikind_name(f->kind), msg);
}

/* Ask for [start, start + num); the answer is parsed into rg. */
static sl_err fetch_range(fetcher *f, uint64_t start, uint32_t num, sl_buf *resp, sl_ixrange *rg,
			  char err[256])
{
	char url[1100], body[256], e256[256];
	snprintf(url, sizeof url, "%s/ext/index/%s", f->ix->cfg.node_url, sl_ikind_name(f->kind));
	size_t bl = sl_indexapi_range_request(body, start, num);
	long status = 0;
	sl_buf_reset(resp);
	sl_err e = sl_http_post_json(f->hc, url, body, bl, IX_RPC_TIMEOUT_MS, resp, &status, e256);
	if (e) {
		snprintf(err, 256, "%s", e256);
		return e;
	}
	if (status == 404) {
		snprintf(err, 256,
			 "%s: the node does not serve this index (is it running with --index-enabled?)", url);
		return SL_ERR_NOT_FOUND;
	}
	if (status != 200) {
		snprintf(err, 256, "%s: HTTP %ld", url, status);
		return SL_ERR_UNAVAILABLE;
	}
	if ((e = sl_indexapi_range_parse((const char *)resp->p, resp->len, start, num, rg, e256)))
		snprintf(err, 256, "%s: %s", url, e256);
	return e;
}

/* The node's head: the index after its last accepted container. */
static void update_head(fetcher *f, sl_buf *resp)
{
	char url[1100], e256[256];
	snprintf(url, sizeof url, "%s/ext/index/%s", f->ix->cfg.node_url, sl_ikind_name(f->kind));
	static const char body[] =
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"index.getLastAccepted\",\"params\":{\"encoding\":\"hex\"}}";
	long status = 0;
	sl_buf_reset(resp);
	if (sl_http_post_json(f->hc, url, body, sizeof body - 1, IX_RPC_TIMEOUT_MS, resp, &status, e256) ||
	    status != 200)
		return;
	/* {"result":{…,"index":"N"}}: the head is N + 1 */
	const char *p = strstr((const char *)resp->p, "\"index\":\"");
	if (!p)
		return;
	uint64_t n = strtoull(p + 9, NULL, 10);
	if (n + 1 > atomic_load(&f->head))
		atomic_store(&f->head, n + 1);
}

/*
 * Where to resume: the store's cursor. The container before it must be the one the
 * store applied (else the node holds another history); for P/block it is decoded again
 * to know whether it was a proposal block awaiting its option.
 */
static sl_err resume(fetcher *f, sl_buf *resp, char err[256])
{
	if (!f->next)
		return SL_OK;
	sl_ixrange rg;
	sl_ixrange_init(&rg, IX_MAX_BATCH_DATA);
	sl_err e = fetch_range(f, f->next - 1, 1, resp, &rg, err);
	if (!e && rg.n != 1) {
		snprintf(err, 256,
			 "the node has only %llu %s containers, but the store applied %llu: it was made from "
			 "another node's history",
			 (unsigned long long)(f->next - 1), sl_ikind_name(f->kind),
			 (unsigned long long)f->next);
		e = SL_ERR_CONFLICT;
	}
	if (!e && f->has_prev && memcmp(rg.items[0].id, f->prev_id, 32)) {
		char a[64], b[64];
		sl_cb58_id(a, rg.items[0].id);
		sl_cb58_id(b, f->prev_id);
		snprintf(err, 256,
			 "the node's %s %llu is %s, but the store applied %s: it was made from another "
			 "node's history",
			 sl_ikind_name(f->kind), (unsigned long long)(f->next - 1), a, b);
		e = SL_ERR_CONFLICT;
	}
	if (!e && f->kind == SL_IDX_P_BLOCK) {
		/* derive it into a scratch batch only for the state it leaves */
		ix_batch scratch;
		ix_batch_init(&scratch, f->kind);
		ix_ctx ctx = { &f->ix->net, NULL, NULL, &f->pstate };
		e = ix_derive(&scratch, &ctx, &rg.items[0], err);
		ix_batch_release(&scratch);
	}
	sl_ixrange_release(&rg);
	return e;
}

static void batch_free(ix_batch *b)
{
	ix_batch_release(b);
	free(b);
}

/* A batch to fill: a spare one given back by the writer, or a new one (NULL: out of memory). */
static ix_batch *take_spare(fetcher *f)
{
	pthread_mutex_lock(&f->ix->lock);
	ix_batch *b = f->nspare ? f->spare[--f->nspare] : NULL;
	pthread_mutex_unlock(&f->ix->lock);
	if (!b && (b = calloc(1, sizeof *b)))
		ix_batch_init(b, f->kind);
	return b;
}

static void drop_spares(fetcher *f)
{
	pthread_mutex_lock(&f->ix->lock);
	while (f->nspare) {
		ix_batch *b = f->spare[--f->nspare];
		batch_free(b);
	}
	pthread_mutex_unlock(&f->ix->lock);
}

/* An applied batch back to its fetcher, emptied, while it is catching up; freed otherwise. */
static void give_back(sl_indexer *ix, ix_batch *b)
{
	fetcher *f = &ix->f[b->kind];
	ix_batch_clear(b);
	pthread_mutex_lock(&ix->lock);
	bool kept = !atomic_load(&f->caught_up) && f->nspare < IX_QUEUE_MAX;
	if (kept)
		f->spare[f->nspare++] = b;
	pthread_mutex_unlock(&ix->lock);
	if (!kept)
		batch_free(b);
}

static void *fetch_main(void *arg)
{
	fetcher *f = arg;
	sl_indexer *ix = f->ix;
	sl_buf resp;
	sl_ixrange rg;
	sl_buf_init(&resp, IX_MAX_RESPONSE);
	sl_ixrange_init(&rg, IX_MAX_BATCH_DATA);
	char err[256];
	unsigned backoff = 100;
	int64_t last_head = 0;
	while (!stopping(ix)) {
		if (!f->hc && !(f->hc = sl_http_client_new())) {
			fetcher_fail(f, "out of memory");
			sleep_ms(ix, 1000);
			continue;
		}
		if (now_ns() - last_head > IX_HEAD_EVERY_NS) {
			update_head(f, &resp);
			last_head = now_ns();
		}
		sl_err e = fetch_range(f, f->next, f->want, &resp, &rg, err);
		if (e == SL_ERR_TOO_LARGE && f->want > 1) {
			f->want /= 2; /* large containers: ask for fewer at a time */
			continue;
		}
		if (e) {
			fetcher_fail(f, err);
			sleep_ms(ix, backoff);
			backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
			continue;
		}
		backoff = 100;
		if (!rg.n) {
			drop_spares(f); /* following: a batch is small and seldom */
			int64_t ms = now_ns() / 1000000;
			atomic_store(&f->caught_up, true);
			/* the store holds all the node has once the batches still queued are applied */
			if (atomic_load(&f->applied) >= f->next) {
				atomic_store(&f->ever_caught_up, true);
				atomic_store(&f->caught_up_ms, ms);
			}
			if (atomic_load(&f->head) < f->next)
				atomic_store(&f->head, f->next);
			pthread_mutex_lock(&ix->lock);
			f->error[0] = 0;
			pthread_cond_broadcast(&ix->changed);
			pthread_mutex_unlock(&ix->lock);
			sleep_ms(ix, ix->cfg.poll_ms);
			continue;
		}
		atomic_store(&f->caught_up, false);
		ix_batch *b = take_spare(f);
		if (!b) {
			fetcher_fail(f, "out of memory");
			sleep_ms(ix, 1000);
			continue;
		}
		/* the batch takes the answer's bytes (the rows point into them); the next answer goes
		 * into the buffer the batch had */
		sl_buf data = b->data;
		b->data = rg.data;
		rg.data = data;
		rg.data.max = IX_MAX_BATCH_DATA;
		b->first = f->next;
		ix_ctx ctx = { &ix->net, fetch_rewards, f, &f->pstate };
		for (size_t i = 0; !e && i < rg.n; i++) {
			if ((e = ix_derive(b, &ctx, &rg.items[i], err))) {
				char msg[300];
				char id[64];
				sl_cb58_id(id, rg.items[i].id);
				snprintf(msg, sizeof msg, "container %llu (%s): %s",
					 (unsigned long long)rg.items[i].index, id, err);
				fetcher_fail(f, msg);
			}
		}
		if (!e && b->err)
			e = b->err;
		if (e) {
			batch_free(b);
			if (e == SL_ERR_UNAVAILABLE || e == SL_ERR_TIMEOUT || e == SL_ERR_NOMEM) {
				/* a reward lookup that failed: the node may be back soon; derive the range again */
				if (f->kind == SL_IDX_P_BLOCK) {
					ix_pstate_release(&f->pstate);
					resume(f, &resp, err);
				}
				sleep_ms(ix, backoff);
				backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
				continue;
			}
			atomic_store(&f->failed,
				     true); /* bytes that do not decode: stop this index, keep the others */
			SL_LOG(ix->log, SL_ERROR, "%s stops: a container cannot be indexed",
			       sl_ikind_name(f->kind));
			break;
		}
		b->next = f->next + rg.n;
		memcpy(b->last_id, rg.items[rg.n - 1].id, 32);
		f->next = b->next;
		pthread_mutex_lock(&ix->lock);
		f->error[0] = 0;
		while (f->qlen == ix->qmax && !stopping(ix)) {
			struct timespec until;
			sl_deadline(&until, CLOCK_REALTIME, 100);
			pthread_cond_timedwait(&ix->changed, &ix->lock, &until);
		}
		if (stopping(ix)) {
			pthread_mutex_unlock(&ix->lock);
			batch_free(b);
			break;
		}
		f->queue[(f->qhead + f->qlen++) % IX_QUEUE_MAX] = b;
		pthread_cond_broadcast(&ix->changed);
		pthread_mutex_unlock(&ix->lock);
	}
	sl_ixrange_release(&rg);
	sl_buf_release(&resp);
	return NULL;
}

/* ---- the store's side --------------------------------------------------------- */

static const sl_sql q_meta_get = { "SELECT value FROM meta WHERE key = ?" };
static const sl_sql q_meta_put = {
	"INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING"
};
static const sl_sql q_cursors = { "SELECT kind, next, last_id FROM cursors" };
static const sl_sql q_avax = {
	"INSERT INTO assets (id, name, symbol, denomination, type, cap, tx, ts) "
	"VALUES (?, 'Avalanche', 'AVAX', 9, 0, 0, NULL, NULL) ON CONFLICT (id) DO NOTHING"
};
static const sl_sql q_status = { "UPDATE cursors SET head = ?, caught_up_ms = ? WHERE kind = ?" };
static const sl_sql q_status_new = { "INSERT INTO cursors (kind, next, last_id, head, caught_up_ms) "
				     "VALUES (?, 0, NULL, ?, ?) ON CONFLICT (kind) DO NOTHING" };

/* The network as the store records it: a small JSON object (the API reads it). */
static void network_json(const sl_indexer *ix, sl_buf *out)
{
	sl_jw w;
	sl_jw_init(&w, out);
	sl_jw_obj(&w);
	sl_jw_key(&w, "name");
	sl_jw_str(&w, ix->network_name);
	sl_jw_key(&w, "id");
	sl_jw_u64(&w, ix->net.network_id);
	sl_jw_key(&w, "hrp");
	sl_jw_str(&w, ix->net.hrp);
	static const char *const names[3] = { "P", "X", "C" };
	for (int c = 0; c < 3; c++) {
		sl_jw_key(&w, names[c]);
		sl_jw_cb58(&w, ix->net.chain_id[c], 32);
	}
	sl_jw_key(&w, "avax");
	sl_jw_cb58(&w, ix->net.avax, 32);
	sl_jw_obj_end(&w);
}

/* Record the node's network in an empty store, or check it is the one the store holds. */
static sl_err check_network(sl_indexer *ix, char err[512])
{
	sl_conn *c = ix->conn;
	sl_buf want;
	sl_buf_init(&want, 4096);
	network_json(ix, &want);
	sl_err e = sl_conn_begin(c);
	sl_stmt *s = e ? NULL : sl_stmt_get(c, &q_meta_get);
	if (!e && !s)
		e = SL_ERR_STORE;
	if (!e) {
		sl_bind_text(s, 0, "network", 7);
		e = sl_stmt_query(s);
	}
	if (!e && sl_stmt_next(s, &e)) {
		size_t n;
		const uint8_t *have = sl_col_blob(s, 0, &n);
		if (n != want.len || memcmp(have, want.p, n)) {
			snprintf(err, 512, "the store holds %.*s; the node %s is %s", (int)SL_MIN(n, 300u),
				 (const char *)have, ix->cfg.node_url, sl_buf_str(&want));
			e = SL_ERR_CONFLICT;
		}
	} else if (!e) {
		/* a new store: its network, and the secret its page tokens are signed with */
		uint8_t secret[32];
		FILE *r = fopen("/dev/urandom", "rb");
		bool ok = r && fread(secret, 1, 32, r) == 32;
		if (r)
			fclose(r);
		if (!ok) {
			snprintf(err, 512, "cannot read /dev/urandom");
			e = SL_ERR_IO;
		}
		static const char *const keys[2] = { "network", "token_secret" };
		const void *vals[2] = { want.p, secret };
		size_t lens[2] = { want.len, 32 };
		for (int i = 0; !e && i < 2; i++) {
			sl_stmt *p = sl_stmt_get(c, &q_meta_put);
			if (!p) {
				e = SL_ERR_STORE;
				break;
			}
			sl_bind_text(p, 0, keys[i], strlen(keys[i]));
			sl_bind_blob(p, 1, vals[i], lens[i]);
			e = sl_stmt_exec(p);
		}
		sl_stmt *a = e ? NULL : sl_stmt_get(c, &q_avax);
		if (!e && !a)
			e = SL_ERR_STORE;
		if (!e) {
			sl_bind_blob(a, 0, ix->net.avax, 32);
			e = sl_stmt_exec(a);
		}
		if (!e)
			SL_LOG(ix->log, SL_INFO, "a new store for %s (network %u)", ix->network_name,
			       ix->net.network_id);
	}
	if (!e)
		e = sl_conn_commit(c);
	else {
		if (!err[0])
			snprintf(err, 512, "store: %s", sl_conn_error(c));
		sl_conn_rollback(c);
	}
	sl_buf_release(&want);
	return e;
}

static sl_err read_cursors(sl_indexer *ix, char err[512])
{
	sl_stmt *s = sl_stmt_get(ix->conn, &q_cursors);
	sl_err e = s ? sl_stmt_query(s) : SL_ERR_STORE;
	while (!e && sl_stmt_next(s, &e)) {
		int64_t k = sl_col_i64(s, 0);
		if (k < 0 || k >= SL_IDX__COUNT)
			continue;
		fetcher *f = &ix->f[k];
		f->next = (uint64_t)sl_col_i64(s, 1);
		size_t n;
		const uint8_t *id = sl_col_blob(s, 2, &n);
		if (id && n == 32) {
			memcpy(f->prev_id, id, 32);
			f->has_prev = true;
		}
		atomic_store(&f->applied, f->next);
	}
	if (e)
		snprintf(err, 512, "cannot read the store's cursors: %s", sl_conn_error(ix->conn));
	return e;
}

/*
 * The genesis file: applied to a store that has applied no container yet, in
 * one transaction with its hash; a store that holds one must be given the
 * same file again (or none).
 */
static sl_err apply_genesis(sl_indexer *ix, char err[512])
{
	const char *path = ix->cfg.genesis_file;
	sl_buf file;
	sl_buf_init(&file, IX_GENESIS_MAX_FILE);
	char e256[256];
	sl_err e = sl_buf_read_file(&file, path, e256);
	if (e) {
		snprintf(err, 512, "genesis file %s", e256);
		sl_buf_release(&file);
		return e;
	}
	const char *json = sl_buf_str(&file);
	size_t n = file.len;
	uint8_t hash[32], have[32];
	sl_sha256(json, n, hash);
	sl_stmt *s = sl_stmt_get(ix->conn, &q_meta_get);
	bool found = false;
	if (!s)
		e = SL_ERR_STORE;
	if (!e) {
		sl_bind_text(s, 0, "genesis", 7);
		e = sl_stmt_query(s);
	}
	if (!e && sl_stmt_next(s, &e)) {
		size_t len = 0;
		const uint8_t *v = sl_col_blob(s, 0, &len);
		found = v && len == 32;
		if (found)
			memcpy(have, v, 32);
	}
	if (e) {
		snprintf(err, 512, "store: %s", sl_conn_error(ix->conn));
		goto out;
	}
	if (found) {
		if (memcmp(have, hash, 32)) {
			snprintf(err, 512, "the store was built from another genesis than %s", path);
			e = SL_ERR_CONFLICT;
		}
		goto out;
	}
	for (int k = 0; k < SL_IDX__COUNT; k++)
		if (ix->f[k].next) {
			snprintf(
				err, 512,
				"the store has indexed containers without a genesis; a genesis (%s) needs an empty "
				"store",
				path);
			e = SL_ERR_CONFLICT;
			goto out;
		}
	ix_batch *b = malloc(sizeof *b);
	if (!b) {
		e = SL_ERR_NOMEM;
		goto out;
	}
	ix_batch_init(b, SL_IDX_P_BLOCK);
	e = ix_genesis_derive(b, json, n, ix->net.hrp, e256);
	if (e)
		snprintf(err, 512, "genesis file %s: %s", path, e256);
	else if ((e = ix_write_genesis(ix->conn, &ix->rules, &ix->memo, b, hash)))
		snprintf(err, 512, "store: %s", sl_conn_error(ix->conn));
	else
		SL_LOG(ix->log, SL_INFO, "genesis %s applied: %zu UTXOs, %zu validators", path, b->outs.n,
		       b->stakers.n);
	batch_free(b);
out:
	sl_buf_release(&file);
	return e;
}

/* ---- progress ------------------------------------------------------------------ */

static void progress(sl_indexer *ix, bool final)
{
	int64_t now = now_ns();
	char lines[SL_IDX__COUNT][160];
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		fetcher *f = &ix->f[k];
		uint64_t at = atomic_load(&f->applied), head = atomic_load(&f->head);
		if (head < at)
			head = at;
		if (!f->rate_ns) {
			f->rate_ns = now;
			f->rate_base = at;
		} else if (now - f->rate_ns >= 1000000000) {
			double r = (double)(at - f->rate_base) * 1e9 / (double)(now - f->rate_ns);
			f->rate = f->rate ? 0.7 * f->rate + 0.3 * r : r;
			f->rate_ns = now;
			f->rate_base = at;
		}
		char eta[32] = "-";
		if (atomic_load(&f->failed))
			snprintf(eta, sizeof eta, "FAILED");
		else if (at >= head && atomic_load(&f->caught_up))
			snprintf(eta, sizeof eta, "caught up");
		else if (f->rate > 0.5) {
			uint64_t s = (uint64_t)((double)(head - at) / f->rate);
			snprintf(eta, sizeof eta, "ETA %llu:%02llu:%02llu", (unsigned long long)(s / 3600),
				 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
		}
		snprintf(lines[k], sizeof lines[k], "%-8s %10llu / %-10llu %8.0f/s  %s",
			 sl_ikind_name((sl_ikind)k), (unsigned long long)at, (unsigned long long)head,
			 f->rate, eta);
	}
	if (ix->tty && !final) {
		fprintf(stderr, "\r");
		for (int k = 0; k < SL_IDX__COUNT; k++)
			fprintf(stderr, "\033[2K%s\n", lines[k]);
		fprintf(stderr, "\033[%dA", SL_IDX__COUNT);
		fflush(stderr);
	} else {
		for (int k = 0; k < SL_IDX__COUNT; k++)
			SL_LOG(ix->log, SL_INFO, "%s", lines[k]);
	}
}

/* ---- metrics ------------------------------------------------------------------- */

static void collect(void *ctx, sl_buf *out)
{
	sl_indexer *ix = ctx;
	int64_t now = now_ns() / 1000000;
	sl_metrics_head(out, "snowline_indexer_applied", "Containers of each index the store holds.",
			"gauge");
	for (int k = 0; k < SL_IDX__COUNT; k++)
		sl_metrics_sample(out, "snowline_indexer_applied", "index", sl_ikind_name((sl_ikind)k),
				  (double)atomic_load(&ix->f[k].applied));
	sl_metrics_head(out, "snowline_indexer_behind",
			"Containers the node has that the store does not yet.", "gauge");
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		uint64_t at = atomic_load(&ix->f[k].applied), head = atomic_load(&ix->f[k].head);
		sl_metrics_sample(out, "snowline_indexer_behind", "index", sl_ikind_name((sl_ikind)k),
				  (double)(head > at ? head - at : 0));
	}
	sl_metrics_head(
		out, "snowline_indexer_lag_seconds",
		"Seconds since the store last held everything the node had, per index (0 when it does).",
		"gauge");
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		const fetcher *f = &ix->f[k];
		uint64_t at = atomic_load(&f->applied), head = atomic_load(&f->head);
		int64_t since = atomic_load(&f->caught_up_ms);
		double lag = at >= head && atomic_load(&f->caught_up)
				     ? 0
				     : (double)(now - (since ? since : ix->started_ns / 1000000)) / 1000;
		sl_metrics_sample(out, "snowline_indexer_lag_seconds", "index", sl_ikind_name((sl_ikind)k),
				  lag);
	}
	sl_metrics_head(out, "snowline_indexer_failed",
			"1 when an index stopped on a container it cannot index.", "gauge");
	for (int k = 0; k < SL_IDX__COUNT; k++)
		sl_metrics_sample(out, "snowline_indexer_failed", "index", sl_ikind_name((sl_ikind)k),
				  atomic_load(&ix->f[k].failed));
	sl_metrics_head(out, "snowline_indexer_txs_total", "Transactions applied since start.", "counter");
	sl_metrics_sample(out, "snowline_indexer_txs_total", NULL, NULL,
			  (double)atomic_load(&ix->txs_applied));
}

/* ---- lifecycle ----------------------------------------------------------------- */

/* The transactions and the look-ahead: sized from the cache, or from the store's limit if less. */
static void size_work(sl_indexer *ix, unsigned cap)
{
	unsigned work = cap && ix->cache_mb > cap ? cap : ix->cache_mb;
	ix->qmax = SL_MIN(SL_MAX(work / IX_MB_PER_QUEUE, (unsigned)IX_QUEUE_MIN), (unsigned)IX_QUEUE_MAX);
	ix->group_txs = SL_MIN(SL_MAX((uint64_t)work * IX_TXS_PER_MB, (uint64_t)IX_GROUP_MIN),
			       (uint64_t)IX_GROUP_MAX_TXS);
}

sl_indexer *sl_indexer_new(const sl_indexer_config *cfg, char err[512])
{
	sl_indexer *ix = calloc(1, sizeof *ix);
	if (!ix) {
		snprintf(err, 512, "out of memory");
		return NULL;
	}
	ix->cfg = *cfg;
	if (!ix->cfg.range || ix->cfg.range > SL_INDEX_MAX_RANGE)
		ix->cfg.range = SL_INDEX_MAX_RANGE;
	if (!ix->cfg.poll_ms)
		ix->cfg.poll_ms = 250;
	ix->cache_mb = ix->cfg.cache_mb;
	if (!ix->cache_mb) {
		long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
		uint64_t mb = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 4 >> 20 : 0;
		ix->cache_mb =
			(unsigned)SL_MIN(SL_MAX(mb, (uint64_t)IX_CACHE_MIN_MB), (uint64_t)IX_CACHE_MAX_MB);
	}
	ix->log = sl_log_get("index");
	ix->started_ns = now_ns();
	ix->rng = cfg->seed ? cfg->seed : 0x9e3779b97f4a7c15ull;
	ix->tty = cfg->progress == SL_PROGRESS_TTY || (cfg->progress == SL_PROGRESS_AUTO && isatty(2));
	pthread_mutex_init(&ix->lock, NULL);
	pthread_cond_init(&ix->changed, NULL);
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		ix->f[k].ix = ix;
		ix->f[k].kind = (sl_ikind)k;
		ix->f[k].want = ix->cfg.range;
	}
	char e256[256];
	sl_http_client *hc = sl_http_client_new();
	if (!hc) {
		snprintf(err, 512, "out of memory");
		goto fail;
	}
	sl_err e = node_identity(ix, hc, e256);
	if (!e)
		node_l1_fee(ix, hc);
	sl_http_client_free(hc);
	if (e) {
		snprintf(err, 512, "cannot learn the node's network: %s", e256);
		goto fail;
	}
	if (cfg->dry_run) {
		/* no store: every index starts at 0 and its batches are dropped once derived */
		size_work(ix, 0);
		err[0] = 0;
		SL_LOG(ix->log, SL_INFO,
		       "dry run: fetching and deriving %s (%s, network %u), writing nothing", cfg->node_url,
		       ix->network_name, ix->net.network_id);
		return ix;
	}
	if (!ix_memo_init(&ix->memo)) {
		snprintf(err, 512, "out of memory");
		goto fail;
	}
	sl_db_config dc = { .url = cfg->store_url, .mode = SL_DB_WRITE, .cache_mb = ix->cache_mb };
	if (!(ix->db = sl_db_open(&dc, e256)) || !(ix->conn = sl_db_acquire(ix->db, 10000, e256))) {
		snprintf(err, 512, "store %s: %s", cfg->store_url, e256);
		goto fail;
	}
	size_work(ix, sl_conn_write_work_mb(ix->conn));
	err[0] = 0;
	if (check_network(ix, err) || read_cursors(ix, err) || (cfg->genesis_file && apply_genesis(ix, err)))
		goto fail;
	if (cfg->metrics)
		sl_metrics_collector(cfg->metrics, collect, ix);
	SL_LOG(ix->log, SL_INFO, "indexing %s (%s, network %u) into %s store %s", cfg->node_url,
	       ix->network_name, ix->net.network_id, sl_db_backend(ix->db), cfg->store_url);
	return ix;
fail:
	sl_indexer_free(ix);
	return NULL;
}

const char *sl_indexer_network(const sl_indexer *ix) { return ix->network_name; }

uint32_t sl_indexer_network_id(const sl_indexer *ix) { return ix->net.network_id; }

void sl_indexer_c_chain(const sl_indexer *ix, uint8_t out[32]) { memcpy(out, ix->net.chain_id[2], 32); }

/* Every index's fetcher found nothing new, and the store holds what it fetched before that (its
 * queue may still hold derived batches when the fetcher first finds nothing). */
static bool all_applied(const sl_indexer *ix)
{
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		const fetcher *f = &ix->f[k];
		if (atomic_load(&f->failed))
			continue;
		if (!atomic_load(&f->ever_caught_up) || atomic_load(&f->applied) < atomic_load(&f->head))
			return false;
	}
	return true;
}

/* Caught up: all applied, with the deferred indexes built. */
bool sl_indexer_caught_up(const sl_indexer *ix) { return !atomic_load(&ix->deferred) && all_applied(ix); }

/*
 * Bulk catch-up (store/sql.h): far behind the node, the store's deferred indexes are dropped and
 * built once caught up, each with one sort instead of a random insert per row. Decided once, at
 * the first batch, from how far behind the store is; a store left with its indexes dropped (the
 * indexer stopped or was killed while catching up) keeps them so if it is still far behind, and
 * builds them at once otherwise.
 */
static sl_err decide_bulk(sl_indexer *ix)
{
	ix->bulk_decided = true;
	uint64_t behind = 0;
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		uint64_t head = atomic_load(&ix->f[k].head), at = atomic_load(&ix->f[k].applied);
		behind += head > at ? head - at : 0;
	}
	bool deferred = false;
	sl_err e = sl_store_indexes_deferred(ix->conn, &deferred);
	if (e)
		return e;
	if (behind >= IX_BULK_MIN) {
		if (!deferred && (e = sl_store_defer_indexes(ix->conn)))
			return e;
		atomic_store(&ix->deferred, true);
		SL_LOG(ix->log, SL_INFO,
		       "catching up %llu containers: the indexes %s and %s are built once caught up",
		       (unsigned long long)behind, sl_deferred_index_names[0], sl_deferred_index_names[1]);
		return SL_OK;
	}
	atomic_store(&ix->deferred, deferred);
	return SL_OK;
}

/* Caught up with the deferred indexes dropped: build them (logged, with the time it took). */
static sl_err build_deferred(sl_indexer *ix)
{
	int64_t t0 = now_ns();
	SL_LOG(ix->log, SL_INFO, "building the indexes %s and %s", sl_deferred_index_names[0],
	       sl_deferred_index_names[1]);
	sl_err e = sl_store_build_indexes(ix->conn);
	if (e)
		return e;
	atomic_store(&ix->deferred, false);
	SL_LOG(ix->log, SL_INFO, "built the indexes in %.1f s", (double)(now_ns() - t0) / 1e9);
	return SL_OK;
}

/* The next batch to apply, by the configured order; NULL when none is ready. Caller holds the lock. */
static ix_batch *pick(sl_indexer *ix, int *rr)
{
	int order[SL_IDX__COUNT], n = 0;
	switch (ix->cfg.order) {
	case SL_ORDER_SEQUENTIAL:
		/* the first index of the sequence that is not done yet: only it may be applied */
		for (int i = 0; i < SL_IDX__COUNT; i++) {
			fetcher *f = &ix->f[ix->cfg.sequence[i]];
			if (f->qlen) {
				order[n++] = ix->cfg.sequence[i];
				break;
			}
			if (!atomic_load(&f->ever_caught_up) && !atomic_load(&f->failed))
				break;
		}
		break;
	case SL_ORDER_RANDOM:
		ix->rng ^= ix->rng << 13, ix->rng ^= ix->rng >> 7, ix->rng ^= ix->rng << 17;
		for (int i = 0; i < SL_IDX__COUNT; i++)
			order[n++] = (int)((ix->rng + (uint64_t)i) % SL_IDX__COUNT);
		break;
	default:
		for (int i = 0; i < SL_IDX__COUNT; i++)
			order[n++] = (*rr + i) % SL_IDX__COUNT;
		*rr = (*rr + 1) % SL_IDX__COUNT;
	}
	for (int i = 0; i < n; i++) {
		fetcher *f = &ix->f[order[i]];
		if (f->qlen) {
			ix_batch *b = f->queue[f->qhead];
			f->qhead = (f->qhead + 1) % IX_QUEUE_MAX;
			f->qlen--;
			pthread_cond_broadcast(&ix->changed);
			return b;
		}
	}
	return NULL;
}

/* The head and catch-up time of each index, for API servers' lag metrics: a small transaction. */
static void write_status(sl_indexer *ix)
{
	if (!ix->conn || sl_conn_begin(ix->conn))
		return;
	sl_err e = SL_OK;
	for (int k = 0; !e && k < SL_IDX__COUNT; k++) {
		const sl_sql *qs[2] = { &q_status_new, &q_status };
		for (int q = 0; !e && q < 2; q++) {
			sl_stmt *s = sl_stmt_get(ix->conn, qs[q]);
			if (!s) {
				e = SL_ERR_STORE;
				break;
			}
			int64_t head = (int64_t)atomic_load(&ix->f[k].head),
				ms = atomic_load(&ix->f[k].caught_up_ms);
			if (q == 0) {
				sl_bind_i64(s, 0, k);
				sl_bind_i64(s, 1, head);
				sl_bind_i64(s, 2, ms);
			} else {
				sl_bind_i64(s, 0, head);
				sl_bind_i64(s, 1, ms);
				sl_bind_i64(s, 2, k);
			}
			e = sl_stmt_exec(s);
		}
	}
	if (e || sl_conn_commit(ix->conn))
		sl_conn_rollback(ix->conn);
}

int sl_indexer_run(sl_indexer *ix, volatile sig_atomic_t *stop)
{
	ix->stop = stop;
	char err[256];
	sl_buf resp;
	sl_buf_init(&resp, IX_MAX_RESPONSE);
	/* resume each index where the store left it */
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		fetcher *f = &ix->f[k];
		if (!(f->hc = sl_http_client_new()))
			return 1;
		sl_err e;
		while ((e = resume(f, &resp, err)) && !stopping(ix)) {
			if (e == SL_ERR_CONFLICT) {
				SL_LOG(ix->log, SL_FATAL, "%s", err);
				sl_buf_release(&resp);
				return 1;
			}
			fetcher_fail(f, err);
			sleep_ms(ix, 1000);
		}
	}
	sl_buf_release(&resp);
	for (int k = 0; k < SL_IDX__COUNT; k++)
		ix->f[k].started = pthread_create(&ix->f[k].thread, NULL, fetch_main, &ix->f[k]) == 0;
	int rr = 0, rc = 0;
	int64_t next_progress = now_ns() + 1000000000, next_status = 0, next_observe = 0;
	sl_http_client *ohc = ix->cfg.observe_s && !ix->cfg.dry_run ? sl_http_client_new() : NULL;
	bool observe_failed = false, peers_failed = false;
	bool reported_caught_up = false;
	int64_t next_build = 0;	 /* when to try building the deferred indexes again after a failure */
	uint64_t follow_txs = 0; /* txs applied at the last "following" line */
	while (!stopping(ix)) {
		/* the ready batches, up to group_txs txs, in the order pick() gives them: one transaction */
		ix_batch *group[IX_GROUP_MAX];
		size_t ng = 0;
		uint64_t gtxs = 0;
		pthread_mutex_lock(&ix->lock);
		while (ng < IX_GROUP_MAX && gtxs < ix->group_txs && (group[ng] = pick(ix, &rr)))
			gtxs += group[ng++]->txs_total;
		if (!ng) {
			struct timespec until;
			sl_deadline(&until, CLOCK_REALTIME, 50);
			pthread_cond_timedwait(&ix->changed, &ix->lock, &until);
		}
		pthread_mutex_unlock(&ix->lock);
		/* decided at the first batch, or at once when the store already holds all the node has
		 * (a store left with its indexes dropped gets them built then) */
		if ((ng || all_applied(ix)) && !ix->bulk_decided && !ix->cfg.dry_run && decide_bulk(ix))
			SL_LOG(ix->log, SL_WARN,
			       "cannot tell or change whether the store's indexes are deferred: %s",
			       sl_conn_error(ix->conn));
		if (ng) {
			/* a failing write (store away, disk full) is retried: the batches are idempotent */
			sl_err e = SL_OK;
			unsigned backoff = 100;
			while (!ix->cfg.dry_run &&
			       (e = ix_write_many(ix->conn, &ix->rules, &ix->memo, group, ng)) &&
			       !stopping(ix)) {
				SL_LOG(ix->log, SL_ERROR,
				       "%s: cannot write batch %llu..%llu%s: %s (%s); retrying",
				       sl_ikind_name(group[0]->kind), (unsigned long long)group[0]->first,
				       (unsigned long long)group[0]->next,
				       ng > 1 ? " and the batches with it" : "", sl_conn_error(ix->conn),
				       sl_err_name(e));
				if (e == SL_ERR_UNAVAILABLE) {
					/* the server went away: a fresh connection */
					char e256[256];
					sl_db_release(ix->db, ix->conn);
					while (!(ix->conn = sl_db_acquire(ix->db, 1000, e256)) &&
					       !stopping(ix))
						sleep_ms(ix, backoff);
					if (!ix->conn)
						break;
				}
				sleep_ms(ix, backoff);
				backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
			}
			for (size_t i = 0; i < ng; i++) {
				ix_batch *b = group[i];
				if (!e) {
					fetcher *f = &ix->f[b->kind];
					atomic_store(&f->applied, b->next);
					atomic_fetch_add(&ix->txs_applied, b->txs_total);
					/* holding all the node was known to have: caught up, as of now */
					if (b->next >= atomic_load(&f->head))
						atomic_store(&f->caught_up_ms, now_ns() / 1000000);
					SL_LOG(ix->log, SL_DEBUG, "%s: applied %llu..%llu (%zu txs)",
					       sl_ikind_name(b->kind), (unsigned long long)b->first,
					       (unsigned long long)b->next, (size_t)b->txs_total);
				}
				give_back(ix, b);
			}
			if (!ix->conn && !ix->cfg.dry_run)
				break;
		}
		int64_t now = now_ns();
		if (now >= next_status) {
			write_status(ix);
			next_status = now + 1000000000;
		}
		if (ohc && ix->conn && now >= next_observe) {
			char e256[256];
			sl_err oe = ix_observe(ix->conn, ohc, ix->cfg.node_url, now / 1000000000, e256);
			/* a node without the method (or between restarts) is said once, then at debug */
			if (oe)
				SL_LOG(ix->log, observe_failed ? SL_DEBUG : SL_WARN,
				       "cannot sample the node's validators (platform.getCurrentValidators): %s; "
				       "trying again every %u s",
				       e256, ix->cfg.observe_s);
			else if (e256[0]) /* the validators were sampled, without what info.peers says */
				SL_LOG(ix->log, peers_failed ? SL_DEBUG : SL_WARN,
				       "sampled the node's validators without its peers: %s", e256);
			observe_failed = oe != SL_OK;
			peers_failed = !oe && e256[0];
			next_observe = now + (int64_t)ix->cfg.observe_s * 1000000000;
		}
		if (ix->cfg.progress != SL_PROGRESS_OFF && now >= next_progress) {
			if (!reported_caught_up) {
				progress(ix, false); /* catching up: a line per index */
				next_progress = now + (ix->tty ? 500000000ll : 5000000000ll);
			} else {
				/* following: one line a minute */
				uint64_t txs = atomic_load(&ix->txs_applied), lag = 0;
				for (int k = 0; k < SL_IDX__COUNT; k++) {
					uint64_t at = atomic_load(&ix->f[k].applied),
						 hd = atomic_load(&ix->f[k].head);
					lag += hd > at ? hd - at : 0;
				}
				SL_LOG(ix->log, SL_INFO,
				       "following %s: +%llu txs in the last minute, %llu containers behind",
				       ix->cfg.node_url, (unsigned long long)(txs - follow_txs),
				       (unsigned long long)lag);
				follow_txs = txs;
				next_progress = now + 60000000000ll;
			}
		}
		if (atomic_load(&ix->deferred) && all_applied(ix) && now_ns() >= next_build &&
		    build_deferred(ix)) {
			SL_LOG(ix->log, SL_ERROR,
			       "cannot build the deferred indexes: %s; trying again in 5 s",
			       sl_conn_error(ix->conn));
			next_build = now_ns() + 5000000000ll;
		}
		if (!reported_caught_up && sl_indexer_caught_up(ix)) {
			reported_caught_up = true;
			if (ix->tty)
				progress(ix, true);
			SL_LOG(ix->log, SL_INFO, "caught up with %s: %llu txs in %.1f s", ix->cfg.node_url,
			       (unsigned long long)atomic_load(&ix->txs_applied),
			       (double)(now - ix->started_ns) / 1e9);
			follow_txs = atomic_load(&ix->txs_applied);
			next_progress = now + 60000000000ll;
		}
		bool all_failed = true;
		for (int k = 0; k < SL_IDX__COUNT; k++)
			all_failed &= atomic_load(&ix->f[k].failed);
		if (all_failed) {
			rc = 1;
			break;
		}
	}
	for (int k = 0; k < SL_IDX__COUNT; k++)
		if (atomic_load(&ix->f[k].failed))
			rc = 1;
	sl_http_client_free(ohc);
	return rc;
}

void sl_indexer_free(sl_indexer *ix)
{
	if (!ix)
		return;
	atomic_store(&ix->quit, true);
	pthread_mutex_lock(&ix->lock);
	pthread_cond_broadcast(&ix->changed);
	pthread_mutex_unlock(&ix->lock);
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		fetcher *f = &ix->f[k];
		if (f->started)
			pthread_join(f->thread, NULL);
		for (size_t i = 0; i < f->qlen; i++) {
			ix_batch *b = f->queue[(f->qhead + i) % IX_QUEUE_MAX];
			batch_free(b);
		}
		drop_spares(f);
		ix_pstate_release(&f->pstate);
		sl_http_client_free(f->hc);
	}
	if (ix->conn)
		sl_db_release(ix->db, ix->conn);
	sl_db_close(ix->db);
	ix_memo_release(&ix->memo);
	pthread_mutex_destroy(&ix->lock);
	pthread_cond_destroy(&ix->changed);
	free(ix);
}
