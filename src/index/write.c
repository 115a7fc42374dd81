/*
 * write.c — one batch of rows into the store, with its index's cursor, in
 * one transaction (write.h).
 *
 * Every statement is an idempotent upsert, so a batch applied twice (after a
 * crash between commit and whatever followed) changes nothing; and the two
 * sides of a UTXO — its creation and its consumption, which may come from
 * different indexes in either order — each write their own columns of the
 * same row and copy the other side's where it is already there:
 *
 *   creation     upsert utxos' creation columns; one addr_utxos row per owner,
 *                copied from utxos (so with the consumption when it is known);
 *                the consumer's activity for each owner, when it is known
 *   consumption  upsert utxos' consumption columns; update the addr_utxos rows
 *                (none yet if the creation is not known); the consumer's
 *                activity for each owner known from addr_utxos
 *
 * Whichever comes second finds the first and completes both; the final rows
 * are the same in both orders (tests/e2e check it by dumping stores indexed
 * in different interleavings).
 */
#include "index/write.h"

#include "codec/avax.h"
#include "codec/rewards.h"
#include "index/vset.h"

static const sl_sql q_block = {
	"INSERT INTO blocks (chain, height, hash, parent, ts, type, size, ntx, txs, vm_id, vm_parent, proposer, "
	"vm_height, vm_ts, ipos) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chain, height) DO NOTHING"
};
static const sl_sql q_tx = { "INSERT INTO txs (chain, seq, id, ts, type, height, block, bytes) "
			     "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chain, seq) DO NOTHING" };
/* A UTXO's creation columns, with its consumption's when a spend came before it was written (from
 * early_spends, or later in the same transaction) and the end of its stake. A creation applied
 * again (the P-chain read again after a migration) changes its own, and the others only to a
 * value. */
#define OUT_COLS                                                                                                  \
	"chain, pos, id, tx, idx, dest, asset, amount, otype, locktime, stake_lock, threshold, addrs, group_id, " \
	"payload, staked, stake_start, stake_end, reward, height, block, ts, seq, unstaked, ctx, cchain, "        \
	"cheight, cblock, cts, cseq, cin, ctype"
static const sl_sql q_out = {
	"INSERT INTO utxos (" OUT_COLS
	") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
	"?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chain, pos, id) DO UPDATE SET "
	"tx = excluded.tx, idx = excluded.idx, dest = excluded.dest, asset = excluded.asset, "
	"amount = excluded.amount, otype = excluded.otype, locktime = excluded.locktime, "
	"stake_lock = excluded.stake_lock, threshold = excluded.threshold, addrs = excluded.addrs, "
	"group_id = excluded.group_id, payload = excluded.payload, staked = excluded.staked, "
	"stake_start = excluded.stake_start, stake_end = excluded.stake_end, reward = excluded.reward, "
	"height = excluded.height, block = excluded.block, ts = excluded.ts, seq = excluded.seq, "
	"unstaked = COALESCE(excluded.unstaked, utxos.unstaked), "
	"ctx = CASE WHEN excluded.ctx IS NULL THEN utxos.ctx ELSE excluded.ctx END, "
	"cchain = CASE WHEN excluded.ctx IS NULL THEN utxos.cchain ELSE excluded.cchain END, "
	"cheight = CASE WHEN excluded.ctx IS NULL THEN utxos.cheight ELSE excluded.cheight END, "
	"cblock = CASE WHEN excluded.ctx IS NULL THEN utxos.cblock ELSE excluded.cblock END, "
	"cts = CASE WHEN excluded.ctx IS NULL THEN utxos.cts ELSE excluded.cts END, "
	"cseq = CASE WHEN excluded.ctx IS NULL THEN utxos.cseq ELSE excluded.cseq END, "
	"cin = CASE WHEN excluded.ctx IS NULL THEN utxos.cin ELSE excluded.cin END, "
	"ctype = CASE WHEN excluded.ctx IS NULL THEN utxos.ctype ELSE excluded.ctype END"
};
/* An owner's row: the UTXO's columns again, so a page of an address's UTXOs is one range read. */
static const sl_sql q_out_addr = {
	"INSERT INTO addr_utxos (chain, addr, ts, id, tx, idx, created, asset, amount, otype, locktime, stake_lock, "
	"threshold, addrs, group_id, payload, staked, stake_start, stake_end, reward, height, block, seq, "
	"unstaked, ctx, cchain, cheight, cblock, cts, cseq, cin) "
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
	"ON CONFLICT (chain, addr, ts, id) DO UPDATE SET "
	"unstaked = COALESCE(excluded.unstaked, addr_utxos.unstaked), "
	"ctx = CASE WHEN excluded.ctx IS NULL THEN addr_utxos.ctx ELSE excluded.ctx END, "
	"cchain = CASE WHEN excluded.ctx IS NULL THEN addr_utxos.cchain ELSE excluded.cchain END, "
	"cheight = CASE WHEN excluded.ctx IS NULL THEN addr_utxos.cheight ELSE excluded.cheight END, "
	"cblock = CASE WHEN excluded.ctx IS NULL THEN addr_utxos.cblock ELSE excluded.cblock END, "
	"cts = CASE WHEN excluded.ctx IS NULL THEN addr_utxos.cts ELSE excluded.cts END, "
	"cseq = CASE WHEN excluded.ctx IS NULL THEN addr_utxos.cseq ELSE excluded.cseq END, "
	"cin = CASE WHEN excluded.ctx IS NULL THEN addr_utxos.cin ELSE excluded.cin END"
	" WHERE excluded.ctx IS NOT NULL OR excluded.unstaked IS NOT NULL"
};
/* A spend that came before its UTXO was made: it waits here for the creation. */
static const sl_sql q_early_put = {
	"INSERT INTO early_spends (id, ctx, cchain, cheight, cblock, cts, cseq, cin, ctype) "
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET ctx = excluded.ctx, "
	"cchain = excluded.cchain, cheight = excluded.cheight, cblock = excluded.cblock, cts = excluded.cts, "
	"cseq = excluded.cseq, cin = excluded.cin, ctype = excluded.ctype"
};
static const sl_sql q_early_take = {
	"DELETE FROM early_spends WHERE id = ? RETURNING ctx, cchain, cheight, cblock, cts, cseq, cin, ctype"
};
static const sl_sql q_early_ids = { "SELECT id FROM early_spends" };
/* Where a UTXO the writer does not remember is: by the tx its id names, or made by the genesis.
 * The tx is looked up in a subquery whose LIMIT (a tx id is unique per chain, and there are three)
 * tells the planner it is a row or so: as a plain join, a store without statistics yet (a first
 * catch-up's one long transaction) let PostgreSQL's generic plan scan every tx (0.5 % of the rows
 * assumed equal) and made this query most of the run. */
static const sl_sql q_locate = {
	"SELECT u.chain, u.pos, u.dest, u.ts, u.addrs FROM (SELECT chain, seq FROM txs WHERE id = ? "
	"LIMIT 3) t JOIN utxos u ON u.chain = t.chain AND u.pos = t.seq AND u.id = ? UNION ALL "
	"SELECT chain, pos, dest, ts, addrs FROM utxos WHERE chain IN (0, 1) AND pos = 0 AND id = ?"
};
static const sl_sql q_locate_at = {
	"SELECT dest, ts, addrs FROM utxos WHERE chain = ? AND pos = ? AND id = ?"
};
static const sl_sql q_spend = {
	"UPDATE utxos SET ctx = ?, cchain = ?, cheight = ?, cblock = ?, cts = ?, cseq = ?, cin = ?, ctype = ? "
	"WHERE chain = ? AND pos = ? AND id = ?"
};
static const sl_sql q_spend_addr = {
	"UPDATE addr_utxos SET ctx = ?, cchain = ?, cheight = ?, cblock = ?, cts = ?, cseq = ?, cin = ? "
	"WHERE chain = ? AND addr = ? AND ts = ? AND id = ?"
};
static const sl_sql q_act = { "INSERT INTO addr_txs (chain, addr, seq, ts, type) VALUES (?, ?, ?, ?, ?) "
			      "ON CONFLICT DO NOTHING" };
static const sl_sql q_vertex = { "INSERT INTO vertices (ipos, hash, height, ts, parents, ntx, txs, size) "
				 "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (ipos) DO NOTHING" };
static const sl_sql q_vertex_tx = { "INSERT INTO vertex_txs (tx, ipos) VALUES (?, ?) ON CONFLICT DO NOTHING" };
static const sl_sql q_asset = { "INSERT INTO assets (id, name, symbol, denomination, type, cap, tx, ts) "
				"VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING" };
static const sl_sql q_asset_tx = { "INSERT INTO asset_txs (asset, seq, ts, type) VALUES (?, ?, ?, ?) "
				   "ON CONFLICT DO NOTHING" };
static const sl_sql q_staker = {
	"INSERT INTO stakers (tx, seq, type, node, subnet, start_ts, end_ts, weight, fee, nouts, nstake, "
	"rewards_owner, delegation_owner, bls_key, bls_pop, accepted_ts, potential) "
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tx) DO NOTHING"
};
static const sl_sql q_stake_end = {
	"UPDATE stakers SET end_tx = ?, end_ts_actual = ?, committed = ? WHERE tx = ?"
};
static const sl_sql q_staker_get = {
	"SELECT nouts, nstake, type, rewards_owner, delegation_owner, seq FROM stakers "
	"WHERE tx = ?"
};
static const sl_sql q_unstake = { "UPDATE utxos SET unstaked = ? WHERE chain = 0 AND pos = ? AND id = ?" };
static const sl_sql q_unstake_addr = {
	"UPDATE addr_utxos SET unstaked = ? WHERE chain = ? AND addr = ? AND ts = ? AND id = ?"
};
static const sl_sql q_reward = { "INSERT INTO rewards (staking_tx, utxo, type) VALUES (?, ?, ?) "
				 "ON CONFLICT DO NOTHING" };
