/*
 * clog.h — the container log: the file format of `snowline node --import`.
 *
 * A file is an 8-byte magic followed by records, each self-checking:
 *
 *   offset  size  field
 *   0       8     magic "SLCLOG01"                       (once, at the start)
 *
 *   record:
 *   0       1     index: 0 P/block, 1 C/block, 2 X/tx, 3 X/block, 4 X/vtx
 *   1       32    container id
 *   33      8     timestamp: i64 BE, unix nanoseconds (when it was accepted)
 *   41      4     length: u32 BE, at most SL_MAX_CONTAINER
 *   45      len   container bytes
 *   45+len  4     checksum: the last 4 bytes of sha256 of bytes 0..45+len of this record
 *
 * Records of the five indexes may interleave; within one index they are in
 * acceptance order. A torn last record (a crash while writing the file) is
 * reported as SL_ERR_TRUNCATED with its offset.
 */
#ifndef SL_NODE_CLOG_H
#define SL_NODE_CLOG_H

#include "store/containers.h"
#include "util/buf.h"

#define SL_CLOG_MAGIC "SLCLOG01"
#define SL_CLOG_HEAD 45

typedef struct sl_clog_rec {
	sl_ikind kind;
	sl_container c; /* bytes: a view into the decoded buffer */
} sl_clog_rec;

/*
 * Decode one record from p[0..n). On success *used is the record's size.
 * SL_ERR_TRUNCATED when n is too short for the record (read more and retry);
 * other errors (bad index, length over the limit, checksum) are final.
 */
SL_MUST_USE sl_err sl_clog_decode(const uint8_t *p, size_t n, sl_clog_rec *rec, size_t *used,
				  sl_err_detail *err);
/* Append one record. */
void sl_clog_encode(sl_buf *out, sl_ikind kind, const sl_container *c);

#endif
