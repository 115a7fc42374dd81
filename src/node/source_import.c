/*
 * source_import.c — `--import FILE`: append a container log (clog.h) to the
 * indexes, in order, skipping ids already present, so that importing the
 * same file twice, or after a crash part-way, adds each container once.
 */
#include "node/internal.h"

#include <errno.h>

#include "node/batch.h"
#include "node/clog.h"
#include "util/limits.h"

sl_err sl_import_file(sl_node *n, const char *path, char err[256])
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, 256, "cannot open: %s", strerror(errno));
		return SL_ERR_IO;
	}
	sl_batcher bt;
	uint8_t *buf = malloc(SL_IMPORT_MAX_RECORD);
	uint64_t offset = 8, records = 0;
	sl_err e = buf ? sl_batcher_init(&bt, n) : SL_ERR_NOMEM;
	if (e) {
		free(buf);
		fclose(f);
		snprintf(err, 256, "out of memory");
		return e;
	}
	char magic[8];
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, SL_CLOG_MAGIC, 8)) {
		e = SL_ERR_INVALID;
		snprintf(err, 256, "not a container log (no %s magic)", SL_CLOG_MAGIC);
		goto out;
	}
	while (!(n->stop && *n->stop)) {
		size_t got = fread(buf, 1, SL_CLOG_HEAD, f);
		if (got == 0)
			break;
		if (got == SL_CLOG_HEAD) {
			uint32_t len = sl_be32(buf + 41);
			if (len <= SL_MAX_CONTAINER)
				got += fread(buf + SL_CLOG_HEAD, 1, (size_t)len + 4, f);
		}
		sl_clog_rec rec;
		sl_err_detail d;
		size_t used = 0;
		if (sl_clog_decode(buf, got, &rec, &used, &d)) {
			e = d.code;
			/* The record's own start: where a reader of the file finds the bad record. */
			snprintf(err, 256, "record %llu at byte %llu: %s", (unsigned long long)records,
				 (unsigned long long)offset, d.msg);
			break;
		}
		if ((e = sl_batcher_add(&bt, rec.kind, &rec.c))) {
			snprintf(err, 256, "cannot write to the store: %s", sl_err_name(e));
			break;
		}
		offset += used;
		records++;
	}
out:;
	/* What was read before an error stays: flush it. */
	sl_err fe = sl_batcher_flush(&bt);
	if (fe && !e) {
		e = fe;
		snprintf(err, 256, "cannot write to the store: %s", sl_err_name(fe));
	}
	SL_LOG(n->log_source, SL_INFO, "import %s: %llu records read, %llu new containers", path,
	       (unsigned long long)records, (unsigned long long)bt.added);
	sl_batcher_release(&bt);
	free(buf);
	fclose(f);
	return e;
}
