#include "store/containers.h"

#include <errno.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "util/limits.h"

#define REC_HEAD 40 /* ts i64 | id [32] */

struct sl_cstore {
	MDB_env *env;
	MDB_dbi by_index[SL_IDX__COUNT], by_id[SL_IDX__COUNT], txloc, meta, state;
};

struct sl_cstore_rd {
	sl_cstore *s;
	MDB_txn *txn;
};

static const struct {
	const char *name, *chain;
} kinds[SL_IDX__COUNT] = {
	[SL_IDX_P_BLOCK] = { "P/block", "P" }, [SL_IDX_C_BLOCK] = { "C/block", "C" },
	[SL_IDX_X_TX] = { "X/tx", "X" },       [SL_IDX_X_BLOCK] = { "X/block", "X" },
	[SL_IDX_X_VTX] = { "X/vtx", "X" },
};

const char *sl_ikind_name(sl_ikind k) { return kinds[k].name; }
const char *sl_ikind_chain(sl_ikind k) { return kinds[k].chain; }

bool sl_ikind_parse(const char *s, sl_ikind *out)
{
	for (int k = 0; k < SL_IDX__COUNT; k++)
		if (!strcmp(s, kinds[k].name)) {
			*out = (sl_ikind)k;
			return true;
		}
	return false;
}

sl_cstore *sl_cstore_open(const char *dir, char err[256])
{
	sl_cstore *s = calloc(1, sizeof *s);
	MDB_txn *txn = NULL;
	int rc;
	if (!s) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	if (mkdir(dir, 0750) && errno != EEXIST) {
		snprintf(err, 256, "cannot create %s: %s", dir, strerror(errno));
		goto fail;
	}
	if ((rc = mdb_env_create(&s->env)) || (rc = mdb_env_set_maxdbs(s->env, 2 * SL_IDX__COUNT + 4)) ||
	    (rc = mdb_env_set_mapsize(s->env, (size_t)1 << 40)) ||
	    (rc = mdb_env_set_maxreaders(s->env, 512)) || (rc = mdb_env_open(s->env, dir, MDB_NOTLS, 0640))) {
		snprintf(err, 256, "cannot open container store %s: %s", dir, mdb_strerror(rc));
		goto fail;
	}
	if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)))
		goto lmdb_fail;
	for (int k = 0; k < SL_IDX__COUNT; k++) {
		char name[32];
		snprintf(name, sizeof name, "%s/c", kinds[k].name);
		if ((rc = mdb_dbi_open(txn, name, MDB_CREATE, &s->by_index[k])))
			goto lmdb_fail;
		snprintf(name, sizeof name, "%s/i", kinds[k].name);
		if ((rc = mdb_dbi_open(txn, name, MDB_CREATE, &s->by_id[k])))
			goto lmdb_fail;
	}
	if ((rc = mdb_dbi_open(txn, "txloc", MDB_CREATE, &s->txloc)) ||
	    (rc = mdb_dbi_open(txn, "meta", MDB_CREATE, &s->meta)) ||
	    (rc = mdb_dbi_open(txn, "state", MDB_CREATE, &s->state)) || (rc = mdb_txn_commit(txn))) {
		txn = NULL;
		goto lmdb_fail;
	}
	return s;
lmdb_fail:
	snprintf(err, 256, "container store %s: %s", dir, mdb_strerror(rc));
	if (txn)
		mdb_txn_abort(txn);
fail:
	if (s->env)
		mdb_env_close(s->env);
	free(s);
	return NULL;
}

void sl_cstore_close(sl_cstore *s)
{
	if (!s)
		return;
	mdb_env_close(s->env);
	free(s);
}

sl_err sl_cstore_rd_begin(sl_cstore *s, sl_cstore_rd **out)
{
	sl_cstore_rd *rd = malloc(sizeof *rd);
	if (!rd)
		return SL_ERR_NOMEM;
	rd->s = s;
	if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &rd->txn)) {
		free(rd);
		return SL_ERR_STORE;
	}
	*out = rd;
	return SL_OK;
}

void sl_cstore_rd_end(sl_cstore_rd *rd)
{
	if (!rd)
		return;
	mdb_txn_abort(rd->txn);
	free(rd);
}

static sl_err count_txn(sl_cstore *s, MDB_txn *txn, sl_ikind k, uint64_t *n)
{
	MDB_cursor *cur;
	if (mdb_cursor_open(txn, s->by_index[k], &cur))
		return SL_ERR_STORE;
	MDB_val key, val;
	int rc = mdb_cursor_get(cur, &key, &val, MDB_LAST);
	mdb_cursor_close(cur);
	if (rc == MDB_NOTFOUND) {
		*n = 0;
		return SL_OK;
	}
	if (rc || key.mv_size != 8)
		return SL_ERR_STORE;
	*n = sl_be64(key.mv_data) + 1;
	return SL_OK;
}

