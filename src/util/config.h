/*
 * config.h — options from flags, environment and a JSON config file.
 *
 * A command declares its options as a table (name, type, where the value
 * goes, default, help). Values are layered, later winning:
 * default < config file (--config-file, a JSON object keyed by option name)
 * < environment (SNOWLINE_<NAME>, upper case, '-' → '_') < command line.
 *
 * Flags: `--name value` or `--name=value`; a bool flag alone means true.
 * Strings point into argv, the environment, or memory owned by the config
 * (released by sl_config_release), so the destination struct is valid until then.
 */
#ifndef SL_CONFIG_H
#define SL_CONFIG_H

#include "util/common.h"
#include "util/err.h"

/* SL_OPT_DURATION: Go's duration syntax ("30s", "1m30s", "500ms", "1.5h"), stored as milliseconds
 * in a uint64_t (a non-zero value under 1 ms counts as 1 ms); `max` is in ms too. */
typedef enum sl_opt_type { SL_OPT_STR, SL_OPT_U64, SL_OPT_BOOL, SL_OPT_DURATION } sl_opt_type;

typedef struct sl_opt {
	const char *name;
	sl_opt_type type;
	size_t offset;	 /* into the destination struct: const char *, uint64_t (U64, DURATION) or bool */
	const char *def; /* default as text; NULL: none (string NULL, number 0, bool false) */
	uint64_t max;	 /* U64: largest allowed value (0: no limit) */
	const char *help;
} sl_opt;

typedef struct sl_config {
	char **owned; /* strings copied from the config file */
	size_t nowned;
} sl_config;

/*
 * Fill dst from the layers. Unknown flags, bad values and a config file that
 * is not a JSON object are errors (message in err). Positional arguments are
 * not allowed unless `rest` is given: then *rest gets the index of the first.
 */
SL_MUST_USE sl_err sl_config_load(sl_config *cfg, const sl_opt *opts, size_t n, void *dst, int argc,
				  char **argv, int *rest, char err[512]);
void sl_config_release(sl_config *cfg);
void sl_config_usage(FILE *f, const char *usage, const sl_opt *opts, size_t n);

#endif
