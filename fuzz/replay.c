/*
 * replay.c — runs a libFuzzer target over a corpus without libFuzzer.
 *
 *   build/asan/replay/fuzz_foo DIR_OR_FILE...
 *
 * Linked with one fuzz/fuzz_*.c and the sanitized library by `make test`, so
 * every committed corpus input is re-run under ASan+UBSan on every test run
 * with any compiler (SQLite's fuzzcheck does the same for its corpora).
 * Directories are walked recursively in name order; arguments that start
 * with '-' (libFuzzer flags) are ignored. Each input is copied into a heap
 * block of exactly its size, so reading one byte past the end is an ASan
 * report. Files over REPLAY_MAX_INPUT are skipped (libFuzzer never produces
 * them with its default -max_len).
 *
 * Output: one closing line "replayed N inputs" (with " (no corpus)" when no
 * argument names an existing path), exit 0. A bug found is the sanitizer's
 * report and its non-zero exit; the name of the input being replayed is
 * printed just before it dies.
 */
#include "util/common.h"

#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define REPLAY_MAX_INPUT (4u << 20)
#define REPLAY_MAX_DEPTH 8
#define REPLAY_MAX_PATH 4096

void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static char current[REPLAY_MAX_PATH]; /* the input being run, for the death callback */
static size_t replayed, skipped;

static void on_death(void)
{
	if (current[0])
		fprintf(stderr, "replay: died while running input %s\n", current);
}

static void run_file(const char *path, const struct stat *st)
{
	if (st->st_size < 0 || (uint64_t)st->st_size > REPLAY_MAX_INPUT) {
		skipped++;
		return;
	}
	size_t n = (size_t)st->st_size;
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		skipped++;
		return;
	}
	/* exactly n bytes (malloc(0) may be NULL, so an empty input gets a 1-byte block) */
	uint8_t *data = malloc(n ? n : 1);
	if (!data) {
		fclose(f);
		fprintf(stderr, "replay: %s: out of memory\n", path);
		skipped++;
		return;
	}
	size_t got = n ? fread(data, 1, n, f) : 0;
	fclose(f);
	if (got != n) {
		fprintf(stderr, "replay: %s: short read\n", path);
		free(data);
		skipped++;
		return;
	}
	snprintf(current, sizeof current, "%s", path);
	LLVMFuzzerTestOneInput(data, n);
	current[0] = 0;
	free(data);
	replayed++;
}

static int skip_dots(const struct dirent *e) { return e->d_name[0] != '.'; }

static void run_path(const char *path, int depth)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return;
	if (S_ISREG(st.st_mode)) {
		run_file(path, &st);
		return;
	}
	if (!S_ISDIR(st.st_mode) || depth >= REPLAY_MAX_DEPTH)
		return;
	struct dirent **names = NULL;
	int n = scandir(path, &names, skip_dots, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++) {
		char child[REPLAY_MAX_PATH];
		int len = snprintf(child, sizeof child, "%s/%s", path, names[i]->d_name);
		if (len > 0 && (size_t)len < sizeof child)
			run_path(child, depth + 1);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(on_death);
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);

	bool any = false;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (argv[i][0] == '-')
			continue;
		if (stat(argv[i], &st) != 0)
			continue;
		any = true;
		run_path(argv[i], 0);
	}
	if (skipped)
		printf("skipped %zu inputs (too large or unreadable)\n", skipped);
	printf("replayed %zu inputs%s\n", replayed, any ? "" : " (no corpus)");
	return 0;
}
