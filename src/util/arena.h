/*
 * arena.h — a bump allocator for one request, one RPC call or one block.
 *
 * Everything allocated from an arena lives until sl_arena_release(); nothing
 * is freed one by one. An arena has a cap: past it, allocation returns NULL,
 * so a hostile input can make a request fail but not exhaust the process.
 *
 * Lifecycle: sl_arena_init(&a, cap) ... sl_arena_release(&a). Not thread-safe;
 * one arena belongs to one thread at a time.
 */
#ifndef SL_ARENA_H
#define SL_ARENA_H

#include "util/common.h"

typedef struct sl_arena_chunk sl_arena_chunk;

typedef struct sl_arena {
	sl_arena_chunk *head;
	size_t used, cap; /* bytes handed out so far (with chunk overhead), and the cap */
} sl_arena;

void sl_arena_init(sl_arena *a, size_t cap);
void sl_arena_release(sl_arena *a);

/* Aligned to 16 bytes; NULL past the cap or on allocation failure. */
void *sl_arena_alloc(sl_arena *a, size_t n);
void *sl_arena_zalloc(sl_arena *a, size_t n);
/* n elements of size sz, with overflow checked. */
void *sl_arena_array(sl_arena *a, size_t n, size_t sz);
char *sl_arena_strndup(sl_arena *a, const char *s, size_t n);

#endif
