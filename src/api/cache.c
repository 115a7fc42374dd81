/*
 * cache.c — whole responses of the read routes, by request target, for as long
 * as the store has not changed since they were made.
 *
 * A wallet asks for the same page of the same address again and again; each
 * answer costs a range read and the rendering of up to a few hundred KB of
 * JSON. What a GET on a cacheable route answers is a function of its target
 * (path and query: the method, the key it was sent with and its other headers
 * change nothing in the body) and of what the store holds. The store's
 * content is named by its generation: the five index cursors, which every
 * batch the indexer applies advances in the same transaction, whether
 * genesis is applied (the one write before the first batch), and the last
 * load of prices (store/prices.h: each load raises max(prices.loaded) in its
 * transaction); nothing else writes what the API reads. So an entry made at generation g answers only
 * requests that read g; the indexer's next batch makes every entry stale at
 * once, whichever API server made it.
 *
 * Two things in a body depend on the clock rather than the store: the issue
 * time inside nextPageToken, and whether the pageToken sent was still good.
 * An entry is therefore made again once it is API_CACHE_TTL_S seconds old; the
 * old one, still true of the store, answers meanwhile (up to twice that age),
 * so a page in demand never has its requests wait for a render.
 * Routes whose bodies depend on the clock otherwise (balances at "now") are
 * not cached at all (api_route.cache).
 *
 * Memory is bounded: bodies and keys together stay under the configured bytes,
 * the least recently used entry going first; one body may take an eighth of
 * it. One lock: a lookup is a hash probe and a copy of the body.
 *
 * A miss is made once: the first request to miss a key at a generation takes
 * it in flight, and others that miss it meanwhile wait (up to
 * FLIGHT_WAIT_MS) for its answer instead of each reading and rendering the
 * same page; a popular page expiring under load costs one render, not one per
 * connection. A waiter would otherwise spend longer making the page itself.
 */
#include "api/internal.h"

#include <pthread.h>
#include <time.h>

#include "util/lock.h"

typedef struct centry {
	struct centry *chain;	    /* the next in its hash slot */
	struct centry *prev, *next; /* recency: cache.lru.next is the newest */
	uint64_t hash;
	api_gen gen;
	int64_t born; /* monotonic seconds */
	int status;
	const char *ctype; /* a static string */
	size_t klen, blen;
	char data[]; /* the key, then the body */
} centry;

#define FLIGHTS 64	    /* misses being made at once; past that, a miss is made without waiters */
#define FLIGHT_WAIT_MS 5000 /* a waiter gives up and makes the page itself */

typedef struct flight {
	const char *key; /* the owner's, valid while it is in flight; NULL: a free slot */
	size_t klen;
	uint64_t hash;
	api_gen gen;
} flight;

struct api_cache {
	sl_mutex lock;
	pthread_cond_t landed; /* a flight ended */
	flight fl[FLIGHTS];
	size_t cap, used; /* bytes of entries (their struct, key and body) */
	size_t mask;	  /* slots - 1 */
	centry **slot;
	centry lru; /* sentinel of the recency list */
	uint64_t hits, misses;
};

static uint64_t hash_of(const char *k, size_t n)
{
	uint64_t h = sl_fnv1a(SL_FNV_OFFSET, k, n);
	return h ^ (h >> 29); /* the low bits pick the slot */
}

struct api_cache *api_cache_new(size_t bytes)
{
	if (!bytes)
		return NULL;
	struct api_cache *c = calloc(1, sizeof *c);
	/* a slot per 8 KB of capacity, at least 256: chains stay short at any body size */
	size_t slots = 256;
	while (slots < bytes / 8192 && slots < (1u << 20))
		slots <<= 1;
	if (c && !(c->slot = calloc(slots, sizeof *c->slot))) {
		free(c);
		c = NULL;
	}
	if (!c)
		return NULL;
	sl_mutex_init(&c->lock, "api.cache");
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->landed, &ca);
	pthread_condattr_destroy(&ca);
	c->cap = bytes;
	c->mask = slots - 1;
	c->lru.next = c->lru.prev = &c->lru;
	return c;
}

static void unlink_lru(centry *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
}

static void push_front(struct api_cache *c, centry *e)
{
	e->next = c->lru.next;
	e->prev = &c->lru;
	c->lru.next->prev = e;
	c->lru.next = e;
}

static size_t size_of(const centry *e) { return sizeof *e + e->klen + e->blen; }

static void drop(struct api_cache *c, centry *e)
{
	centry **p = &c->slot[e->hash & c->mask];
	while (*p != e)
		p = &(*p)->chain;
	*p = e->chain;
	unlink_lru(e);
	c->used -= size_of(e);
	free(e);
}

