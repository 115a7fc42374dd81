#include "util/metrics.h"

#include <dirent.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define TABLE (2 * SL_METRIC_MAX_SERIES) /* open addressing, at most half full */

/* Upper bounds of the histogram buckets, in nanoseconds and as Prometheus writes them. */
static const int64_t bounds_ns[SL_METRIC_BUCKETS] = {
	500000,	   1000000,   2500000,	 5000000,    10000000,	 25000000,   50000000,
	100000000, 250000000, 500000000, 1000000000, 2500000000, 5000000000, 10000000000,
};
static const char *const bounds_text[SL_METRIC_BUCKETS] = { "0.0005", "0.001", "0.0025", "0.005", "0.01",
							    "0.025",  "0.05",  "0.1",	 "0.25",  "0.5",
							    "1",      "2.5",   "5",	 "10" };

struct sl_metric_family {
	const char *name, *help;
	sl_metric_type type;
	const char *label_names[SL_METRIC_MAX_LABELS];
	size_t nlabels;
	char *label_buf;      /* the split copy of label_names */
	pthread_mutex_t lock; /* guards making series; lookups are lock-free */
	_Atomic(sl_series *) table[TABLE];
	sl_series *order[SL_METRIC_MAX_SERIES]; /* series in the order they were made, for exposition */
	_Atomic size_t nseries;
	sl_series other; /* where series go when the table is full */
	struct sl_metric_family *next;
};

typedef struct collector {
	sl_metrics_collect_fn fn;
	void *ctx;
	struct collector *next;
} collector;

struct sl_metrics {
	pthread_mutex_t lock; /* guards the lists below (registration only) */
	sl_metric_family *first, **last;
	collector *collectors, **last_collector;
};

static const char *const OTHER[SL_METRIC_MAX_LABELS] = { "other", "other", "other", "other" };

sl_metrics *sl_metrics_new(void)
{
	sl_metrics *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	pthread_mutex_init(&m->lock, NULL);
	m->last = &m->first;
	m->last_collector = &m->collectors;
	return m;
}

static void series_free(sl_series *s, size_t nlabels)
{
	for (size_t i = 0; i < nlabels; i++)
		free((char *)s->labels[i]);
	free(s);
}