sl_err sl_cstore_count(sl_cstore_rd *rd, sl_ikind k, uint64_t *n) { return count_txn(rd->s, rd->txn, k, n); }

static sl_err unpack(const MDB_val *v, uint64_t index, sl_container *c)
{
	if (v->mv_size < REC_HEAD)
		return SL_ERR_STORE;
	const uint8_t *p = v->mv_data;
	c->ts_ns = (int64_t)sl_be64(p);
	memcpy(c->id, p + 8, 32);
	c->index = index;
	c->bytes = p + REC_HEAD;
	c->len = v->mv_size - REC_HEAD;
	return SL_OK;
}

sl_err sl_cstore_get(sl_cstore_rd *rd, sl_ikind k, uint64_t index, sl_container *c)
{
	uint8_t kb[8];
	sl_put_be64(kb, index);
	MDB_val key = { 8, kb }, val;
	int rc = mdb_get(rd->txn, rd->s->by_index[k], &key, &val);
	if (rc == MDB_NOTFOUND)
		return SL_ERR_NOT_FOUND;
	if (rc)
		return SL_ERR_STORE;
	return unpack(&val, index, c);
}

sl_err sl_cstore_index_of(sl_cstore_rd *rd, sl_ikind k, const uint8_t id[32], uint64_t *index)
{
	MDB_val key = { 32, (void *)id }, val;
	int rc = mdb_get(rd->txn, rd->s->by_id[k], &key, &val);
	if (rc == MDB_NOTFOUND)
		return SL_ERR_NOT_FOUND;
	if (rc || val.mv_size != 8)
		return SL_ERR_STORE;
	*index = sl_be64(val.mv_data);
	return SL_OK;
}

sl_err sl_cstore_find(sl_cstore_rd *rd, sl_ikind k, const uint8_t id[32], sl_container *c)
{
	uint64_t index;
	sl_err err = sl_cstore_index_of(rd, k, id, &index);
	if (err)
		return err;
	err = sl_cstore_get(rd, k, index, c);
	return err == SL_ERR_NOT_FOUND ? SL_ERR_STORE : err; /* an id without its container */
}

typedef struct put_ctx {
	sl_cstore *s;
	MDB_txn *txn;
	sl_ikind kind;
	uint64_t index;
	size_t container_len;
	int rc;
} put_ctx;

static void put_txloc(void *ctx, const uint8_t tx_id[32], size_t offset, size_t len)
{
	put_ctx *pc = ctx;
	if (pc->rc || offset > pc->container_len || len > pc->container_len - offset)
		return; /* a hook bug would point outside the container: ignore it */
	uint8_t v[17];
	v[0] = (uint8_t)pc->kind;
	sl_put_be64(v + 1, pc->index);
	sl_put_be32(v + 9, (uint32_t)offset);
	sl_put_be32(v + 13, (uint32_t)len);
	MDB_val key = { 32, (void *)tx_id }, val = { sizeof v, v };
	int rc = mdb_put(pc->txn, pc->s->txloc, &key, &val, MDB_NOOVERWRITE);
	if (rc && rc != MDB_KEYEXIST) /* a tx already located keeps its first home */
		pc->rc = rc;
}

sl_err sl_cstore_txloc(sl_cstore_rd *rd, const uint8_t tx_id[32], sl_txloc *loc)
{
	MDB_val key = { 32, (void *)tx_id }, val;
	int rc = mdb_get(rd->txn, rd->s->txloc, &key, &val);
	if (rc == MDB_NOTFOUND)
		return SL_ERR_NOT_FOUND;
	if (rc || val.mv_size != 17)
		return SL_ERR_STORE;
	const uint8_t *v = val.mv_data;
	if (v[0] >= SL_IDX__COUNT)
		return SL_ERR_STORE;
	*loc = (sl_txloc){ (sl_ikind)v[0], sl_be64(v + 1), sl_be32(v + 9), sl_be32(v + 13) };
	return SL_OK;
}