static const sl_sql q_cursor = {
	"INSERT INTO cursors (kind, next, last_id) VALUES (?, ?, ?) ON CONFLICT (kind) "
	"DO UPDATE SET next = excluded.next, last_id = excluded.last_id"
};

static void bind_opt_blob(sl_stmt *s, int i, const uint8_t *p, size_t n)
{
	if (p)
		sl_bind_blob(s, i, p, n);
	else
		sl_bind_null(s, i);
}

static void bind_opt_i64(sl_stmt *s, int i, bool has, int64_t v)
{
	if (has)
		sl_bind_i64(s, i, v);
	else
		sl_bind_null(s, i);
}

static void bind_where_block(sl_stmt *s, int i, const ix_where *at)
{
	if (at->in_block) {
		sl_bind_i64(s, i, (int64_t)at->height);
		sl_bind_blob(s, i + 1, at->block, 32);
	} else {
		sl_bind_null(s, i);
		sl_bind_null(s, i + 1);
	}
}

static sl_err put_block(sl_conn *c, const ix_block *b)
{
	SL_STMT(c, q_block);
	sl_bind_i64(s, 0, b->chain);
	sl_bind_i64(s, 1, (int64_t)b->height);
	sl_bind_blob(s, 2, b->hash, 32);
	sl_bind_blob(s, 3, b->parent, 32);
	sl_bind_i64(s, 4, b->ts);
	sl_bind_i64(s, 5, b->type);
	sl_bind_i64(s, 6, b->size);
	sl_bind_i64(s, 7, b->ntx);
	sl_bind_blob(s, 8, b->txs, 32 * (size_t)b->ntx);
	bind_opt_blob(s, 9, b->wrapped ? b->vm_id : NULL, 32);
	bind_opt_blob(s, 10, b->wrapped ? b->vm_parent : NULL, 32);
	bind_opt_blob(s, 11, b->has_proposer ? b->proposer : NULL, 20);
	bind_opt_i64(s, 12, b->wrapped, (int64_t)b->vm_height);
	bind_opt_i64(s, 13, b->wrapped, b->vm_ts);
	sl_bind_i64(s, 14, (int64_t)b->ipos);
	return sl_stmt_exec(s);
}

static sl_err put_tx(sl_conn *c, const ix_tx *t)
{
	SL_STMT(c, q_tx);
	sl_bind_i64(s, 0, t->at.chain);
	sl_bind_i64(s, 1, (int64_t)t->at.seq);
	sl_bind_blob(s, 2, t->id, 32);
	sl_bind_i64(s, 3, t->at.ts);
	sl_bind_i64(s, 4, t->at.type);
	bind_where_block(s, 5, &t->at);
	sl_bind_blob(s, 7, t->bytes.p, t->bytes.len);
	return sl_stmt_exec(s);
}

/* A spend's consumption columns: the spending tx, where it is, and which of its inputs. */
typedef struct cons {
	uint8_t tx[32], block[32];
	uint8_t chain;
	bool in_block;
	uint64_t height, seq;
	int64_t ts;
	uint32_t in, type;
} cons;

static void cons_of(cons *k, const ix_spend *p)
{
	*k = (cons){ .chain = p->at.chain,
		     .in_block = p->at.in_block,
		     .height = p->at.height,
		     .seq = p->at.seq,
		     .ts = p->at.ts,
		     .in = p->in,
		     .type = p->at.type };
	memcpy(k->tx, p->tx, 32);
	if (p->at.in_block)
		memcpy(k->block, p->at.block, 32);
}

/* ctx, cchain, cheight, cblock, cts, cseq, cin (and ctype when with_type) at i, NULLs for no k. */
static void bind_cons(sl_stmt *s, int i, const cons *k, bool with_type)
{
	int n = with_type ? 8 : 7;
	if (!k) {
		for (int j = 0; j < n; j++)
			sl_bind_null(s, i + j);
		return;
	}
	sl_bind_blob(s, i, k->tx, 32);
	sl_bind_i64(s, i + 1, k->chain);
	if (k->in_block) {
		sl_bind_i64(s, i + 2, (int64_t)k->height);
		sl_bind_blob(s, i + 3, k->block, 32);
	} else {
		sl_bind_null(s, i + 2);
		sl_bind_null(s, i + 3);
	}
	sl_bind_i64(s, i + 4, k->ts);
	sl_bind_i64(s, i + 5, (int64_t)k->seq);
	sl_bind_i64(s, i + 6, k->in);
	if (with_type)
		sl_bind_i64(s, i + 7, k->type);
}

/* The consumer took part in the tx of each owner of what it spent (addr_txs). */
static sl_err put_consumer(sl_conn *c, ix_memo *m, const cons *k, const uint8_t *addrs, uint32_t naddrs)
{
	sl_err e = SL_OK;
	for (uint32_t i = 0; !e && i < naddrs; i++) {
		if (ix_memo_act_seen(m, k->chain, addrs + 20 * (size_t)i, k->seq))
			continue;
		SL_STMT(c, q_act);
		sl_bind_i64(s, 0, k->chain);
		sl_bind_blob(s, 1, addrs + 20 * (size_t)i, 20);
		sl_bind_i64(s, 2, (int64_t)k->seq);
		sl_bind_i64(s, 3, k->ts);
		sl_bind_i64(s, 4, k->type);
		e = sl_stmt_exec(s);
	}
	return e;
}

/* The spend that waited for this UTXO, if one did: taken out of early_spends into k. */
static sl_err take_early(sl_conn *c, const ix_memo *m, const uint8_t id[32], cons *k, bool *found)
{
	*found = false;
	if (!ix_memo_early_maybe(m, id))
		return SL_OK;
	SL_STMT(c, q_early_take);
	sl_bind_blob(s, 0, id, 32);
	sl_err e = sl_stmt_query(s);
	if (e || !sl_stmt_next(s, &e))
		return e;
	size_t n = 0;
	const uint8_t *tx = sl_col_blob(s, 0, &n);
	if (n != 32)
		return sl_conn_fail(c, SL_ERR_INVALID, "an early spend without its tx");
	*k = (cons){ .chain = (uint8_t)sl_col_i64(s, 1),
		     .in_block = !sl_col_null(s, 2),
		     .height = (uint64_t)sl_col_i64(s, 2),
		     .ts = sl_col_i64(s, 4),
		     .seq = (uint64_t)sl_col_i64(s, 5),
		     .in = (uint32_t)sl_col_i64(s, 6),
		     .type = (uint32_t)sl_col_i64(s, 7) };
	memcpy(k->tx, tx, 32);
	if (k->in_block)
		sl_col_copy(s, 3, k->block, 32);
	*found = true;
	/* read to the end: the statement's deletion is done when its rows are */
	while (sl_stmt_next(s, &e))
		;
	return e;
}

/* The output's own columns, asset to reward, from i on (utxos and addr_utxos list them alike). */
static void bind_output(sl_stmt *s, int i, const ix_out *u)
{
	sl_bind_blob(s, i, u->asset, 32);
	sl_bind_u64be(s, i + 1, u->amount);
	sl_bind_i64(s, i + 2, u->otype);
	sl_bind_i64(s, i + 3, (int64_t)u->locktime);
	sl_bind_i64(s, i + 4, (int64_t)u->stake_lock);
	sl_bind_i64(s, i + 5, u->threshold);
	sl_bind_blob(s, i + 6, u->addrs, 20 * (size_t)u->naddrs);
	sl_bind_i64(s, i + 7, u->group_id);
	bind_opt_blob(s, i + 8, u->payload.len ? u->payload.p : NULL, u->payload.len);
	sl_bind_i64(s, i + 9, u->staked);
	sl_bind_i64(s, i + 10, (int64_t)u->stake_start);
	sl_bind_i64(s, i + 11, (int64_t)u->stake_end);
	sl_bind_i64(s, i + 12, u->reward);
}

/* A UTXO's row in utxos; k: its consumption, if known. */
static sl_err write_out(sl_conn *c, const ix_out *u, const cons *k, bool unstake, int64_t unstaked)
{
	SL_STMT(c, q_out);
	sl_bind_i64(s, 0, u->at.chain);
	sl_bind_i64(s, 1, (int64_t)u->pos);
	sl_bind_blob(s, 2, u->id, 32);
	sl_bind_blob(s, 3, u->tx, 32);
	sl_bind_i64(s, 4, u->idx);
	sl_bind_i64(s, 5, u->dest);
	bind_output(s, 6, u);
	bind_where_block(s, 19, &u->at);
	sl_bind_i64(s, 21, u->at.ts);
	sl_bind_i64(s, 22, (int64_t)u->at.seq);
	bind_opt_i64(s, 23, unstake, unstaked);
	bind_cons(s, 24, k, true);
	return sl_stmt_exec(s);
}

