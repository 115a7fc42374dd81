/*
 * options.c — option values more than one subcommand takes, parsed one way
 * (wiring.h). Each prints "snowline <cmd>: --<option> must be …, not '…'"
 * and returns false on a bad value; the caller exits with status 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "cmd/wiring.h"

/* The index of s in names[0..n), or n. */
static size_t find(const char *s, const char *const *names, size_t n)
{
	size_t i = 0;
	while (i < n && strcmp(s, names[i]))
		i++;
	return i;
}

bool cmd_compat(const char *cmd, const char *s, sl_compat *out)
{
	static const char *const names[] = { "spec", "upstream" };
	size_t i = find(s, names, SL_ARRAY_LEN(names));
	if (i == SL_ARRAY_LEN(names)) {
		fprintf(stderr, "snowline %s: --compat must be 'spec' or 'upstream', not '%s'\n", cmd, s);
		return false;
	}
	*out = i ? SL_COMPAT_UPSTREAM : SL_COMPAT_SPEC;
	return true;
}

bool cmd_progress(const char *cmd, const char *s, sl_index_progress *out)
{
	/* in the order of sl_index_progress */
	static const char *const names[] = { "auto", "tty", "log", "off" };
	size_t i = find(s, names, SL_ARRAY_LEN(names));
	if (i == SL_ARRAY_LEN(names)) {
		fprintf(stderr, "snowline %s: --progress must be auto, tty, log or off, not '%s'\n", cmd, s);
		return false;
	}
	*out = (sl_index_progress)i;
	return true;
}

bool cmd_level(const char *cmd, const char *option, const char *s, sl_level *out)
{
	if (s && sl_level_parse(s, strlen(s), out))
		return true;
	fprintf(stderr,
		"snowline %s: --%s: unknown log level '%s' (verbo debug trace info warn error fatal off)\n",
		cmd, option, s ? s : "");
	return false;
}

void cmd_store(const char *store, const char *data_dir, bool make_dir, char *out, size_t n)
{
	if (store) {
		snprintf(out, n, "%s", store);
		return;
	}
	char dir[1024];
	if (data_dir)
		snprintf(dir, sizeof dir, "%s", data_dir);
	else
		snprintf(dir, sizeof dir, "%s/.snowline", getenv("HOME") ? getenv("HOME") : ".");
	if (make_dir)
		mkdir(dir, 0750);
	snprintf(out, n, "%s/index.db", dir);
}