static centry *find(struct api_cache *c, uint64_t h, const char *key, size_t klen)
{
	for (centry *e = c->slot[h & c->mask]; e; e = e->chain)
		if (e->hash == h && e->klen == klen && !memcmp(e->data, key, klen))
			return e;
	return NULL;
}

void api_cache_free(struct api_cache *c)
{
	if (!c)
		return;
	while (c->lru.next != &c->lru)
		drop(c, c->lru.next);
	sl_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->landed);
	free(c->slot);
	free(c);
}

static bool in_flight(const struct api_cache *c, uint64_t h, const char *key, size_t klen, const api_gen *gen)
{
	for (size_t i = 0; i < FLIGHTS; i++) {
		const flight *f = &c->fl[i];
		if (f->key && f->hash == h && f->klen == klen && !memcmp(f->key, key, klen) &&
		    !memcmp(&f->gen, gen, sizeof *gen))
			return true;
	}
	return false;
}

bool api_cache_get(struct api_cache *c, const char *key, size_t klen, const api_gen *gen, int64_t now,
		   sl_http_resp *resp, bool *owner)
{
	*owner = false;
	if (!c)
		return false;
	uint64_t h = hash_of(key, klen);
	bool hit = false, waited = false;
	struct timespec until;
	sl_mutex_lock(&c->lock);
	for (;;) {
		centry *e = find(c, h, key, klen);
		int64_t age = e ? now - e->born : 0;
		if (e && (memcmp(&e->gen, gen, sizeof *gen) || age < 0 || age >= 2 * API_CACHE_TTL_S)) {
			drop(c, e); /* the store moved on, or it is far too old */
			e = NULL;
		}
		bool flying = in_flight(c, h, key, klen, gen);
		/* an entry past its TTL still says what the store holds: it answers while another
		 * request makes it again, and it is made again by the first request to find it so */
		if (e && (age < API_CACHE_TTL_S || flying)) {
			sl_buf_reset(&resp->body);
			sl_buf_add(&resp->body, e->data + e->klen, e->blen);
			hit = !resp->body.err;
			if (hit) {
				resp->status = e->status;
				resp->content_type = e->ctype;
				unlink_lru(e);
				push_front(c, e);
			}
			break;
		}
		if (!flying) {
			for (size_t i = 0; i < FLIGHTS; i++)
				if (!c->fl[i].key) {
					c->fl[i] =
						(flight){ .key = key, .klen = klen, .hash = h, .gen = *gen };
					*owner = true;
					break;
				}
			break;
		}
		if (!waited) {
			waited = true;
			sl_deadline(&until, CLOCK_MONOTONIC, FLIGHT_WAIT_MS);
		}
		if (pthread_cond_timedwait(&c->landed, &c->lock.mu, &until))
			break; /* waited long enough: make it here */
	}
	if (hit)
		c->hits++;
	else
		c->misses++;
	sl_mutex_unlock(&c->lock);
	return hit;
}

void api_cache_put(struct api_cache *c, const char *key, size_t klen, const api_gen *gen, int64_t now,
		   const sl_http_resp *resp, bool owner)
{
	if (!c)
		return;
	centry *e = NULL;
	size_t need = sizeof(centry) + klen + (resp ? resp->body.len : 0);
	if (resp && !resp->body.err && need <= c->cap / 8 && (e = malloc(need))) {
		*e = (centry){ .hash = hash_of(key, klen),
			       .gen = *gen,
			       .born = now,
			       .status = resp->status,
			       .ctype = resp->content_type,
			       .klen = klen,
			       .blen = resp->body.len };
		memcpy(e->data, key, klen);
		if (e->blen)
			memcpy(e->data + klen, resp->body.p, e->blen);
	}
	sl_mutex_lock(&c->lock);
	if (e) {
		centry *old = find(c, e->hash, key, klen);
		if (old)
			drop(c, old); /* another thread made it too; the newer one stays */
		while (c->used + need > c->cap && c->lru.prev != &c->lru)
			drop(c, c->lru.prev);
		centry **slot = &c->slot[e->hash & c->mask];
		e->chain = *slot;
		*slot = e;
		push_front(c, e);
		c->used += need;
	}
	if (owner) {
		for (size_t i = 0; i < FLIGHTS; i++)
			if (c->fl[i].key == key && !memcmp(&c->fl[i].gen, gen, sizeof *gen)) {
				c->fl[i].key = NULL;
				break;
			}
		pthread_cond_broadcast(&c->landed);
	}
	sl_mutex_unlock(&c->lock);
}

void api_cache_counts(struct api_cache *c, uint64_t *hits, uint64_t *misses, size_t *bytes)
{
	*hits = *misses = 0;
	*bytes = 0;
	if (!c)
		return;
	sl_mutex_lock(&c->lock);
	*hits = c->hits;
	*misses = c->misses;
	*bytes = c->used;
	sl_mutex_unlock(&c->lock);
}