/* The row in addr_utxos of the UTXO's owner i. */
static sl_err write_out_addr(sl_conn *c, const ix_out *u, uint32_t i, const cons *k, bool unstake,
			     int64_t unstaked)
{
	SL_STMT(c, q_out_addr);
	sl_bind_i64(s, 0, u->dest);
	sl_bind_blob(s, 1, u->addrs + 20 * (size_t)i, 20);
	sl_bind_i64(s, 2, u->at.ts);
	sl_bind_blob(s, 3, u->id, 32);
	sl_bind_blob(s, 4, u->tx, 32);
	sl_bind_i64(s, 5, u->idx);
	sl_bind_i64(s, 6, u->at.chain);
	bind_output(s, 7, u);
	bind_where_block(s, 20, &u->at);
	sl_bind_i64(s, 22, (int64_t)u->at.seq);
	bind_opt_i64(s, 23, unstake, unstaked);
	bind_cons(s, 24, k, false);
	return sl_stmt_exec(s);
}

/* Remember where an unspent UTXO's rows are, for its spend. */
static void remember(ix_memo *m, const ix_out *u)
{
	if (u->naddrs > IX_LOC_ADDRS)
		return;
	ix_loc l = {
		.chain = u->at.chain, .dest = u->dest, .naddrs = u->naddrs, .pos = u->pos, .ts = u->at.ts
	};
	if (u->naddrs)
		memcpy(l.addrs, u->addrs, 20 * (size_t)u->naddrs);
	ix_memo_put(m, u->id, &l);
}

/* Sort keys of the pending rows: utxos' (chain, pos, id) and addr_utxos' (chain, addr, ts, id). */
typedef struct out_key {
	const ix_out *u;
	uint32_t p;
} out_key;

typedef struct owner_key {
	const ix_out *u;
	uint32_t p, i;
} owner_key;

static int cmp_out(const void *a, const void *b)
{
	const ix_out *x = ((const out_key *)a)->u, *y = ((const out_key *)b)->u;
	if (x->at.chain != y->at.chain)
		return x->at.chain < y->at.chain ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return memcmp(x->id, y->id, 32);
}

static int cmp_owner(const void *a, const void *b)
{
	const owner_key *p = a, *q = b;
	const ix_out *x = p->u, *y = q->u;
	if (x->dest != y->dest)
		return x->dest < y->dest ? -1 : 1;
	int d = memcmp(x->addrs + 20 * (size_t)p->i, y->addrs + 20 * (size_t)q->i, 20);
	if (d)
		return d;
	if (x->at.ts != y->at.ts)
		return x->at.ts < y->at.ts ? -1 : 1;
	return memcmp(x->id, y->id, 32);
}

/* A pending UTXO's consumption, in k: NULL while unspent. */
static const cons *pend_cons(const ix_pend *p, cons *k)
{
	if (!p->spent)
		return NULL;
	cons_of(k, &p->spend);
	return k;
}

/* The pending UTXOs' rows, in each table's key order (appends, mostly), spent when they were;
 * then those still unspent are remembered. */
static sl_err write_pending(sl_conn *c, ix_memo *m)
{
	size_t n = m->npend, nown = 0;
	if (!n)
		return SL_OK;
	for (size_t k = 0; k < n; k++)
		nown += m->pend[k].out.naddrs;
	out_key *ok = malloc(n * sizeof *ok);
	owner_key *wk = malloc((nown ? nown : 1) * sizeof *wk);
	sl_err e = SL_OK;
	if (!ok || !wk) {
		e = SL_ERR_NOMEM;
		goto out;
	}
	for (size_t k = 0, j = 0; k < n; k++) {
		const ix_out *u = &m->pend[k].out;
		ok[k] = (out_key){ u, (uint32_t)k };
		for (uint32_t i = 0; i < u->naddrs; i++)
			wk[j++] = (owner_key){ u, (uint32_t)k, i };
	}
	qsort(ok, n, sizeof *ok, cmp_out);
	if (nown)
		qsort(wk, nown, sizeof *wk, cmp_owner);
	cons spend;
	for (size_t k = 0; !e && k < n; k++) {
		const ix_pend *p = &m->pend[ok[k].p];
		e = write_out(c, &p->out, pend_cons(p, &spend), p->unstake, p->unstaked);
	}
	for (size_t k = 0; !e && k < nown; k++) {
		const ix_pend *p = &m->pend[wk[k].p];
		e = write_out_addr(c, &p->out, wk[k].i, pend_cons(p, &spend), p->unstake, p->unstaked);
	}
	for (size_t k = 0; !e && k < n; k++)
		if (!m->pend[k].spent)
			remember(m, &m->pend[k].out);
out:
	free(ok);
	free(wk);
	if (!e)
		ix_memo_pend_clear(m);
	return e;
}

static sl_err put_out(sl_conn *c, ix_memo *m, const ix_out *u)
{
	cons early;
	bool spent = false;
	sl_err e = take_early(c, m, u->id, &early, &spent);
	if (e)
		return e;
	if (!spent) {
		/* written with the others of the transaction, unless there are too many already */
		if (m->npend >= IX_PEND_MAX && (e = write_pending(c, m)))
			return e;
		if (ix_memo_pend_add(m, u))
			return SL_OK;
	}
	const cons *k = spent ? &early : NULL;
	if ((e = write_out(c, u, k, false, 0)))
		return e;
	for (uint32_t i = 0; i < u->naddrs; i++)
		if ((e = write_out_addr(c, u, i, k, false, 0)))
			return e;
	if (k)
		return put_consumer(c, m, k, u->addrs, u->naddrs);
	remember(m, u);
	return SL_OK;
}

/* Where a UTXO's rows are, with its owners (into the batch's arena when not remembered). */
typedef struct located {
	ix_loc loc;
	const uint8_t *addrs;
} located;

/* From the memo (taken when spent), else from the store: by the tx its id names, or the genesis. */
static sl_err locate(sl_conn *c, ix_memo *m, ix_batch *b, const uint8_t id[32], const uint8_t *src_tx,
		     bool take, located *at, bool *found)
{
	if ((*found = take ? ix_memo_take(m, id, &at->loc) : ix_memo_peek(m, id, &at->loc))) {
		at->addrs = at->loc.addrs;
		return SL_OK;
	}
	SL_STMT(c, q_locate);
	sl_bind_blob(s, 0, src_tx, 32);
	sl_bind_blob(s, 1, id, 32);
	sl_bind_blob(s, 2, id, 32);
	sl_err e = sl_stmt_query(s);
	if (e || !sl_stmt_next(s, &e))
		return e;
	size_t n = 0;
	const uint8_t *addrs = sl_col_blob(s, 4, &n);
	if (n % 20)
		return sl_conn_fail(c, SL_ERR_INVALID, "a UTXO row whose owners are not 20-byte addresses");
	uint8_t *copy = n ? sl_arena_alloc(&b->arena, n) : NULL;
	if (n && !copy)
		return SL_ERR_NOMEM;
	if (n)
		memcpy(copy, addrs, n);
	at->loc = (ix_loc){ .chain = (uint8_t)sl_col_i64(s, 0),
			    .pos = (uint64_t)sl_col_i64(s, 1),
			    .dest = (uint8_t)sl_col_i64(s, 2),
			    .ts = sl_col_i64(s, 3),
			    .naddrs = (uint32_t)(n / 20) };
	at->addrs = copy;
	*found = true;
	while (sl_stmt_next(s, &e))
		;
	return e;
}

/* The same for a P-chain UTXO whose place is known (a staking tx's stake), without taking it. */
static sl_err locate_at(sl_conn *c, ix_memo *m, ix_batch *b, uint64_t pos, const uint8_t id[32], located *at,
			bool *found)
{
	if ((*found = ix_memo_peek(m, id, &at->loc))) {
		at->addrs = at->loc.addrs;
		return SL_OK;
	}
	SL_STMT(c, q_locate_at);
	sl_bind_i64(s, 0, IX_P);
	sl_bind_i64(s, 1, (int64_t)pos);
	sl_bind_blob(s, 2, id, 32);
	sl_err e = sl_stmt_query(s);
	if (e || !sl_stmt_next(s, &e))
		return e;
	size_t n = 0;
	const uint8_t *addrs = sl_col_blob(s, 2, &n);
	if (n % 20)
		return sl_conn_fail(c, SL_ERR_INVALID, "a UTXO row whose owners are not 20-byte addresses");
	uint8_t *copy = n ? sl_arena_alloc(&b->arena, n) : NULL;
	if (n && !copy)
		return SL_ERR_NOMEM;
	if (n)
		memcpy(copy, addrs, n);
	at->loc = (ix_loc){ .chain = IX_P,
			    .pos = pos,
			    .dest = (uint8_t)sl_col_i64(s, 0),
			    .ts = sl_col_i64(s, 1),
			    .naddrs = (uint32_t)(n / 20) };
	at->addrs = copy;
	*found = true;
	return SL_OK;
}