void sl_metrics_free(sl_metrics *m)
{
	if (!m)
		return;
	for (sl_metric_family *f = m->first, *next; f; f = next) {
		next = f->next;
		size_t n = atomic_load(&f->nseries);
		for (size_t i = 0; i < n; i++)
			series_free(f->order[i], f->nlabels);
		pthread_mutex_destroy(&f->lock);
		free(f->label_buf);
		free(f);
	}
	for (collector *c = m->collectors, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	pthread_mutex_destroy(&m->lock);
	free(m);
}

sl_metric_family *sl_metric_family_add(sl_metrics *m, const char *name, const char *help, sl_metric_type type,
				       const char *label_names)
{
	sl_metric_family *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	*f = (sl_metric_family){ .name = name, .help = help, .type = type };
	if (label_names && *label_names) {
		if (!(f->label_buf = strdup(label_names))) {
			free(f);
			return NULL;
		}
		for (char *p = f->label_buf; p && f->nlabels < SL_METRIC_MAX_LABELS;) {
			f->label_names[f->nlabels++] = p;
			if ((p = strchr(p, ',')))
				*p++ = 0;
		}
	}
	for (size_t i = 0; i < f->nlabels; i++)
		f->other.labels[i] = OTHER[i];
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_lock(&m->lock);
	*m->last = f;
	m->last = &f->next;
	pthread_mutex_unlock(&m->lock);
	return f;
}

static uint64_t hash_values(const sl_metric_family *f, const char *const *v)
{
	static const uint8_t sep = 0xff;
	uint64_t h = SL_FNV_OFFSET;
	for (size_t i = 0; i < f->nlabels; i++)
		h = sl_fnv1a(sl_fnv1a(h, v[i], strlen(v[i])), &sep, 1);
	return h;
}

static bool same(const sl_metric_family *f, const sl_series *s, const char *const *v)
{
	for (size_t i = 0; i < f->nlabels; i++)
		if (strcmp(s->labels[i], v[i]))
			return false;
	return true;
}

sl_series *sl_metric_series(sl_metric_family *f, const char *const *values)
{
	uint64_t h = hash_values(f, values);
	/* Lock-free probe: slots only ever go from NULL to a finished series (release/acquire). */
	for (size_t i = h % TABLE, k = 0; k < TABLE; i = (i + 1) % TABLE, k++) {
		sl_series *s = atomic_load_explicit(&f->table[i], memory_order_acquire);
		if (!s)
			break;
		if (same(f, s, values))
			return s;
	}
	pthread_mutex_lock(&f->lock);
	sl_series *found = NULL;
	size_t slot = TABLE;
	for (size_t i = h % TABLE, k = 0; k < TABLE; i = (i + 1) % TABLE, k++) {
		sl_series *s = atomic_load_explicit(&f->table[i], memory_order_relaxed);
		if (!s) {
			slot = i;
			break;
		}
		if (same(f, s, values)) {
			found = s;
			break;
		}
	}
	size_t n = atomic_load(&f->nseries);
	if (!found && slot < TABLE && n < SL_METRIC_MAX_SERIES) {
		sl_series *s = calloc(1, sizeof *s);
		bool ok = s != NULL;
		for (size_t i = 0; ok && i < f->nlabels; i++)
			ok = (s->labels[i] = strdup(values[i])) != NULL;
		if (ok) {
			f->order[n] = s;
			atomic_store(&f->nseries, n + 1);
			atomic_store_explicit(&f->table[slot], s, memory_order_release);
			found = s;
		} else if (s) {
			series_free(s, f->nlabels);
		}
	}
	pthread_mutex_unlock(&f->lock);
	return found ? found : &f->other;
}

sl_series *sl_metric_series0(sl_metric_family *f) { return sl_metric_series(f, OTHER); }
sl_series *sl_metric_series1(sl_metric_family *f, const char *v0)
{
	const char *v[SL_METRIC_MAX_LABELS] = { v0 };
	return sl_metric_series(f, v);
}
sl_series *sl_metric_series2(sl_metric_family *f, const char *v0, const char *v1)
{
	const char *v[SL_METRIC_MAX_LABELS] = { v0, v1 };
	return sl_metric_series(f, v);
}

void sl_series_observe_ns(sl_series *s, int64_t ns)
{
	size_t b = 0;
	while (b < SL_METRIC_BUCKETS && ns > bounds_ns[b])
		b++;
	atomic_fetch_add_explicit(&s->bucket[b], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->count, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->sum_ns, ns > 0 ? (uint64_t)ns : 0, memory_order_relaxed);
}

void sl_metrics_collector(sl_metrics *m, sl_metrics_collect_fn fn, void *ctx)
{
	collector *c = calloc(1, sizeof *c);
	if (!c)
		return;
	c->fn = fn;
	c->ctx = ctx;
	pthread_mutex_lock(&m->lock);
	*m->last_collector = c;
	m->last_collector = &c->next;
	pthread_mutex_unlock(&m->lock);
}

/* A label value, escaped as the exposition format wants (\\, \", \n). */
static void label_value(sl_buf *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			sl_buf_addc(out, '\\');
		if (*v == '\n') {
			sl_buf_adds(out, "\\n");
			continue;
		}
		sl_buf_addc(out, *v);
	}
}

/* {a="x",b="y"[,le="…"]} */
static void labels(sl_buf *out, const sl_metric_family *f, const sl_series *s, const char *le)
{
	if (!f->nlabels && !le)
		return;
	sl_buf_addc(out, '{');
	for (size_t i = 0; i < f->nlabels; i++) {
		sl_buf_addf(out, "%s%s=\"", i ? "," : "", f->label_names[i]);
		label_value(out, s->labels[i]);
		sl_buf_addc(out, '"');
	}
	if (le)
		sl_buf_addf(out, "%sle=\"%s\"", f->nlabels ? "," : "", le);
	sl_buf_addc(out, '}');
}

static void write_series(sl_buf *out, const sl_metric_family *f, const sl_series *s)
{
	if (f->type != SL_METRIC_HISTOGRAM) {
		sl_buf_adds(out, f->name);
		labels(out, f, s, NULL);
		sl_buf_addf(out, " %lld\n", (long long)atomic_load_explicit(&s->value, memory_order_relaxed));
		return;
	}
	uint64_t cum = 0;
	for (size_t b = 0; b <= SL_METRIC_BUCKETS; b++) {
		cum += atomic_load_explicit(&s->bucket[b], memory_order_relaxed);
		sl_buf_addf(out, "%s_bucket", f->name);
		labels(out, f, s, b < SL_METRIC_BUCKETS ? bounds_text[b] : "+Inf");
		sl_buf_addf(out, " %llu\n", (unsigned long long)cum);
	}
	sl_buf_addf(out, "%s_sum", f->name);
	labels(out, f, s, NULL);
	sl_buf_addf(out, " %.9f\n", (double)atomic_load_explicit(&s->sum_ns, memory_order_relaxed) / 1e9);
	sl_buf_addf(out, "%s_count", f->name);
	labels(out, f, s, NULL);
	/* the +Inf bucket's cumulative count, so that count and buckets agree within one scrape */
	sl_buf_addf(out, " %llu\n", (unsigned long long)cum);
}

