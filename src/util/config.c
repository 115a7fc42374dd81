#include "util/config.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <strings.h>

static const sl_opt *find(const sl_opt *opts, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(opts[i].name) == len && !strncmp(opts[i].name, name, len))
			return &opts[i];
	return NULL;
}

/* Go's time.ParseDuration syntax, in ms: [0-9]+(.[0-9]*)?(ns|us|µs|ms|s|m|h), repeated; or "0". */
static bool parse_duration(const char *s, uint64_t *ms)
{
	static const struct {
		const char *name;
		double ms;
	} units[] = { { "ns", 1e-6 }, { "us", 1e-3 }, { "\xc2\xb5s", 1e-3 }, { "ms", 1 },
		      { "s", 1e3 },   { "m", 6e4 },   { "h", 3.6e6 } };
	if (!strcmp(s, "0")) {
		*ms = 0;
		return true;
	}
	double total = 0;
	if (!*s)
		return false;
	while (*s) {
		if (!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1])))
			return false;
		double v = 0, scale = 1;
		size_t digits = 0;
		for (; isdigit((unsigned char)*s) && digits < 20; s++, digits++)
			v = v * 10 + (*s - '0');
		if (*s == '.')
			for (s++; isdigit((unsigned char)*s) && digits < 20; s++, digits++)
				v += (*s - '0') * (scale /= 10);
		if (digits >= 20)
			return false;
		size_t best = 0, blen = 0;
		for (size_t i = 0; i < SL_ARRAY_LEN(units); i++) {
			size_t l = strlen(units[i].name);
			if (!strncmp(s, units[i].name, l) && l > blen) {
				best = i;
				blen = l;
			}
		}
		if (!blen)
			return false;
		total += v * units[best].ms;
		s += blen;
	}
	if (total > 1e15)
		return false;
	*ms = total > 0 && total < 1 ? 1 : (uint64_t)total;
	return true;
}

static sl_err set(const sl_opt *o, void *dst, const char *val, const char *from, char err[512])
{
	char *field = (char *)dst + o->offset;
	switch (o->type) {
	case SL_OPT_STR: *(const char **)field = val; return SL_OK;
	case SL_OPT_BOOL:
		if (!strcasecmp(val, "true") || !strcmp(val, "1"))
			*(bool *)field = true;
		else if (!strcasecmp(val, "false") || !strcmp(val, "0"))
			*(bool *)field = false;
		else {
			snprintf(err, 512, "%s: --%s must be true or false, not '%s'", from, o->name, val);
			return SL_ERR_INVALID;
		}
		return SL_OK;
	case SL_OPT_U64: {
		char *end = NULL;
		errno = 0;
		unsigned long long v = strtoull(val, &end, 10);
		if (!*val || *end || errno || val[0] == '-' || (o->max && v > o->max)) {
			if (o->max)
				snprintf(err, 512, "%s: --%s must be a whole number from 0 to %llu, not '%s'",
					 from, o->name, (unsigned long long)o->max, val);
			else
				snprintf(err, 512, "%s: --%s must be a whole number, not '%s'", from, o->name,
					 val);
			return SL_ERR_INVALID;
		}
		*(uint64_t *)field = v;
		return SL_OK;
	}
	case SL_OPT_DURATION: {
		uint64_t ms;
		if (!parse_duration(val, &ms) || (o->max && ms > o->max)) {
			char most[64] = "";
			if (o->max)
				snprintf(most, sizeof most,
					 o->max % 3600000 ? " (at most %llums)" : " (at most %lluh)",
					 (unsigned long long)(o->max % 3600000 ? o->max : o->max / 3600000));
			snprintf(err, 512, "%s: --%s must be a duration such as 30s, 1m or 500ms%s, not '%s'",
				 from, o->name, most, val);
			return SL_ERR_INVALID;
		}
		*(uint64_t *)field = ms;
		return SL_OK;
	}
	}
	return SL_ERR_INTERNAL;
}