static sl_err put_spend(sl_conn *c, ix_memo *m, ix_batch *b, const ix_spend *p)
{
	cons k;
	cons_of(&k, p);
	ix_pend *pd = ix_memo_pend_find(m, p->id);
	if (pd) {
		/* made in this transaction: written spent */
		pd->spend = *p;
		pd->spent = true;
		return put_consumer(c, m, &k, pd->out.addrs, pd->out.naddrs);
	}
	located at;
	bool found;
	sl_err e = locate(c, m, b, p->id, p->src_tx, true, &at, &found);
	if (e)
		return e;
	if (!found) {
		/* not made yet (its index is behind, or its maker comes later in this batch) */
		SL_STMT(c, q_early_put);
		sl_bind_blob(s, 0, p->id, 32);
		bind_cons(s, 1, &k, true);
		ix_memo_early_add(m, p->id);
		return sl_stmt_exec(s);
	}
	{
		SL_STMT(c, q_spend);
		bind_cons(s, 0, &k, true);
		sl_bind_i64(s, 8, at.loc.chain);
		sl_bind_i64(s, 9, (int64_t)at.loc.pos);
		sl_bind_blob(s, 10, p->id, 32);
		if ((e = sl_stmt_exec(s)))
			return e;
	}
	for (uint32_t i = 0; i < at.loc.naddrs; i++) {
		SL_STMT(c, q_spend_addr);
		bind_cons(s, 0, &k, false);
		sl_bind_i64(s, 7, at.loc.dest);
		sl_bind_blob(s, 8, at.addrs + 20 * (size_t)i, 20);
		sl_bind_i64(s, 9, at.loc.ts);
		sl_bind_blob(s, 10, p->id, 32);
		if ((e = sl_stmt_exec(s)))
			return e;
	}
	return put_consumer(c, m, &k, at.addrs, at.loc.naddrs);
}

static sl_err put_act(sl_conn *c, ix_memo *m, const ix_act *a)
{
	if (ix_memo_act_seen(m, a->space, a->addr, a->seq))
		return SL_OK;
	SL_STMT(c, q_act);
	sl_bind_i64(s, 0, a->space);
	sl_bind_blob(s, 1, a->addr, 20);
	sl_bind_i64(s, 2, (int64_t)a->seq);
	sl_bind_i64(s, 3, a->ts);
	sl_bind_i64(s, 4, a->type);
	return sl_stmt_exec(s);
}

static sl_err put_vertex(sl_conn *c, const ix_vertex *v)
{
	sl_err e;
	{
		SL_STMT(c, q_vertex);
		sl_bind_i64(s, 0, (int64_t)v->ipos);
		sl_bind_blob(s, 1, v->hash, 32);
		sl_bind_i64(s, 2, (int64_t)v->height);
		sl_bind_i64(s, 3, v->ts);
		sl_bind_blob(s, 4, v->parents, 32 * (size_t)v->nparents);
		sl_bind_i64(s, 5, v->ntx);
		sl_bind_blob(s, 6, v->txs, 32 * (size_t)v->ntx);
		sl_bind_i64(s, 7, v->size);
		if ((e = sl_stmt_exec(s)))
			return e;
	}
	for (uint32_t i = 0; i < v->ntx; i++) {
		SL_STMT(c, q_vertex_tx);
		sl_bind_blob(s, 0, v->txs + 32 * (size_t)i, 32);
		sl_bind_i64(s, 1, (int64_t)v->ipos);
		if ((e = sl_stmt_exec(s)))
			return e;
	}
	return SL_OK;
}

static sl_err put_asset(sl_conn *c, const ix_asset *a)
{
	SL_STMT(c, q_asset);
	sl_bind_blob(s, 0, a->id, 32);
	sl_bind_text(s, 1, (const char *)a->name.p, a->name.len);
	sl_bind_text(s, 2, (const char *)a->symbol.p, a->symbol.len);
	sl_bind_i64(s, 3, a->denomination);
	sl_bind_i64(s, 4, a->type);
	sl_bind_i64(s, 5, a->cap);
	sl_bind_blob(s, 6, a->id, 32);
	sl_bind_i64(s, 7, a->ts);
	return sl_stmt_exec(s);
}

static sl_err put_asset_tx(sl_conn *c, const ix_asset_tx *a)
{
	SL_STMT(c, q_asset_tx);
	sl_bind_blob(s, 0, a->asset, 32);
	sl_bind_i64(s, 1, (int64_t)a->seq);
	sl_bind_i64(s, 2, a->ts);
	sl_bind_i64(s, 3, a->type);
	return sl_stmt_exec(s);
}

static sl_err put_staker(sl_conn *c, const ix_staker *k)
{
	SL_STMT(c, q_staker);
	sl_bind_blob(s, 0, k->tx, 32);
	sl_bind_i64(s, 1, (int64_t)k->seq);
	sl_bind_i64(s, 2, k->type);
	sl_bind_blob(s, 3, k->node, 20);
	sl_bind_blob(s, 4, k->subnet, 32);
	sl_bind_i64(s, 5, (int64_t)k->start);
	sl_bind_i64(s, 6, (int64_t)k->end);
	sl_bind_i64(s, 7, (int64_t)k->weight);
	bind_opt_i64(s, 8, k->has_fee, k->fee);
	sl_bind_i64(s, 9, k->nouts);
	sl_bind_i64(s, 10, k->nstake);
	bind_opt_blob(s, 11, k->rewards_owner.len ? k->rewards_owner.p : NULL, k->rewards_owner.len);
	bind_opt_blob(s, 12, k->delegation_owner.len ? k->delegation_owner.p : NULL, k->delegation_owner.len);
	bind_opt_blob(s, 13, k->bls_key, 48);
	bind_opt_blob(s, 14, k->bls_pop, 96);
	sl_bind_i64(s, 15, k->accepted_ts);
	/* a staker of another subnet earns no primary-network reward: never pending for one */
	static const uint8_t primary[32];
	if (memcmp(k->subnet, primary, 32))
		sl_bind_u64be(s, 16, 0);
	else
		sl_bind_null(s, 16);
	return sl_stmt_exec(s);
}

/* Does this output's owner equal an owner blob (threshold | locktime | addresses)? */
static bool same_owner(const sl_owners *o, const uint8_t *blob, size_t n)
{
	return blob && n == 12 + 20 * (size_t)o->naddrs && sl_be32(blob) == o->threshold &&
	       sl_be64(blob + 4) == o->locktime &&
	       (!o->naddrs || !memcmp(blob + 12, o->addrs, 20 * (size_t)o->naddrs));
}

/* A staking period ended: stake back (unstaked at the RewardValidatorTx's time), rewards paid. */
static sl_err put_stake_end(sl_conn *c, ix_memo *m, ix_batch *b, const ix_stake_end *x)
{
	sl_err e;
	{
		SL_STMT(c, q_stake_end);
		sl_bind_blob(s, 0, x->end_tx, 32);
		sl_bind_i64(s, 1, x->at.ts);
		sl_bind_i64(s, 2, x->committed);
		sl_bind_blob(s, 3, x->staking_tx, 32);
		if ((e = sl_stmt_exec(s)))
			return e;
	}
	sl_stmt *k = sl_stmt_get(c, &q_staker_get);
	if (!k)
		return SL_ERR_STORE;
	sl_bind_blob(k, 0, x->staking_tx, 32);
	if ((e = sl_stmt_query(k)))
		return e;
	if (!sl_stmt_next(k, &e))
		return e ? e
			 : sl_conn_fail(c, SL_ERR_NOT_FOUND,
					"a RewardValidatorTx for a staking tx never indexed");
	uint32_t nouts = (uint32_t)sl_col_i64(k, 0), nstake = (uint32_t)sl_col_i64(k, 1);
	uint32_t type = (uint32_t)sl_col_i64(k, 2);
	/* the staking tx's place: its stake's rows, and its rewards', are keyed by it */
	uint64_t pos = (uint64_t)sl_col_i64(k, 5);
	size_t rlen = 0, dlen = 0;
	const uint8_t *r = sl_col_blob(k, 3, &rlen), *d = sl_col_blob(k, 4, &dlen);
	/* copy the owners: the row's memory goes with the next statement */
	uint8_t *rown = rlen ? sl_arena_alloc(&b->arena, rlen) : NULL,
		*down = dlen ? sl_arena_alloc(&b->arena, dlen) : NULL;
	if ((rlen && !rown) || (dlen && !down))
		return SL_ERR_NOMEM;
	if (rlen)
		memcpy(rown, r, rlen);
	if (dlen)
		memcpy(down, d, dlen);
	for (uint32_t i = 0; i < nstake; i++) {
		uint8_t id[32];
		sl_avax_utxo_id(x->staking_tx, nouts + i, id);
		ix_pend *pd = ix_memo_pend_find(m, id);
		if (pd) {
			pd->unstake = true;
			pd->unstaked = x->at.ts;
			continue;
		}
		located at;
		bool found;
		if ((e = locate_at(c, m, b, pos, id, &at, &found)))
			return e;
		if (!found)
			continue; /* a stake output the store never saw made: nothing to return */
		{
			SL_STMT(c, q_unstake);
			sl_bind_i64(s, 0, x->at.ts);
			sl_bind_i64(s, 1, (int64_t)pos);
			sl_bind_blob(s, 2, id, 32);
			if ((e = sl_stmt_exec(s)))
				return e;
		}
		for (uint32_t a = 0; a < at.loc.naddrs; a++) {
			SL_STMT(c, q_unstake_addr);
			sl_bind_i64(s, 0, x->at.ts);
			sl_bind_i64(s, 1, at.loc.dest);
			sl_bind_blob(s, 2, at.addrs + 20 * (size_t)a, 20);
			sl_bind_i64(s, 3, at.loc.ts);
			sl_bind_blob(s, 4, id, 32);
			if ((e = sl_stmt_exec(s)))
				return e;
		}
	}
	bool validator = type == 12 || type == 25;
	bool paid_validator = false;
	for (uint32_t i = 0; i < x->nrewards; i++) {
		sl_utxo u;
		sl_err_detail det;
		if (sl_avax_utxo_decode(&b->arena, x->rewards[i].p, x->rewards[i].len, SL_P_OUTPUTS, &u,
					&det))
			return sl_conn_fail(c, SL_ERR_INVALID,
					    "a reward UTXO the node gave does not decode: %s", det.msg);
		int kind;
		if (validator) {
			bool own = same_owner(&u.out.owners, rown, rlen);
			kind = own && (!paid_validator || !same_owner(&u.out.owners, down, dlen))
				       ? IX_REWARD_VALIDATOR
				       : IX_REWARD_VALIDATOR_FEE;
			paid_validator |= kind == IX_REWARD_VALIDATOR;
		} else {
			kind = same_owner(&u.out.owners, rown, rlen) ? IX_REWARD_DELEGATOR
								     : IX_REWARD_VALIDATOR_FEE;
		}
		ix_out o = { .tx = u.tx_id,
			     .idx = u.output_index,
			     .dest = 0 /* P */,
			     .at = x->at,
			     .asset = u.asset_id,
			     .amount = u.out.amount,
			     .otype = u.out.type_id,
			     .locktime = u.out.owners.locktime,
			     .stake_lock = u.out.type_id == 22 ? u.out.lock_locktime : 0,
			     .threshold = u.out.owners.threshold,
			     .naddrs = u.out.owners.naddrs,
			     .addrs = u.out.owners.addrs,
			     .reward = kind,
			     .pos = pos };
		sl_avax_utxo_id(u.tx_id, u.output_index, o.id);
		if ((e = put_out(c, m, &o)))
			return e;
		for (uint32_t a = 0; a < o.naddrs; a++) {
			ix_act act = { 0, o.addrs + 20 * (size_t)a, x->at.seq, x->at.ts, x->at.type };
			if ((e = put_act(c, m, &act)))
				return e;
		}
		SL_STMT(c, q_reward);
		sl_bind_blob(s, 0, x->staking_tx, 32);
		sl_bind_blob(s, 1, o.id, 32);
		sl_bind_i64(s, 2, kind);
		if ((e = sl_stmt_exec(s)))
			return e;
	}
	return SL_OK;
}

