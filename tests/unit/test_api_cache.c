/* The API's response cache (api/cache.c): a hit gives back the bytes, status and type stored; a
 * different generation, an entry as old as API_CACHE_TTL_S, or another key is a miss; the bytes
 * stay under the cap with the least recently used entry going first; a body over an eighth of it
 * is not kept. A miss of a key being made waits for it (single flight). Several threads at once
 * leave it consistent (ASan and UBSan watch). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "api/internal.h"

static sl_http_resp resp_of(const char *body, int status)
{
	sl_http_resp r = { .status = status, .content_type = "application/json; charset=utf-8" };
	sl_buf_init(&r.body, 1u << 20);
	sl_buf_adds(&r.body, body);
	return r;
}

/* A lookup that, on a miss, gives up its flight at once (nothing made). */
static bool get(struct api_cache *c, const char *key, const api_gen *g, int64_t now, sl_http_resp *out)
{
	*out = (sl_http_resp){ 0 };
	sl_buf_init(&out->body, 1u << 20);
	bool owner;
	bool hit = api_cache_get(c, key, strlen(key), g, now, out, &owner);
	assert_false(hit && owner);
	if (owner)
		api_cache_put(c, key, strlen(key), g, now, NULL, true);
	return hit;
}

static void test_hit_and_misses(void **state)
{
	(void)state;
	struct api_cache *c = api_cache_new(1u << 20);
	assert_non_null(c);
	api_gen g = { { 1, 2, 3, 4, 5, 1 } }, g2 = g;
	g2.v[3]++;
	sl_http_resp r = resp_of("{\"utxos\":[]}", 200), out;
	assert_false(get(c, "/v1/a?x=1", &g, 100, &out));
	sl_buf_release(&out.body);
	api_cache_put(c, "/v1/a?x=1", 9, &g, 100, &r, false);

	assert_true(get(c, "/v1/a?x=1", &g, 100 + API_CACHE_TTL_S - 1, &out));
	assert_int_equal(out.status, 200);
	assert_string_equal(out.content_type, r.content_type);
	assert_int_equal(out.body.len, r.body.len);
	assert_memory_equal(out.body.p, r.body.p, r.body.len);
	sl_buf_release(&out.body);

	assert_false(get(c, "/v1/a?x=2", &g, 100, &out)); /* another target */
	sl_buf_release(&out.body);
	assert_false(get(c, "/v1/a?x=1", &g2, 101, &out)); /* the store moved on: dropped */
	sl_buf_release(&out.body);
	assert_false(get(c, "/v1/a?x=1", &g, 101, &out)); /* ... for good */
	sl_buf_release(&out.body);

	api_cache_put(c, "/v1/a?x=1", 9, &g, 100, &r, false);
	assert_false(get(c, "/v1/a?x=1", &g, 100 + API_CACHE_TTL_S, &out)); /* too old: make it again */
	sl_buf_release(&out.body);
	/* ... and while one request makes it again, the old one answers the others */
	bool owner;
	int64_t t = 100 + API_CACHE_TTL_S + 1;
	sl_http_resp o2 = { 0 };
	sl_buf_init(&o2.body, 1u << 20);
	assert_false(api_cache_get(c, "/v1/a?x=1", 9, &g, t, &o2, &owner));
	assert_true(owner);
	assert_true(get(c, "/v1/a?x=1", &g, t, &out));
	assert_memory_equal(out.body.p, r.body.p, r.body.len);
	sl_buf_release(&out.body);
	api_cache_put(c, "/v1/a?x=1", 9, &g, t, &r, true); /* made: fresh again */
	assert_true(get(c, "/v1/a?x=1", &g, t + API_CACHE_TTL_S - 1, &out));
	sl_buf_release(&out.body);
	/* twice the TTL: gone */
	assert_false(api_cache_get(c, "/v1/a?x=1", 9, &g, t + API_CACHE_TTL_S, &o2, &owner));
	assert_true(owner); /* (the old one is kept while this one makes it) */
	api_cache_put(c, "/v1/a?x=1", 9, &g, t + API_CACHE_TTL_S, NULL, true); /* made nothing */
	assert_false(get(c, "/v1/a?x=1", &g, t + 2 * API_CACHE_TTL_S, &out));
	sl_buf_release(&out.body);
	sl_buf_release(&o2.body);
	api_cache_put(c, "/v1/a?x=1", 9, &g, 100, &r, false);
	assert_false(get(c, "/v1/a?x=1", &g, 99, &out)); /* a clock that went back: not trusted */
	sl_buf_release(&out.body);

	uint64_t hits, misses;
	size_t bytes;
	api_cache_counts(c, &hits, &misses, &bytes);
	assert_int_equal(hits, 3);
	assert_int_equal(misses, 9);
	assert_int_equal(bytes, 0);
	sl_buf_release(&r.body);
	api_cache_free(c);
	assert_null(api_cache_new(0));
	owner = true;
	assert_false(api_cache_get(NULL, "k", 1, &g, 0, &out, &owner));
	assert_false(owner);
}