sl_err sl_cstore_append(sl_cstore *s, sl_ikind k, const sl_container *cs, size_t n, size_t *added,
			const sl_cstore_hook *hook)
{
	MDB_txn *txn;
	size_t done = 0;
	if (added)
		*added = 0;
	if (mdb_txn_begin(s->env, NULL, 0, &txn))
		return SL_ERR_STORE;
	uint64_t next;
	sl_err err = count_txn(s, txn, k, &next);
	for (size_t i = 0; !err && i < n; i++) {
		const sl_container *c = &cs[i];
		if (c->len > SL_MAX_CONTAINER) {
			err = SL_ERR_TOO_LARGE;
			break;
		}
		uint8_t ib[8];
		sl_put_be64(ib, next);
		MDB_val idkey = { 32, (void *)c->id }, idval = { 8, ib };
		int rc = mdb_put(txn, s->by_id[k], &idkey, &idval, MDB_NOOVERWRITE);
		if (rc == MDB_KEYEXIST)
			continue; /* already indexed: keep the first */
		if (rc) {
			err = SL_ERR_STORE;
			break;
		}
		MDB_val key = { 8, ib }, val = { REC_HEAD + c->len, NULL };
		if (mdb_put(txn, s->by_index[k], &key, &val, MDB_RESERVE | MDB_APPEND)) {
			err = SL_ERR_STORE;
			break;
		}
		uint8_t *p = val.mv_data;
		sl_put_be64(p, (uint64_t)c->ts_ns);
		memcpy(p + 8, c->id, 32);
		if (c->len)
			memcpy(p + REC_HEAD, c->bytes, c->len);
		if (hook) {
			put_ctx pc = { s, txn, k, next, c->len, 0 };
			sl_container at = *c;
			at.index = next; /* the hook sees where the container goes */
			hook->txs_of(hook->ctx, k, &at, put_txloc, &pc);
			if (pc.rc) {
				err = SL_ERR_STORE;
				break;
			}
		}
		next++;
		done++;
	}
	if (err) {
		mdb_txn_abort(txn);
		return err;
	}
	if (mdb_txn_commit(txn))
		return SL_ERR_STORE;
	if (added)
		*added = done;
	return SL_OK;
}

sl_err sl_cstore_meta_get(sl_cstore *s, const char *key, uint8_t *out, size_t cap, size_t *len)
{
	MDB_txn *txn;
	if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn))
		return SL_ERR_STORE;
	MDB_val k = { strlen(key), (void *)key }, v;
	int rc = mdb_get(txn, s->meta, &k, &v);
	sl_err err = rc == MDB_NOTFOUND ? SL_ERR_NOT_FOUND : rc ? SL_ERR_STORE : SL_OK;
	if (!err) {
		if (v.mv_size > cap)
			err = SL_ERR_TOO_LARGE;
		else {
			memcpy(out, v.mv_data, v.mv_size);
			*len = v.mv_size;
		}
	}
	mdb_txn_abort(txn);
	return err;
}

static sl_err meta_write(sl_cstore *s, const char *key, const void *val, size_t len, bool del)
{
	MDB_txn *txn;
	if (len > 4096)
		return SL_ERR_TOO_LARGE;
	if (mdb_txn_begin(s->env, NULL, 0, &txn))
		return SL_ERR_STORE;
	MDB_val k = { strlen(key), (void *)key }, v = { len, (void *)val };
	int rc = del ? mdb_del(txn, s->meta, &k, NULL) : mdb_put(txn, s->meta, &k, &v, 0);
	if (rc && rc != MDB_NOTFOUND) {
		mdb_txn_abort(txn);
		return SL_ERR_STORE;
	}
	return mdb_txn_commit(txn) ? SL_ERR_STORE : SL_OK;
}

sl_err sl_cstore_meta_put(sl_cstore *s, const char *key, const void *val, size_t len)
{
	return meta_write(s, key, val, len, false);
}

sl_err sl_cstore_meta_del(sl_cstore *s, const char *key) { return meta_write(s, key, NULL, 0, true); }

sl_err sl_cstore_state_put(sl_cstore *s, const void *key, size_t klen, const void *val, size_t vlen)
{
	if (!klen || klen > SL_CSTORE_MAX_KEY || vlen > SL_CSTORE_MAX_STATE)
		return SL_ERR_TOO_LARGE;
	MDB_txn *txn;
	if (mdb_txn_begin(s->env, NULL, 0, &txn))
		return SL_ERR_STORE;
	MDB_val k = { klen, (void *)key }, v = { vlen, (void *)val };
	if (mdb_put(txn, s->state, &k, &v, 0)) {
		mdb_txn_abort(txn);
		return SL_ERR_STORE;
	}
	return mdb_txn_commit(txn) ? SL_ERR_STORE : SL_OK;
}

sl_err sl_cstore_state_get(sl_cstore_rd *rd, const void *key, size_t klen, sl_span *val)
{
	if (!klen || klen > SL_CSTORE_MAX_KEY)
		return SL_ERR_NOT_FOUND;
	MDB_val k = { klen, (void *)key }, v;
	int rc = mdb_get(rd->txn, rd->s->state, &k, &v);
	if (rc == MDB_NOTFOUND)
		return SL_ERR_NOT_FOUND;
	if (rc)
		return SL_ERR_STORE;
	*val = sl_span_of(v.mv_data, v.mv_size);
	return SL_OK;
}