void sl_metrics_head(sl_buf *out, const char *name, const char *help, const char *type)
{
	sl_buf_addf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void sl_metrics_sample(sl_buf *out, const char *name, const char *label, const char *value, double v)
{
	sl_buf_adds(out, name);
	if (label) {
		sl_buf_addf(out, "{%s=\"", label);
		label_value(out, value);
		sl_buf_addc(out, '"');
		sl_buf_addc(out, '}');
	}
	if (v == (double)(int64_t)v)
		sl_buf_addf(out, " %lld\n", (long long)v);
	else
		sl_buf_addf(out, " %.9g\n", v);
}

void sl_metrics_write(sl_metrics *m, sl_buf *out)
{
	static const char *const types[] = { "counter", "gauge", "histogram" };
	pthread_mutex_lock(&m->lock);
	sl_metric_family *first = m->first;
	collector *cs = m->collectors;
	pthread_mutex_unlock(&m->lock);
	for (sl_metric_family *f = first; f; f = f->next) {
		size_t n = atomic_load(&f->nseries);
		bool other = atomic_load(&f->other.count) || atomic_load(&f->other.value);
		if (!n && !other && f->nlabels)
			continue; /* a labelled family with no series yet: nothing to say */
		sl_metrics_head(out, f->name, f->help, types[f->type]);
		for (size_t i = 0; i < n; i++)
			write_series(out, f, f->order[i]);
		if (other || (!n && !f->nlabels))
			write_series(out, f, &f->other);
	}
	for (collector *c = cs; c; c = c->next)
		c->fn(c->ctx, out);
}

void sl_metrics_process(void *ctx, sl_buf *out)
{
	(void)ctx;
	long page = sysconf(_SC_PAGESIZE), ticks = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/self/stat", "r");
	if (f) {
		unsigned long long utime = 0, stime = 0, start = 0, vsize = 0;
		long long rss = 0;
		/* fields 14, 15 (utime, stime), 22 (starttime), 23 (vsize), 24 (rss) of proc(5) */
		int got = fscanf(
			f,
			"%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d "
			"%*d %llu %llu %lld",
			&utime, &stime, &start, &vsize, &rss);
		fclose(f);
		if (got == 5 && ticks > 0) {
			struct timespec now, up;
			clock_gettime(CLOCK_REALTIME, &now);
			clock_gettime(CLOCK_BOOTTIME, &up);
			double boot = (double)now.tv_sec - (double)up.tv_sec;
			sl_metrics_head(out, "process_cpu_seconds_total",
					"Total user and system CPU time spent in seconds.", "counter");
			sl_metrics_sample(out, "process_cpu_seconds_total", NULL, NULL,
					  (double)(utime + stime) / (double)ticks);
			sl_metrics_head(out, "process_start_time_seconds",
					"Start time of the process since unix epoch in seconds.", "gauge");
			sl_metrics_sample(out, "process_start_time_seconds", NULL, NULL,
					  (double)(int64_t)(boot + (double)start / (double)ticks));
			sl_metrics_head(out, "process_virtual_memory_bytes", "Virtual memory size in bytes.",
					"gauge");
			sl_metrics_sample(out, "process_virtual_memory_bytes", NULL, NULL, (double)vsize);
			sl_metrics_head(out, "process_resident_memory_bytes",
					"Resident memory size in bytes.", "gauge");
			sl_metrics_sample(out, "process_resident_memory_bytes", NULL, NULL,
					  (double)rss * (double)page);
		}
	}
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		long long fds = -1; /* the directory's own descriptor is not one of ours */
		while (readdir(d))
			fds++;
		closedir(d);
		sl_metrics_head(out, "process_open_fds", "Number of open file descriptors.", "gauge");
		sl_metrics_sample(out, "process_open_fds", NULL, NULL,
				  (double)(fds - 2)); /* minus . and .. */
	}
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		sl_metrics_head(out, "process_max_fds", "Maximum number of open file descriptors.", "gauge");
		sl_metrics_sample(out, "process_max_fds", NULL, NULL, (double)rl.rlim_cur);
	}
}