/* ---- the P-chain's state: subnets, chains, L1 validators and their fee ---------- */

static const sl_sql q_subnet = { "INSERT INTO subnets (id, seq, height, ts, owner) VALUES (?, ?, ?, ?, ?) "
				 "ON CONFLICT (id) DO NOTHING" };
static const sl_sql q_subnet_owner = { "UPDATE subnets SET owner = ? WHERE id = ?" };
static const sl_sql q_subnet_l1 = {
	"UPDATE subnets SET l1_tx = ?, l1_ts = ?, manager_chain = ?, manager_addr = ? WHERE id = ?"
};
static const sl_sql q_chain = { "INSERT INTO chains (id, subnet, seq, height, ts, name, vm, genesis) "
				"VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING" };
static const sl_sql q_l1_add = {
	"INSERT INTO l1_validators (vid, subnet, node, tx, seq, ts, weight, bls_key, rb_owner, deact_owner, "
	"min_nonce, end_fee) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?) ON CONFLICT (vid) DO NOTHING"
};
static const sl_sql q_l1_get = {
	"SELECT end_fee, rb_owner, subnet, node, weight, bls_key FROM l1_validators WHERE vid = ?"
};
static const sl_sql q_l1_weight = { "UPDATE l1_validators SET weight = ?, min_nonce = ? WHERE vid = ?" };
static const sl_sql q_l1_remove = {
	"UPDATE l1_validators SET weight = ?, min_nonce = ?, end_fee = ?, removed_tx = ?, removed_ts = ? WHERE vid = ?"
};
static const sl_sql q_l1_end = { "UPDATE l1_validators SET end_fee = ? WHERE vid = ?" };
static const sl_sql q_l1_due = {
	"SELECT subnet, node, weight, bls_key FROM l1_validators WHERE end_fee > ? AND end_fee <= ?"
};
static const sl_sql q_l1_member = {
	"UPDATE l1_validators SET end_fee = ? WHERE end_fee > ? AND end_fee <= ?"
};
static const sl_sql q_l1_tx = { "INSERT INTO l1_txs (vid, seq, ts, type) VALUES (?, ?, ?, ?) "
				"ON CONFLICT DO NOTHING" };
static const sl_sql q_l1_tx_effect = {
	"UPDATE l1_txs SET weight = ?, balance = ?, bal_change = ? WHERE vid = ? AND seq = ?"
};
static const sl_sql q_pstate_prev = {
	"SELECT ts, l1_active, l1_fees, l1_excess, supply FROM blocks WHERE chain = 0 AND height < ? "
	"AND l1_fees IS NOT NULL ORDER BY height DESC LIMIT 1"
};
static const sl_sql q_pstate_put = {
	"UPDATE blocks SET l1_active = ?, l1_fees = ?, l1_excess = ?, supply = ? WHERE chain = 0 AND height = ?"
};
static const sl_sql q_genesis_supply = { "SELECT value FROM meta WHERE key = 'genesis_supply'" };
static const sl_sql q_genesis_supply_put = { "INSERT INTO meta (key, value) VALUES ('genesis_supply', ?)" };
/* pending primary-network stakers whose start has come, in avalanchego's pending order: start
 * time, then priority (Apricot delegators, validators, Banff delegators), then tx id */
static const sl_sql q_pending = {
	"SELECT tx, weight, start_ts, end_ts FROM stakers WHERE potential IS NULL AND start_ts <= ? "
	"AND start_ts > accepted_ts ORDER BY start_ts, CASE type WHEN 14 THEN 1 WHEN 26 THEN 3 ELSE 2 END, tx"
};
static const sl_sql q_potential = { "UPDATE stakers SET potential = ? WHERE tx = ?" };
static const sl_sql q_potential_get = { "SELECT potential FROM stakers WHERE tx = ?" };
/* the permissioned validator a RemoveSubnetValidatorTx ends: of that subnet and node, accepted
 * before it (a batch's staker rows are all written before its changes are applied) and not ended
 * yet, the current one before a pending one, as avalanchego looks; committed stays NULL: removed,
 * not rewarded. end_ts_actual is set with end_tx: saying so lets the node's open stakers be read
 * through stakers_node_end, not every staker it had (half the time of this query on a 3M-tx
 * devnet) */
static const sl_sql q_removed = { "SELECT tx FROM stakers WHERE node = ? AND subnet = ? AND type = 13 "
				  "AND end_tx IS NULL AND end_ts_actual IS NULL AND end_ts > ? AND +seq < ? "
				  "ORDER BY start_ts LIMIT 1" };
static const sl_sql q_remove = { "UPDATE stakers SET end_tx = ?, end_ts_actual = ? WHERE tx = ?" };

/* The L1 fee state as the P-chain's blocks go by: loaded from the block before the first one a
 * write applies, kept in memory from there (a write's P blocks come in chain order). */
typedef struct pstate {
	bool loaded;
	int64_t ts;
	uint64_t active, fees, excess;
	bool has_supply; /* known when the store has the network's genesis */
	uint64_t supply;
	/* Lower bounds of the next start of a pending staker and of the next end of a permissioned
	 * validator, when known: a TIME event before both has no staker to promote, join or expire,
	 * and skips the queries (two or three a P block, each a round trip to PostgreSQL). Read after
	 * each event that runs them; a staker written since lowers them. */
	bool clock_known;
	int64_t next_start, next_end;
} pstate;

/* The earliest start after t of a staker not joined or not yet given its potential reward (the
 * partial indexes stakers_vpending and stakers_pending), and the earliest end after t of a
 * permissioned validator not yet left (stakers_vexpiring): each event up to t has handled those
 * at or before it. */
static const sl_sql q_clock = {
	"SELECT (SELECT min(start_ts) FROM stakers WHERE vin IS NULL AND start_ts > ?), "
	"(SELECT min(start_ts) FROM stakers WHERE potential IS NULL AND start_ts > ?), "
	"(SELECT min(end_ts) FROM stakers WHERE type = 13 AND vout IS NULL AND end_ts > ?)"
};

static sl_err clock_read(sl_conn *c, pstate *ps, int64_t t)
{
	SL_STMT(c, q_clock);
	for (int i = 0; i < 3; i++)
		sl_bind_i64(s, i, t);
	sl_err e = sl_stmt_query(s);
	if (e)
		return e;
	int64_t at[3] = { INT64_MAX, INT64_MAX, INT64_MAX };
	if (sl_stmt_next(s, &e))
		for (int i = 0; i < 3; i++)
			if (!sl_col_null(s, i))
				at[i] = sl_col_i64(s, i);
	while (!e && sl_stmt_next(s, &e))
		;
	if (!e) {
		ps->clock_known = true;
		ps->next_start = SL_MIN(at[0], at[1]);
		ps->next_end = at[2];
	}
	return e;
}

/* A staker row written: the start and end it may bring (see pstate). */
static void clock_lower(pstate *ps, const ix_staker *k)
{
	int64_t start = (int64_t)SL_MIN(k->start, (uint64_t)INT64_MAX);
	if (start > k->accepted_ts)
		ps->next_start = SL_MIN(ps->next_start, start);
	if (k->type == 13)
		ps->next_end = SL_MIN(ps->next_end, (int64_t)SL_MIN(k->end, (uint64_t)INT64_MAX));
}

