#include "util/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "util/limits.h"

struct sl_logger {
	char name[64];
	_Atomic int level, display;
	pthread_mutex_t mu; /* guards writes to file and stderr for this logger */
	FILE *file;
};

/* Registry: slots are filled once, under reg_mu, and never freed; `count` is
 * published with release order so readers may iterate without the lock. */
static sl_logger registry[SL_MAX_LOGGERS];
static _Atomic size_t count;
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_dir[1024];
static int default_level = SL_INFO, default_display = SL_INFO;

static const struct {
	const char *name;
	sl_level v;
} levels[] = {
	{ "VERBO", SL_VERBO }, { "DEBUG", SL_DEBUG }, { "TRACE", SL_TRACE }, { "INFO", SL_INFO },
	{ "WARN", SL_WARN },   { "ERROR", SL_ERROR }, { "FATAL", SL_FATAL }, { "OFF", SL_OFF },
};

const char *sl_level_name(int v)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(levels); i++)
		if (levels[i].v == v)
			return levels[i].name;
	return "UNKNO";
}

bool sl_level_parse(const char *s, size_t n, sl_level *out)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(levels); i++)
		if (strlen(levels[i].name) == n && strncasecmp(levels[i].name, s, n) == 0) {
			*out = levels[i].v;
			return true;
		}
	return false;
}

void sl_log_setup(const char *dir, sl_level log_level, sl_level display_level)
{
	pthread_mutex_lock(&reg_mu);
	snprintf(log_dir, sizeof log_dir, "%s", dir ? dir : "");
	default_level = log_level;
	default_display = display_level;
	pthread_mutex_unlock(&reg_mu);
}

sl_logger *sl_log_find(const char *name)
{
	size_t n = atomic_load_explicit(&count, memory_order_acquire);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(registry[i].name, name))
			return &registry[i];
	return NULL;
}

sl_logger *sl_log_get(const char *name)
{
	sl_logger *l = sl_log_find(name);
	if (l)
		return l;
	pthread_mutex_lock(&reg_mu);
	l = sl_log_find(name);
	size_t n = atomic_load(&count);
	if (!l && n < SL_MAX_LOGGERS && strlen(name) < sizeof l->name) {
		l = &registry[n];
		snprintf(l->name, sizeof l->name, "%s", name);
		atomic_store(&l->level, default_level);
		atomic_store(&l->display, default_display);
		pthread_mutex_init(&l->mu, NULL);
		if (log_dir[0]) {
			char path[1200];
			mkdir(log_dir, 0750);
			snprintf(path, sizeof path, "%s/%s.log", log_dir, name);
			l->file = fopen(path, "a");
		}
		atomic_store_explicit(&count, n + 1, memory_order_release);
	}
	pthread_mutex_unlock(&reg_mu);
	return l;
}

sl_logger *sl_log_at(size_t i)
{
	return i < atomic_load_explicit(&count, memory_order_acquire) ? &registry[i] : NULL;
}

const char *sl_log_name(const sl_logger *l) { return l->name; }
sl_level sl_log_level(const sl_logger *l) { return (sl_level)atomic_load(&l->level); }
sl_level sl_log_display_level(const sl_logger *l) { return (sl_level)atomic_load(&l->display); }
void sl_log_set_level(sl_logger *l, sl_level v) { atomic_store(&l->level, v); }
void sl_log_set_display_level(sl_logger *l, sl_level v) { atomic_store(&l->display, v); }

bool sl_log_enabled(const sl_logger *l, sl_level v)
{
	if (!l || v >= SL_OFF)
		return false;
	return v >= atomic_load_explicit(&l->display, memory_order_relaxed) ||
	       (l->file && v >= atomic_load_explicit(&l->level, memory_order_relaxed));
}

void sl_log(sl_logger *l, sl_level v, const char *fmt, ...)
{
	if (!sl_log_enabled(l, v))
		return;
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	char when[40];
	size_t k = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + k, sizeof when - k, ".%03ldZ", ts.tv_nsec / 1000000);
	pthread_mutex_lock(&l->mu);
	if (v >= atomic_load(&l->display))
		fprintf(stderr, "[%s] %s %s: %s\n", when, sl_level_name(v), l->name, msg);
	if (l->file && v >= atomic_load(&l->level)) {
		fprintf(l->file, "[%s] %s %s\n", when, sl_level_name(v), msg);
		fflush(l->file);
	}
	pthread_mutex_unlock(&l->mu);
}