static void test_bounded_lru(void **state)
{
	(void)state;
	size_t cap = 256u << 10;
	struct api_cache *c = api_cache_new(cap);
	api_gen g = { { 0 } };
	char body[20000], key[32];
	memset(body, 'x', sizeof body - 1);
	body[sizeof body - 1] = 0;
	sl_http_resp r = resp_of(body, 200), out;
	for (int i = 0; i < 40; i++) { /* 40 x 20 KB > 256 KB */
		snprintf(key, sizeof key, "/k%d", i);
		api_cache_put(c, key, strlen(key), &g, 7, &r, false);
	}
	uint64_t hits, misses;
	size_t bytes;
	api_cache_counts(c, &hits, &misses, &bytes);
	assert_true(bytes <= cap);
	assert_true(bytes > cap - 21000);
	/* what stayed is the newest: a run k<j>..k39 */
	int j = 0;
	while (j < 40) {
		snprintf(key, sizeof key, "/k%d", j);
		if (get(c, key, &g, 7, &out)) { /* this lookup makes k<j> the newest */
			sl_buf_release(&out.body);
			break;
		}
		sl_buf_release(&out.body);
		j++;
	}
	assert_true(j > 20 && j < 39);
	for (int i = j + 1; i < 40; i++) {
		snprintf(key, sizeof key, "/k%d", i);
		assert_true(get(c, key, &g, 7, &out));
		sl_buf_release(&out.body);
	}
	/* now k<j+1> is the least recently used: the next put evicts it, and k<j> stays */
	snprintf(key, sizeof key, "/k%d", j);
	assert_true(get(c, key, &g, 7, &out));
	sl_buf_release(&out.body);
	api_cache_put(c, "/k40", 4, &g, 7, &r, false);
	assert_true(get(c, key, &g, 7, &out));
	sl_buf_release(&out.body);
	snprintf(key, sizeof key, "/k%d", j + 1);
	assert_false(get(c, key, &g, 7, &out));
	sl_buf_release(&out.body);

	/* a body over an eighth of the cap is not kept */
	char *big = malloc(cap / 8 + 1);
	memset(big, 'y', cap / 8);
	big[cap / 8] = 0;
	sl_http_resp rb = resp_of(big, 200);
	api_cache_put(c, "/big", 4, &g, 7, &rb, false);
	assert_false(get(c, "/big", &g, 7, &out));
	sl_buf_release(&out.body);
	free(big);
	sl_buf_release(&rb.body);
	sl_buf_release(&r.body);
	api_cache_free(c);
}

static struct api_cache *shared;

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	char key[32], body[600];
	for (int i = 0; i < 20000; i++) {
		seed = seed * 1103515245u + 12345u;
		int k = (int)(seed >> 16) % 300;
		api_gen g = { { k % 3 } };
		snprintf(key, sizeof key, "/t%d", k);
		snprintf(body, sizeof body, "{\"k\":%d,\"pad\":\"%*s\"}", k, (int)(seed % 500), "");
		sl_http_resp out = { 0 };
		sl_buf_init(&out.body, 1u << 20);
		bool owner;
		if (api_cache_get(shared, key, strlen(key), &g, i / 5000, &out, &owner)) {
			int got = -1;
			assert_int_equal(sscanf((const char *)out.body.p, "{\"k\":%d", &got), 1);
			assert_int_equal(got, k); /* never another key's bytes */
		} else {
			sl_http_resp r = resp_of(body, 200);
			/* now and then a miss makes nothing (an error): its waiters go on */
			api_cache_put(shared, key, strlen(key), &g, i / 5000, seed % 7 ? &r : NULL, owner);
			sl_buf_release(&r.body);
		}
		sl_buf_release(&out.body);
	}
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	shared = api_cache_new(64u << 10);
	pthread_t t[4];
	for (uintptr_t i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)(i + 1)), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	uint64_t hits, misses;
	size_t bytes;
	api_cache_counts(shared, &hits, &misses, &bytes);
	assert_int_equal(hits + misses, 80000);
	assert_true(hits > 0);
	assert_true(bytes <= 64u << 10);
	api_cache_free(shared);
}

/* Single flight: a miss of a key another request is making waits for that one's answer. */
static struct api_cache *sf;
static api_gen sf_gen;
static int sf_hit = -1;

static void *waiter(void *arg)
{
	(void)arg;
	sl_http_resp out;
	sf_hit = get(sf, "/page", &sf_gen, 3, &out);
	if (sf_hit)
		assert_string_equal(sl_buf_str(&out.body), "made once");
	sl_buf_release(&out.body);
	return NULL;
}

static void test_single_flight(void **state)
{
	(void)state;
	sf = api_cache_new(1u << 20);
	sl_http_resp out = { 0 };
	sl_buf_init(&out.body, 1u << 20);
	bool owner;
	static const char key[] = "/page";
	assert_false(api_cache_get(sf, key, 5, &sf_gen, 3, &out, &owner));
	assert_true(owner);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, waiter, NULL), 0);
	struct timespec ms50 = { 0, 50 * 1000000L };
	nanosleep(&ms50, NULL);
	assert_int_equal(sf_hit, -1); /* still waiting */
	/* another generation is another page: not waited for */
	api_gen g2 = { { 9 } };
	bool owner2;
	assert_false(api_cache_get(sf, key, 5, &g2, 3, &out, &owner2));
	assert_true(owner2);
	api_cache_put(sf, key, 5, &g2, 3, NULL, true);
	sl_http_resp r = resp_of("made once", 200);
	api_cache_put(sf, key, 5, &sf_gen, 3, &r, true);
	pthread_join(t, NULL);
	assert_int_equal(sf_hit, 1);
	uint64_t hits, misses;
	size_t bytes;
	api_cache_counts(sf, &hits, &misses, &bytes);
	assert_int_equal(hits, 1);
	assert_int_equal(misses, 2);
	sl_buf_release(&r.body);
	sl_buf_release(&out.body);
	api_cache_free(sf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_and_misses),
		cmocka_unit_test(test_bounded_lru),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_single_flight),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