static sl_err pstate_load(sl_conn *c, pstate *ps, uint64_t height)
{
	if (ps->loaded)
		return SL_OK;
	SL_STMT(c, q_pstate_prev);
	sl_bind_i64(s, 0, (int64_t)height);
	sl_err e = sl_stmt_query(s);
	*ps = (pstate){ .loaded = true };
	if (!e && sl_stmt_next(s, &e)) {
		ps->ts = sl_col_i64(s, 0);
		ps->active = (uint64_t)sl_col_i64(s, 1);
		ps->fees = sl_col_u64be(s, 2);
		ps->excess = sl_col_u64be(s, 3);
		ps->has_supply = sl_col_type(s, 4) != SL_COL_NULL;
		ps->supply = ps->has_supply ? sl_col_u64be(s, 4) : 0;
		return e;
	}
	if (e)
		return e;
	/* the first P block: the supply the genesis left */
	sl_stmt *g = sl_stmt_get(c, &q_genesis_supply);
	if (!g)
		return SL_ERR_STORE;
	if ((e = sl_stmt_query(g)))
		return e;
	if (sl_stmt_next(g, &e)) {
		ps->has_supply = true;
		ps->supply = sl_col_u64be(g, 0);
	}
	return e;
}

/* A primary-network staker starts: its potential reward from the supply of now, which grows by
 * it (avalanchego fixes it then: at acceptance from Durango on, at promotion before). */
static sl_err start_staker(sl_conn *c, pstate *ps, const uint8_t *tx, uint64_t weight, uint64_t start,
			   uint64_t end)
{
	uint64_t reward =
		sl_reward_calculate(&sl_reward_primary, end > start ? end - start : 0, weight, ps->supply);
	ps->supply = sl_sat_add(ps->supply, reward);
	SL_STMT(c, q_potential);
	sl_bind_u64be(s, 0, reward);
	sl_bind_blob(s, 1, tx, 32);
	return sl_stmt_exec(s);
}

/* Pending stakers whose start time t reaches become current, in the chain's order. */
static sl_err promote(sl_conn *c, ix_batch *b, pstate *ps, int64_t t)
{
	typedef struct {
		uint8_t tx[32];
		uint64_t weight, start, end;
	} due;
	due *v = NULL;
	size_t n = 0, cap = 0;
	sl_err e;
	{
		SL_STMT(c, q_pending);
		sl_bind_i64(s, 0, t);
		if ((e = sl_stmt_query(s)))
			return e;
		while (sl_stmt_next(s, &e)) {
			if (n == cap) {
				size_t ncap = cap ? 2 * cap : 16;
				due *nv = sl_arena_array(&b->arena, ncap, sizeof *nv);
				if (!nv)
					return SL_ERR_NOMEM;
				if (n)
					memcpy(nv, v, n * sizeof *v);
				v = nv;
				cap = ncap;
			}
			size_t len = 0;
			const uint8_t *tx = sl_col_blob(s, 0, &len);
			if (len != 32)
				return sl_conn_fail(c, SL_ERR_INVALID,
						    "a staker row without a 32-byte tx id");
			memcpy(v[n].tx, tx, 32);
			v[n].weight = (uint64_t)sl_col_i64(s, 1);
			v[n].start = (uint64_t)sl_col_i64(s, 2);
			v[n].end = (uint64_t)sl_col_i64(s, 3);
			n++;
		}
		if (e)
			return e;
	}
	for (size_t i = 0; !e && i < n; i++)
		e = start_staker(c, ps, v[i].tx, v[i].weight, v[i].start, v[i].end);
	return e;
}

/* An L1 validator as its validator set counts it. */
typedef struct l1_member {
	uint8_t subnet[32], node[20], key[48];
	bool has_key;
	uint64_t weight;
} l1_member;

/* Columns at..at+3 of a row: subnet, node, weight, bls_key. */
static sl_err l1_row(sl_conn *c, sl_stmt *s, int at, l1_member *v)
{
	size_t ns = 0, nn = 0, nk = 0;
	const uint8_t *subnet = sl_col_blob(s, at, &ns), *node = sl_col_blob(s, at + 1, &nn),
		      *key = sl_col_blob(s, at + 3, &nk);
	if (ns != 32)
		return sl_conn_fail(c, SL_ERR_INVALID, "an L1 validator row without its subnet");
	memcpy(v->subnet, subnet, 32);
	/* a node id of another length cannot have been accepted: it counts as no node */
	memcpy(v->node, nn == 20 ? node : ix_vset_empty, 20);
	if ((v->has_key = key && nk == 48))
		memcpy(v->key, key, 48);
	v->weight = sl_col_u64be(s, at + 2);
	return SL_OK;
}

/* Its weight moves from the L1's inactive weight to its node (activate) or back. */
static sl_err l1_vset_move(sl_conn *c, const l1_member *v, uint64_t height, bool activate)
{
	sl_err e = ix_vset_change(c, v->subnet, activate ? ix_vset_empty : v->node, height, true, v->weight,
				  true,
				  activate     ? NULL
				  : v->has_key ? v->key
					       : NULL);
	if (e)
		return e;
	return ix_vset_change(c, v->subnet, activate ? v->node : ix_vset_empty, height, false, v->weight,
			      true, activate && v->has_key ? v->key : NULL);
}

/* What an L1 validator tx left of a validation (its l1_txs row, written before the changes). */
static sl_err l1_effect(sl_conn *c, const ix_pevent *v, uint64_t weight, uint64_t balance, int64_t change)
{
	SL_STMT(c, q_l1_tx_effect);
	sl_bind_u64be(s, 0, weight);
	sl_bind_u64be(s, 1, balance);
	sl_bind_i64(s, 2, change);
	sl_bind_blob(s, 3, v->id, 32);
	sl_bind_i64(s, 4, (int64_t)v->at.seq);
	return sl_stmt_exec(s);
}

/* A balance as a signed change (balances are bounded by the supply, far below 2^63). */
static int64_t signed_amount(uint64_t v, bool neg)
{
	int64_t x = v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
	return neg ? -x : x;
}

static bool fees_started(const ix_rules *r, const pstate *ps)
{
	return ps->fees || ps->active || ps->excess || (r->etna && ps->ts >= r->etna);
}

/* Chain time to t: every active L1 validator pays for the seconds since the last block, and
 * those whose balance is gone are deactivated (avalanchego's advanceValidatorFeeState). */
static sl_err advance_time(sl_conn *c, ix_batch *b, const ix_rules *r, pstate *ps, int64_t t, uint64_t height)
{
	int64_t from = ps->ts;
	if (t <= from)
		return SL_OK;
	ps->ts = t;
	if (!fees_started(r, ps)) {
		if (!r->etna || t <= r->etna)
			return SL_OK;
		from = SL_MAX(from, r->etna);
	}
	if (!r->has_l1_fee)
		return SL_OK; /* no L1 validator yet (one would have failed its batch) */
	sl_l1_fee_state fs = { ps->active, ps->excess };
	uint64_t seconds = (uint64_t)(t - from);
	uint64_t cost = sl_l1_fee_cost(fs, &r->l1_fee, seconds);
	ps->fees = sl_sat_add(ps->fees, cost);
	ps->excess = sl_l1_fee_advance(fs, r->l1_fee.target, seconds).excess;
	if (!ps->active)
		return SL_OK;
	sl_err e;
	l1_member *out = NULL;
	size_t due = 0, cap = 0;
	{
		SL_STMT(c, q_l1_due);
		sl_bind_u64be(s, 0, 0);
		sl_bind_u64be(s, 1, ps->fees);
		if ((e = sl_stmt_query(s)))
			return e;
		while (sl_stmt_next(s, &e)) {
			if (due == cap) {
				size_t ncap = cap ? 2 * cap : 8;
				l1_member *nv = sl_arena_array(&b->arena, ncap, sizeof *nv);
				if (!nv)
					return SL_ERR_NOMEM;
				if (due)
					memcpy(nv, out, due * sizeof *out);
				out = nv;
				cap = ncap;
			}
			if (l1_row(c, s, 0, &out[due]))
				return SL_ERR_INVALID;
			due++;
		}
		if (e)
			return e;
		if (!due)
			return SL_OK;
		ps->active -= SL_MIN(due, ps->active);
	}
	/* each leaves its node for the L1's inactive weight */
	for (size_t i = 0; i < due; i++)
		if ((e = l1_vset_move(c, &out[i], height, false)))
			return e;
	SL_STMT(c, q_l1_member);
	sl_bind_u64be(s, 0, 0);
	sl_bind_u64be(s, 1, 0);
	sl_bind_u64be(s, 2, ps->fees);
	return sl_stmt_exec(s);
}

/* The remaining balance of a validator going away goes back to its owner, as a UTXO at the
 * removing tx's first index after its outputs (avalanchego's SetL1ValidatorWeightTx with
 * weight 0 and DisableL1ValidatorTx). */
static sl_err refund(sl_conn *c, ix_memo *m, ix_batch *b, const ix_rules *r, const ix_pevent *v,
		     uint64_t amount, const uint8_t *owner, size_t olen)
{
	if (!amount || olen < 12 || (olen - 12) % 20)
		return SL_OK;
	uint8_t *addrs = sl_arena_alloc(&b->arena, olen - 12);
	if (olen > 12 && !addrs)
		return SL_ERR_NOMEM;
	if (olen > 12)
		memcpy(addrs, owner + 12, olen - 12);
	ix_out o = { .tx = v->tx,
		     .idx = v->nouts,
		     .pos = v->at.seq,
		     .dest = IX_P,
		     .at = v->at,
		     .asset = r->avax,
		     .amount = amount,
		     .otype = 7,
		     .threshold = sl_be32(owner),
		     .naddrs = (uint32_t)((olen - 12) / 20),
		     .addrs = addrs };
	sl_avax_utxo_id(v->tx, v->nouts, o.id);
	sl_err e = put_out(c, m, &o);
	for (uint32_t a = 0; !e && a < o.naddrs; a++) {
		ix_act act = { IX_P, o.addrs + 20 * (size_t)a, v->at.seq, v->at.ts, v->at.type };
		e = put_act(c, m, &act);
	}
	return e;
}

