/*
 * routes.c — the node's path table, with avalanchego's aliasing rules
 * (api/server/router.go): an alias of a base serves every sub-route of that
 * base, now and later; alias paths are reserved once used; an alias path
 * itself becomes a base. Lookups are exact (no trailing-slash folding).
 *
 * Not locked here: node->routes_lock guards every call.
 */
#include "node/internal.h"

#include <stdio.h>

#include "util/limits.h"

#define TABLE_SIZE 16384 /* power of two, > 2 * max paths */
#define MAX_PATHS (TABLE_SIZE / 2)
#define MAX_BASES 2048
#define MAX_SUBS 8

typedef struct entry {
	char *path;
	const route *r;
} entry;

typedef struct base {
	char *path;
	struct {
		char *endpoint;
		const route *r;
	} subs[MAX_SUBS];
	size_t nsubs;
	char **aliases;
	size_t naliases, capaliases;
} base;

struct sl_routes {
	entry table[TABLE_SIZE];
	size_t npaths;
	base bases[MAX_BASES];
	size_t nbases;
	char **reserved;
	size_t nreserved, capreserved;
};

static uint64_t hash(const char *s) { return sl_fnv1a(SL_FNV_OFFSET, s, strlen(s)); }

sl_routes *sl_routes_new(void) { return calloc(1, sizeof(sl_routes)); }

void sl_routes_free(sl_routes *rt)
{
	if (!rt)
		return;
	for (size_t i = 0; i < TABLE_SIZE; i++)
		free(rt->table[i].path);
	for (size_t i = 0; i < rt->nbases; i++) {
		free(rt->bases[i].path);
		for (size_t j = 0; j < rt->bases[i].nsubs; j++)
			free(rt->bases[i].subs[j].endpoint);
		for (size_t j = 0; j < rt->bases[i].naliases; j++)
			free(rt->bases[i].aliases[j]);
		free(rt->bases[i].aliases);
	}
	for (size_t i = 0; i < rt->nreserved; i++)
		free(rt->reserved[i]);
	free(rt->reserved);
	free(rt);
}

const route *sl_routes_lookup(sl_routes *rt, const char *path)
{
	for (uint64_t i = hash(path) & (TABLE_SIZE - 1);; i = (i + 1) & (TABLE_SIZE - 1)) {
		if (!rt->table[i].path)
			return NULL;
		if (!strcmp(rt->table[i].path, path))
			return rt->table[i].r;
	}
}

/* Insert a path; SL_ERR_CONFLICT if it exists. */
static sl_err put(sl_routes *rt, const char *path, const route *r)
{
	if (rt->npaths >= MAX_PATHS)
		return SL_ERR_TOO_LARGE;
	uint64_t i = hash(path) & (TABLE_SIZE - 1);
	for (; rt->table[i].path; i = (i + 1) & (TABLE_SIZE - 1))
		if (!strcmp(rt->table[i].path, path))
			return SL_ERR_CONFLICT;
	char *p = strdup(path);
	if (!p)
		return SL_ERR_NOMEM;
	rt->table[i] = (entry){ p, r };
	rt->npaths++;
	return SL_OK;
}

static base *find_base(sl_routes *rt, const char *path, bool create)
{
	for (size_t i = 0; i < rt->nbases; i++)
		if (!strcmp(rt->bases[i].path, path))
			return &rt->bases[i];
	if (!create || rt->nbases >= MAX_BASES)
		return NULL;
	base *b = &rt->bases[rt->nbases];
	*b = (base){ .path = strdup(path) };
	if (!b->path)
		return NULL;
	rt->nbases++;
	return b;
}

static bool push_str(char ***arr, size_t *n, size_t *cap, const char *s)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		char **p = realloc(*arr, nc * sizeof *p);
		if (!p)
			return false;
		*arr = p;
		*cap = nc;
	}
	char *d = strdup(s);
	if (!d)
		return false;
	(*arr)[(*n)++] = d;
	return true;
}

/* Record base+endpoint → r, and serve it. No alias propagation. */
static sl_err add_one(sl_routes *rt, const char *b, const char *endpoint, const route *r)
{
	char path[SL_HTTP_MAX_PATH];
	if ((size_t)snprintf(path, sizeof path, "%s%s", b, endpoint) >= sizeof path)
		return SL_ERR_TOO_LARGE;
	sl_err err = put(rt, path, r);
	if (err)
		return err;
	base *bs = find_base(rt, b, true);
	if (bs && bs->nsubs < MAX_SUBS) {
		bs->subs[bs->nsubs].endpoint = strdup(endpoint);
		bs->subs[bs->nsubs].r = r;
		if (bs->subs[bs->nsubs].endpoint)
			bs->nsubs++;
	}
	return SL_OK;
}

sl_err sl_routes_add(sl_routes *rt, const char *b, const char *endpoint, const route *r)
{
	sl_err err = add_one(rt, b, endpoint, r);
	if (err)
		return err;
	base *bs = find_base(rt, b, false);
	for (size_t i = 0; bs && i < bs->naliases; i++) {
		sl_err e = add_one(rt, bs->aliases[i], endpoint, r);
		if (e && !err)
			err = e;
	}
	return err;
}

sl_err sl_routes_alias(sl_routes *rt, const char *b, const char *alias, char msg[1200])
{
	for (size_t i = 0; i < rt->nreserved; i++)
		if (!strcmp(rt->reserved[i], alias)) {
			snprintf(msg, 1200,
				 "route is either already aliased or already maps to a handle: %.600s",
				 alias);
			return SL_ERR_CONFLICT;
		}
	if (rt->nreserved >= SL_MAX_ALIASES) {
		snprintf(msg, 1200, "too many aliases");
		return SL_ERR_TOO_LARGE;
	}
	base *bs = find_base(rt, b, true);
	if (!bs || !push_str(&rt->reserved, &rt->nreserved, &rt->capreserved, alias) ||
	    !push_str(&bs->aliases, &bs->naliases, &bs->capaliases, alias)) {
		snprintf(msg, 1200, "out of memory");
		return SL_ERR_NOMEM;
	}
	sl_err first = SL_OK;
	size_t nsubs = bs->nsubs;
	for (size_t i = 0; i < nsubs; i++) {
		/* bs may move? No: bases are a fixed array, and add_one only appends. */
		char endpoint[SL_HTTP_MAX_PATH];
		snprintf(endpoint, sizeof endpoint, "%s", bs->subs[i].endpoint);
		sl_err e = add_one(rt, alias, endpoint, bs->subs[i].r);
		if (e && !first) {
			first = e;
			if (e == SL_ERR_CONFLICT)
				snprintf(msg, 1200, "failed to create endpoint as %.600s%.64s already exists",
					 alias, endpoint);
			else
				snprintf(msg, 1200, "failed to create endpoint as %.600s%.64s: %s", alias,
					 endpoint, sl_err_name(e));
		}
	}
	return first;
}
