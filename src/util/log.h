/*
 * log.h — named, leveled loggers whose levels change at run time.
 *
 * Each logger has two thresholds, as avalanchego's do: `log_level` for its
 * file (<log-dir>/<name>.log) and `display_level` for standard error. Levels
 * and names follow avalanchego (VERBO < DEBUG < TRACE < INFO < WARN < ERROR <
 * FATAL < OFF); logging at FATAL does not exit.
 *
 * The registry is process-wide and fixed-size (SL_MAX_LOGGERS): loggers are
 * created at start-up by cmd/ and never destroyed before exit. Levels are
 * atomics, so reading them on every log call takes no lock; writing a line
 * takes the logger's own lock.
 */
#ifndef SL_LOG_H
#define SL_LOG_H

#include <stdatomic.h>
#include <stdio.h>

#include "util/common.h"
#include "util/err.h"

typedef enum sl_level {
	SL_VERBO = -9,
	SL_DEBUG = -8,
	SL_TRACE = -7,
	SL_INFO = -6,
	SL_WARN = -5,
	SL_ERROR = -4,
	SL_FATAL = -3,
	SL_OFF = -2,
} sl_level;

typedef struct sl_logger sl_logger;

/* Global settings for loggers created after the call; dir NULL = no files. */
void sl_log_setup(const char *dir, sl_level log_level, sl_level display_level);
/* Get or create the logger called name (NULL when the registry is full). */
sl_logger *sl_log_get(const char *name);
/* Look up without creating; NULL if absent. */
sl_logger *sl_log_find(const char *name);
/* Iterate: the i-th logger in creation order, NULL past the end. */
sl_logger *sl_log_at(size_t i);
const char *sl_log_name(const sl_logger *l);

sl_level sl_log_level(const sl_logger *l);
sl_level sl_log_display_level(const sl_logger *l);
void sl_log_set_level(sl_logger *l, sl_level v);
void sl_log_set_display_level(sl_logger *l, sl_level v);

/* "INFO", ... ; "UNKNO" for anything else (avalanchego's spelling). */
const char *sl_level_name(int v);
/* Case-insensitive; false if the name is not a level. */
bool sl_level_parse(const char *s, size_t n, sl_level *out);

bool sl_log_enabled(const sl_logger *l, sl_level v);
void sl_log(sl_logger *l, sl_level v, const char *fmt, ...) SL_PRINTF(3, 4);

#define SL_LOG(l, v, ...)                              \
	do {                                           \
		if (sl_log_enabled((l), (v)))          \
			sl_log((l), (v), __VA_ARGS__); \
	} while (0)

#endif