/* An L1 validator's end fee, remaining balance owner (copied into the batch's arena) and place in
 * its validator set. */
static sl_err l1_get(sl_conn *c, ix_batch *b, const uint8_t *vid, uint64_t *end_fee, uint8_t **owner,
		     size_t *olen, l1_member *set)
{
	SL_STMT(c, q_l1_get);
	sl_bind_blob(s, 0, vid, 32);
	sl_err e = sl_stmt_query(s);
	if (e)
		return e;
	if (!sl_stmt_next(s, &e))
		return e ? e
			 : sl_conn_fail(c, SL_ERR_NOT_FOUND,
					"an L1 validator tx for a validation never made");
	*end_fee = sl_col_u64be(s, 0);
	if ((e = l1_row(c, s, 2, set)))
		return e;
	const uint8_t *o = sl_col_blob(s, 1, olen);
	if (!(*owner = sl_arena_alloc(&b->arena, *olen ? *olen : 1)))
		return SL_ERR_NOMEM;
	if (*olen)
		memcpy(*owner, o, *olen);
	return SL_OK;
}

static sl_err put_l1_add(sl_conn *c, const ix_rules *r, pstate *ps, const ix_pevent *v)
{
	if (!r->has_l1_fee)
		return sl_conn_fail(
			c, SL_ERR_UNSUPPORTED,
			"an L1 validator, but the P-chain's validator fee is not known: the node has "
			"no platform.getValidatorFeeConfig and the network is not mainnet or Fuji");
	uint64_t end = v->amount ? sl_sat_add(v->amount, ps->fees) : 0;
	SL_STMT(c, q_l1_add);
	sl_bind_blob(s, 0, v->id, 32);
	sl_bind_blob(s, 1, v->subnet, 32);
	sl_bind_blob(s, 2, v->node.p, v->node.len);
	sl_bind_blob(s, 3, v->tx, 32);
	sl_bind_i64(s, 4, (int64_t)v->at.seq);
	sl_bind_i64(s, 5, v->at.ts);
	sl_bind_u64be(s, 6, v->weight);
	bind_opt_blob(s, 7, v->bls_key, 48);
	sl_bind_blob(s, 8, v->owner.p, v->owner.len);
	sl_bind_blob(s, 9, v->owner2.p, v->owner2.len);
	sl_bind_u64be(s, 10, end);
	if (end)
		ps->active++;
	sl_err e = sl_stmt_exec(s);
	if (!e)
		e = l1_effect(c, v, v->weight, v->amount, signed_amount(v->amount, false));
	if (e || v->node.len != 20)
		return e;
	/* an active validator counts under its node with its key, an inactive one in the L1's
	 * inactive weight */
	return ix_vset_change(c, v->subnet, end ? v->node.p : ix_vset_empty, v->at.effective, false,
			      v->weight, true, end ? v->bls_key : NULL);
}

/* The smallest nonce a later weight message may carry (kept within the column's range). */
static int64_t next_nonce(uint64_t nonce) { return nonce >= INT64_MAX ? INT64_MAX : (int64_t)nonce + 1; }

static sl_err put_l1_change(sl_conn *c, ix_memo *m, ix_batch *b, const ix_rules *r, pstate *ps,
			    const ix_pevent *v)
{
	uint64_t end = 0;
	uint8_t *owner = NULL;
	size_t olen = 0;
	l1_member set;
	sl_err e = l1_get(c, b, v->id, &end, &owner, &olen, &set);
	if (e)
		return e;
	bool active = end > ps->fees;
	uint64_t left = active ? end - ps->fees : 0;
	uint64_t h = v->at.effective;
	switch (v->kind) {
	case IX_PE_L1_WEIGHT: {
		/* the weight changes where it counts: its node, or the L1's inactive weight */
		const uint8_t *at = active ? set.node : ix_vset_empty;
		const uint8_t *key = active && set.has_key ? set.key : NULL;
		if ((e = ix_vset_change(c, set.subnet, at, h, true, set.weight, true, key)) ||
		    (e = ix_vset_change(c, set.subnet, at, h, false, v->weight, true, key)))
			return e;
	}
		if ((e = v->weight ? l1_effect(c, v, v->weight, left, 0)
				   : l1_effect(c, v, 0, 0, signed_amount(left, true))))
			return e;
		if (v->weight) {
			SL_STMT(c, q_l1_weight);
			sl_bind_u64be(s, 0, v->weight);
			sl_bind_i64(s, 1, next_nonce(v->nonce));
			sl_bind_blob(s, 2, v->id, 32);
			return sl_stmt_exec(s);
		}
		{
			SL_STMT(c, q_l1_remove);
			sl_bind_u64be(s, 0, 0);
			sl_bind_i64(s, 1, next_nonce(v->nonce));
			sl_bind_u64be(s, 2, 0);
			sl_bind_blob(s, 3, v->tx, 32);
			sl_bind_i64(s, 4, v->at.ts);
			sl_bind_blob(s, 5, v->id, 32);
			if ((e = sl_stmt_exec(s)))
				return e;
		}
		if (active)
			ps->active--;
		return refund(c, m, b, r, v, left, owner, olen);
	case IX_PE_L1_BALANCE: {
		/* an inactive validator starts again from the fees accrued now */
		uint64_t base = active ? end : ps->fees;
		uint64_t to = sl_sat_add(base, v->amount);
		if ((e = l1_effect(c, v, set.weight, sl_sat_add(left, v->amount),
				   signed_amount(v->amount, false))))
			return e;
		if (!active && v->amount) {
			ps->active++;
			if ((e = l1_vset_move(c, &set, h, true)))
				return e;
		}
		SL_STMT(c, q_l1_end);
		sl_bind_u64be(s, 0, to);
		sl_bind_blob(s, 1, v->id, 32);
		return sl_stmt_exec(s);
	}
	case IX_PE_L1_DISABLE: {
		if ((e = l1_effect(c, v, set.weight, 0, signed_amount(left, true))) || !active)
			return e;
		ps->active--;
		if ((e = l1_vset_move(c, &set, h, false)))
			return e;
		SL_STMT(c, q_l1_end);
		sl_bind_u64be(s, 0, 0);
		sl_bind_blob(s, 1, v->id, 32);
		if ((e = sl_stmt_exec(s)))
			return e;
		return refund(c, m, b, r, v, left, owner, olen);
	}
	default: return SL_OK;
	}
}

