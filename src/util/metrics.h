/*
 * metrics.h — Prometheus metrics: counters, gauges and histograms with
 * labels, written in the text exposition format (version 0.0.4).
 *
 * A registry holds families (a name, a help text, a type, up to
 * SL_METRIC_MAX_LABELS label names). A family's series — one per set of
 * label values — are made on first use and live as long as the registry.
 * Every update is a relaxed atomic add on the series, so hot paths take no
 * lock; making a new series takes the family's lock once. A family holds at
 * most SL_METRIC_MAX_SERIES series: label values come from the caller, so
 * callers pass values from closed sets (route names, method names), and a
 * family that is full folds new series into one whose label values are
 * all "other".
 *
 * Collectors are callbacks run at exposition time, for values that are read
 * rather than counted (store sizes, connections, memory).
 *
 * Lifecycle: sl_metrics_new() at start-up, sl_metrics_free() at exit, after
 * every thread that updates it has stopped.
 */
#ifndef SL_METRICS_H
#define SL_METRICS_H

#include <stdatomic.h>

#include "util/buf.h"

#define SL_METRIC_MAX_LABELS 4
#define SL_METRIC_MAX_SERIES 1024
#define SL_METRIC_BUCKETS 14 /* histogram upper bounds, seconds: 0.5 ms … 10 s, then +Inf */

typedef enum sl_metric_type { SL_METRIC_COUNTER, SL_METRIC_GAUGE, SL_METRIC_HISTOGRAM } sl_metric_type;

typedef struct sl_metrics sl_metrics;
typedef struct sl_metric_family sl_metric_family;

/* One series. Counters and gauges use `value` (gauges may go down: add a
 * negative amount); histograms use the buckets, `count` and `sum_ns`. */
typedef struct sl_series {
	_Atomic int64_t value;
	_Atomic uint64_t bucket[SL_METRIC_BUCKETS + 1]; /* non-cumulative; the last is +Inf */
	_Atomic uint64_t count;
	_Atomic uint64_t sum_ns;
	const char *labels[SL_METRIC_MAX_LABELS]; /* owned copies */
} sl_series;

sl_metrics *sl_metrics_new(void);
void sl_metrics_free(sl_metrics *m);

/* A family; NULL when out of memory. Names and help are static strings. The
 * label names are given as one comma-separated static string ("route,method"), or NULL. */
sl_metric_family *sl_metric_family_add(sl_metrics *m, const char *name, const char *help, sl_metric_type type,
				       const char *label_names);

/* The series of these label values (as many as the family has labels), made on first use. Never NULL
 * for a family that is not NULL: when a series cannot be made, the shared "other" one is returned. */
sl_series *sl_metric_series(sl_metric_family *f, const char *const *values);
/* Shorthands for families with no or one or two labels. */
sl_series *sl_metric_series0(sl_metric_family *f);
sl_series *sl_metric_series1(sl_metric_family *f, const char *v0);
sl_series *sl_metric_series2(sl_metric_family *f, const char *v0, const char *v1);

static inline void sl_series_add(sl_series *s, int64_t v)
{
	atomic_fetch_add_explicit(&s->value, v, memory_order_relaxed);
}
static inline void sl_series_set(sl_series *s, int64_t v)
{
	atomic_store_explicit(&s->value, v, memory_order_relaxed);
}
/* A histogram observation of a duration in nanoseconds. */
void sl_series_observe_ns(sl_series *s, int64_t ns);

/* A collector writes whole families itself at exposition time, with the helpers below. */
typedef void (*sl_metrics_collect_fn)(void *ctx, sl_buf *out);
void sl_metrics_collector(sl_metrics *m, sl_metrics_collect_fn fn, void *ctx);

/* Write every family, then every collector's output, into out. */
void sl_metrics_write(sl_metrics *m, sl_buf *out);

/* Helpers for collectors: "# HELP"/"# TYPE" lines, and one sample (labels "k=v,k=v" already quoted: see below). */
void sl_metrics_head(sl_buf *out, const char *name, const char *help, const char *type);
void sl_metrics_sample(sl_buf *out, const char *name, const char *label, const char *value, double v);
/* The standard process_* metrics of the Prometheus client libraries (from /proc/self). */
void sl_metrics_process(void *ctx, sl_buf *out);

/* The content type of the exposition format. */
#define SL_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

#endif
