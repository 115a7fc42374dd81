#include "util/arena.h"

#include <stdlib.h>

struct sl_arena_chunk {
	sl_arena_chunk *next;
	size_t size, off;
	_Alignas(16) unsigned char data[];
};

#define CHUNK_MIN 4096u

void sl_arena_init(sl_arena *a, size_t cap) { *a = (sl_arena){ .cap = cap }; }

void sl_arena_release(sl_arena *a)
{
	for (sl_arena_chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	sl_arena_init(a, a->cap);
}

void *sl_arena_alloc(sl_arena *a, size_t n)
{
	if (n > a->cap)
		return NULL;
	n = (n + 15) & ~(size_t)15;
	sl_arena_chunk *c = a->head;
	if (c && c->size - c->off >= n) {
		void *p = c->data + c->off;
		c->off += n;
		return p;
	}
	size_t size = n > CHUNK_MIN ? n : (c ? SL_MIN(c->size * 2, (size_t)1 << 20) : CHUNK_MIN);
	if (size < n)
		size = n;
	if (size + sizeof *c > a->cap - SL_MIN(a->used, a->cap))
		return NULL;
	sl_arena_chunk *nc = malloc(sizeof *nc + size);
	if (!nc)
		return NULL;
	a->used += sizeof *nc + size;
	nc->size = size;
	nc->off = n;
	/* A big one-off block goes behind the head so the head keeps its free room. */
	if (c && n > CHUNK_MIN && c->size - c->off > CHUNK_MIN / 4) {
		nc->next = c->next;
		c->next = nc;
	} else {
		nc->next = c;
		a->head = nc;
	}
	return nc->data;
}

void *sl_arena_zalloc(sl_arena *a, size_t n)
{
	void *p = sl_arena_alloc(a, n);
	if (p)
		memset(p, 0, n);
	return p;
}

void *sl_arena_array(sl_arena *a, size_t n, size_t sz)
{
	if (sz && n > SIZE_MAX / sz)
		return NULL;
	return sl_arena_alloc(a, n * sz);
}

char *sl_arena_strndup(sl_arena *a, const char *s, size_t n)
{
	char *p = sl_arena_alloc(a, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}
