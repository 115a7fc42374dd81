/*
 * rfc3339.h — RFC 3339 timestamps, as Go's time.Time marshals them
 * ("2006-01-02T15:04:05.999999999Z07:00"): the index API's `timestamp`; and
 * plain dates (the price table's, store/prices.h).
 */
#ifndef SL_RFC3339_H
#define SL_RFC3339_H

#include "util/common.h"
#include "util/err.h"

/*
 * Parse s[0..n) — date, 'T', time, an optional fraction of up to 9 digits,
 * and 'Z' or ±hh:mm — into unix nanoseconds (UTC). Years 1970 to 9999.
 * SL_ERR_INVALID when it is not of that form.
 */
SL_MUST_USE sl_err sl_rfc3339_parse(const char *s, size_t n, int64_t *ns);

/* Parse s[0..n), a date YYYY-MM-DD (1970 to 9999), into the unix seconds of its midnight UTC.
 * SL_ERR_INVALID when it is not of that form or not a day of the calendar. */
SL_MUST_USE sl_err sl_date_parse(const char *s, size_t n, int64_t *secs);

#endif
