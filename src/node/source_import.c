/*
 * source_import.c — `--import FILE`: append a container log (clog.h) to the
 * indexes, in order, skipping ids already present, so that importing the
 * same file twice, or after a crash part-way, adds each container once.
 *
 * Records are batched per index (one LMDB transaction per batch): a crash
 * loses at most the batch in progress, which the next import re-adds.
 */
#include "node/internal.h"

#include <errno.h>

#include "node/clog.h"
#include "util/limits.h"

#define BATCH_RECORDS 512
#define BATCH_BYTES (8u << 20)

typedef struct batch {
	sl_container cs[BATCH_RECORDS];
	uint8_t *mem;
	size_t n, used;
} batch;

static sl_err flush(sl_node *n, sl_ikind k, batch *b, uint64_t *added)
{
	if (!b->n)
		return SL_OK;
	size_t a = 0;
	sl_err e = sl_cstore_append(n->store, k, b->cs, b->n, &a);
	*added += a;
	b->n = b->used = 0;
	return e;
}

sl_err sl_import_file(sl_node *n, const char *path, char err[256])
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, 256, "cannot open: %s", strerror(errno));
		return SL_ERR_IO;
	}
	sl_err e = SL_OK;
	batch *bs = calloc(SL_IDX__COUNT, sizeof *bs);
	uint8_t *buf = malloc(SL_IMPORT_MAX_RECORD);
	uint64_t offset = 0, records = 0, added = 0;
	if (!bs || !buf) {
		e = SL_ERR_NOMEM;
		snprintf(err, 256, "out of memory");
		goto out;
	}
	for (int k = 0; k < SL_IDX__COUNT; k++)
		if (!(bs[k].mem = malloc(BATCH_BYTES))) {
			e = SL_ERR_NOMEM;
			snprintf(err, 256, "out of memory");
			goto out;
		}
	char magic[8];
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, SL_CLOG_MAGIC, 8)) {
		e = SL_ERR_INVALID;
		snprintf(err, 256, "not a container log (no %s magic)", SL_CLOG_MAGIC);
		goto out;
	}
	offset = 8;
	for (;;) {
		if (n->stop && *n->stop)
			break;
		size_t got = fread(buf, 1, SL_CLOG_HEAD, f);
		if (got == 0)
			break;
		sl_clog_rec rec;
		sl_err_detail d;
		size_t used = 0;
		if (got == SL_CLOG_HEAD) {
			uint32_t len = sl_be32(buf + 41);
			if (len <= SL_MAX_CONTAINER)
				got += fread(buf + SL_CLOG_HEAD, 1, (size_t)len + 4, f);
		}
		if (sl_clog_decode(buf, got, &rec, &used, &d)) {
			e = d.code;
			snprintf(err, 256, "record %llu at byte %llu: %s", (unsigned long long)records,
				 (unsigned long long)(offset + d.offset), d.msg);
			break;
		}
		if (n->index_state[rec.kind] == SL_INDEX_OFF) {
			offset += used; /* accepted, but this index is off */
			records++;
			continue;
		}
		batch *b = &bs[rec.kind];
		if (b->n == BATCH_RECORDS || b->used + rec.c.len > BATCH_BYTES)
			if ((e = flush(n, rec.kind, b, &added))) {
				snprintf(err, 256, "cannot write to the store: %s", sl_err_name(e));
				break;
			}
		memcpy(b->mem + b->used, rec.c.bytes, rec.c.len);
		rec.c.bytes = b->mem + b->used;
		b->used += rec.c.len;
		b->cs[b->n++] = rec.c;
		offset += used;
		records++;
	}
	for (int k = 0; k < SL_IDX__COUNT && bs; k++) {
		sl_err fe = flush(n, (sl_ikind)k, &bs[k], &added);
		if (fe && !e) {
			e = fe;
			snprintf(err, 256, "cannot write to the store: %s", sl_err_name(fe));
		}
	}
	SL_LOG(n->log_source, SL_INFO, "import %s: %llu records read, %llu new containers", path,
	       (unsigned long long)records, (unsigned long long)added);
out:
	for (int k = 0; bs && k < SL_IDX__COUNT; k++)
		free(bs[k].mem);
	free(bs);
	free(buf);
	fclose(f);
	return e;
}
