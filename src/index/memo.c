/*
 * memo.c — the writer's memory of UTXOs (memo.h).
 *
 * Each generation is an open-addressing table with linear probing, at most
 * half full; ids are hashes, so their first 8 bytes are the probe's start.
 * A removal shifts the entries after it back (no tombstones), so a lookup
 * stops at the first empty slot.
 */
#include "index/memo.h"

#define HALF (IX_MEMO_SLOTS / 2)
#define MASK (IX_MEMO_SLOTS - 1)
#define EARLY_BITS ((size_t)1 << 24)
#define EARLY_PROBES 6

static size_t home(const uint8_t id[32])
{
	uint64_t h;
	memcpy(&h, id, sizeof h);
	return (size_t)h & MASK;
}

bool ix_memo_init(ix_memo *m)
{
	*m = (ix_memo){ 0 };
	m->gen[0] = calloc(IX_MEMO_SLOTS, sizeof *m->gen[0]);
	m->gen[1] = calloc(IX_MEMO_SLOTS, sizeof *m->gen[1]);
	m->early = calloc(EARLY_BITS / 8, 1);
	m->acts = calloc(IX_ACT_SLOTS, sizeof *m->acts);
	m->act_used = calloc(IX_ACT_SLOTS / 2, sizeof *m->act_used);
	if (m->gen[0] && m->gen[1] && m->early && m->acts && m->act_used)
		return true;
	ix_memo_release(m);
	return false;
}

void ix_memo_release(ix_memo *m)
{
	free(m->gen[0]);
	free(m->gen[1]);
	free(m->early);
	free(m->acts);
	free(m->act_used);
	free(m->pend);
	free(m->pend_slots);
	*m = (ix_memo){ 0 };
}

/* The slot holding id in generation g, or SIZE_MAX. */
static size_t find(const ix_memo *m, int g, const uint8_t id[32])
{
	const ix_memo_slot *t = m->gen[g];
	if (!t)
		return SIZE_MAX;
	for (size_t i = home(id);; i = (i + 1) & MASK) {
		if (!t[i].used)
			return SIZE_MAX;
		if (!memcmp(t[i].id, id, 32))
			return i;
	}
}

static void remove_at(ix_memo *m, int g, size_t i)
{
	ix_memo_slot *t = m->gen[g];
	/* backward shift: move up each later entry of the run whose home does not lie in (i, j] */
	for (size_t j = (i + 1) & MASK; t[j].used; j = (j + 1) & MASK) {
		size_t h = home(t[j].id);
		bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
		if (!stays) {
			t[i] = t[j];
			i = j;
		}
	}
	t[i].used = false;
	m->n[g]--;
}

void ix_memo_put(ix_memo *m, const uint8_t id[32], const ix_loc *l)
{
	if (!m->gen[0] || l->naddrs > IX_LOC_ADDRS)
		return;
	int g = m->cur;
	size_t at = find(m, g, id);
	if (at == SIZE_MAX) {
		if (m->n[g] == HALF) {
			/* the newer generation is full: the older one goes, and a fresh one (zero pages
			 * from the system, not a memset of them) is the newer one now */
			ix_memo_slot *fresh = calloc(IX_MEMO_SLOTS, sizeof *fresh);
			if (!fresh)
				return; /* not remembered: a miss later */
			g = m->cur = !m->cur;
			free(m->gen[g]);
			m->gen[g] = fresh;
			m->n[g] = 0;
		}
		for (at = home(id); m->gen[g][at].used; at = (at + 1) & MASK)
			;
		memcpy(m->gen[g][at].id, id, 32);
		m->gen[g][at].used = true;
		m->n[g]++;
	}
	m->gen[g][at].loc = *l;
}

bool ix_memo_peek(const ix_memo *m, const uint8_t id[32], ix_loc *out)
{
	for (int k = 0; k < 2; k++) {
		int g = k ? !m->cur : m->cur;
		size_t i = find(m, g, id);
		if (i != SIZE_MAX) {
			*out = m->gen[g][i].loc;
			return true;
		}
	}
	return false;
}

bool ix_memo_take(ix_memo *m, const uint8_t id[32], ix_loc *out)
{
	for (int k = 0; k < 2; k++) {
		int g = k ? !m->cur : m->cur;
		size_t i = find(m, g, id);
		if (i != SIZE_MAX) {
			*out = m->gen[g][i].loc;
			remove_at(m, g, i);
			return true;
		}
	}
	return false;
}

void ix_memo_forget(ix_memo *m)
{
	for (int g = 0; g < 2 && m->gen[0]; g++) {
		if (!m->n[g])
			continue;
		ix_memo_slot *fresh = calloc(IX_MEMO_SLOTS, sizeof *fresh);
		if (fresh) {
			free(m->gen[g]);
			m->gen[g] = fresh;
		} else {
			memset(m->gen[g], 0, IX_MEMO_SLOTS * sizeof *m->gen[g]);
		}
		m->n[g] = 0;
	}
	ix_memo_early_reset(m);
	ix_memo_pend_clear(m);
}