static sl_err put_pevent(sl_conn *c, ix_memo *m, ix_batch *b, const ix_rules *r, pstate *ps,
			 const ix_pevent *v)
{
	sl_err e = pstate_load(c, ps, v->at.height);
	if (e)
		return e;
	switch (v->kind) {
	case IX_PE_TIME:
		/* the stakers whose time has come (the validator sets first, then pending rewards), then
		 * the L1 validators' fees */
		if (!ps->clock_known || v->at.ts >= ps->next_start || v->at.ts >= ps->next_end) {
			if ((e = ix_vset_time(c, v->at.ts, v->at.effective)) ||
			    (ps->has_supply && (e = promote(c, b, ps, v->at.ts))) ||
			    (e = clock_read(c, ps, v->at.ts)))
				return e;
		}
		return advance_time(c, b, r, ps, v->at.ts, v->at.effective);
	case IX_PE_BLOCK_END: {
		SL_STMT(c, q_pstate_put);
		sl_bind_i64(s, 0, (int64_t)SL_MIN(ps->active, INT64_MAX));
		sl_bind_u64be(s, 1, ps->fees);
		sl_bind_u64be(s, 2, ps->excess);
		if (ps->has_supply)
			sl_bind_u64be(s, 3, ps->supply);
		else
			sl_bind_null(s, 3);
		sl_bind_i64(s, 4, (int64_t)v->at.height);
		return sl_stmt_exec(s);
	}
	case IX_PE_STAKER:
		/* started when accepted (from Durango on); before, pending until its start (TIME) */
		if (v->start > (uint64_t)v->at.ts)
			return SL_OK;
		if ((e = ix_vset_join(c, v->id, v->at.effective)))
			return e;
		if (!ps->has_supply || memcmp(v->subnet, ix_vset_primary, 32))
			return SL_OK;
		return start_staker(c, ps, v->id, v->weight, v->start, v->end);
	case IX_PE_REMOVE: {
		uint8_t tx[32];
		bool found = false;
		{
			SL_STMT(c, q_removed);
			sl_bind_blob(s, 0, v->node.p, v->node.len);
			sl_bind_blob(s, 1, v->subnet, 32);
			sl_bind_i64(s, 2, v->at.ts);
			sl_bind_i64(s, 3, (int64_t)v->at.seq);
			if ((e = sl_stmt_query(s)))
				return e;
			if (sl_stmt_next(s, &e)) {
				size_t n = 0;
				const uint8_t *p = sl_col_blob(s, 0, &n);
				if ((found = n == 32))
					memcpy(tx, p, 32);
			}
			if (e || !found)
				return e;
		}
		SL_STMT(c, q_remove);
		sl_bind_blob(s, 0, v->id, 32);
		sl_bind_i64(s, 1, v->at.ts);
		sl_bind_blob(s, 2, tx, 32);
		if ((e = sl_stmt_exec(s)))
			return e;
		return ix_vset_leave(c, tx, v->at.effective);
	}
	case IX_PE_REWARD: {
		if ((e = ix_vset_leave(c, v->id, v->at.effective)))
			return e;
		/* an abort takes back the potential reward the start added */
		if (!ps->has_supply || v->committed)
			return SL_OK;
		SL_STMT(c, q_potential_get);
		sl_bind_blob(s, 0, v->id, 32);
		if ((e = sl_stmt_query(s)))
			return e;
		uint64_t p = sl_stmt_next(s, &e) && sl_col_type(s, 0) != SL_COL_NULL ? sl_col_u64be(s, 0) : 0;
		ps->supply = p > ps->supply ? 0 : ps->supply - p;
		return e;
	}
	case IX_PE_SUBNET: {
		SL_STMT(c, q_subnet);
		sl_bind_blob(s, 0, v->id, 32);
		sl_bind_i64(s, 1, (int64_t)v->at.seq);
		sl_bind_i64(s, 2, (int64_t)v->at.height);
		sl_bind_i64(s, 3, v->at.ts);
		sl_bind_blob(s, 4, v->owner.p, v->owner.len);
		return sl_stmt_exec(s);
	}
	case IX_PE_OWNER: {
		SL_STMT(c, q_subnet_owner);
		sl_bind_blob(s, 0, v->owner.p, v->owner.len);
		sl_bind_blob(s, 1, v->id, 32);
		return sl_stmt_exec(s);
	}
	case IX_PE_CHAIN: {
		SL_STMT(c, q_chain);
		sl_bind_blob(s, 0, v->id, 32);
		sl_bind_blob(s, 1, v->subnet, 32);
		sl_bind_i64(s, 2, (int64_t)v->at.seq);
		sl_bind_i64(s, 3, (int64_t)v->at.height);
		sl_bind_i64(s, 4, v->at.ts);
		sl_bind_blob(s, 5, v->name.p, v->name.len);
		sl_bind_blob(s, 6, v->vm, 32);
		sl_bind_blob(s, 7, v->genesis.p, v->genesis.len);
		return sl_stmt_exec(s);
	}
	case IX_PE_CONVERT: {
		SL_STMT(c, q_subnet_l1);
		sl_bind_blob(s, 0, v->id, 32);
		sl_bind_i64(s, 1, v->at.ts);
		sl_bind_blob(s, 2, v->manager_chain, 32);
		sl_bind_blob(s, 3, v->manager_addr.p, v->manager_addr.len);
		sl_bind_blob(s, 4, v->subnet, 32);
		return sl_stmt_exec(s);
	}
	case IX_PE_L1_ADD: return put_l1_add(c, r, ps, v);
	default: return put_l1_change(c, m, b, r, ps, v);
	}
}

static sl_err put_l1_tx(sl_conn *c, const ix_l1_tx *l)
{
	SL_STMT(c, q_l1_tx);
	sl_bind_blob(s, 0, l->vid, 32);
	sl_bind_i64(s, 1, (int64_t)l->seq);
	sl_bind_i64(s, 2, l->ts);
	sl_bind_i64(s, 3, l->type);
	return sl_stmt_exec(s);
}

/* Every row of a batch, inside the caller's transaction. */
static sl_err put_rows(sl_conn *c, const ix_rules *r, ix_memo *m, pstate *ps, ix_batch *b)
{
	sl_err e = SL_OK;
	ix_memo_acts_clear(m);
	for (size_t i = 0; !e && i < b->blocks.n; i++)
		e = put_block(c, &b->blocks.v[i]);
	for (size_t i = 0; !e && i < b->txs.n; i++)
		e = put_tx(c, &b->txs.v[i]);
	for (size_t i = 0; !e && i < b->outs.n; i++)
		e = put_out(c, m, &b->outs.v[i]);
	for (size_t i = 0; !e && i < b->spends.n; i++)
		e = put_spend(c, m, b, &b->spends.v[i]);
	for (size_t i = 0; !e && i < b->acts.n; i++)
		e = put_act(c, m, &b->acts.v[i]);
	for (size_t i = 0; !e && i < b->vertices.n; i++)
		e = put_vertex(c, &b->vertices.v[i]);
	for (size_t i = 0; !e && i < b->assets.n; i++)
		e = put_asset(c, &b->assets.v[i]);
	for (size_t i = 0; !e && i < b->asset_txs.n; i++)
		e = put_asset_tx(c, &b->asset_txs.v[i]);
	for (size_t i = 0; !e && i < b->stakers.n; i++) {
		e = put_staker(c, &b->stakers.v[i]);
		clock_lower(ps, &b->stakers.v[i]);
	}
	for (size_t i = 0; !e && i < b->stake_ends.n; i++)
		e = put_stake_end(c, m, b, &b->stake_ends.v[i]);
	/* an L1 validator tx's row first: applying it writes its effect there */
	for (size_t i = 0; !e && i < b->l1_txs.n; i++)
		e = put_l1_tx(c, &b->l1_txs.v[i]);
	for (size_t i = 0; !e && i < b->pevents.n; i++)
		e = put_pevent(c, m, b, r, ps, &b->pevents.v[i]);
	return e;
}

/* The early-spend filter from the table (at the first write, after a rollback, or once full). */
static sl_err load_early(sl_conn *c, ix_memo *m)
{
	if (m->early_loaded)
		return SL_OK;
	ix_memo_early_reset(m);
	SL_STMT(c, q_early_ids);
	sl_err e = sl_stmt_query(s);
	while (!e && sl_stmt_next(s, &e)) {
		size_t n = 0;
		const uint8_t *id = sl_col_blob(s, 0, &n);
		if (n == 32)
			ix_memo_early_add(m, id);
	}
	if (!e) {
		m->early_loaded = true;
		m->early_adds = 0;
	}
	return e;
}

/* Commit, or roll back and forget what the memo learnt in the transaction. */
static sl_err finish(sl_conn *c, ix_memo *m, sl_err e)
{
	if (!e && !(e = sl_conn_commit(c)))
		return SL_OK;
	sl_conn_rollback(c);
	ix_memo_forget(m);
	return e;
}

sl_err ix_write_many(sl_conn *c, const ix_rules *r, ix_memo *m, ix_batch *const *v, size_t n)
{
	pstate ps = { 0 };
	sl_err e = sl_conn_begin(c);
	if (!e)
		e = load_early(c, m);
	for (size_t i = 0; !e && i < n; i++) {
		ix_batch *b = v[i];
		/* the P-chain from its start (a new store, or one a migration reads again): the validator
		 * sets begin again from the genesis */
		if (b->kind == SL_IDX_P_BLOCK && b->first == 0) {
			e = ix_vset_restart(c);
			ps.clock_known = false;
		}
		if (!e)
			e = put_rows(c, r, m, &ps, b);
		if (!e) {
			sl_stmt *s = sl_stmt_get(c, &q_cursor);
			if (!s)
				e = SL_ERR_STORE;
			else {
				sl_bind_i64(s, 0, b->kind);
				sl_bind_i64(s, 1, (int64_t)b->next);
				sl_bind_blob(s, 2, b->last_id, 32);
				e = sl_stmt_exec(s);
			}
		}
	}
	if (!e)
		e = write_pending(c, m);
	return finish(c, m, e);
}

static const sl_sql q_genesis = { "INSERT INTO meta (key, value) VALUES ('genesis', ?)" };

/*
 * The supply at genesis: every genesis UTXO of AVAX (the genesis validators' stake included),
 * then each genesis validator's potential reward in the file's order, as avalanchego adds them
 * when it builds the genesis state.
 */
static sl_err genesis_supply(sl_conn *c, const ix_rules *r, ix_batch *b)
{
	pstate ps = { .loaded = true, .has_supply = true };
	for (size_t i = 0; i < b->outs.n; i++)
		if (!memcmp(b->outs.v[i].asset, r->avax, 32))
			ps.supply = sl_sat_add(ps.supply, b->outs.v[i].amount);
	sl_err e = SL_OK;
	for (size_t i = 0; !e && i < b->stakers.n; i++) {
		const ix_staker *k = &b->stakers.v[i];
		e = start_staker(c, &ps, k->tx, k->weight, k->start, k->end);
	}
	if (e)
		return e;
	SL_STMT(c, q_genesis_supply_put);
	sl_bind_u64be(s, 0, ps.supply);
	return sl_stmt_exec(s);
}

sl_err ix_write_genesis(sl_conn *c, const ix_rules *r, ix_memo *m, ix_batch *b, const uint8_t hash[32])
{
	pstate ps = { 0 };
	sl_err e = sl_conn_begin(c);
	if (!e)
		e = load_early(c, m);
	if (!e)
		e = put_rows(c, r, m, &ps, b);
	if (!e)
		e = write_pending(c, m);
	if (!e)
		e = genesis_supply(c, r, b);
	if (!e) {
		sl_stmt *s = sl_stmt_get(c, &q_genesis);
		if (!s)
			e = SL_ERR_STORE;
		else {
			sl_bind_blob(s, 0, hash, 32);
			e = sl_stmt_exec(s);
		}
	}
	return finish(c, m, e);
}