static sl_err load_file(sl_config *cfg, const sl_opt *opts, size_t n, void *dst, const char *path,
			char err[512])
{
	json_error_t je;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		if (je.line > 0) /* a syntax error; otherwise the file could not be read (jansson says why) */
			snprintf(err, 512, "config file %s: %s (line %d, column %d)", path, je.text, je.line,
				 je.column);
		else
			snprintf(err, 512, "config file %s: %s", path, je.text);
		return SL_ERR_INVALID;
	}
	sl_err e = SL_OK;
	if (!json_is_object(root)) {
		snprintf(err, 512, "config file %s: not a JSON object", path);
		e = SL_ERR_INVALID;
		goto out;
	}
	const char *key;
	json_t *v;
	json_object_foreach(root, key, v)
	{
		const sl_opt *o = find(opts, n, key, strlen(key));
		if (!o || !strcmp(key, "config-file")) {
			snprintf(err, 512, "config file %s: unknown option '%s'", path, key);
			e = SL_ERR_INVALID;
			goto out;
		}
		char tmp[64];
		const char *text = tmp;
		if (json_is_string(v))
			text = json_string_value(v);
		else if (json_is_true(v) || json_is_false(v))
			text = json_is_true(v) ? "true" : "false";
		else if (json_is_integer(v))
			snprintf(tmp, sizeof tmp, "%lld", (long long)json_integer_value(v));
		else {
			snprintf(err, 512, "config file %s: option '%s' must be a string, number or bool",
				 path, key);
			e = SL_ERR_INVALID;
			goto out;
		}
		char **grown = realloc(cfg->owned, (cfg->nowned + 1) * sizeof *grown);
		char *copy = strdup(text);
		if (!grown || !copy) {
			free(copy);
			if (grown)
				cfg->owned = grown;
			e = SL_ERR_NOMEM;
			snprintf(err, 512, "out of memory");
			goto out;
		}
		cfg->owned = grown;
		cfg->owned[cfg->nowned++] = copy;
		if ((e = set(o, dst, copy, path, err)))
			goto out;
	}
out:
	json_decref(root);
	return e;
}

sl_err sl_config_load(sl_config *cfg, const sl_opt *opts, size_t n, void *dst, int argc, char **argv,
		      int *rest, char err[512])
{
	*cfg = (sl_config){ 0 };
	sl_err e;
	/* 1. defaults */
	for (size_t i = 0; i < n; i++)
		if (opts[i].def && (e = set(&opts[i], dst, opts[i].def, "default", err)))
			return e;
	/* 2. config file, named by flag or environment */
	const char *file = getenv("SNOWLINE_CONFIG_FILE");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--config-file") && i + 1 < argc)
			file = argv[i + 1];
		else if (!strncmp(argv[i], "--config-file=", 14))
			file = argv[i] + 14;
	}
	if (file && *file && (e = load_file(cfg, opts, n, dst, file, err)))
		return e;
	/* 3. environment */
	for (size_t i = 0; i < n; i++) {
		char env[128] = "SNOWLINE_";
		size_t k = 9;
		for (const char *p = opts[i].name; *p && k < sizeof env - 1; p++)
			env[k++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
		env[k] = 0;
		const char *v = getenv(env);
		if (v && (e = set(&opts[i], dst, v, env, err)))
			return e;
	}
	/* 4. flags */
	if (rest)
		*rest = argc;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--", 2)) {
			if (rest) {
				*rest = i;
				return SL_OK;
			}
			snprintf(err, 512, "unexpected argument '%s'", a);
			return SL_ERR_INVALID;
		}
		const char *name = a + 2, *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		const sl_opt *o = find(opts, n, name, len);
		if (!o) {
			snprintf(err, 512, "unknown option '--%.*s' (see --help)", (int)len, name);
			return SL_ERR_INVALID;
		}
		const char *val = eq ? eq + 1 : NULL;
		if (!val && o->type == SL_OPT_BOOL)
			val = "true";
		if (!val) {
			if (i + 1 >= argc) {
				snprintf(err, 512, "option '--%s' needs a value", o->name);
				return SL_ERR_INVALID;
			}
			val = argv[++i];
		}
		if ((e = set(o, dst, val, "command line", err)))
			return e;
	}
	return SL_OK;
}

void sl_config_release(sl_config *cfg)
{
	for (size_t i = 0; i < cfg->nowned; i++)
		free(cfg->owned[i]);
	free(cfg->owned);
	*cfg = (sl_config){ 0 };
}

void sl_config_usage(FILE *f, const char *usage, const sl_opt *opts, size_t n)
{
	fprintf(f, "%s\n\noptions (also SNOWLINE_<NAME> in the environment, or keys of --config-file):\n",
		usage);
	for (size_t i = 0; i < n; i++) {
		char left[64];
		snprintf(left, sizeof left, "--%s%s", opts[i].name,
			 opts[i].type == SL_OPT_BOOL	   ? "[=bool]"
			 : opts[i].type == SL_OPT_U64	   ? " N"
			 : opts[i].type == SL_OPT_DURATION ? " DURATION"
							   : " VALUE");
		fprintf(f, "  %-30s %s", left, opts[i].help);
		if (opts[i].def)
			fprintf(f, " (default %s)", opts[i].def);
		fputc('\n', f);
	}
}