/* The slot of id in the pending table: the one holding it, or the empty one where it goes. */
static size_t pend_slot(const ix_memo *m, const uint8_t id[32])
{
	uint64_t h;
	memcpy(&h, id + 8, sizeof h); /* not home(): that is masked to the generations' size */
	size_t i = (size_t)h & m->pend_mask;
	while (m->pend_slots[i] && memcmp(m->pend[m->pend_slots[i] - 1].out.id, id, 32))
		i = (i + 1) & m->pend_mask;
	return i;
}

ix_pend *ix_memo_pend_find(const ix_memo *m, const uint8_t id[32])
{
	if (!m->npend)
		return NULL;
	uint32_t k = m->pend_slots[pend_slot(m, id)];
	return k ? &m->pend[k - 1] : NULL;
}

/* Room for one more: the records, and slots at most half full. */
static bool pend_grow(ix_memo *m)
{
	if (m->npend == m->pend_cap) {
		size_t cap = m->pend_cap ? 2 * m->pend_cap : 1024;
		ix_pend *v = realloc(m->pend, cap * sizeof *v);
		if (!v)
			return false;
		m->pend = v;
		m->pend_cap = cap;
	}
	if (m->pend_slots && 2 * (m->npend + 1) <= m->pend_mask + 1)
		return true;
	size_t nslots = m->pend_slots ? 2 * (m->pend_mask + 1) : 4096;
	uint32_t *t = calloc(nslots, sizeof *t);
	if (!t)
		return false;
	free(m->pend_slots);
	m->pend_slots = t;
	m->pend_mask = nslots - 1;
	for (size_t k = 0; k < m->npend; k++)
		t[pend_slot(m, m->pend[k].out.id)] = (uint32_t)(k + 1);
	return true;
}

ix_pend *ix_memo_pend_add(ix_memo *m, const ix_out *u)
{
	ix_pend *p = ix_memo_pend_find(m, u->id);
	if (p) {
		p->out = *u;
		return p;
	}
	if (m->npend >= IX_PEND_MAX || !pend_grow(m))
		return NULL;
	p = &m->pend[m->npend];
	*p = (ix_pend){ .out = *u };
	m->pend_slots[pend_slot(m, u->id)] = (uint32_t)++m->npend;
	return p;
}

void ix_memo_pend_clear(ix_memo *m)
{
	/* the slots in use, not the whole table (a live indexer's transactions are small), newest
	 * first: what lies on the probe path of an entry was put there before it, so is still there */
	for (size_t k = m->npend; k-- > 0;)
		m->pend_slots[pend_slot(m, m->pend[k].out.id)] = 0;
	m->npend = 0;
}

void ix_memo_early_reset(ix_memo *m)
{
	if (m->early)
		memset(m->early, 0, EARLY_BITS / 8);
	m->early_loaded = false;
	m->early_adds = 0;
}

/* The filter's probes: six 24-bit numbers from bytes 8..31 of the id (a hash). */
static size_t probe(const uint8_t id[32], int k)
{
	const uint8_t *p = id + 8 + 3 * k;
	return ((size_t)p[0] << 16 | (size_t)p[1] << 8 | p[2]) & (EARLY_BITS - 1);
}

void ix_memo_early_add(ix_memo *m, const uint8_t id[32])
{
	if (!m->early)
		return;
	for (int k = 0; k < EARLY_PROBES; k++) {
		size_t b = probe(id, k);
		m->early[b >> 3] |= (uint8_t)(1u << (b & 7));
	}
	if (++m->early_adds > IX_EARLY_RELOAD)
		m->early_loaded = false;
}

bool ix_memo_early_maybe(const ix_memo *m, const uint8_t id[32])
{
	if (!m->early)
		return true;
	for (int k = 0; k < EARLY_PROBES; k++) {
		size_t b = probe(id, k);
		if (!(m->early[b >> 3] >> (b & 7) & 1))
			return false;
	}
	return true;
}

bool ix_memo_act_seen(ix_memo *m, uint8_t space, const uint8_t addr[20], uint64_t seq)
{
	if (!m->acts)
		return false;
	uint64_t h;
	memcpy(&h, addr, sizeof h);
	h ^= (seq + space) * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 17) & (IX_ACT_SLOTS - 1);
	for (;; i = (i + 1) & (IX_ACT_SLOTS - 1)) {
		const ix_memo_act *a = &m->acts[i];
		if (!a->used)
			break;
		if (a->seq == seq && a->space == space && !memcmp(a->addr, addr, 20))
			return true;
	}
	if (m->nacts == IX_ACT_SLOTS / 2)
		return false;
	m->acts[i] = (ix_memo_act){ .seq = seq, .space = space, .used = true };
	memcpy(m->acts[i].addr, addr, 20);
	m->act_used[m->nacts++] = (uint16_t)i;
	return false;
}

void ix_memo_acts_clear(ix_memo *m)
{
	for (size_t k = 0; k < m->nacts; k++)
		m->acts[m->act_used[k]].used = false;
	m->nacts = 0;
}
