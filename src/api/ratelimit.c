/*
 * ratelimit.c — token buckets, one per API key and one per client address
 * for anonymous requests. The table is fixed-size (a client that changes
 * addresses cannot grow it): a bucket is found by hash, and a slot held by
 * a bucket idle for longer than it takes to refill is reused. Shards keep
 * the lock short and mostly uncontended.
 */
#include "api/internal.h"

#include <time.h>

#define SHARDS 64
#define SLOTS 1024 /* per shard: 65,536 buckets in all */

typedef struct bucket {
	uint64_t who; /* hash of the name; 0: free */
	double tokens;
	int64_t last_ns;
} bucket;

typedef struct shard {
	pthread_mutex_t lock;
	bucket slots[SLOTS];
} shard;

struct sl_ratelimit {
	shard shards[SHARDS];
};

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t hash(const char *s)
{
	uint64_t h = sl_fnv1a(SL_FNV_OFFSET, s, strlen(s));
	return h ? h : 1;
}

struct sl_ratelimit *api_ratelimit_new(void)
{
	struct sl_ratelimit *rl = calloc(1, sizeof *rl);
	if (rl)
		for (int i = 0; i < SHARDS; i++)
			pthread_mutex_init(&rl->shards[i].lock, NULL);
	return rl;
}

void api_ratelimit_free(struct sl_ratelimit *rl)
{
	if (!rl)
		return;
	for (int i = 0; i < SHARDS; i++)
		pthread_mutex_destroy(&rl->shards[i].lock);
	free(rl);
}

bool api_ratelimit_take(struct sl_ratelimit *rl, const char *who, double rate, double burst, int *retry_after)
{
	uint64_t h = hash(who);
	shard *s = &rl->shards[h % SHARDS];
	int64_t now = mono_ns();
	double refill_ns =
		burst / rate * 1e9; /* a bucket idle this long is full again: its slot may be reused */
	bool ok;
	pthread_mutex_lock(&s->lock);
	bucket *b = NULL, *victim = NULL;
	for (size_t i = 0, at = (h >> 6) % SLOTS; i < 8; i++) {
		bucket *c = &s->slots[(at + i) % SLOTS];
		if (c->who == h) {
			b = c;
			break;
		}
		if (!victim && (!c->who || (double)(now - c->last_ns) > refill_ns))
			victim = c;
	}
	if (!b) {
		b = victim ? victim
			   : &s->slots[(h >> 6) %
				       SLOTS]; /* all eight busy: share one (stricter, never laxer) */
		if (b->who != h)
			*b = (bucket){ h, burst, now };
	}
	b->tokens += (double)(now - b->last_ns) / 1e9 * rate;
	if (b->tokens > burst)
		b->tokens = burst;
	b->last_ns = now;
	ok = b->tokens >= 1;
	if (ok)
		b->tokens -= 1;
	else
		*retry_after = (int)((1 - b->tokens) / rate) + 1;
	pthread_mutex_unlock(&s->lock);
	return ok;
}
